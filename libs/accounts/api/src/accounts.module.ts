import { Module, type OnModuleInit } from '@nestjs/common';
import { ReadModels } from '@mm/platform/event-store';
import {
  AccountsEventStore,
  AccountsPartnerEvents,
  AccountsPartnerViews,
  CardExpiry,
  CounterpartiesService,
  CounterpartyCommands,
  CustomerCommands,
  CustomersService,
  EndorsementReviewer,
  ExternalAccountCommands,
  ExternalAccountProvisioner,
  ExternalAccountsService,
  TransactionLedgerCommands,
  TransactionLedgerService,
  ChainReconciliation,
  ChainReconciliationWorker,
  WalletChainDeposits,
  WalletCommands,
  WalletsService,
} from '@mm/accounts/application';
import {
  AccountsReadModels,
  ChainCustodian,
  CustodianProvider,
  ExternalAccountsReadModels,
  InstrumentProvider,
  KycProvider,
  SandboxInstrumentProvider,
  SandboxKyc,
  SandboxScreening,
  ScreeningProvider,
} from '@mm/accounts/infrastructure';
import { AccountsPort } from '@mm/contracts';
import { AccountsApiPartnerViews } from './accounts-partner-views';
import { AccountsInternalController, AccountsPortAdapter } from './accounts.port';
import { ChainsAdminController, ReconciliationAdminController } from './chains-admin.controller';
import { CustomersAdminController } from './customers-admin.controller';
import {
  AccountsEventsController,
  CustomersController,
  SandboxWalletsController,
  WalletsController,
} from './accounts.controller';
import {
  CounterpartiesController,
  ExternalAccountsController,
  SandboxExternalAccountsController,
} from './external-accounts.controller';

@Module({
  controllers: [
    CustomersController,
    WalletsController,
    SandboxWalletsController,
    ExternalAccountsController,
    SandboxExternalAccountsController,
    CounterpartiesController,
    AccountsEventsController,
    AccountsInternalController,
    ChainsAdminController,
    CustomersAdminController,
    ReconciliationAdminController,
  ],
  providers: [
    AccountsEventStore,
    AccountsReadModels,
    AccountsPartnerEvents,
    { provide: AccountsPartnerViews, useClass: AccountsApiPartnerViews },
    CustomerCommands,
    CustomersService,
    WalletCommands,
    WalletsService,
    WalletChainDeposits,
    ChainReconciliation,
    ChainReconciliationWorker,
    EndorsementReviewer,
    ExternalAccountsReadModels,
    ExternalAccountCommands,
    ExternalAccountsService,
    CounterpartyCommands,
    CounterpartiesService,
    ExternalAccountProvisioner,
    CardExpiry,
    AccountsPortAdapter,
    TransactionLedgerCommands,
    TransactionLedgerService,
    { provide: AccountsPort, useExisting: AccountsPortAdapter },
    // The sandbox simulates the custodian, the KYC reviewer, the instrument provider (card processor
    // and bank vault) and payout screening; production binds real adapters here.
    { provide: CustodianProvider, useClass: ChainCustodian },
    { provide: KycProvider, useClass: SandboxKyc },
    { provide: InstrumentProvider, useClass: SandboxInstrumentProvider },
    { provide: ScreeningProvider, useClass: SandboxScreening },
  ],
  // WalletsService: in one process the quotes port reads a pull's wallet with the quote's acceptance (ADR 0054).
  exports: [AccountsEventStore, CustomersService, WalletsService, AccountsPort],
})
export class AccountsModule implements OnModuleInit {
  constructor(
    private readonly readModels: ReadModels,
    private readonly log: AccountsEventStore,
    private readonly commands: CustomerCommands,
  ) {}

  /** Its read models, for a rebuild from its log (docs/kubernetes.md, Rebuilding a read model). */
  onModuleInit(): void {
    this.readModels.register({ service: 'accounts', store: this.log, readModels: this.commands.readModels });
  }
}
