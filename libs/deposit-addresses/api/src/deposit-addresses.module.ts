import { Module } from '@nestjs/common';
import { DEPOSIT_ADDRESS_APPLICATION } from '@mm/deposit-addresses/application';
import {
  DepositAddressCustodian,
  DepositAddressesReadModel,
  DepositPrices,
  SandboxDepositAddressCustodian,
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
    // The sandbox simulates the custodian and prices usdc as quotes do; production binds real adapters here.
    { provide: DepositAddressCustodian, useClass: SandboxDepositAddressCustodian },
    { provide: DepositPrices, useClass: SandboxDepositPrices },
    ...DEPOSIT_ADDRESS_APPLICATION,
  ],
})
export class DepositAddressesModule {}
