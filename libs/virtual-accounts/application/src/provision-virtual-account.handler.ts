// The bank's answer to a new account (spec: States / Virtual account; ADR 0032): a durable timer, a few
// seconds of project time after creation, asks it to open the account; it turns active with its bank
// details, or failed.
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { virtualAccountDecider, virtualAccountStreamId, type VirtualAccountEvent } from '@mm/virtual-accounts/domain';
import { VirtualAccountBank } from '@mm/virtual-accounts/infrastructure';
import { ProjectClock, TimerService, type DueTimer } from '@mm/platform/clock';
import { fold } from '@mm/platform/decider';
import { VirtualAccountCommands } from './virtual-account.commands';
import { VirtualAccountsEventStore } from './virtual-accounts.event-store';

/** The bank's answer to an opening request (key: the account id). */
export const PROVISIONING_TIMER = 'virtualAccount.provisioning';

@Injectable()
export class ProvisionVirtualAccountHandler implements OnModuleInit {
  constructor(
    private readonly store: VirtualAccountsEventStore,
    private readonly commands: VirtualAccountCommands,
    private readonly bank: VirtualAccountBank,
    private readonly clock: ProjectClock,
    private readonly timers: TimerService,
  ) {}

  onModuleInit(): void {
    this.timers.on(PROVISIONING_TIMER, (timer) => this.onProvisioning(timer));
  }

  private async onProvisioning(timer: DueTimer): Promise<void> {
    const id = String(timer.payload.virtualAccountId);
    const state = fold(
      virtualAccountDecider,
      (await this.store.readStream(virtualAccountStreamId(id))) as unknown as VirtualAccountEvent[],
    );
    if (state.status !== 'pending') return;
    const outcome = await this.bank.open({
      virtualAccountId: id,
      projectId: timer.projectId,
      holderName: state.record.customerName,
      label: state.label,
    });
    const at = (await this.clock.now(timer.projectId)).toISOString();
    await this.commands.handle(timer.projectId, id, {
      type: 'CompleteProvisioning',
      projectId: timer.projectId,
      outcome,
      at,
    });
  }
}
