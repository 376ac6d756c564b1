// The sandbox's simulated provider behind every rail the chain does not carry (ARCHITECTURE: Providers, real and
// simulated), behind the same port a real provider's adapter implements (PaymentRails). It keeps its own records,
// as a provider does: each submission's reference, the notifications it will send and what a lookup finds. What it
// does is decided once, when the submission arrives, as docs/sandbox.md says (magic cents), with the reference each
// rail issues (a transaction hash on chain, an IMAD on a wire, a UETR on SWIFT, an end-to-end id on ACH, local
// transfers and cards; the retail network's cash pickup code), and each notification is sent after the rail's
// delay on the project's clock, through a timer of its own.
import { randomInt, randomUUID } from 'node:crypto';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { LegReferences, TransactionCreated } from '@mm/contracts';
import { TimerService } from '@mm/platform/clock';
import { ChainNetworks } from '@mm/platform/chain';
import { UnitOfWork } from '@mm/platform/database';
import { randomHex } from '@mm/platform/ids';
import {
  sandboxLookup,
  sandboxOutcome,
  sandboxRefundSteps,
  type NewLeg,
  type RailOutcome,
} from '@mm/transactions/domain';
import { PaymentRails, type RailEvent, type RailLookup, type RailSubmission } from './payment-rails';

/** The simulator's timer: one notification of one submission is due (key: the reference and the notification's index). */
const NOTIFY_TIMER = 'sandboxRails.notify';

/** A notification the simulator will send, and how long after the submission. */
interface Notification {
  afterSeconds: number;
  outcome: RailOutcome;
}

interface PaymentRow {
  reference: string;
  notifications: Notification[];
  holds: RailLookup;
}

@Injectable()
export class SandboxRails extends PaymentRails implements OnModuleInit {
  private handler?: (event: RailEvent) => Promise<void>;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly timers: TimerService,
    private readonly chains: ChainNetworks,
  ) {
    super();
  }

  onModuleInit(): void {
    this.timers.on(NOTIFY_TIMER, ({ payload }) => this.notify(String(payload.reference), Number(payload.index)));
  }

  onEvent(handler: (event: RailEvent) => Promise<void>): void {
    this.handler = handler;
  }

  async submit({ projectId, record, leg, purpose, at }: RailSubmission): Promise<{ reference: string }> {
    const reference = `sim_${randomUUID()}`;
    const notifications =
      purpose === 'bankRefund' ? bankRefundNotifications(record, leg) : [this.answer(record, leg, at)];
    const found = sandboxLookup(record);
    const holds: RailLookup =
      found === 'holds' ? { kind: 'holds', references: this.references(leg, at) } : { kind: found };
    await this.uow.defer(
      `INSERT INTO transactions.sandbox_rail_payments (reference, project_id, notifications, holds, submitted_at)
       VALUES ($1, $2, $3::jsonb, $4::jsonb, $5)`,
      [reference, projectId, JSON.stringify(notifications), JSON.stringify(holds), at],
    );
    for (const [index, { afterSeconds }] of notifications.entries())
      await this.timers.schedule(projectId, NOTIFY_TIMER, `${reference}:${index}`, after(at, afterSeconds), {
        reference,
        index,
      });
    return { reference };
  }

  async lookup(reference: string): Promise<RailLookup> {
    const [row] = await this.uow.query<Pick<PaymentRow, 'holds'>>(
      `SELECT holds FROM transactions.sandbox_rail_payments WHERE reference = $1`,
      [reference],
    );
    return row?.holds ?? { kind: 'none' };
  }

  private async notify(reference: string, index: number): Promise<void> {
    const [row] = await this.uow.query<Pick<PaymentRow, 'notifications'>>(
      `SELECT notifications FROM transactions.sandbox_rail_payments WHERE reference = $1`,
      [reference],
    );
    const notification = row?.notifications[index];
    if (!notification) return;
    if (!this.handler) throw new Error('nobody records the sandbox rails yet');
    await this.handler({ eventId: `${reference}:${index}`, reference, outcome: notification.outcome });
  }

  /** The rail's answer to a leg, with the references it issues (or a pickup's code). */
  private answer(record: TransactionCreated, leg: NewLeg, at: Date): Notification {
    const { outcome, afterSeconds } = sandboxOutcome(record, leg);
    if (outcome.kind === 'pickupReady')
      return { outcome: { kind: 'pickupReady', pickupCode: pickupCode() }, afterSeconds };
    if (outcome.kind !== 'settled') return { outcome, afterSeconds };
    return { outcome: { kind: 'settled', references: this.references(leg, after(at, afterSeconds)) }, afterSeconds };
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

/** The sandbox bank's notifications about a virtual account's refund: accepted then settled, or accepted and then silence. */
function bankRefundNotifications(record: TransactionCreated, leg: NewLeg): Notification[] {
  const steps = sandboxRefundSteps(record, leg);
  if ('unconfirmed' in steps) return [{ afterSeconds: steps.unconfirmed, outcome: { kind: 'refundUnconfirmed' } }];
  return [
    { afterSeconds: steps.accepted, outcome: { kind: 'refundAccepted' } },
    { afterSeconds: steps.settled, outcome: { kind: 'settled', references: {} } },
  ];
}

function after(at: Date, seconds: number): Date {
  return new Date(at.getTime() + seconds * 1000);
}

/** A cash pickup's code: two groups of four random digits (`1234 5678`), what the recipient gives at the till. */
function pickupCode(): string {
  const group = () => String(randomInt(0, 10_000)).padStart(4, '0');
  return `${group()} ${group()}`;
}
