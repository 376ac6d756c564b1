import { Module } from '@nestjs/common';
import { AuditLogController } from './audit-log.controller';
import { ThrottlerModule } from '@nestjs/throttler';
import { GatewayEventStore, GatewayService, ProjectCommands, RequestLogRecorder } from '@mm/gateway/application';
import {
  AuditLog,
  GatewayReadModels,
  PostgresThrottlerStorage,
  ProjectSettings,
  RequestLogs,
  SecretHasher,
  SigningKeys,
} from '@mm/gateway/infrastructure';
import { GatewayPort } from '@mm/contracts';
import { API_KEY_REGISTRY, SIGNING_KEYSET } from '@mm/platform/auth';
import { PlatformConfig } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';
import { AdminController, ApiKeysController, AuthController, RiskConfigController } from './gateway.controller';
import { GatewayInternalController, GatewayPortAdapter } from './gateway.port';
import { RequestLogsController } from './request-logs.controller';

@Module({
  imports: [
    // Applied only where a route says @UseGuards(ThrottlerGuard): the token endpoint and /risk/config.
    // Counted in PostgreSQL, so the limit holds across gateway replicas (ADR 0013).
    ThrottlerModule.forRootAsync({
      inject: [PlatformConfig, UnitOfWork],
      useFactory: (config: PlatformConfig, uow: UnitOfWork) => ({
        throttlers: [
          { name: 'default', ttl: config.MM_TOKEN_RATE_WINDOW_SECONDS * 1000, limit: config.MM_TOKEN_RATE_LIMIT },
        ],
        storage: new PostgresThrottlerStorage(uow),
      }),
    }),
  ],
  controllers: [
    AuthController,
    RiskConfigController,
    AdminController,
    ApiKeysController,
    GatewayInternalController,
    AuditLogController,
    RequestLogsController,
  ],
  providers: [
    GatewayEventStore,
    GatewayReadModels,
    ProjectSettings,
    SecretHasher,
    SigningKeys,
    ProjectCommands,
    GatewayService,
    GatewayPortAdapter,
    AuditLog,
    RequestLogs,
    RequestLogRecorder,
    { provide: GatewayPort, useExisting: GatewayPortAdapter },
    { provide: SIGNING_KEYSET, useExisting: SigningKeys },
    { provide: API_KEY_REGISTRY, useExisting: GatewayService },
  ],
  exports: [GatewayService, GatewayPort, SIGNING_KEYSET, API_KEY_REGISTRY, RequestLogRecorder],
})
export class GatewayModule {}
