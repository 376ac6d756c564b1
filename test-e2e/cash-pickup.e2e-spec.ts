// Spec: rule 1 (cash pickup is enabled per project), rule 8 (a cryptoToCash
// quote whose destination is a cash instrument), Resources / Quote (cash
// destination details), Transaction, States / Transaction (processing.cashPickupReady,
// completed.cashPickupCollected, completed.cashPickupExpired), Limits / Cash pickup
// (cash-out), Events ties 7 and 8; docs/sandbox.md "Cash pickup". Over HTTP, in
// both modes: the quoting service checks the limits on the locations the cash-in
// service publishes, the transactions service runs the pickup, the accounts
// service moves the money.
import { newTenant } from './support/tenant';
import { ADMIN_TOKEN, eventually, expectError, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';
import { WebhookReceiver } from './support/webhook-receiver';

/** Pickup locations of the sandbox network (docs/sandbox.md, flows cash_out), by state. */
const LOCATIONS = {
  CA: { cashLocationId: 'loc_01m846c3h4e06945jf6mfht9tc', cashLocationReference: 'BIGMART-1001' },
  CA2: { cashLocationId: 'loc_01m846c3h7e06945rfwsbap6wh', cashLocationReference: 'CASHPOINT-4001' },
  NM: { cashLocationId: 'loc_01m846c3h5e06945k1hdfe6y0k', cashLocationReference: 'BIGMART-1004' },
  TX: { cashLocationId: 'loc_01m846c3h5e06945kk49eh66ba', cashLocationReference: 'BIGMART-1006' },
  IL: { cashLocationId: 'loc_01m846c3h7e06945shzns898n8', cashLocationReference: 'CASHPOINT-4006' },
};
/** A location that takes cash-ins only (Sacramento, flows cash_in). */
const CASH_IN_ONLY = { cashLocationId: 'loc_01m846c3h5e06945jsxtdpm66y', cashLocationReference: 'BIGMART-1003' };
type Where = keyof typeof LOCATIONS;
const DAY = 86_400;

describe('cash pickup', () => {
  let platform: TestPlatform;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    [platform, receiver] = await Promise.all([TestPlatform.shared(), WebhookReceiver.start()]);
    // The quoting service knows the locations once it has read the cash-in service's log.
    await eventually(async () => {
      const [row] = await platform.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM quoting.cash_locations WHERE 'cash_out' = ANY(flows)`,
      );
      return row.n > 0 ? true : undefined;
    }, 30_000);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await receiver?.stop();
    await platform?.stop();
  });

  /** A project of its own (its own clock), cash pickup enabled unless told otherwise, and a customer with a funded wallet. */
  async function tenant(
    name: string,
    { cashPickup = true, funding = '1000' }: { cashPickup?: boolean; funding?: string } = {},
  ) {
    const base = await newTenant(platform, { name, features: cashPickup ? { cashPickup: true } : undefined });
    const { projectId, token, post, get } = base;
    const customer = async () => {
      // Its wallet needs cryptoCustody, a cash pickup usd (docs/endorsements.md): both active first.
      const c = await base.customer({ firstName: 'Grace', lastName: 'Hopper' }, ['basic', 'cryptoCustody', 'usd']);
      return { id: c.id, wallet: await base.wallet(c.id, { funding }) };
    };
    const grace = await customer();
    const t = {
      projectId,
      token,
      post,
      get,
      customer,
      grace,
      /** A cash pickup quote: the cash (destination) amount fixed, or the source's. */
      quote: (
        where: Where | typeof CASH_IN_ONLY,
        amount: string,
        who = grace,
        side: 'source' | 'destination' = 'destination',
      ) =>
        post('/quotes', {
          customerId: who.id,
          source: { type: 'walletOms', details: { id: who.wallet.id }, ...(side === 'source' ? { amount } : {}) },
          destination: {
            type: 'cash',
            details: { asset: 'usd', ...(typeof where === 'string' ? LOCATIONS[where] : where) },
            ...(side === 'destination' ? { amount } : {}),
          },
        }),
      transaction: (quoteId: string) => post('/transactions', { quoteId }),
      /** Quote and transaction: the transaction's 201 body. */
      pickup: async (where: Where, amount: string, who = grace) => {
        const q = await t.quote(where, amount, who);
        expect({ status: q.status, error: q.body.error }).toEqual({ status: 201, error: undefined });
        const txn = await t.transaction(q.body.id);
        expect({ status: txn.status, error: txn.body.error, cause: txn.body.cause }).toEqual({
          status: 201,
          error: undefined,
          cause: undefined,
        });
        return txn.body;
      },
      balance: (walletId = grace.wallet.id) => base.balance(walletId),
      advance: base.advance,
      simulate: (id: string, outcome: unknown) => post(`/transactions/${id}/simulate/cash-pickup`, { outcome }),
      until: (id: string, status: string, subStatus: string | null) =>
        eventually(async () => {
          const res = (await get(`/transactions/${id}`)).body;
          return res.status === status && res.subStatus === subStatus ? res : undefined;
        }, 15_000),
    };
    return t;
  }
  type Tenant = Awaited<ReturnType<typeof tenant>>;

  /** A pickup waiting for collection: its transaction once the network issued the code. */
  const ready = async (t: Tenant, where: Where, amount: string, who = t.grace) =>
    t.until((await t.pickup(where, amount, who)).id, 'processing', 'processing.cashPickupReady');

  describe('the project feature', () => {
    it('is off by default: a cash destination is an unsupported corridor until an operator enables cashPickup', async () => {
      const t = await tenant('pickup-off', { cashPickup: false });
      const refused = await t.quote('TX', '100.00');
      expectError(refused, 422, 'UnsupportedCorridor', 13004);
      expect(refused.body.cause).toMatch(/cash pickup is not enabled/);
      const patched = await platform.request('PATCH', `/v0.13/admin/projects/${t.projectId}`, {
        token: ADMIN_TOKEN,
        body: { features: { cashPickup: true } },
      });
      expect({ status: patched.status, features: patched.body.features }).toMatchObject({
        status: 200,
        features: { cashPickup: true },
      });
      // The gateway's word, asked at the decision: the very next quote (kill-switches e2e tries it repeatedly).
      expect((await t.quote('TX', '100.00')).status).toBe(201);
      // And off again: the next quote is refused.
      await platform.request('PATCH', `/v0.13/admin/projects/${t.projectId}`, {
        token: ADMIN_TOKEN,
        body: { features: { cashPickup: false } },
      });
      expectError(await t.quote('TX', '100.00'), 422, 'UnsupportedCorridor');
    });
  });

  describe('the quote', () => {
    it('is cryptoToCash, its destination the cash at the location, priced usdc to usd at 1.00', async () => {
      const t = await tenant('pickup-quote');
      const res = await t.quote('TX', '100.00');
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        object: 'quote',
        status: 'open',
        sourceToDestination: 'cryptoToCash',
        source: {
          type: 'walletOms',
          category: 'crypto',
          details: { id: t.grace.wallet.id, asset: 'usdc', network: 'meridianchain' },
        },
        destination: {
          type: 'cash',
          category: 'cash',
          details: {
            asset: 'usd',
            network: 'cash',
            ...LOCATIONS.TX,
            locationName: 'BigMart Supercenter #1006',
            locationProvider: 'bigmart',
            locationState: 'TX',
          },
          amount: '100.00',
          party: { relationship: 'customer', customerId: t.grace.id, entityType: 'individual' },
        },
        pricing: {
          source: { asset: 'usdc', amountGross: '100.00', amountNet: '100.00' },
          destination: { asset: 'usd', amountGross: '100.00', amountNet: '100.00' },
          pair: 'usdc/usd',
          exchangeRate: '1.00',
          fixedAmountSide: 'destination',
        },
      });
      // A fixed source amount works too: its cash is what the limits read.
      expect((await t.quote('TX', '60.000000', t.grace, 'source')).body.pricing).toMatchObject({
        fixedAmountSide: 'source',
        destination: { amountGross: '60.00' },
      });
    });

    it('names a known pickup location by its id and reference', async () => {
      const t = await tenant('pickup-locations');
      expectError(
        await t.quote(
          {
            cashLocationId: 'loc_01m846c3h7e06945zzzzzzzzzz',
            cashLocationReference: 'BIGMART-1006',
          } as typeof CASH_IN_ONLY,
          '100.00',
        ),
        404,
        'CashLocationNotFound',
        14011,
      );
      expectError(
        await t.quote({ cashLocationId: 'loc_nope', cashLocationReference: 'BIGMART-1006' }, '100.00'),
        400,
        'InvalidCashLocationID',
        14010,
      );
      expectError(
        await t.quote({ cashLocationId: LOCATIONS.TX.cashLocationId, cashLocationReference: 'BIGMART-1001' }, '100.00'),
        422,
        'CashLocationReferenceMismatch',
        14012,
      );
      expectError(await t.quote(CASH_IN_ONLY, '100.00'), 422, 'CashLocationFlowUnsupported', 14013);
      expectError(
        await t.post('/quotes', {
          customerId: t.grace.id,
          source: { type: 'walletOms', details: { id: t.grace.wallet.id } },
          destination: { type: 'cash', details: { asset: 'usd' }, amount: '100.00' },
        }),
        400,
        'InvalidRequest',
      );
    });
  });

  describe('limits per pickup', () => {
    it('takes multiples of $20.00 from $20.00 to $400.00, and refuses one cent or one step past each rule', async () => {
      const t = await tenant('pickup-amounts');
      expect((await t.quote('TX', '20.00')).status).toBe(201);
      expectError(await t.quote('TX', '19.99'), 422, 'CashPickupBelowMinimum', 14100);
      expect((await t.quote('TX', '400.00')).status).toBe(201);
      expectError(await t.quote('TX', '400.01'), 422, 'CashPickupAboveMaximum', 14101);
      expectError(await t.quote('TX', '420.00'), 422, 'CashPickupAboveMaximum', 14101);
      expect((await t.quote('TX', '40.00')).status).toBe(201);
      expectError(await t.quote('TX', '20.01'), 422, 'CashPickupIncrement', 14102);
      expectError(await t.quote('TX', '30.00'), 422, 'CashPickupIncrement', 14102);
      // A fixed source converts to its cash first.
      expect((await t.quote('TX', '380.000000', t.grace, 'source')).status).toBe(201);
      expectError(await t.quote('TX', '30.000000', t.grace, 'source'), 422, 'CashPickupIncrement');
      expectError(await t.quote('TX', '19.99', t.grace, 'source'), 422, 'CashPickupBelowMinimum');
    });
  });

  describe('a pickup', () => {
    it('is processing.cashPickupReady with its code on the cash leg, then completed.cashPickupCollected; the wallet pays once', async () => {
      const t = await tenant('pickup-collected');
      expect(
        (
          await t.post('/webhooks', {
            url: receiver.url('/pickup-collected'),
            subscriptions: ['transaction.statusChanged'],
          })
        ).status,
      ).toBe(201);
      const q = (await t.quote('CA', '400.00')).body;
      const started = await t.transaction(q.id);
      expect(started.status).toBe(201);
      expect(started.body).toMatchObject({
        sourceToDestination: 'cryptoToCash',
        status: 'processing',
        precursor: { type: 'quote', id: q.id },
        destination: {
          type: 'cash',
          category: 'cash',
          details: { asset: 'usd', ...LOCATIONS.CA, locationState: 'CA' },
        },
        pricing: { destination: { asset: 'usd', amountGross: '400.00' } },
      });
      expect(started.body).not.toHaveProperty('cashPickup');
      expect(started.body).not.toHaveProperty('payoutOrigin');
      expect(await t.balance()).toBe('600.00');
      const waiting = await t.until(started.body.id, 'processing', 'processing.cashPickupReady');
      expect(waiting.legs).toEqual([
        expect.objectContaining({
          kind: 'payout',
          rail: 'cash',
          asset: 'usd',
          network: 'cash',
          amount: '400.00',
          status: 'pending',
          pickupCode: expect.stringMatching(/^\d{4} \d{4}$/),
        }),
      ]);

      const collected = await t.simulate(waiting.id, 'collected');
      expect(collected.status).toBe(200);
      expect(collected.body).toMatchObject({
        id: waiting.id,
        status: 'completed',
        subStatus: 'completed.cashPickupCollected',
      });
      expect(collected.body.legs[0]).toMatchObject({
        status: 'settled',
        pickupCode: waiting.legs[0].pickupCode,
        settledAt: expect.any(String),
      });
      expect(collected.body).not.toHaveProperty('error');
      expect((await t.get(`/transactions/${waiting.id}`)).body).toEqual(collected.body);
      expect(await t.balance()).toBe('600.00');
      // Once collected it is no longer waiting.
      expectError(await t.simulate(waiting.id, 'expired'), 422, 'CashPickupNotReady', 14110);

      // The ledger paid the cash out of transit through the conversion desk to the cash rail.
      await eventually(async () => {
        const rows = await platform.db.query(
          `SELECT 1 FROM accounts.events WHERE type = 'ledger.posted' AND data->>'transactionId' = $1 AND data->'entries' @> '[{"account": "rail:usd:cash", "amount": "400"}]'`,
          [waiting.id],
        );
        return rows.length > 0 ? true : undefined;
      });

      // Events, tie 7: each sub-status a transaction.statusChanged.
      const seen = await eventually(async () => {
        const got = receiver
          .at('/pickup-collected')
          .map((r) => r.body)
          .filter((b) => b.data.id === waiting.id);
        return got.some((b) => b.data.subStatus === 'completed.cashPickupCollected') ? got : undefined;
      }, 15_000);
      const sorted = seen.sort((a, b) => a.sequence - b.sequence);
      expect(sorted.map((b) => [b.eventType, b.data.status, b.data.subStatus])).toEqual([
        ['transaction.statusChanged', 'processing', 'processing.fundsPulled'],
        ['transaction.statusChanged', 'processing', 'processing.cashPickupReady'],
        ['transaction.statusChanged', 'completed', 'completed.cashPickupCollected'],
      ]);
      expect(sorted.at(-1).previousStatus).toBe('processing');
    });

    it('expired: the money goes back to the wallet (processing.returningToSender), then completed.cashPickupExpired', async () => {
      const t = await tenant('pickup-expired');
      expect(
        (
          await t.post('/webhooks', {
            url: receiver.url('/pickup-expired'),
            subscriptions: ['transaction.statusChanged'],
          })
        ).status,
      ).toBe(201);
      const waiting = await ready(t, 'TX', '200.00');
      expect(await t.balance()).toBe('800.00');
      const lapsed = await t.simulate(waiting.id, 'expired');
      expect(lapsed.status).toBe(200);
      expect(lapsed.body).toMatchObject({ status: 'processing', subStatus: 'processing.returningToSender' });
      const done = await t.until(waiting.id, 'completed', 'completed.cashPickupExpired');
      expect(done.legs).toEqual([
        expect.objectContaining({
          kind: 'payout',
          rail: 'cash',
          status: 'failed',
          failure: { code: 'cashPickupExpired', message: expect.any(String) },
        }),
        expect.objectContaining({ kind: 'refund', rail: 'crypto', asset: 'usdc', amount: '200.00', status: 'settled' }),
      ]);
      expect(done).not.toHaveProperty('error');
      expect(await t.balance()).toBe('1000.00');
      expectError(await t.simulate(waiting.id, 'collected'), 422, 'CashPickupNotReady');
      const seen = await eventually(async () => {
        const got = receiver
          .at('/pickup-expired')
          .map((r) => r.body)
          .filter((b) => b.data.id === waiting.id);
        return got.some((b) => b.data.subStatus === 'completed.cashPickupExpired') ? got : undefined;
      }, 15_000);
      expect(seen.sort((a, b) => a.sequence - b.sequence).map((b) => b.data.subStatus)).toEqual([
        'processing.fundsPulled',
        'processing.cashPickupReady',
        'processing.returningToSender',
        'completed.cashPickupExpired',
      ]);
    });

    it('simulate applies only to a pickup waiting for collection; its body is checked, and it is idempotent', async () => {
      const t = await tenant('pickup-simulate');
      const other = await t.customer();
      const walletToWallet = await t.post('/quotes', {
        customerId: t.grace.id,
        source: { type: 'walletOms', details: { id: t.grace.wallet.id }, amount: '10.00' },
        destination: { type: 'walletOms', details: { id: other.wallet.id } },
      });
      const crypto = await t.transaction(walletToWallet.body.id);
      expect(crypto.status).toBe(201);
      const notPickup = await t.simulate(crypto.body.id, 'collected');
      expectError(notPickup, 422, 'CashPickupNotReady', 14110);
      expect(notPickup.body.cause).toMatch(/not a cash pickup/);
      expectError(await t.simulate('txn_01h455vb4pex5vsknk084sn02q', 'collected'), 404, 'TransactionNotFound');
      expectError(await t.simulate('nope', 'collected'), 400, 'InvalidTransactionID');

      const waiting = await ready(t, 'IL', '100.00');
      expectError(await t.simulate(waiting.id, 'lost'), 400, 'InvalidRequest');
      expectError(await t.post(`/transactions/${waiting.id}/simulate/cash-pickup`, {}), 400, 'InvalidRequest');
      expectError(
        await platform.request('POST', `/v0.13/transactions/${waiting.id}/simulate/cash-pickup`, {
          token: t.token,
          body: { outcome: 'collected' },
          idempotencyKey: null,
        }),
        400,
        'IdempotencyKeyRequired',
      );
      const key = `collect-${waiting.id}`;
      const first = await platform.request('POST', `/v0.13/transactions/${waiting.id}/simulate/cash-pickup`, {
        token: t.token,
        body: { outcome: 'collected' },
        idempotencyKey: key,
      });
      const again = await platform.request('POST', `/v0.13/transactions/${waiting.id}/simulate/cash-pickup`, {
        token: t.token,
        body: { outcome: 'collected' },
        idempotencyKey: key,
      });
      expect(first.status).toBe(200);
      expect({ status: again.status, body: again.body, replayed: again.headers.get('idempotent-replayed') }).toEqual({
        status: 200,
        body: first.body,
        replayed: 'true',
      });
      // Another project sees no such transaction.
      const stranger = await tenant('pickup-stranger');
      expectError(await stranger.simulate(waiting.id, 'expired'), 404, 'TransactionNotFound');
    });
  });

  describe('daily limits', () => {
    it('California: $1,000.00 a day reached exactly, and not $20 more at any California or New Mexico location', async () => {
      const t = await tenant('pickup-daily-ca', { funding: '3000' });
      await t.pickup('CA', '400.00');
      await t.pickup('CA2', '400.00');
      await t.pickup('CA', '200.00');
      const over = await t.quote('CA', '20.00');
      expectError(over, 422, 'CashPickupDailyLimitExceeded', 14103);
      expect(over.body.cause).toMatch(/1000\.00/);
      expectError(await t.quote('NM', '20.00'), 422, 'CashPickupDailyLimitExceeded');
      // The day's pickups count against the cap of this pickup's location: Texas allows $2,000.00.
      await t.pickup('TX', '20.00');
      // The next UTC day starts afresh.
      await t.advance(DAY);
      await t.pickup('CA', '400.00');
      expect(await t.balance()).toBe(String(3000 - 1020 - 400) + '.00');
    });

    it('New Mexico: $1,000.00 a day reached exactly, and not $20 more', async () => {
      const t = await tenant('pickup-daily-nm');
      await t.pickup('NM', '400.00');
      await t.pickup('NM', '400.00');
      await t.pickup('NM', '200.00');
      expectError(await t.quote('NM', '20.00'), 422, 'CashPickupDailyLimitExceeded', 14103);
      // Another customer of the project has a day of their own.
      const other = await t.customer();
      await t.pickup('NM', '400.00', other);
    });

    it('other states: $2,000.00 a day reached exactly, and not $20 more', async () => {
      const t = await tenant('pickup-daily-tx', { funding: '3000' });
      for (let i = 0; i < 5; i++) await t.pickup(i % 2 ? 'TX' : 'IL', '400.00');
      const over = await t.quote('TX', '20.00');
      expectError(over, 422, 'CashPickupDailyLimitExceeded', 14103);
      expect(over.body.cause).toMatch(/2000\.00/);
      expectError(await t.quote('IL', '20.00'), 422, 'CashPickupDailyLimitExceeded');
      expect(await t.balance()).toBe('1000.00');
    });

    it('is decided again when the transaction accepts the quote: the second of two open quotes that together pass the cap is refused, nothing moves', async () => {
      const t = await tenant('pickup-accept');
      await t.pickup('CA', '400.00');
      await t.pickup('CA', '400.00');
      const first = (await t.quote('CA', '200.00')).body;
      const second = (await t.quote('CA', '200.00')).body;
      expect(second.status).toBe('open');
      expect((await t.transaction(first.id)).status).toBe(201);
      const refused = await t.transaction(second.id);
      expectError(refused, 422, 'CashPickupDailyLimitExceeded', 14103);
      expect(await t.balance()).toBe('0.00');
      expect((await t.get(`/quotes/${second.id}`)).body).toMatchObject({ status: 'open', transactionId: null });
      expectError(await t.get(`/transactions/txn_${second.id.slice(3)}`), 404, 'TransactionNotFound');
    });

    it('decides concurrent acceptances one at a time: of two that together pass the cap, exactly one is made', async () => {
      const t = await tenant('pickup-race');
      await t.pickup('NM', '400.00');
      await t.pickup('NM', '400.00');
      const quotes = [(await t.quote('NM', '200.00')).body, (await t.quote('CA', '200.00')).body];
      const answers = await Promise.all(quotes.map((q) => t.transaction(q.id)));
      expect(answers.map((a) => a.status).sort()).toEqual([201, 422]);
      expect(answers.find((a) => a.status === 422)!.body.error).toBe('CashPickupDailyLimitExceeded');
      expect(await t.balance()).toBe('0.00');
    });

    it('a transaction refused after its quote was accepted (insufficient funds) counts nothing', async () => {
      const t = await tenant('pickup-refused', { funding: '100' });
      const q = (await t.quote('CA', '400.00')).body;
      expectError(await t.transaction(q.id), 422, 'InsufficientFunds');
      expect((await t.get(`/quotes/${q.id}`)).body.status).toBe('open');
      expect((await t.post(`/sandbox/wallets/${t.grace.wallet.id}/fund`, { amount: '900' })).status).toBe(200);
      await t.pickup('CA', '400.00');
      await t.pickup('CA', '400.00');
      await t.pickup('CA', '200.00');
      expect(await t.balance()).toBe('0.00');
    });

    it('an expired pickup no longer counts: its cash was never handed out', async () => {
      const t = await tenant('pickup-release', { funding: '2000' });
      const lapsing = await ready(t, 'CA', '400.00');
      await t.pickup('CA', '400.00');
      await t.pickup('CA', '200.00');
      expectError(await t.quote('CA', '400.00'), 422, 'CashPickupDailyLimitExceeded');
      expect((await t.simulate(lapsing.id, 'expired')).status).toBe(200);
      await t.until(lapsing.id, 'completed', 'completed.cashPickupExpired');
      // The quoting service hears of the refund from the transactions service's log.
      const again = await eventually(async () => {
        const q = await t.quote('CA', '400.00');
        return q.status === 201 ? q.body : undefined;
      });
      expect((await t.transaction(again.id)).status).toBe(201);
      expectError(await t.quote('CA', '20.00'), 422, 'CashPickupDailyLimitExceeded');
      expect(await t.balance()).toBe('1000.00');
    });
  });

  describe('the monthly limit', () => {
    it('$60,000.00 in a UTC calendar month reached exactly ($2,000.00 on each of 30 days), and not $20 more on the 31st', async () => {
      const t = await tenant('pickup-monthly', { funding: '61000' });
      // To 01:00 UTC on the first day of the next month that has 31 days, on the project's clock.
      const now = new Date((await t.get('/sandbox/clock')).body.now);
      let start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 1));
      while (new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), 31)).getUTCDate() !== 31)
        start = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1, 1));
      await t.advance(Math.ceil((start.getTime() - now.getTime()) / 1000));
      for (let day = 1; day <= 30; day++) {
        if (day > 1) await t.advance(DAY);
        for (let i = 0; i < 5; i++) await t.pickup('TX', '400.00');
      }
      expect(await t.balance()).toBe('1000.00');
      await t.advance(DAY);
      const clock = (await t.get('/sandbox/clock')).body.now as string;
      expect(new Date(clock).getUTCDate()).toBe(31);
      const over = await t.quote('TX', '20.00');
      expectError(over, 422, 'CashPickupMonthlyLimitExceeded', 14104);
      expect(over.body.cause).toMatch(/60000\.00/);
      // The next month starts afresh.
      await t.advance(DAY);
      await t.pickup('TX', '20.00');
    }, 240_000);
  });
});
