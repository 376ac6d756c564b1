// Platform mode: every service module in one process (ARCHITECTURE: One
// codebase, two ways to run it).
import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD, DiscoveryModule } from '@nestjs/core';
import type { DataSource } from 'typeorm';
import { AccountsModule } from '@mm/accounts/api';
import { GatewayModule } from '@mm/gateway/api';
import { ApiAuthGuard, RevocationFeed, TokenVerifier } from '@mm/platform/auth';
import { SandboxClockController } from '@mm/platform/clock';
import type { PlatformConfig } from '@mm/platform/config';
import { HealthController, HttpMetrics, IdempotencyCoverage, MetricsController } from '@mm/platform/http';
import { CoreModule } from './core.module';

@Module({})
export class PlatformModule {
  static forRoot(config: PlatformConfig, dataSource: DataSource): DynamicModule {
    return {
      module: PlatformModule,
      imports: [CoreModule.forRoot(config, dataSource), DiscoveryModule, GatewayModule, AccountsModule],
      controllers: [HealthController, MetricsController, SandboxClockController],
      providers: [
        TokenVerifier,
        RevocationFeed,
        // One registry per application: two platforms in one process (tests) do not share counters.
        HttpMetrics,
        { provide: APP_GUARD, useClass: ApiAuthGuard },
        // IdempotencyInterceptor is applied per route by @Idempotent() (POST and PATCH only); this checks it is everywhere it must be.
        IdempotencyCoverage,
      ],
    };
  }
}
