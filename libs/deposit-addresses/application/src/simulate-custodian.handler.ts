// Sandbox: the custodian locks, unlocks or closes an address (spec: States / Deposit address; docs/sandbox.md):
// frozen and closed addresses send deposits back to their sender; unfrozen, an address is active again
// (inactiveActionRequired if its destination was lost meanwhile).
import { Injectable } from '@nestjs/common';
import { depositAddressView, requireDepositAddress, type DepositAddressView } from '@mm/deposit-addresses/domain';
import { ProjectClock } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import { runCommand } from '@mm/platform/event-store';
import { DepositAddressCommands } from './deposit-address.commands';
import { DepositAddressQueries } from './deposit-address.queries';

export type Simulation = 'freeze' | 'unfreeze' | 'close';

const COMMANDS = {
  freeze: 'FreezeDepositAddress',
  unfreeze: 'UnfreezeDepositAddress',
  close: 'CloseDepositAddress',
} as const;

@Injectable()
export class SimulateCustodianHandler {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly commands: DepositAddressCommands,
    private readonly queries: DepositAddressQueries,
    private readonly clock: ProjectClock,
  ) {}

  async simulate(projectId: string, id: string, simulation: Simulation): Promise<DepositAddressView> {
    await this.queries.row(projectId, id);
    const type = COMMANDS[simulation];
    return runCommand(this.uow, async () => {
      const at = (await this.clock.now(projectId)).toISOString();
      const { state } = await this.commands.handle(projectId, id, { type, projectId, at });
      return depositAddressView(requireDepositAddress(state, projectId));
    });
  }
}
