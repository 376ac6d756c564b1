// Cash pickup in the quoting service (spec: rule 8; Limits / Cash pickup
// (cash-out)). A cash pickup quote needs the project's `cashPickup` feature and a
// retail location that pays out cash; its limits are checked when the quote is
// created (early: a partner learns at once) and again, authoritatively, when
// POST /transactions accepts it: there the customer's acceptances are serialised
// and the pickup counted in the same database transaction as quote.accepted.
// Locations and expiries come from other services' logs (projections); the project's
// feature is the gateway's, asked where a pickup is decided (ADR 0057).
import { Injectable } from '@nestjs/common';
import { ApiError, GatewayPort, type EventPayloads, type QuoteRecord } from '@mm/contracts';
import {
  cashPickupWindows,
  checkCashPickupAmount,
  checkCashPickupUsage,
  checkPickupLocation,
  type CashPickupLocation,
} from '@mm/quoting/domain';
import { CashPickupRepository } from '@mm/quoting/infrastructure';
import type { RecordedEvent } from '@mm/platform/event-store';
import { isId } from '@mm/platform/ids';

@Injectable()
export class CashPickupsService {
  constructor(
    private readonly pickups: CashPickupRepository,
    private readonly gateway: GatewayPort,
  ) {}

  /**
   * Spec: rule 1: cash pickup is enabled per project (off by default). Asked of the gateway, which owns
   * the feature, at each quote and acceptance: the operator's PATCH counts from its 200 on, whether it
   * turned the feature off or on (ADR 0057). A gateway that cannot be reached refuses (ServiceUnavailable).
   */
  async requireEnabled(projectId: string): Promise<void> {
    const settings = await this.gateway.project(projectId).catch((error: unknown) => {
      if (error instanceof ApiError && error.errorName === 'ProjectNotFound') return undefined;
      throw error;
    });
    if (!settings?.features.cashPickup) {
      throw new ApiError(
        'UnsupportedCorridor',
        'cash pickup is not enabled for this project (project feature cashPickup, set by an operator)',
      );
    }
  }

  /** The location a cash destination names: known, the same reference, a pickup location. */
  async location(id: string, reference: string): Promise<CashPickupLocation> {
    if (!isId('cashLocation', id))
      throw new ApiError('InvalidCashLocationID', `"${id.slice(0, 64)}" is not a cash location id (loc_…)`);
    return checkPickupLocation(await this.pickups.location(id), id, reference);
  }

  /** At quote creation: the amount's own rules, and the caps on what the customer has used so far. */
  async checkAtCreate(projectId: string, customerId: string, cash: string, state: string, at: Date): Promise<void> {
    checkCashPickupAmount(cash);
    checkCashPickupUsage(cash, state, await this.pickups.usage(projectId, customerId, cashPickupWindows(at)));
  }

  /**
   * At acceptance, in the transaction that appends quote.accepted: the customer's lock first, so that
   * concurrent acceptances are decided one at a time, then the limits, then the pickup counted.
   */
  async accept(quote: QuoteRecord, transactionId: string, at: string): Promise<void> {
    await this.requireEnabled(quote.projectId);
    const cash = quote.pricing.destination.amountGross;
    const state = String(quote.destination.details.locationState);
    checkCashPickupAmount(cash);
    await this.pickups.lockCustomer(quote.projectId, quote.customerId);
    checkCashPickupUsage(
      cash,
      state,
      await this.pickups.usage(quote.projectId, quote.customerId, cashPickupWindows(at)),
    );
    await this.pickups.recordAccepted({
      projectId: quote.projectId,
      quoteId: quote.quoteId,
      customerId: quote.customerId,
      transactionId,
      amount: cash,
      state,
      at,
    });
  }

  /** The transaction that accepted the quote was refused after all: the pickup never counted. */
  release(projectId: string, quoteId: string): Promise<void> {
    return this.pickups.removeReleased(projectId, quoteId);
  }

  async onCashLocationPublished(
    event: RecordedEvent<'cashLocation.published', EventPayloads['cashLocation.published']>,
  ): Promise<void> {
    await this.pickups.upsertLocation(event.data, event.streamVersion);
  }

  /** An expired pickup's money is back in the wallet: no cash was handed out, so it no longer counts. */
  async onTransactionRefunded(
    event: RecordedEvent<'transaction.refunded', EventPayloads['transaction.refunded']>,
  ): Promise<void> {
    if (event.data.subStatus !== 'completed.cashPickupExpired') return;
    await this.pickups.markReturned(event.data.projectId, event.data.transactionId, event.data.at);
  }
}
