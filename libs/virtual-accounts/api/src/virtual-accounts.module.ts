import { Module } from '@nestjs/common';
import { VIRTUAL_ACCOUNT_APPLICATION } from '@mm/virtual-accounts/application';
import {
  SandboxVirtualAccountBank,
  SandboxVirtualAccountPrices,
  VirtualAccountBank,
  VirtualAccountPrices,
  VirtualAccountsReadModel,
} from '@mm/virtual-accounts/infrastructure';
import {
  SandboxVirtualAccountsController,
  VirtualAccountsController,
  VirtualAccountsEventsController,
} from './virtual-accounts.controller';

@Module({
  controllers: [VirtualAccountsController, SandboxVirtualAccountsController, VirtualAccountsEventsController],
  providers: [
    VirtualAccountsReadModel,
    // The sandbox simulates the bank partner and prices dollars as quotes do; production binds real adapters here.
    { provide: VirtualAccountBank, useClass: SandboxVirtualAccountBank },
    { provide: VirtualAccountPrices, useClass: SandboxVirtualAccountPrices },
    ...VIRTUAL_ACCOUNT_APPLICATION,
  ],
})
export class VirtualAccountsModule {}
