import { Module } from '@nestjs/common';
import { AccountsEventStore, CustomersService, EndorsementReviewer, WalletsService } from '@mm/accounts/application';
import { AccountsReadModels, CustodianProvider, KycProvider, SandboxCustodian, SandboxKyc } from '@mm/accounts/infrastructure';
import { AccountsEventsController, CustomersController, SandboxWalletsController, WalletsController } from './accounts.controllers';

@Module({
  controllers: [CustomersController, WalletsController, SandboxWalletsController, AccountsEventsController],
  providers: [
    AccountsEventStore,
    AccountsReadModels,
    CustomersService,
    WalletsService,
    EndorsementReviewer,
    // The sandbox simulates the custodian and the KYC reviewer; production binds real adapters here.
    { provide: CustodianProvider, useClass: SandboxCustodian },
    { provide: KycProvider, useClass: SandboxKyc },
  ],
  exports: [AccountsEventStore, CustomersService],
})
export class AccountsModule {}
