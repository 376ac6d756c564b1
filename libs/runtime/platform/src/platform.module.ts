// The application of one process: every service module in platform mode, one in
// distributed mode (ARCHITECTURE: One codebase, two ways to run it).
import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR, DiscoveryModule } from '@nestjs/core';
import type { DataSource } from 'typeorm';
import type { ServiceName } from '@mm/contracts';
import {
  API_KEY_REGISTRY,
  ApiAuthGuard,
  ApiKeyDirectory,
  ApiKeyEventsController,
  BearerAuthenticator,
  OperatorAuthenticator,
  DirectRequestKeyCheck,
  JwksKeyset,
  RevocationFeed,
  SIGNING_KEYSET,
  TokenVerifier,
} from '@mm/platform/auth';
import { SandboxClockController } from '@mm/platform/clock';
import type { PlatformConfig } from '@mm/platform/config';
import {
  API_BASE_PATH,
  HealthController,
  IdempotencyCoverage,
  OperatorAuditInterceptor,
  MetricsController,
  StartupState,
} from '@mm/platform/http';
import { CoreModule } from './core.module';
import { PortsModule } from './ports.module';
import { ReadModelsController } from './read-models.controller';
import { SERVICES } from './services';

@Module({})
export class PlatformModule {
  static forRoot(
    config: PlatformConfig,
    dataSource: DataSource,
    services: readonly ServiceName[] = Object.keys(SERVICES) as ServiceName[],
  ): DynamicModule {
    const withGateway = services.includes('gateway');
    // Without the gateway in the process, tokens are verified against its JWKS, and API keys are known from
    // its events; a request that did not come through the gateway also asks it whether the key is active.
    const standaloneAuth: Provider[] = withGateway
      ? []
      : [
          {
            provide: SIGNING_KEYSET,
            useFactory: () => new JwksKeyset(`${requireGatewayUrl(config)}/${API_BASE_PATH}/.well-known/jwks.json`),
          },
          { provide: API_KEY_REGISTRY, useClass: ApiKeyDirectory },
          DirectRequestKeyCheck,
        ];
    return {
      module: PlatformModule,
      imports: [
        CoreModule.forRoot(config, dataSource, services),
        DiscoveryModule,
        PortsModule.forServices(services),
        ...services.map((s) => SERVICES[s].module),
      ],
      controllers: [
        HealthController,
        MetricsController,
        ReadModelsController,
        // The sandbox clock goes with the service that stamps times (the gateway routes it there).
        ...(services.includes('accounts') ? [SandboxClockController] : []),
        ...(withGateway ? [] : [ApiKeyEventsController]),
      ],
      providers: [
        ...standaloneAuth,
        TokenVerifier,
        BearerAuthenticator,
        OperatorAuthenticator,
        RevocationFeed,
        StartupState,
        { provide: APP_GUARD, useClass: ApiAuthGuard },
        // Every operator action into the audit log, outside each route's own interceptors (docs/operators.md).
        { provide: APP_INTERCEPTOR, useClass: OperatorAuditInterceptor },
        // IdempotencyInterceptor is applied per route by @Idempotent() (POST and PATCH only); this checks it is everywhere it must be.
        IdempotencyCoverage,
      ],
    };
  }
}

function requireGatewayUrl(config: PlatformConfig): string {
  if (!config.MM_GATEWAY_URL)
    throw new Error(
      'MM_GATEWAY_URL is not set: a service running without the gateway verifies tokens against its JWKS',
    );
  return config.MM_GATEWAY_URL.replace(/\/+$/, '');
}
