// The sandbox's simulated provider behind the rails' port (PaymentRails), on a real PostgreSQL: a submission
// answers with a reference at once and sends nothing until it commits; its notification comes after the rail's
// delay on the project's clock; a lookup by reference answers what the provider holds (docs/sandbox.md, the
// unconfirmed-payout cents).
import type { TransactionCreated } from '@mm/contracts';
import { loadConfig } from '@mm/platform/config';
import { ChainNetworks } from '@mm/platform/chain';
import { ProjectClock, TimerService } from '@mm/platform/clock';
import { newId } from '@mm/platform/ids';
import { createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { payoutLeg } from '@mm/transactions/domain';
import type { RailEvent } from './payment-rails';
import { SandboxRails } from './sandbox-rails';

const zero = { total: '0.00', developer: '0.00', gas: '0.00', meridian: '0.00' };

/** A wire payout of a wallet's USDC, for this amount (its cents choose the sandbox's outcome). */
function wirePayout(amount: string): TransactionCreated {
  const party = { relationship: 'customer', customerId: 'cst_1', entityType: 'individual' } as const;
  return {
    transactionId: newId('transaction'),
    projectId: 'prj_1',
    customerId: 'cst_1',
    sourceToDestination: 'cryptoToFiatAccount',
    precursor: { type: 'quote', id: 'qt_1' },
    source: {
      type: 'walletOms',
      category: 'crypto',
      details: { id: 'wlt_1', asset: 'usdc', network: 'meridianchain' },
      party,
    },
    destination: { type: 'bankUs', category: 'fiat', details: { id: 'ext_1', asset: 'usd', network: 'wire' }, party },
    pricing: {
      source: { asset: 'usdc', amountGross: amount, amountNet: amount, feesDeducted: zero },
      destination: { asset: 'usd', amountGross: amount, amountNet: amount, feesDeducted: zero },
      pair: 'usdc/usd',
      exchangeRate: '1.00',
      effectiveRate: '1.00',
      fixedAmountSide: 'source',
      sponsorGas: true,
      sponsorGasCost: '0.00',
    },
    settlementType: null,
    metadata: {},
    customerIds: ['cst_1'],
    status: 'processing',
    subStatus: null,
    at: new Date().toISOString(),
  } as TransactionCreated;
}

describe('the sandbox rails, as a provider behind the rails port', () => {
  let db: TestDatabase;
  let clock: ProjectClock;
  let timers: TimerService;
  let rails: SandboxRails;
  const events: RailEvent[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    clock = new ProjectClock(db.uow);
    timers = new TimerService(db.uow, clock);
    rails = new SandboxRails(db.uow, timers, new ChainNetworks(loadConfig({}), db.uow));
    rails.onModuleInit();
    rails.onEvent(async (event) => {
      events.push(event);
    });
  });
  afterAll(async () => {
    await timers.onApplicationShutdown();
    await db.close();
  });
  beforeEach(() => {
    events.length = 0;
  });

  /** Submits a leg in a transaction of its own, as the leg's initiation does. */
  async function submit(projectId: string, record: TransactionCreated) {
    const leg = payoutLeg(record, `${record.transactionId}.1`);
    const at = await clock.now(projectId);
    return db.uow.run(() => rails.submit({ projectId, record, leg, purpose: 'leg', at }));
  }

  it("answers with its reference at once, and notifies the outcome after the wire's delay on the project clock", async () => {
    const projectId = newId('project');
    const { reference } = await submit(projectId, wirePayout('10.00'));
    expect(reference).toMatch(/^sim_/);
    expect(await timers.fireDue(projectId)).toBe(0);
    await clock.advance(projectId, 29);
    expect(await timers.fireDue(projectId)).toBe(0);
    await clock.advance(projectId, 2);
    expect(await timers.fireDue(projectId)).toBe(1);
    expect(events).toEqual([
      {
        eventId: `${reference}:0`,
        reference,
        outcome: { kind: 'settled', references: { imad: expect.stringMatching(/^\d{8}MMQFMP[0-9A-F]{2}\d{6}$/) } },
      },
    ]);
    // The same notification again (a repeated delivery) carries the same identifiers and the same outcome.
    await db.uow.run(() =>
      timers.schedule(projectId, 'sandboxRails.notify', `${reference}:0`, new Date(0), { reference, index: 0 }),
    );
    await timers.fireDue(projectId);
    expect(events[1]).toEqual(events[0]);
  });

  it('sends nothing for a submission whose transaction rolled back, and knows nothing of it', async () => {
    const projectId = newId('project');
    const record = wirePayout('10.00');
    const leg = payoutLeg(record, `${record.transactionId}.1`);
    const at = await clock.now(projectId);
    let reference = '';
    await expect(
      db.uow.run(async () => {
        ({ reference } = await rails.submit({ projectId, record, leg, purpose: 'leg', at }));
        throw new Error('the initiation failed');
      }),
    ).rejects.toThrow('the initiation failed');
    await clock.advance(projectId, 3600);
    expect(await timers.fireDue(projectId)).toBe(0);
    expect(await rails.lookup(reference)).toEqual({ kind: 'none' });
  });

  it('answers a lookup by reference with what it holds of a payout it went quiet about', async () => {
    const projectId = newId('project');
    const held = await submit(projectId, wirePayout('10.95'));
    const none = await submit(projectId, wirePayout('10.96'));
    const away = await submit(projectId, wirePayout('10.97'));
    expect(await rails.lookup(held.reference)).toEqual({ kind: 'holds', references: { imad: expect.any(String) } });
    expect(await rails.lookup(none.reference)).toEqual({ kind: 'none' });
    expect(await rails.lookup(away.reference)).toEqual({ kind: 'unreachable' });
    expect(await rails.lookup('sim_unknown')).toEqual({ kind: 'none' });
    // Each of them notifies only that the rail went quiet.
    await clock.advance(projectId, 3600);
    expect(await timers.fireDue(projectId)).toBe(3);
    expect(events.map((e) => e.outcome)).toEqual([
      { kind: 'unconfirmed' },
      { kind: 'unconfirmed' },
      { kind: 'unconfirmed' },
    ]);
  });
});
