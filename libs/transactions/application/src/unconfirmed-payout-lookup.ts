// What the provider holds of a payout the service stopped waiting for (spec: Unconfirmed payout sweep), asked by
// the sweeper and by an operator's action on an unconfirmed payout. A transfer on a chain is looked up with the
// chain's sender, which follows every signature of it on the chain: landed, it settles (or fails, reverted);
// still under way, nothing is concluded, since a signed transfer can land at any time and a payout failed while
// it might would be paid twice once refunded. Every other rail's provider is asked by the leg's reference.
import { Injectable } from '@nestjs/common';
import type { TransactionCreated } from '@mm/contracts';
import { CHAIN_REVERTED, PROVIDER_TIMEOUT, type NewLeg, type RailOutcome } from '@mm/transactions/domain';
import { ChainPayoutRail, PaymentRails, RailSubmissions } from '@mm/transactions/infrastructure';

export type UnconfirmedPayoutAnswer =
  /** The provider's answer, to record: settled with its references, or failed. */
  | { kind: 'answered'; outcome: RailOutcome }
  /** The provider could not be asked now. */
  | { kind: 'unreachable' }
  /** A transfer on a chain that may still land. */
  | { kind: 'underWay'; detail: string };

@Injectable()
export class UnconfirmedPayoutLookup {
  constructor(
    private readonly rails: PaymentRails,
    private readonly submissions: RailSubmissions,
    private readonly chain: ChainPayoutRail,
  ) {}

  async lookUp(record: TransactionCreated, leg: NewLeg): Promise<UnconfirmedPayoutAnswer> {
    if (this.chain.carries(record, leg)) {
      const found = await this.chain.lookup(leg);
      if (found.kind === 'landed')
        return {
          kind: 'answered',
          outcome:
            found.status === 'confirmed'
              ? { kind: 'settled', references: { txHash: found.txHash } }
              : { kind: 'failed', failure: CHAIN_REVERTED },
        };
      if (found.kind === 'underWay')
        return {
          kind: 'underWay',
          detail: `its transfer (nonce ${found.nonce}, ${found.signatures} signature(s)) is still under way on chain`,
        };
      // Queued with the leg in one transaction: without it nothing was ever signed, so nothing can land.
      return { kind: 'answered', outcome: { kind: 'failed', failure: PROVIDER_TIMEOUT } };
    }
    // Looked up by the reference the rail's provider gave when the leg was sent; a leg never sent is held by none.
    const submission = await this.submissions.ofLeg(leg.id);
    const answer = submission ? await this.rails.lookup(submission.reference) : { kind: 'none' as const };
    if (answer.kind === 'unreachable') return { kind: 'unreachable' };
    return {
      kind: 'answered',
      outcome:
        answer.kind === 'holds'
          ? { kind: 'settled', references: answer.references }
          : { kind: 'failed', failure: PROVIDER_TIMEOUT },
    };
  }
}
