import { Module, type OnModuleInit } from '@nestjs/common';
import { ReadModels } from '@mm/platform/event-store';
import {
  DEPOSIT_ADDRESS_APPLICATION,
  DepositAddressCommands,
  DepositAddressesEventStore,
} from '@mm/deposit-addresses/application';
import {
  ChainDepositAddressCustodian,
  DepositAddressCustodian,
  DepositAddressCustody,
  DepositAddressesReadModel,
  DepositPrices,
  SandboxDepositPrices,
} from '@mm/deposit-addresses/infrastructure';
import {
  DepositAddressesController,
  DepositAddressesEventsController,
  SandboxDepositAddressesController,
} from './deposit-addresses.controller';

@Module({
  controllers: [DepositAddressesController, SandboxDepositAddressesController, DepositAddressesEventsController],
  providers: [
    DepositAddressesReadModel,
    // The custodian derives addresses on a network on a chain and simulates the rest; usdc is priced as quotes
    // price it (a simulator in production too, until a price feed is bound here).
    DepositAddressCustody,
    { provide: DepositAddressCustodian, useClass: ChainDepositAddressCustodian },
    { provide: DepositPrices, useClass: SandboxDepositPrices },
    ...DEPOSIT_ADDRESS_APPLICATION,
  ],
})
export class DepositAddressesModule implements OnModuleInit {
  constructor(
    private readonly readModels: ReadModels,
    private readonly log: DepositAddressesEventStore,
    private readonly commands: DepositAddressCommands,
  ) {}

  /** Its read models, for a rebuild from its log (docs/kubernetes.md, Rebuilding a read model). */
  onModuleInit(): void {
    this.readModels.register({ service: 'deposit-addresses', store: this.log, readModels: this.commands.readModels });
  }
}
