// Starts an application: every service (platform mode) or one (distributed
// mode). PostgreSQL (embedded unless DATABASE_URL is set, platform mode only),
// migrations, the Nest application on Fastify, the event transport, listening,
// then start-up bootstrap (with the gateway). The apps, the e2e tests and the
// benchmark all start this way.
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { LogController, type FastifyBaseLogger } from 'fastify';
import type { DestinationStream } from 'pino';
import type { DataSource } from 'typeorm';
import { SERVICE_NAMES, type ServiceName } from '@mm/contracts';
import { recordPartnerRequests, routeToServices, serviceDocuments } from '@mm/gateway/api';
import { GatewayService, RequestLogRecorder, type BootstrapResult } from '@mm/gateway/application';
import { registerTimerMetrics, TimerService } from '@mm/platform/clock';
import type { PlatformConfig } from '@mm/platform/config';
import { drainPool, openDatabase, UnitOfWork } from '@mm/platform/database';
import { EventStore, ReaderLagMetrics } from '@mm/platform/event-store';
import { createEventTransport, eventsTopic, KafkaConsumerLag, KafkaOutages, KafkaRelay } from '@mm/platform/messaging';
import {
  ApiFastifyAdapter,
  capConnections,
  closeConnectionsOnceAnswered,
  configureHttpApp,
  connectionOptions,
  frameworkErrors,
  genRequestId,
  HttpMetrics,
  serveOpenApi,
  StartupState,
  traceRequests,
} from '@mm/platform/http';
import { serveDashboard } from './dashboard';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded-postgres';
import { listenFailure, listenHost, reachableUrl } from './listen-address';
import { kafkaClient, kafkaConsumerSettings, kafkaSettings } from './kafka';
import { createRootLogger, frameworkLevel, PinoNestLogger } from './logger';
import { PlatformModule } from './platform.module';
import { migrationsFor, SERVICES } from './services';

export interface RunningPlatform {
  app: NestFastifyApplication;
  url: string;
  /** The database it runs on (embedded or DATABASE_URL). */
  databaseUrl: string;
  dataSource: DataSource;
  bootstrap?: BootstrapResult;
  embedded?: EmbeddedDatabase;
  stop(): Promise<void>;
}

export interface StartOptions {
  host?: string;
  /** The services this process runs; all of them (platform mode) by default. */
  services?: readonly ServiceName[];
  /** Where log lines go; stdout by default. */
  logDestination?: DestinationStream;
}

export async function startPlatform(config: PlatformConfig, options: StartOptions = {}): Promise<RunningPlatform> {
  const services = options.services ?? SERVICE_NAMES;
  const platformMode = SERVICE_NAMES.every((s) => services.includes(s));
  const logger = createRootLogger(config.MM_LOG_LEVEL, options.logDestination, config.MM_LOG_FORMAT);
  let embedded: EmbeddedDatabase | undefined;
  let url = config.DATABASE_URL;
  if (!url && !platformMode)
    throw new Error(
      `DATABASE_URL is not set: a service run alone (${services.join(', ')}) needs the database of the distributed run`,
    );
  if (!url) {
    logger.info({ dataDir: config.MM_DATA_DIR }, 'starting embedded PostgreSQL');
    embedded = await startEmbeddedPostgres({
      dataDir: config.MM_DATA_DIR,
      database: 'money_movement',
      onNotice: (line) => logger.warn(line),
    });
    url = embedded.url;
  }
  // What has started so far, stopped in reverse if a later step fails (a port in use, a bad migration).
  let dataSource: DataSource | undefined;
  let app: NestFastifyApplication | undefined;
  let bootstrap: BootstrapResult | undefined;
  const relays: KafkaRelay[] = [];
  let consumerLag: KafkaConsumerLag | undefined;
  const host = listenHost(config, options.host);
  // Distributed mode with a broker: events between processes go over Kafka; otherwise over the shared database's logs.
  const kafka = platformMode ? undefined : kafkaSettings(config);
  const stop = async () => {
    // PostgreSQL stops even when closing what runs on it fails: no server is left behind.
    try {
      await app?.close();
      // After the HTTP server: a command that committed while closing is still published.
      for (const relay of relays) await relay.stop();
      await consumerLag?.stop();
      if (dataSource?.isInitialized) {
        await drainPool(dataSource);
        await dataSource.destroy();
      }
    } finally {
      await embedded?.stop();
    }
  };
  try {
    dataSource = await openDatabase({
      url,
      poolMode: config.MM_DATABASE_POOL_MODE,
      directUrl: config.MM_DATABASE_DIRECT_URL,
      migrations: migrationsFor(services),
      applicationName: `money-movement-${platformMode ? 'platform' : services.join('-')}`,
    });
    const adapter = new ApiFastifyAdapter({
      loggerInstance: logger.child({}, { level: frameworkLevel(config.MM_LOG_LEVEL) }),
      // Every request's id (ADR 0026): the caller's X-Request-Id when valid, else a new one.
      genReqId: genRequestId,
      // The access line is ours (traceRequests): one line per request, not Fastify's two.
      logController: new LogController({ disableRequestLogging: true }),
      // No child logger per request (it would cost every request): the request's id reaches every line
      // through the logger's mixin, from the request's async context.
      childLoggerFactory: (parent: FastifyBaseLogger) => parent,
      bodyLimit: config.MM_BODY_LIMIT_BYTES,
      trustProxy: config.MM_TRUST_PROXY === 'true',
      frameworkErrors,
      // Graceful stop: requests in flight finish before the database pool closes; new ones get 503.
      forceCloseConnections: false,
      ...connectionOptions(config),
    });
    capConnections(adapter.getHttpServer(), config);
    closeConnectionsOnceAnswered(adapter.getInstance());
    // Before any route or plugin, so that every response carries the id, refusals included.
    traceRequests(adapter.getInstance(), logger);
    // Where partners come in, every request of theirs goes into their project's request log (docs/request-logs.md).
    let requestLog: RequestLogRecorder | undefined;
    if (services.includes('gateway') && config.MM_REQUEST_LOG === 'true')
      recordPartnerRequests(adapter.getInstance(), () => (requestLog ??= app?.get(RequestLogRecorder)));
    app = await NestFactory.create<NestFastifyApplication>(
      PlatformModule.forRoot(config, dataSource, services),
      adapter,
      {
        logger: new PinoNestLogger(logger),
        bufferLogs: false,
      },
    );
    configureHttpApp(app);
    if (config.MM_HTTP_METRICS === 'true') app.get(HttpMetrics).instrument(app.getHttpAdapter().getInstance());
    // The process's one view of whether the broker answers: an outage is said once, and measured on /metrics.
    const outages = kafka ? new KafkaOutages(logger, app.get(HttpMetrics).registry) : undefined;
    // Through the gateway alone, the reference is the whole API: every service's paths merged in.
    serveOpenApi(app, !platformMode && services.includes('gateway') ? serviceDocuments(config) : undefined);
    // Event handlers (@EventPattern) read the logs they react to: in platform mode every service's
    // log in this database; alone, a service's own log and those of the services it consumes, from
    // their Kafka topics when there is a broker, else from the shared database.
    const uow = app.get(UnitOfWork);
    // (The gateway reacts to no events; in platform mode its API keys reach the others in-process,
    // and its project changes, such as limits, through its log like every other service's.)
    const sources = platformMode
      ? SERVICE_NAMES.map((s) => SERVICES[s].schema)
      : [
          ...new Set(
            services.filter((s) => s !== 'gateway').flatMap((s) => [SERVICES[s].schema, ...SERVICES[s].consumes]),
          ),
        ];
    // One consumer group per service; platform mode keeps the name its checkpoints already have.
    const group = platformMode ? 'accounts' : services.join('-');
    // How far this process's log readers trail their logs, on /metrics (docs/metrics.md): its consumer group on
    // the PostgreSQL log transport, and each relay to Kafka (a Kafka consumer's place is the broker's to tell:
    // KafkaConsumerLag below asks it).
    const readerLag = new ReaderLagMetrics(uow, app.get(HttpMetrics).registry);
    if (sources.length > 0 && !kafka) readerLag.watch(group, sources);
    const timers = app.get(TimerService);
    registerTimerMetrics(uow, app.get(HttpMetrics).registry, () => timers.kinds());
    if (sources.length > 0) {
      const reachability = outages?.client(`money-movement-${group}`);
      app.connectMicroservice(
        {
          strategy:
            kafka && reachability
              ? createEventTransport({
                  mode: 'kafka',
                  uow,
                  group,
                  sources,
                  brokers: kafka.brokers,
                  clientId: `money-movement-${group}`,
                  topicPrefix: kafka.topicPrefix,
                  topic: kafka.topic,
                  kafka: kafkaConsumerSettings(kafka, logger, reachability),
                  reachability,
                })
              : createEventTransport({
                  mode: 'postgres',
                  uow,
                  group,
                  sources: sources.map((schema) => new EventStore(uow, schema)),
                  // NOTIFY wakes it on every commit; polling only covers a lost notification.
                  idlePollMs: 1000,
                  logger: new PinoNestLogger(logger),
                }),
        },
        { inheritAppConfig: false },
      );
    }
    await app.init();
    // Alone, the gateway forwards every other partner path to the service that owns it. After init,
    // so the proxy's routes answer errors with the API's error handler, which init installs.
    if (!platformMode && services.includes('gateway')) await routeToServices(app, config);
    // The dashboard is served where partners reach the API: the one process, or the gateway.
    if (services.includes('gateway')) await serveDashboard(app);
    await app.startAllMicroservices();
    if (kafka && sources.length > 0) {
      const clientId = `money-movement-${group}-lag`;
      consumerLag = new KafkaConsumerLag({
        groupId: `${kafka.topicPrefix}.${group}`,
        topics: sources.map((schema) => eventsTopic(schema, kafka.topicPrefix)),
        kafka: kafkaClient(kafka, clientId, logger, outages?.client(clientId)),
        registry: app.get(HttpMetrics).registry,
      });
    }
    if (kafka) {
      // Each service publishes its own log to its topic, in commit order (the events table is the outbox).
      for (const service of services) {
        const clientId = `money-movement-${service}-relay`;
        const reachability = outages?.client(clientId);
        const relay = new KafkaRelay({
          uow,
          source: new EventStore(uow, SERVICES[service].schema),
          kafka: kafkaClient(kafka, clientId, logger, reachability),
          reachability,
          topicPrefix: kafka.topicPrefix,
          topic: kafka.topic,
          // NOTIFY wakes it on every commit of its log, as the log readers are: polling only covers a lost notification.
          idlePollMs: 1000,
          logger: new PinoNestLogger(logger),
        });
        await relay.start();
        relays.push(relay);
        readerLag.watch(relay.name, [SERVICES[service].schema]);
      }
    }
    app.get(TimerService).start();
    await app.listen({ port: config.PORT, host }).catch((error: unknown) => {
      throw listenFailure(error, host, config.PORT);
    });
    // The last step, once nothing else can fail: a first start that fails (a port in use) must not
    // have made a key pair whose secret it never showed, since the next start would not show it either.
    if (services.includes('gateway')) bootstrap = await app.get(GatewayService).bootstrap();
    app.get(StartupState).markStarted();
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  return {
    app,
    url: reachableUrl(host, port),
    databaseUrl: url,
    dataSource,
    bootstrap,
    embedded,
    stop,
  };
}
