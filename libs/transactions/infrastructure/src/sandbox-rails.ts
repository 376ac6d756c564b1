// The rails behind payouts and card charges (ARCHITECTURE: provider ports). The
// sandbox answers each leg as docs/sandbox.md says (magic cents), after the
// rail's delay on the project's clock, with the reference each rail issues: a
// transaction hash on chain, an IMAD on a wire, a UETR on SWIFT, an
// end-to-end id on ACH, local transfers and cards; the retail network issues a
// cash pickup's code.
import { randomInt, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { LegReferences, TransactionCreated } from '@mm/contracts';
import { sandboxLookup, sandboxOutcome, type NewLeg, type RailOutcome } from '@mm/transactions/domain';
import { ChainNetworks } from '@mm/platform/chain';
import { randomHex } from '@mm/platform/ids';

export interface RailAnswer {
  outcome: RailOutcome;
  /** How long after submission the rail answers, in seconds of project time. */
  afterSeconds: number;
}

/** The provider's answer about a payout the service stopped waiting for (queried by the leg's id). */
export type LookupAnswer = { kind: 'holds'; references: LegReferences } | { kind: 'none' } | { kind: 'unreachable' };

export abstract class PaymentRails {
  abstract answer(record: TransactionCreated, leg: NewLeg, at: Date): RailAnswer;
  abstract lookup(record: TransactionCreated, leg: NewLeg, at: Date): LookupAnswer;
}

@Injectable()
export class SandboxRails extends PaymentRails {
  constructor(private readonly chains: ChainNetworks) {
    super();
  }

  answer(record: TransactionCreated, leg: NewLeg, at: Date): RailAnswer {
    const { outcome, afterSeconds } = sandboxOutcome(record, leg);
    if (outcome.kind === 'pickupReady')
      return { outcome: { kind: 'pickupReady', pickupCode: pickupCode() }, afterSeconds };
    if (outcome.kind !== 'settled') return { outcome, afterSeconds };
    return { outcome: { kind: 'settled', references: this.references(leg, at) }, afterSeconds };
  }

  lookup(record: TransactionCreated, leg: NewLeg, at: Date): LookupAnswer {
    const found = sandboxLookup(record);
    return found === 'holds' ? { kind: 'holds', references: this.references(leg, at) } : { kind: found };
  }

  private references(leg: NewLeg, at: Date): LegReferences {
    // On a network that runs on a chain, a crypto leg the chain does not carry moves in the ledger alone (between
    // custodial wallets): there is no transaction hash to show, and none is invented.
    if (leg.rail === 'crypto') return this.chains.client(leg.network) ? {} : { txHash: `0x${randomHex(32)}` };
    if (leg.rail === 'wire') {
      const day = at.toISOString().slice(0, 10).replace(/-/g, '');
      return {
        imad: `${day}MMQFMP${randomHex(1).toUpperCase()}${String(parseInt(randomHex(3), 16) % 1_000_000).padStart(6, '0')}`,
      };
    }
    if (leg.rail === 'swift') return { uetr: randomUUID() };
    return { endToEndId: `E2E${randomHex(8).toUpperCase()}` };
  }
}

/** A cash pickup's code: two groups of four random digits (`1234 5678`), what the recipient gives at the till. */
function pickupCode(): string {
  const group = () => String(randomInt(0, 10_000)).padStart(4, '0');
  return `${group()} ${group()}`;
}
