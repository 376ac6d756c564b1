// Accepting a quote for one transaction, and releasing it when that transaction was refused after all (the
// quotes port, ADR 0019; spec: States / Quote). The acceptance checks again that the external accounts the
// quote names are still usable, and a cash pickup's limits count from its transaction on.
import { Injectable } from '@nestjs/common';
import {
  AccountsPort,
  ApiError,
  sideExternalAccountId,
  type AcceptedQuote,
  type AcceptQuoteRequest,
  type QuoteRecord,
} from '@mm/contracts';
import { requireUsableAtAcceptance, type AccountStanding } from '@mm/quoting/domain';
import { UnitOfWork } from '@mm/platform/database';
import { runCommand } from '@mm/platform/event-store';
import { isId } from '@mm/platform/ids';
import { CashPickupsService } from './cash-pickups.service';
import { QuoteCommands } from './quote.commands';
import { QuotesMadeHere, type QuoteSource } from './quotes-made-here';

/**
 * What a caller in this process reads with the acceptance (the reads of its next step), given the quote's
 * source. Called at most once, inside the caller's database transaction, when what it queues at once travels
 * in a round trip the acceptance makes anyway, after the quote's lock: with the quote's history read, for a
 * quote this process made; else, for a quote accepted now, with the checks of its external accounts (but for
 * a cash pickup, whose limits are decided first).
 */
export type ReadsAlongside = (source: QuoteSource) => void;

@Injectable()
export class AcceptQuoteHandler {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly commands: QuoteCommands,
    private readonly accounts: AccountsPort,
    private readonly cashPickups: CashPickupsService,
    private readonly madeHere: QuotesMadeHere,
  ) {}

  /**
   * The quotes port: accepts an open quote for one transaction (idempotent for that transaction). `alongside`
   * is the in-process port's (ADR 0054).
   */
  async accept(projectId: string, request: AcceptQuoteRequest, alongside?: ReadsAlongside): Promise<AcceptedQuote> {
    if (!isId('quote', request.quoteId))
      throw new ApiError('InvalidQuoteID', `"${String(request.quoteId).slice(0, 64)}" is not a quote id (qt_…)`);
    // Joining the caller's transaction (one process), for a quote made here: its accounts' checks, and what the
    // caller reads next, go with its history read.
    const joined = this.uow.inTransaction;
    const known = joined ? this.madeHere.get(projectId, request.quoteId) : undefined;
    return runCommand(this.uow, async () => {
      let asked: Map<string, Promise<AccountStanding>> | undefined;
      const sendAhead = known
        ? () => {
            asked = new Map(known.accountIds.map((id) => [id, this.standing(projectId, id)]));
            // Asked for nothing should the acceptance be a repeat or refused.
            for (const standing of asked.values()) standing.catch(() => undefined);
            alongside?.(known.source);
          }
        : undefined;
      const decision = await this.commands.handle(
        projectId,
        request.quoteId,
        { type: 'AcceptQuote', projectId, transactionId: request.transactionId, at: request.at },
        { alongsideRead: sendAhead },
      );
      if (decision.state.status === 'none') throw new ApiError('QuoteNotFound');
      const q = decision.state.quote;
      const cashPickup = q.sourceToDestination === 'cryptoToCash' && decision.events.length > 0;
      // Accepted now (not a repeat for the same transaction): the external accounts the quote names must
      // still be usable, or the acceptance rolls back with nothing moved and the quote stays open. Asked with
      // the history read for a quote made here, they are answered with it; asked now for another, the
      // caller's reads travel with them.
      if (decision.events.length > 0) {
        const checks = this.requireUsableAccounts(projectId, q, asked);
        if (joined && !known && !cashPickup) alongside?.(q.source);
        await checks;
      }
      // A cash pickup's limits decide, authoritatively, and the pickup counts from this transaction on.
      if (cashPickup) await this.cashPickups.accept(q, request.transactionId, request.at);
      return {
        quoteId: q.quoteId,
        customerId: q.customerId,
        sourceToDestination: q.sourceToDestination,
        source: q.source,
        destination: q.destination,
        pricing: q.pricing,
        settlementType: q.settlementType,
        metadata: q.metadata,
        customerName: q.customerName ?? null,
        acceptedNow: decision.events.length > 0,
      };
    });
  }

  /** The quotes port: the transaction that accepted the quote was refused after all; open again until it expires. */
  async release(projectId: string, request: AcceptQuoteRequest): Promise<void> {
    await runCommand(this.uow, async () => {
      const decision = await this.commands.handle(projectId, request.quoteId, {
        type: 'ReleaseQuote',
        projectId,
        transactionId: request.transactionId,
        at: request.at,
      });
      // The transaction was never made, so a cash pickup never counted.
      if (
        decision.events.length > 0 &&
        decision.state.status !== 'none' &&
        decision.state.quote.sourceToDestination === 'cryptoToCash'
      ) {
        await this.cashPickups.release(projectId, request.quoteId);
      }
    });
  }

  /**
   * An account may be invalidated or deleted between the quote and its acceptance (issue 17): asked again now,
   * in this transaction (`sentAhead`: asked with the quote's history read).
   */
  private async requireUsableAccounts(
    projectId: string,
    quote: QuoteRecord,
    sentAhead?: Map<string, Promise<AccountStanding>>,
  ): Promise<void> {
    // Both sides asked at once (one round trip), judged source first.
    const asked = (['source', 'destination'] as const).flatMap((side) => {
      const id = sideExternalAccountId(quote[side]);
      if (!id) return [];
      return [{ side, id, standing: sentAhead?.get(id) ?? this.standing(projectId, id) }];
    });
    const standings = await Promise.allSettled(asked.map((a) => a.standing));
    asked.forEach(({ side, id }, i) => {
      const answer = standings[i];
      if (answer.status === 'rejected') throw answer.reason;
      requireUsableAtAcceptance(side, id, answer.value);
    });
  }

  private standing(projectId: string, externalAccountId: string): Promise<AccountStanding> {
    return this.accounts.externalAccount(projectId, externalAccountId).catch((error: unknown) => {
      // The quote resolved it when it was made: not found now means deleted since.
      if (error instanceof ApiError && error.errorName === 'ExternalAccountNotFound') return 'deleted' as const;
      throw error;
    });
  }
}
