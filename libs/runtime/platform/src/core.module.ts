import { Global, Module, type DynamicModule } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PlatformConfig } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';
import { ProjectClock, TimerService } from '@mm/platform/clock';
import { VerifiedTokens } from '@mm/platform/auth';
import { ChainNetworks } from '@mm/platform/chain';

/** What every service module may inject: configuration, the database, time, verified tokens, the chains. */
@Global()
@Module({})
export class CoreModule {
  static forRoot(config: PlatformConfig, dataSource: DataSource): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: PlatformConfig, useValue: config },
        { provide: DataSource, useValue: dataSource },
        { provide: UnitOfWork, useValue: new UnitOfWork(dataSource) },
        ProjectClock,
        TimerService,
        { provide: VerifiedTokens, useValue: new VerifiedTokens() },
        ChainNetworks,
      ],
      exports: [PlatformConfig, DataSource, UnitOfWork, ProjectClock, TimerService, VerifiedTokens, ChainNetworks],
    };
  }
}
