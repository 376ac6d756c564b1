// PATCH /deposit-addresses/{id} (spec: Deposit address; States / Deposit address; API-CONTRACT: Deposit
// addresses; ADR 0030, ADR 0056): re-point the destination (an active bank account of the customer or a
// counterparty), change the payout instruction, the return wallet, the label or the metadata. A new
// destination makes an inactiveActionRequired address active again and releases the deposits held for one,
// each priced to it: those the address held itself when they arrived, and those the transactions service
// held for a destination since.
import { Injectable } from '@nestjs/common';
import {
  AccountsPort,
  ApiError,
  namedExternalAccount,
  requireEndorsement,
  TransactionsPort,
  type DepositAddressDestination,
  type DepositPayoutTarget,
  type PayoutInstruction,
} from '@mm/contracts';
import {
  bankDestination,
  depositAddressDecider,
  depositAddressStreamId,
  depositAddressView,
  paidOn,
  payoutEndorsement,
  payoutInstruction,
  payoutTarget,
  requireDepositAddress,
  returnWallet,
  type DepositAddressChanges,
  type DepositAddressEvent,
  type DepositAddressView,
  type ExistingDepositAddress,
  type PayoutInput,
} from '@mm/deposit-addresses/domain';
import { DepositAddressesReadModel, DepositPrices, type DepositRow } from '@mm/deposit-addresses/infrastructure';
import { ProjectClock } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import { fold } from '@mm/platform/decider';
import { runCommand } from '@mm/platform/event-store';
import { DepositAddressCommands } from './deposit-address.commands';
import { amountText, DepositAddressQueries, usdcRate } from './deposit-address.queries';
import { DepositAddressesEventStore } from './deposit-addresses.event-store';

export interface UpdateDepositAddressRequest {
  destination?: { externalAccountId: string };
  payout?: PayoutInput;
  returnDestination?: { externalAccountId: string } | null;
  label?: string | null;
  metadata?: Record<string, string | null> | null;
}

type Release = { transactionId: string; target: DepositPayoutTarget };

@Injectable()
export class UpdateDepositAddressHandler {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: DepositAddressesEventStore,
    private readonly commands: DepositAddressCommands,
    private readonly queries: DepositAddressQueries,
    private readonly readModel: DepositAddressesReadModel,
    private readonly accounts: AccountsPort,
    private readonly transactions: TransactionsPort,
    private readonly prices: DepositPrices,
    private readonly clock: ProjectClock,
  ) {}

  async update(projectId: string, id: string, patch: UpdateDepositAddressRequest): Promise<DepositAddressView> {
    const row = await this.queries.row(projectId, id);
    const customerId = row.customer_id;
    const payout = patch.payout ? payoutInstruction(patch.payout) : undefined;
    const account = patch.destination
      ? await namedExternalAccount(this.accounts, projectId, patch.destination.externalAccountId, 'destination')
      : undefined;
    const returnAccount = patch.returnDestination
      ? await namedExternalAccount(
          this.accounts,
          projectId,
          patch.returnDestination.externalAccountId,
          'returnDestination',
        )
      : undefined;
    return runCommand(this.uow, async () => {
      // The address's lock before its held deposits are read: a deposit deciding now is seen, or waits.
      const history = await this.store.lockAndReadStream(depositAddressStreamId(id));
      const state = requireDepositAddress(
        fold(depositAddressDecider, history as unknown as DepositAddressEvent[]),
        projectId,
      );
      const at = (await this.clock.now(projectId)).toISOString();
      const changes: DepositAddressChanges = {};
      const effectivePayout: PayoutInstruction = payout ?? state.payout;
      // The destination as it will be paid: the account named, or the current one on a new rail.
      const destination: DepositAddressDestination = account
        ? bankDestination(customerId, account, effectivePayout)
        : paidOn(state.destination, effectivePayout);
      if (account) changes.destination = destination;
      if (
        destination.instrument.asset !== state.destination.instrument.asset ||
        destination.instrument.id !== state.destination.instrument.id
      ) {
        const endorsement = payoutEndorsement(destination);
        requireEndorsement(
          await this.accounts.customer(projectId, customerId),
          endorsement.name,
          endorsement.operation,
        );
      }
      if (payout) changes.payout = payout;
      if (patch.returnDestination === null) changes.returnDestination = null;
      else if (returnAccount)
        changes.returnDestination = returnWallet(
          customerId,
          returnAccount,
          state.record.expectedSourceAsset,
          state.record.expectedSourceNetwork,
        );
      if (patch.label !== undefined) changes.label = patch.label;
      if (patch.metadata !== undefined) changes.metadata = patch.metadata;
      const repointed =
        account !== undefined && (account.id !== state.destination.instrument.id || state.destinationLost);
      const held = repointed ? await this.heldDeposits(projectId, id) : [];
      const releases = repointed ? this.releases(state, destination, effectivePayout, held, at) : [];
      const { state: after } = await this.commands.handle(projectId, id, {
        type: 'UpdateDepositAddress',
        projectId,
        changes,
        releases,
        at,
      });
      await this.readModel.setHeld(
        releases.map((r) => r.transactionId),
        null,
      );
      return depositAddressView(requireDepositAddress(after, projectId));
    });
  }

  /**
   * The address's deposits held for their sender or a destination: those it held itself when they arrived, and
   * those the transactions service held for a destination since (asked of it: it holds them).
   */
  private async heldDeposits(projectId: string, id: string): Promise<DepositRow[]> {
    const deposits = await this.readModel.deposits(id);
    const others = deposits.filter((d) => d.held === null).map((d) => d.transaction_id);
    const theirs = new Set(others.length > 0 ? await this.transactions.heldForDestination(projectId, others) : []);
    return deposits.flatMap((d): DepositRow[] =>
      d.held !== null ? [d] : theirs.has(d.transaction_id) ? [{ ...d, held: 'destination' }] : [],
    );
  }

  /**
   * Each deposit held for a destination, priced to the new one. A deposit still waiting for its sender is
   * priced too, though not released: it will be paid to this destination once attributed, so a
   * destination it cannot be paid to exactly is refused now (InexactConversion), not then.
   */
  private releases(
    state: ExistingDepositAddress,
    destination: DepositAddressDestination,
    payout: PayoutInstruction,
    held: DepositRow[],
    at: string,
  ): Release[] {
    const next: ExistingDepositAddress = { ...state, destination, payout, destinationLost: false };
    const rate = usdcRate(this.prices, destination.instrument.asset);
    const releases: Release[] = [];
    for (const deposit of held) {
      const waiting = deposit.held === 'attribution';
      if (waiting && deposit.attribution_deadline && Date.parse(at) >= new Date(deposit.attribution_deadline).getTime())
        continue;
      let target: DepositPayoutTarget;
      try {
        target = payoutTarget(next, amountText(deposit.amount), rate);
      } catch (error) {
        if (error instanceof ApiError && error.errorName === 'InexactConversion') {
          throw new ApiError(
            'InexactConversion',
            `deposit ${deposit.transaction_id} of ${amountText(deposit.amount)} usdc, held at this address, cannot be paid exactly in ${destination.instrument.asset}: ${error.causeText}`,
          );
        }
        throw error;
      }
      if (!waiting) releases.push({ transactionId: deposit.transaction_id, target });
    }
    return releases;
  }
}
