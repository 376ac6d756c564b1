// POST /transactions (spec: Transaction; rules 2, 4, 5) and its saga (ADR 0019): the quote is accepted
// through the quotes port and the source wallet's money pulled through the accounts port, both idempotent
// on the transaction id (the quote's own), so a retry after a crash finishes what the first attempt began
// and a second transaction for the quote is refused.
import { Injectable } from '@nestjs/common';
import {
  AccountsPort,
  ApiError,
  GatewayPort,
  QuotesPort,
  type AcceptedQuote,
  type TransactionCreated,
} from '@mm/contracts';
import { ProjectClock } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import { ConcurrencyError, runCommand } from '@mm/platform/event-store';
import { isId } from '@mm/platform/ids';
import { dec, toAmount } from '@mm/platform/money';
import {
  capPeriods,
  checkPerTransaction,
  depositLeg,
  limitedFiatLeg,
  needsReview,
  payoutLeg,
  transactionIdForQuote,
  transactionView,
  existingTransaction,
  type TransactionCommand,
  type TransactionView,
} from '@mm/transactions/domain';
import { TransactionLimitsRepository } from '@mm/transactions/infrastructure';
import { TransactionCommands } from './transaction.commands';

type Pulled = Extract<TransactionCommand, { type: 'CreateTransaction' }>['pulled'];

@Injectable()
export class CreateTransactionHandler {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly commands: TransactionCommands,
    private readonly quotes: QuotesPort,
    private readonly accounts: AccountsPort,
    private readonly limits: TransactionLimitsRepository,
    private readonly gateway: GatewayPort,
    private readonly clock: ProjectClock,
  ) {}

  async create(projectId: string, quoteId: string): Promise<TransactionView> {
    if (!isId('quote', quoteId))
      throw new ApiError('InvalidQuoteID', `"${quoteId.slice(0, 64)}" is not a quote id (qt_…)`);
    const transactionId = transactionIdForQuote(quoteId);
    return runCommand(this.uow, async () => {
      const at = (await this.clock.now(projectId)).toISOString();
      const quote = await this.quotes.accept(projectId, { quoteId, transactionId, at });
      try {
        return await this.createAccepted(projectId, transactionId, quote, at);
      } catch (error) {
        // Across processes the acceptance has committed on its own: undo it, so a refused
        // transaction (insufficient funds) leaves its quote open; in one process the rollback
        // already does. A lost race for the same quote is no refusal: the winner keeps it.
        if (error instanceof ApiError && error.errorName !== 'QuoteAlreadyAccepted') {
          await this.quotes.release(projectId, { quoteId, transactionId, at }).catch(() => undefined);
        }
        throw error;
      }
    });
  }

  private async createAccepted(
    projectId: string,
    transactionId: string,
    quote: AcceptedQuote,
    at: string,
  ): Promise<TransactionView> {
    const quoteId = quote.quoteId;
    const customerIds = [
      quote.customerId,
      ...[quote.source.party, quote.destination.party].flatMap((p) => ('customerId' in p ? [p.customerId] : [])),
    ];
    const record: Omit<TransactionCreated, 'status' | 'subStatus' | 'at'> = {
      transactionId,
      projectId,
      customerId: quote.customerId,
      sourceToDestination: quote.sourceToDestination,
      precursor: { type: 'quote', id: quoteId },
      source: quote.source,
      destination: quote.destination,
      pricing: quote.pricing,
      settlementType: quote.settlementType,
      metadata: quote.metadata,
      customerIds: [...new Set(customerIds)],
      customerName: quote.customerName ?? null,
    };
    const full = { ...record, status: 'processing', subStatus: null, at } as TransactionCreated;
    const cardBuy = quote.source.type === 'card';
    await this.checkLimits(projectId, full);
    const pulled = cardBuy ? undefined : await this.pull(projectId, transactionId, quote, at);
    const firstLeg = cardBuy ? depositLeg(full, `${transactionId}.1`) : payoutLeg(full, `${transactionId}.1`);
    const review = needsReview(full) ? 'amount over the compliance review threshold' : undefined;
    try {
      // A quote this request accepted has no transaction: its first events need no answer and travel with the
      // commit (one round trip less). A repeated acceptance appends at once, so that a transaction already made
      // for the quote is refused as QuoteAlreadyAccepted. (Should another request make it in between after all,
      // across processes, the commit fails on the stream's unique version, and the retry is such a repeat.)
      const created = { type: 'CreateTransaction', record, pulled, review, firstLeg, at } as const;
      const { state } = await this.commands.handle(projectId, transactionId, created, {
        newStream: true,
        deferAppend: quote.acceptedNow,
      });
      return transactionView(existingTransaction(state));
    } catch (error) {
      // The quote's transaction exists already (its acceptance and pull answered as repeats): a second is refused.
      if (error instanceof ConcurrencyError)
        throw new ApiError('QuoteAlreadyAccepted', `quote ${quoteId} was accepted by transaction ${transactionId}`);
      throw error;
    }
  }

  /** The quote's source amount, from the source wallet to the transaction (the accounts port). */
  private async pull(projectId: string, transactionId: string, quote: AcceptedQuote, at: string): Promise<Pulled> {
    const walletId = String(quote.source.details.id);
    const amount = quote.pricing.source.amountGross;
    const { postingId } = await this.accounts.pullFunds(projectId, { transactionId, walletId, amount, at });
    return { walletId, postingId, asset: quote.pricing.source.asset, amount };
  }

  /**
   * Project limits on the fiat leg of a source-pinned sell, caps counted in this transaction. Decided on
   * the limits the gateway, which owns them, holds now (its port; from memory in one process): the
   * operator's last PATCH counts from its 200 on, whether it lowered a limit or raised one (ADR 0057).
   * A gateway that cannot be reached refuses the payout (ServiceUnavailable), never lets it through.
   */
  private async checkLimits(projectId: string, record: TransactionCreated): Promise<void> {
    const leg = limitedFiatLeg(record);
    if (!leg) return;
    const { limits } = await this.gateway.project(projectId);
    checkPerTransaction(limits, leg);
    const periods = capPeriods(record.at);
    for (const [period, cap, name] of [
      [periods.day, limits.dailyBankPayoutCap, 'daily'],
      [periods.month, limits.monthlyBankPayoutCap, 'monthly'],
    ] as const) {
      if (!cap) continue;
      const used = await this.limits.use(projectId, period, leg.asset, leg.amount);
      if (dec(used).gt(cap)) {
        throw new ApiError(
          'TransactionLimitExceeded',
          `${leg.amount} ${leg.asset} would take the project's ${name} bank payouts to ${toAmount(used, 18)}, over its cap of ${cap}`,
        );
      }
    }
  }
}
