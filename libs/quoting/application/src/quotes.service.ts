// Quotes (spec: Quote, Pricing, States / Quote; API-CONTRACT: Quotes). A quote
// resolves its instruments through the accounts port, locks its pricing, and
// expires on its project's clock (read as expired from expiresAt on) unless one
// transaction accepts it first.
import { Injectable } from '@nestjs/common';
import {
  AccountsPort,
  ApiError,
  requireAmount,
  requireEndorsement,
  type CustomerView,
  type QuoteRecord,
  requireCustomerId,
} from '@mm/contracts';
import {
  buildSides,
  planQuote,
  price,
  quoteEndorsement,
  type QuoteInput,
  type ResolvedInstruments,
} from '@mm/quoting/domain';
import { PriceProvider, QuotesReadModel, type QuoteRow } from '@mm/quoting/infrastructure';
import { ProjectClock } from '@mm/platform/clock';
import { PlatformConfig } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';
import { runCommand } from '@mm/platform/event-store';
import { isId, newId } from '@mm/platform/ids';
import { CashPickupsService } from './cash-pickups.service';
import { QuoteCommands } from './quote.commands';
import { QuotesMadeHere } from './quotes-made-here';

export interface CreateQuoteInput extends QuoteInput {
  sponsorGas?: boolean;
  metadata?: Record<string, string>;
}

@Injectable()
export class QuotesService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly commands: QuoteCommands,
    private readonly quotes: QuotesReadModel,
    private readonly accounts: AccountsPort,
    private readonly prices: PriceProvider,
    private readonly clock: ProjectClock,
    private readonly config: PlatformConfig,
    private readonly cashPickups: CashPickupsService,
    private readonly madeHere: QuotesMadeHere,
  ) {}

  async require(projectId: string, id: string): Promise<QuoteRow> {
    if (!isId('quote', id)) throw new ApiError('InvalidQuoteID', `"${id.slice(0, 64)}" is not a quote id (qt_…)`);
    const row = await this.quotes.get(projectId, id);
    if (!row) throw new ApiError('QuoteNotFound');
    // Expiry is a matter of the project's clock: an open quote past expiresAt reads as expired.
    if (row.status === 'open' && (await this.clock.now(projectId)).getTime() >= new Date(row.expires_at).getTime()) {
      return { ...row, status: 'expired', updated_at: row.expires_at };
    }
    return row;
  }

  async create(projectId: string, input: CreateQuoteInput): Promise<QuoteRow> {
    const plan = planQuote(input);
    requireCustomerId(input.customerId);
    if (plan.cashLocation) await this.cashPickups.requireEnabled(projectId);
    const wallet = (id: string | undefined) => (id ? this.accounts.wallet(projectId, id) : undefined);
    const account = (id: string | undefined) => (id ? this.accounts.externalAccount(projectId, id) : undefined);
    // Every lookup at once (one round trip in one process, calls side by side across processes), the
    // customer's too unless a source wallet of theirs may prove they exist and nothing fiat or cash needs
    // their endorsements; their refusals are then taken in the order they would have come one by one.
    const [sourceWallet, sourceCard, buyWallet, destinationWallet, destinationAccount, cashLocation, asked] =
      await Promise.allSettled([
        wallet(plan.sourceWalletId),
        account(plan.sourceCardId),
        wallet(plan.buyWalletId),
        wallet(plan.destinationWalletId),
        account(plan.destinationAccountId),
        plan.cashLocation ? this.cashPickups.location(plan.cashLocation.id, plan.cashLocation.reference) : undefined,
        mayNeedCustomer(plan) ? this.accounts.customer(projectId, input.customerId) : undefined,
      ]);
    const customerLookup = (): Promise<CustomerView> =>
      asked.status === 'fulfilled' && asked.value === undefined
        ? this.accounts.customer(projectId, input.customerId)
        : Promise.resolve(settledValue(asked)!);
    const resolved: ResolvedInstruments = {
      sourceWallet: settledValue(sourceWallet),
      sourceCard: settledValue(sourceCard),
      buyWallet: settledValue(buyWallet),
      destinationWallet: settledValue(destinationWallet),
      destinationAccount: settledValue(destinationAccount),
      cashLocation: settledValue(cashLocation),
    };
    // A source the customer owns proves the customer exists; otherwise the customer's lookup decides (404 for an unknown one).
    const owner = resolved.sourceWallet?.customerId ?? resolved.sourceCard?.customerId;
    const customer = owner !== input.customerId ? await customerLookup() : undefined;
    const sides = buildSides(input, plan, resolved);
    const fixedAmountSide = input.source.amount !== undefined ? 'source' : 'destination';
    const amount = fixedAmountSide === 'source' ? input.source.amount! : input.destination.amount!;
    // The side's asset is known only now: the request's validation checked all but its decimal places (ADR 0023).
    requireAmount(amount, `${fixedAmountSide}.amount`, {
      asset: fixedAmountSide === 'source' ? sides.sourceAsset : sides.destinationAsset,
    });
    const rate = this.prices.rate(sides.sourceAsset, sides.destinationAsset);
    if (!rate)
      throw new ApiError('UnsupportedCorridor', `no price for ${sides.sourceAsset} to ${sides.destinationAsset}`);
    // A fiat or cash side needs its currency's endorsement, as the accounts service has it now (docs/endorsements.md):
    // once the request is valid, before its amount is priced and held to limits.
    const endorsement = quoteEndorsement(sides);
    const holder = endorsement ? (customer ?? (await customerLookup())) : customer;
    if (endorsement) requireEndorsement(holder!, endorsement.name, endorsement.operation);
    // Who a fiat payout comes from (its transaction's payoutOrigin): the customer, by name, as the accounts
    // service has it now; an account of the customer's own names them too.
    const ownAccount = [resolved.sourceCard, resolved.destinationAccount].find(
      (a) => a?.customerId === input.customerId && a.counterpartyId === null,
    );
    const customerName = holder?.name ?? ownAccount?.customerName ?? null;
    const sponsorGas = input.sponsorGas ?? true;
    const pricing = price({
      sourceAsset: sides.sourceAsset,
      destinationAsset: sides.destinationAsset,
      amount,
      fixedAmountSide,
      sponsorGas,
      rate,
    });
    if (resolved.cashLocation) {
      // The cash is the destination amount, whichever side was fixed (spec: Limits / Cash pickup).
      await this.cashPickups.checkAtCreate(
        projectId,
        input.customerId,
        pricing.destination.amountGross,
        resolved.cashLocation.state,
        await this.clock.now(projectId),
      );
    }
    return runCommand(this.uow, async () => {
      const now = await this.clock.now(projectId);
      const quoteId = newId('quote');
      const quote: QuoteRecord = {
        quoteId,
        projectId,
        customerId: input.customerId,
        sourceToDestination: sides.sourceToDestination,
        source: sides.source,
        destination: sides.destination,
        sponsorGas,
        settlementType: plan.settlementType,
        pricing,
        metadata: input.metadata ?? {},
        expiresAt: new Date(now.getTime() + this.config.MM_QUOTE_TTL_SECONDS * 1000).toISOString(),
        createdAt: now.toISOString(),
        customerName,
      };
      // A new quote's events need no answer from the database: they travel with the quote's row.
      const { row } = await this.commands.handle(
        projectId,
        quoteId,
        { type: 'CreateQuote', quote },
        { newStream: true },
      );
      await this.uow.afterCommit(async () => this.madeHere.remember(quote));
      return row!;
    });
  }
}

/**
 * Whether the quote may need the customer's record: anything but a wallet-funded crypto quote (whose
 * source wallet names its owner, and which needs no fiat endorsement).
 */
function mayNeedCustomer(plan: ReturnType<typeof planQuote>): boolean {
  return !plan.sourceWalletId || Boolean(plan.sourceCardId || plan.destinationAccountId || plan.cashLocation);
}

/** A lookup's value, or its refusal thrown. */
function settledValue<T>(result: PromiseSettledResult<T>): T {
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}
