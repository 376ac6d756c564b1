import { Module } from '@nestjs/common';
import { DEPOSIT_ADDRESS_APPLICATION } from '@mm/deposit-addresses/application';
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
export class DepositAddressesModule {}
