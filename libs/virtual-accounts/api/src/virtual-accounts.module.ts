import { Module, type OnModuleInit } from '@nestjs/common';
import { ReadModels } from '@mm/platform/event-store';
import {
  VIRTUAL_ACCOUNT_APPLICATION,
  VirtualAccountCommands,
  VirtualAccountsEventStore,
} from '@mm/virtual-accounts/application';
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
export class VirtualAccountsModule implements OnModuleInit {
  constructor(
    private readonly readModels: ReadModels,
    private readonly log: VirtualAccountsEventStore,
    private readonly commands: VirtualAccountCommands,
  ) {}

  /** Its read models, for a rebuild from its log (docs/kubernetes.md, Rebuilding a read model). */
  onModuleInit(): void {
    this.readModels.register({ service: 'virtual-accounts', store: this.log, readModels: this.commands.readModels });
  }
}
