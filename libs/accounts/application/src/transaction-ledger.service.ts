// The accounts service's side of the transaction saga (ADR 0019): when a leg
// settles it posts the money from the transaction's transit account to the rail
// or the destination wallet (through the conversion desk when the assets
// differ), and when a refund starts it credits the source wallet and announces
// funds.returned. Each step has a posting id of its own, so a redelivered event
// posts nothing twice; the handler runs in the transport's transaction.
import { Injectable } from '@nestjs/common';
import type { EventPayloads } from '@mm/contracts';
import { conversionAccount, railAccount, transactionPostingId, transitAccount } from '@mm/accounts/domain';
import type { RecordedEvent } from '@mm/platform/event-store';
import { dec, toAmount } from '@mm/platform/money';
import { TransactionLedgerCommands } from './transaction-ledger.commands';
import { WalletsService } from './wallets.service';

type Posting = EventPayloads['ledger.posted'];

@Injectable()
export class TransactionLedgerService {
  constructor(
    private readonly commands: TransactionLedgerCommands,
    private readonly wallets: WalletsService,
  ) {}

  async onLegSettled(
    event: RecordedEvent<'transaction.legSettled', EventPayloads['transaction.legSettled']>,
  ): Promise<void> {
    const { transactionId, projectId, at, settlement: s } = event.data;
    const transit = transitAccount(transactionId);
    const move = (step: string, asset: string, amount: string, from: string, to: string, reason: string): Posting => ({
      projectId,
      transactionId,
      postingId: transactionPostingId(transactionId, step),
      asset,
      entries: [
        { account: from, amount: toAmount(`-${amount}`, 18) },
        { account: to, amount: toAmount(amount, 18) },
      ],
      reason,
      at,
    });
    if (s.kind === 'deposit') {
      await this.post(
        move(
          `deposit:${event.data.legId}`,
          s.railAsset,
          s.railAmount,
          railAccount(s.railAsset, s.network),
          transit,
          `${depositLabel(s.network)} of transaction ${transactionId}`,
        ),
      );
      return;
    }
    // The money in transit leaves in its own asset, or through the conversion desk into the rail's.
    let from = transit;
    if (s.transitAsset !== s.railAsset) {
      await this.post(
        move(
          'convert',
          s.transitAsset,
          s.transitAmount,
          transit,
          conversionAccount(s.transitAsset),
          `conversion of transaction ${transactionId}`,
        ),
      );
      from = conversionAccount(s.railAsset);
    }
    const postingId = transactionPostingId(transactionId, `payout:${event.data.legId}`);
    if (s.walletId) {
      await this.wallets.creditFromLedger(
        projectId,
        s.walletId,
        postingId,
        s.railAmount,
        from,
        `transaction ${transactionId}`,
        at,
      );
      return;
    }
    await this.post(
      move(
        `payout:${event.data.legId}`,
        s.railAsset,
        s.railAmount,
        from,
        railAccount(s.railAsset, s.network),
        `payout of transaction ${transactionId}`,
      ),
    );
  }

  async onRefundInitiated(
    event: RecordedEvent<'transaction.refundInitiated', EventPayloads['transaction.refundInitiated']>,
  ): Promise<void> {
    const { transactionId, projectId, at, leg, walletId } = event.data;
    const step = `refund:${leg.id}`;
    const postingId = transactionPostingId(transactionId, step);
    const reason = `refund of transaction ${transactionId}`;
    if (event.data.retained && dec(event.data.retained).gt(0)) {
      // An operator's partial refund of a virtual account deposit: what is not returned stays with the service, traceably.
      await this.post({
        projectId,
        transactionId,
        postingId: transactionPostingId(transactionId, `retained:${leg.id}`),
        asset: leg.asset,
        entries: [
          { account: transitAccount(transactionId), amount: toAmount(`-${event.data.retained}`, 18) },
          { account: retainedAccount(leg.asset), amount: toAmount(event.data.retained, 18) },
        ],
        reason: `kept on the partial refund of transaction ${transactionId}`,
        at,
      });
    }
    if (walletId) {
      await this.wallets.creditFromLedger(
        projectId,
        walletId,
        postingId,
        leg.amount,
        transitAccount(transactionId),
        reason,
        at,
      );
    } else if (dec(leg.amount).isZero()) {
      // A refund of nothing moves nothing: no posting, though the refund is still announced.
    } else {
      // A card buy's charge goes back to the card.
      await this.post({
        projectId,
        transactionId,
        postingId,
        asset: leg.asset,
        entries: [
          { account: transitAccount(transactionId), amount: toAmount(`-${leg.amount}`, 18) },
          { account: railAccount(leg.asset, leg.network), amount: toAmount(leg.amount, 18) },
        ],
        reason,
        at,
      });
    }
    await this.commands.handle(projectId, transactionId, {
      type: 'AnnounceReturn',
      returned: { projectId, transactionId, walletId, postingId, amount: leg.amount, at },
    });
  }

  private async post(posting: Posting): Promise<void> {
    await this.commands.handle(posting.projectId, posting.transactionId, { type: 'Post', posting });
  }
}

/** What the ledger calls a deposit, by the rail it came on. */
function depositLabel(network: string): string {
  if (network === 'cash') return 'cash deposit';
  if (network === 'card') return 'card charge';
  if (['ach', 'wire', 'internationalWire'].includes(network)) return 'bank deposit';
  return 'on-chain deposit';
}

/** Money an operator's partial refund kept, by asset. */
const retainedAccount = (asset: string) => `retained:${asset}`;
