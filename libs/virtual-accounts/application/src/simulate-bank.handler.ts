// Sandbox: the bank freezes, unfreezes or closes a virtual account (spec: States / Virtual account;
// docs/sandbox.md, "Virtual accounts"): a frozen or closed account sends transfers back to their sender.
import { Injectable } from '@nestjs/common';
import { requireVirtualAccount, virtualAccountView, type VirtualAccountView } from '@mm/virtual-accounts/domain';
import { ProjectClock } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import { runCommand } from '@mm/platform/event-store';
import { VirtualAccountCommands } from './virtual-account.commands';
import { VirtualAccountQueries } from './virtual-account.queries';

export type Simulation = 'freeze' | 'unfreeze' | 'close';

const COMMANDS = {
  freeze: 'FreezeVirtualAccount',
  unfreeze: 'UnfreezeVirtualAccount',
  close: 'CloseVirtualAccount',
} as const;

@Injectable()
export class SimulateBankHandler {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly commands: VirtualAccountCommands,
    private readonly queries: VirtualAccountQueries,
    private readonly clock: ProjectClock,
  ) {}

  async simulate(projectId: string, id: string, simulation: Simulation): Promise<VirtualAccountView> {
    await this.queries.row(projectId, id);
    const type = COMMANDS[simulation];
    return runCommand(this.uow, async () => {
      const at = (await this.clock.now(projectId)).toISOString();
      const { state } = await this.commands.handle(projectId, id, { type, projectId, at });
      return virtualAccountView(requireVirtualAccount(state, projectId));
    });
  }
}
