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
 */
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <poll.h>
#include <signal.h>
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
};

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

        printf("%s\n", rd_kafka_mock_cluster_bootstraps(mcluster));
        fflush(stdout);

        /* The parent's death closes stdin: the broker never outlives its test run. */
        struct pollfd in = {.fd = STDIN_FILENO, .events = POLLIN};
        char buf[256];
        while (!stop) {
                int n = poll(&in, 1, 500);
                if (n > 0 && read(STDIN_FILENO, buf, sizeof(buf)) <= 0)
                        break;
        }
        rd_kafka_mock_cluster_destroy(mcluster);
        rd_kafka_destroy(rk);
        return 0;
}
