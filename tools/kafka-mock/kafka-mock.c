/*
 * A Kafka broker for the tests: librdkafka's mock cluster (a real Kafka
 * protocol implementation, in Debian's librdkafka-dev), so the Kafka suites run
 * where there is neither Docker nor a Kafka distribution.
 *
 *   kafka-mock [topic[:partitions] ...]
 *
 * Prints the bootstrap servers (127.0.0.1:<port>) on one line of stdout, then
 * serves until stdin closes, SIGTERM or SIGINT. The mock has no CreateTopics:
 * the topics named here exist from the start, and any other topic is created
 * (4 partitions) the first time a client asks for its metadata with auto
 * creation allowed, as kafkajs' producer and consumer do.
 *
 * It keeps every message, as a stock broker's defaults do for the length of a
 * test run (log.retention.bytes -1, seven days), where the mock as built keeps
 * 5 MB of each partition and drops the oldest: a consumer group further behind
 * than that finds its offset gone, and kafkajs resumes it from the oldest kept,
 * past events it never saw (a thirty-minute fault run did).
 */
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

/*
 * The head of librdkafka's private struct rd_kafka_mock_cluster_s, the same
 * from 1.x to 2.x. The 2.0 mock never sets its controller id, so Metadata
 * names broker 0, which does not exist, and kafkajs cannot reach the
 * controller that an idempotent producer's InitProducerId goes to. Each field
 * is checked against what the public API says before the id is set.
 */
struct mock_cluster_head {
        char id[32];
        rd_kafka_t *rk;
        int32_t controller_id;
        struct { void *first; void **last; } brokers;
        int broker_cnt;
        struct { struct mock_topic *first; struct mock_topic **last; } topics;
        int topic_cnt;
};

/*
 * librdkafka 2.0's private struct rd_kafka_mock_partition_s and
 * rd_kafka_mock_topic_s (rdkafka_mock_int.h), as far as the retention limits:
 * a topic's partitions are an array of them. Each partition is checked against
 * what is known of it (its index, its topic, the limits the mock sets) before
 * its limits are lifted.
 */
struct mock_topic;
struct mock_partition {
        struct { struct mock_partition *next; struct mock_partition **prev; } leader_link;
        int32_t id;
        int64_t start_offset, end_offset, follower_start_offset, follower_end_offset;
        uint8_t update_follower_start_offset, update_follower_end_offset;
        struct { void *first; void **last; } msgsets;
        size_t size, cnt, max_size, max_cnt;
        struct { void *first; void **last; } committed_offsets;
        void *leader;
        void **replicas;
        int replica_cnt;
        struct {
                int rl_size, rl_cnt;
                void **rl_elems;
                void (*rl_free_cb)(void *);
                int rl_flags, rl_elemsize;
                void *rl_p;
        } pidstates;
        int32_t follower_id;
        struct mock_topic *topic;
};

struct mock_topic {
        struct { struct mock_topic *next; struct mock_topic **prev; } link;
        char *name;
        struct mock_partition *partitions;
        int partition_cnt;
        int err;
        void *cluster;
};

/* What rd_kafka_mock_partition_init sets: 5 MB or 100,000 message sets. */
#define MOCK_MAX_SIZE ((size_t)5 * 1024 * 1024)
#define MOCK_MAX_CNT ((size_t)100000)

/*
 * Lifts the retention limits of every partition of every topic (each new topic's
 * once it appears: the caller repeats this), and prints `retained <topic>` on
 * stdout for each topic it lifted. The mock's thread appends a topic to the
 * list only once it is whole, and never removes one.
 */
static int retain_everything(rd_kafka_mock_cluster_t *mcluster) {
        struct mock_cluster_head *head = (struct mock_cluster_head *)mcluster;
        for (struct mock_topic *t = head->topics.first; t; t = t->link.next) {
                int lifted = 0;
                if (t->cluster != (void *)mcluster)
                        return -1;
                for (int i = 0; i < t->partition_cnt; i++) {
                        struct mock_partition *p = &t->partitions[i];
                        if (p->id != i || p->topic != t)
                                return -1;
                        if (p->max_size == SIZE_MAX && p->max_cnt == SIZE_MAX)
                                continue;
                        if (p->max_size != MOCK_MAX_SIZE || p->max_cnt != MOCK_MAX_CNT)
                                return -1;
                        p->max_size = p->max_cnt = SIZE_MAX;
                        lifted = 1;
                }
                if (lifted)
                        printf("retained %s\n", t->name);
        }
        fflush(stdout);
        return 0;
}

static int set_controller(rd_kafka_mock_cluster_t *mcluster, int32_t broker_id) {
        struct mock_cluster_head *head = (struct mock_cluster_head *)mcluster;
        if (strncmp(head->id, "mockCluster", 11) != 0 ||
            head->rk != rd_kafka_mock_cluster_handle(mcluster))
                return -1;
        if (head->controller_id < 1)
                head->controller_id = broker_id;
        return 0;
}

static void on_signal(int sig) {
        (void)sig;
        stop = 1;
}

int main(int argc, char **argv) {
        char errstr[512];
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        /* Quiet about the missing bootstrap.servers of this broker-less handle. */
        rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof(errstr));
        /* The handle only hosts the cluster; it never connects anywhere. */
        rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
        if (!rk) {
                fprintf(stderr, "kafka-mock: %s\n", errstr);
                return 1;
        }
        /* One broker: replication factor 1, so acks=all needs no follower. */
        rd_kafka_mock_cluster_t *mcluster = rd_kafka_mock_cluster_new(rk, 1);
        if (!mcluster) {
                fprintf(stderr, "kafka-mock: could not create the mock cluster\n");
                return 1;
        }
        if (set_controller(mcluster, 1)) {
                fprintf(stderr, "kafka-mock: this librdkafka's mock cluster has an unknown layout\n");
                return 1;
        }
        for (int i = 1; i < argc; i++) {
                char *name = argv[i];
                char *colon = strrchr(name, ':');
                int partitions = 4;
                if (colon) {
                        *colon = '\0';
                        partitions = atoi(colon + 1);
                }
                if (partitions < 1 || !*name ||
                    rd_kafka_mock_topic_create(mcluster, name, partitions, 1)) {
                        fprintf(stderr, "kafka-mock: cannot create topic %s\n", argv[i]);
                        return 1;
                }
        }

        struct sigaction sa = {0};
        sa.sa_handler = on_signal;
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        signal(SIGPIPE, SIG_IGN);

        /* The address first: the topics named here are lifted in the loop's first round, reported after it. */
        printf("%s\n", rd_kafka_mock_cluster_bootstraps(mcluster));
        fflush(stdout);

        /* The parent's death closes stdin: the broker never outlives its test run. */
        struct pollfd in = {.fd = STDIN_FILENO, .events = POLLIN};
        char buf[256];
        /* Rounds in a row that found a topic of an unknown layout. The mock's thread may be
         * creating a topic as this one reads the list (nothing locks it from here): only a
         * layout still unknown a second later is one this program does not know. */
        int unknown = 0;
        while (!stop) {
                int n = poll(&in, 1, 50);
                if (n > 0 && read(STDIN_FILENO, buf, sizeof(buf)) <= 0)
                        break;
                /* Topics created since: long before any of them holds 5 MB. */
                if (!retain_everything(mcluster)) {
                        unknown = 0;
                } else if (++unknown == 20) {
                        fprintf(stderr, "kafka-mock: a mock topic has an unknown layout; stopping rather than dropping messages\n");
                        break;
                }
        }
        rd_kafka_mock_cluster_destroy(mcluster);
        rd_kafka_destroy(rk);
        return 0;
}
