import { Global, Module, type DynamicModule } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PlatformConfig } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';
import { ProjectClock, TimerService } from '@mm/platform/clock';
import { VerifiedTokens } from '@mm/platform/auth';
import { ChainNetworks } from '@mm/platform/chain';
import { HttpMetrics } from '@mm/platform/http';
import { ReadModels } from '@mm/platform/event-store';

/**
 * What every service module may inject: configuration, the database, time, verified tokens, the chains, and the
 * application's metrics registry (one per application: two platforms in one process do not share counters), and the
 * registry of the read models its services can rebuild.
 */
@Global()
@Module({})
export class CoreModule {
  static forRoot(config: PlatformConfig, dataSource: DataSource, services: readonly string[]): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: PlatformConfig, useValue: config },
        { provide: DataSource, useValue: dataSource },
        { provide: UnitOfWork, useValue: new UnitOfWork(dataSource) },
        ProjectClock,
        TimerService,
        { provide: VerifiedTokens, useValue: new VerifiedTokens() },
        HttpMetrics,
        { provide: ReadModels, useValue: new ReadModels(services) },
        {
          provide: ChainNetworks,
          useFactory: (uow: UnitOfWork, metrics: HttpMetrics) => new ChainNetworks(config, uow, metrics.registry),
          inject: [UnitOfWork, HttpMetrics],
        },
      ],
      exports: [
        PlatformConfig,
        DataSource,
        UnitOfWork,
        ProjectClock,
        TimerService,
        VerifiedTokens,
        ChainNetworks,
        HttpMetrics,
        ReadModels,
      ],
    };
  }
}
