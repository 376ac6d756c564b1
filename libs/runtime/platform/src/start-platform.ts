// Starts platform mode: PostgreSQL (embedded unless DATABASE_URL is set),
// migrations, the Nest application on Fastify, start-up bootstrap, listening.
// main.ts, the e2e tests and the benchmark all start the platform this way.
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { LogController, type FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';
import type { DataSource } from 'typeorm';
import { AccountsEventStore } from '@mm/accounts/application';
import { GatewayService, type BootstrapResult } from '@mm/gateway/application';
import { TimerService } from '@mm/platform/clock';
import type { PlatformConfig } from '@mm/platform/config';
import { drainPool, openDatabase, startEmbeddedPostgres, UnitOfWork, type EmbeddedDatabase } from '@mm/platform/database';
import { createEventTransport } from '@mm/platform/messaging';
import { ApiFastifyAdapter, capConnections, configureHttpApp, connectionOptions, frameworkErrors, HttpMetrics, serveOpenApi } from '@mm/platform/http';
import { listenFailure, listenHost, reachableUrl } from './listen-address';
import { createRootLogger, PinoNestLogger } from './logger';
import { platformMigrations } from './migrations';
import { PlatformModule } from './platform.module';

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

export async function startPlatform(config: PlatformConfig, options: { host?: string } = {}): Promise<RunningPlatform> {
  const logger = createRootLogger(config.MM_LOG_LEVEL);
  let embedded: EmbeddedDatabase | undefined;
  let url = config.DATABASE_URL;
  if (!url) {
    logger.info({ dataDir: config.MM_DATA_DIR }, 'starting embedded PostgreSQL');
    embedded = await startEmbeddedPostgres({ dataDir: config.MM_DATA_DIR, database: 'money_movement', onNotice: (line) => logger.warn(line) });
    url = embedded.url;
  }
  // What has started so far, stopped in reverse if a later step fails (a port in use, a bad migration).
  let dataSource: DataSource | undefined;
  let app: NestFastifyApplication | undefined;
  let bootstrap: BootstrapResult | undefined;
  const host = listenHost(config, options.host);
  const stop = async () => {
    // PostgreSQL stops even when closing what runs on it fails: no server is left behind.
    try {
      await app?.close();
      if (dataSource?.isInitialized) {
        await drainPool(dataSource);
        await dataSource.destroy();
      }
    } finally {
      await embedded?.stop();
    }
  };
  try {
    dataSource = await openDatabase({ url, migrations: platformMigrations });
    const requestLogging = config.MM_LOG_LEVEL === 'debug' || config.MM_LOG_LEVEL === 'trace';
    const adapter = new ApiFastifyAdapter({
      loggerInstance: logger,
      // Access logs only when debugging: they are one line per request.
      logController: new LogController({ disableRequestLogging: !requestLogging }),
      // A child logger per request costs every request; without request logging the root one serves.
      childLoggerFactory: (parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) => (requestLogging ? parent.child(bindings, options) : parent),
      bodyLimit: config.MM_BODY_LIMIT_BYTES,
      trustProxy: config.MM_TRUST_PROXY === 'true',
      frameworkErrors,
      // Graceful stop: requests in flight finish before the database pool closes; new ones get 503.
      forceCloseConnections: false,
      ...connectionOptions(config),
    });
    capConnections(adapter.getHttpServer(), config);
    app = await NestFactory.create<NestFastifyApplication>(PlatformModule.forRoot(config, dataSource), adapter, {
      logger: new PinoNestLogger(logger),
      bufferLogs: false,
    });
    configureHttpApp(app);
    if (config.MM_HTTP_METRICS === 'true') app.get(HttpMetrics).instrument(app.getHttpAdapter().getInstance());
    serveOpenApi(app);
    // Event handlers (@EventPattern) read the services' logs through the PostgreSQL log transport.
    app.connectMicroservice(
      {
        strategy: createEventTransport({
          mode: 'postgres',
          uow: app.get(UnitOfWork),
          group: 'accounts',
          sources: [app.get(AccountsEventStore)],
          // NOTIFY wakes it on every commit; polling only covers a lost notification.
          idlePollMs: 1000,
          logger: new PinoNestLogger(logger),
        }),
      },
      { inheritAppConfig: false },
    );
    await app.init();
    bootstrap = await app.get(GatewayService).bootstrap();
    await app.startAllMicroservices();
    app.get(TimerService).start();
    await app.listen({ port: config.PORT, host }).catch((error: unknown) => {
      throw listenFailure(error, host, config.PORT);
    });
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
