// The custodian's answer to a new address (spec: States / Deposit address; ADR 0030): a durable timer, a few
// seconds of project time after creation, asks it; the address turns active with its on-chain address (or
// inactiveActionRequired, its destination lost meanwhile), or failed.
import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { DepositAddressCreated } from '@mm/contracts';
import { depositAddressStreamId } from '@mm/deposit-addresses/domain';
import { DepositAddressCustodian } from '@mm/deposit-addresses/infrastructure';
import { ProjectClock, TimerService, type DueTimer } from '@mm/platform/clock';
import { DepositAddressCommands } from './deposit-address.commands';
import { DepositAddressesEventStore } from './deposit-addresses.event-store';

/** The custodian's answer to a provisioning request (key: the address id). */
export const PROVISIONING_TIMER = 'depositAddress.provisioning';

@Injectable()
export class ProvisionDepositAddressHandler implements OnModuleInit {
  constructor(
    private readonly store: DepositAddressesEventStore,
    private readonly commands: DepositAddressCommands,
    private readonly custodian: DepositAddressCustodian,
    private readonly clock: ProjectClock,
    private readonly timers: TimerService,
  ) {}

  onModuleInit(): void {
    this.timers.on(PROVISIONING_TIMER, (timer) => this.onProvisioning(timer));
  }

  private async onProvisioning(timer: DueTimer): Promise<void> {
    const id = String(timer.payload.depositAddressId);
    const [first] = await this.store.readStream(depositAddressStreamId(id));
    if (!first) return;
    const record = first.data as DepositAddressCreated;
    const outcome = await this.custodian.provision({
      depositAddressId: id,
      asset: record.expectedSourceAsset,
      network: record.expectedSourceNetwork,
      label: record.label,
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
