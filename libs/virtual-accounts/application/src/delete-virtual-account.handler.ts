// DELETE /virtual-accounts/{id} (spec: States / Virtual account; ADR 0032). Under the account's stream lock:
// refused (409 VirtualAccountNotEmpty) while a deposit's transaction is unfinished, else `deleting` with the
// sweeper scheduled in the same transaction. Then the bank is asked to close the account: it takes the
// request (202, the account `deleting`), or cannot now (the status before is restored; 503 with
// Retry-After). A delete already in flight or done answers the account as it is. The bank's answer, or the
// sweeper, ends it (finish-deletion.handler.ts).
import { Injectable, Logger } from '@nestjs/common';
import { ApiError, TransactionsPort } from '@mm/contracts';
import {
  requireVirtualAccount,
  virtualAccountDecider,
  virtualAccountStreamId,
  virtualAccountView,
  type VirtualAccountEvent,
  type VirtualAccountView,
} from '@mm/virtual-accounts/domain';
import {
  CLOSE_RETRY_AFTER_SECONDS,
  VirtualAccountBank,
  VirtualAccountsReadModel,
} from '@mm/virtual-accounts/infrastructure';
import { ProjectClock } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import { fold } from '@mm/platform/decider';
import { runCommand } from '@mm/platform/event-store';
import { FinishDeletionHandler } from './finish-deletion.handler';
import { VirtualAccountCommands } from './virtual-account.commands';
import { VirtualAccountQueries } from './virtual-account.queries';
import { VirtualAccountsEventStore } from './virtual-accounts.event-store';

@Injectable()
export class DeleteVirtualAccountHandler {
  private readonly logger = new Logger('virtual-accounts');

  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: VirtualAccountsEventStore,
    private readonly commands: VirtualAccountCommands,
    private readonly queries: VirtualAccountQueries,
    private readonly readModel: VirtualAccountsReadModel,
    private readonly transactions: TransactionsPort,
    private readonly bank: VirtualAccountBank,
    private readonly deletions: FinishDeletionHandler,
    private readonly clock: ProjectClock,
  ) {}

  async delete(projectId: string, id: string): Promise<VirtualAccountView> {
    await this.queries.row(projectId, id);
    const requested = await runCommand(this.uow, async () => {
      const history = await this.store.lockAndReadStream(virtualAccountStreamId(id));
      const current = requireVirtualAccount(
        fold(virtualAccountDecider, history as unknown as VirtualAccountEvent[]),
        projectId,
      );
      if (current.status === 'deleting' || current.status === 'deleted')
        return { view: virtualAccountView(current), label: current.label, asked: false };
      const at = (await this.clock.now(projectId)).toISOString();
      // Counted here or seeing `deleting`: a transfer takes the same lock before it is recorded.
      const deposits = await this.readModel.depositTransactionIds(id);
      const unfinished = deposits.length > 0 ? await this.transactions.unfinishedTransactions(projectId, deposits) : [];
      if (unfinished.length > 0) {
        const shown = unfinished.slice(0, 10).join(', ');
        throw new ApiError(
          'VirtualAccountNotEmpty',
          `virtual account ${id} has ${unfinished.length} deposit transaction(s) still moving money (${shown}${unfinished.length > 10 ? ', …' : ''}): delete it once they end`,
        );
      }
      const { state } = await this.commands.handle(projectId, id, { type: 'RequestDeletion', projectId, at });
      await this.deletions.scheduleSweep(projectId, id, at);
      return { view: virtualAccountView(requireVirtualAccount(state, projectId)), label: current.label, asked: true };
    });
    if (!requested.asked) return requested.view;
    let answer: 'accepted' | 'unavailable';
    try {
      answer = await this.bank.requestClose(projectId, id, requested.label);
    } catch (error) {
      // The request is recorded and the sweeper is due: it asks the bank again.
      this.logger.warn(
        `virtual account ${id}: the bank was not reached with its close (${error instanceof Error ? error.message : String(error)}); the delete sweeper asks again`,
      );
      return requested.view;
    }
    if (answer === 'accepted') return requested.view;
    const restored = await runCommand(this.uow, async () => {
      const at = (await this.clock.now(projectId)).toISOString();
      return (
        await this.commands.handle(projectId, id, {
          type: 'RestoreAfterDeletion',
          projectId,
          reason: 'the bank cannot close the account now',
          at,
        })
      ).state.status;
    });
    throw new ApiError(
      'VirtualAccountCloseUnavailable',
      `the bank cannot close virtual account ${id} now; it is ${restored} again: DELETE again after ${CLOSE_RETRY_AFTER_SECONDS} seconds`,
      { 'retry-after': String(CLOSE_RETRY_AFTER_SECONDS) },
    );
  }
}
