// A deposit's holds (spec: States / Transaction, holds; Deposit address; ADR 0056): the sender attributed or
// the attribution deadline passed, and a destination given to deposits that wait for one.
import { Injectable, type OnModuleInit } from '@nestjs/common';
import {
  sideExternalAccountId,
  type DepositPayoutTarget,
  type EventPayloads,
  type VirtualAccountTarget,
} from '@mm/contracts';
import { ProjectClock } from '@mm/platform/clock';
import type { RecordedEvent } from '@mm/platform/event-store';
import {
  destinationMissing,
  existingTransaction,
  nextLegId,
  refundLeg,
  releaseNext,
  withTarget,
} from '@mm/transactions/domain';
import { LegAccountChecks } from './leg-account-checks';
import { MadeTransactions } from './made-transactions';
import { TransactionCommands } from './transaction.commands';
import { ATTRIBUTION_TIMER, TransactionTimerService, type DueTransactionTimer } from './transaction.timers';

@Injectable()
export class HoldsHandler implements OnModuleInit {
  constructor(
    private readonly commands: TransactionCommands,
    private readonly made: MadeTransactions,
    private readonly accounts: LegAccountChecks,
    private readonly clock: ProjectClock,
    private readonly timers: TransactionTimerService,
  ) {}

  onModuleInit(): void {
    this.timers.register(ATTRIBUTION_TIMER, (timer) => this.onAttributionTimeout(timer));
  }

  /** The held deposit's sender was registered: the hold is cleared and the payout goes on (or waits for a destination). */
  async onSenderAttributed(
    event: RecordedEvent<'depositAddress.senderAttributed', EventPayloads['depositAddress.senderAttributed']>,
  ): Promise<void> {
    const d = event.data;
    if (!(await this.made.exists(d.transactionId))) return;
    // The payout starts now, to the address's destination as it is: one gone already (the address may not have
    // heard yet) holds the deposit for a destination instead.
    const target = withTarget((await this.commands.load(d.transactionId)).record, d.target);
    const gone = d.destinationMissing
      ? undefined
      : (await this.accounts.unusable(d.projectId, target, { kind: 'payout' }, 'start'))?.account.id;
    await this.commands.handle(d.projectId, d.transactionId, (current) => {
      const state = existingTransaction(current);
      const record = withTarget(state.record, d.target);
      const waits = d.destinationMissing || gone !== undefined;
      const next = waits
        ? destinationMissing('depositAddress', gone ?? sideExternalAccountId(record.destination))
        : releaseNext(state, record, nextLegId(state));
      return {
        type: 'ReleaseHold',
        code: 'senderAttribution',
        sender: { party: d.sender, externalAccountId: d.externalAccountId },
        target: d.target,
        next,
        at: d.at,
      };
    });
    await this.timers.cancel(ATTRIBUTION_TIMER, d.transactionId);
  }

  /**
   * The attribution deadline passed with the sender unregistered: the crypto goes back, failed.attributionTimeout;
   * or, when its return wallet was invalidated or deleted, it is held for an operator.
   */
  private async onAttributionTimeout({
    projectId,
    payload: { transactionId },
  }: DueTransactionTimer<typeof ATTRIBUTION_TIMER>): Promise<void> {
    const at = (await this.clock.now(projectId)).toISOString();
    const { record } = await this.commands.load(transactionId);
    const refused = (await this.accounts.unusable(projectId, record, { kind: 'refund' }, 'start'))?.failure;
    await this.commands.handle(projectId, transactionId, (current) => {
      const state = existingTransaction(current);
      return {
        type: 'ExpireAttribution',
        refundLeg: refundLeg(state.record, nextLegId(state)),
        refundRefused: refused,
        at,
      };
    });
  }

  /** The address has a usable destination again: every deposit held for one pays out to it. */
  async onDestinationRestored(
    event: RecordedEvent<'depositAddress.destinationRestored', EventPayloads['depositAddress.destinationRestored']>,
  ): Promise<void> {
    for (const release of event.data.releases)
      await this.releaseToDestination(event.data.projectId, release.transactionId, release.target, event.data.at);
  }

  /** The virtual account has a new destination, or had one already when a deposit was held (ADR 0056): the held deposits pay out to it. */
  async onVirtualAccountDestinationRestored(
    event: RecordedEvent<'virtualAccount.destinationRestored', EventPayloads['virtualAccount.destinationRestored']>,
  ): Promise<void> {
    for (const release of event.data.releases)
      await this.releaseToDestination(event.data.projectId, release.transactionId, release.target, event.data.at);
  }

  /**
   * Releases a deposit held for a destination to this one; the payout starts (after review, if it calls for one it
   * has not had). A destination already gone when the release comes (checked now, before the stream's lock) releases
   * nothing: the deposit waits on, for the next destination its origin is given. A deposit not held (any more)
   * is left alone by the decider.
   */
  private async releaseToDestination(
    projectId: string,
    transactionId: string,
    target: DepositPayoutTarget | VirtualAccountTarget,
    at: string,
  ): Promise<void> {
    if (!(await this.made.exists(transactionId))) return;
    const { record } = await this.commands.load(transactionId);
    if (await this.accounts.unusable(projectId, withTarget(record, target), { kind: 'payout' }, 'start')) return;
    await this.commands.handle(projectId, transactionId, (current) => {
      const state = existingTransaction(current);
      return {
        type: 'ReleaseHold',
        code: 'payoutDestinationMissing',
        target,
        next: releaseNext(state, withTarget(state.record, target), nextLegId(state)),
        at,
      };
    });
  }
}
