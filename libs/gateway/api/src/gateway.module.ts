import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { GatewayEventStore, GatewayService, ProjectCommands } from '@mm/gateway/application';
import {
  GatewayReadModels,
  PostgresThrottlerStorage,
  ProjectSettings,
  SecretHasher,
  SigningKeys,
} from '@mm/gateway/infrastructure';
import { GatewayPort } from '@mm/contracts';
import { API_KEY_REGISTRY, SIGNING_KEYSET } from '@mm/platform/auth';
import { PlatformConfig } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';
import { AdminController, AuthController, RiskConfigController } from './gateway.controller';
import { GatewayInternalController, GatewayPortAdapter } from './gateway.port';

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
  controllers: [AuthController, RiskConfigController, AdminController, GatewayInternalController],
  providers: [
    GatewayEventStore,
    GatewayReadModels,
    ProjectSettings,
    SecretHasher,
    SigningKeys,
    ProjectCommands,
    GatewayService,
    GatewayPortAdapter,
    { provide: GatewayPort, useExisting: GatewayPortAdapter },
    { provide: SIGNING_KEYSET, useExisting: SigningKeys },
    { provide: API_KEY_REGISTRY, useExisting: GatewayService },
  ],
  exports: [GatewayService, GatewayPort, SIGNING_KEYSET, API_KEY_REGISTRY],
})
export class GatewayModule {}
