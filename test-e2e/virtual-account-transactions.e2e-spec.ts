// Issue 20, items 3 to 5: the transaction an inbound transfer to a virtual account makes. Spec: rule 3
// (auto-created transactions skip the quote and start `processing`), Virtual account, Transaction (legs and
// their references; the unconfirmed payout sweep: `processing.underReview` on virtual account payouts),
// Operator-only (retry, refund, mark-failed, complete-refund), Events (virtual account legs; ties 4 and 5);
// docs/sandbox.md (the cents of the transfer choose the outcome). Every transfer is followed to its end with
// its webhooks in order, and the ledger is read back: dollars in, through USDC, out; nothing left in
// transit once the transaction is terminal. Both modes.
import { newTenant } from './support/tenant';
import { eventually, expectError, TestPlatform } from './support/test-platform';
import { WebhookReceiver } from './support/webhook-receiver';

const NETWORK = 'ethereum';
const ACH = 61;
const WIRE = 31;
const CRYPTO = 6;

type Txn = Record<string, any>;

describe('virtual account deposits: the transaction each inbound transfer makes', () => {
  let platform: TestPlatform;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    [platform, receiver] = await Promise.all([TestPlatform.shared(), WebhookReceiver.start()]);
  }, 180_000);
  afterAll(async () => {
    await receiver?.stop();
    await platform?.stop();
  });

  const sequences = (bodies: Array<{ sequence: number }>) => bodies.map((b) => b.sequence);
  const nonDecreasing = (xs: number[]) => xs.every((x, i) => i === 0 || x >= xs[i - 1]);

  let tenants = 0;
  type Destination = 'walletOms' | 'walletExternal' | 'bankUs';
  /** A project of its own (its own clock), an endorsed customer, a webhook endpoint and an active virtual account. */
  async function tenant(options: { destination?: Destination; returnDestination?: boolean } = {}) {
    const name = `virtual-account-txn-${++tenants}`;
    const base = await newTenant(platform, { name, receiver });
    const { projectId, token, post, patch, get, advance } = base;
    const admin = (path: string, body: Record<string, unknown>) => platform.admin('POST', path, { body });
    const customer = await base.customer();
    const bank = (accountNumber: string) => base.bankUs(customer.id, undefined, accountNumber);
    const externalWallet = (address = '0x3333333333333333333333333333333333333333') =>
      base.externalWallet(customer.id, address, NETWORK);
    const kind = options.destination ?? 'walletOms';
    let destination: Record<string, unknown>;
    let walletId: string | undefined;
    if (kind === 'walletOms') {
      walletId = (await base.wallet(customer.id, { network: NETWORK })).id;
      destination = { type: 'walletOms', walletId };
    } else if (kind === 'walletExternal') {
      destination = { type: 'walletExternal', externalAccountId: (await externalWallet()).id };
    } else {
      destination = { type: 'bankUs', externalAccountId: (await bank('555566667777')).id, payout: { rail: 'wire' } };
    }
    const returnAccount = options.returnDestination ? await bank('111122223333') : undefined;
    const hook = await base.endpoint(`/${name}`);
    const created = await post('/virtual-accounts', {
      customerId: customer.id,
      source: { asset: 'usd', network: 'ach' },
      destination,
      accountHolder: 'customer',
      type: 'bankUs',
      ...(returnAccount
        ? { returnDestination: { externalAccountId: returnAccount.id }, returnPayout: { rail: 'ach' } }
        : {}),
    });
    expect(created.status).toBe(201);
    // The simulated bank partner provisions it a few seconds of project time later.
    const va = await eventually(async () => {
      await advance(5);
      const got = (await get(`/virtual-accounts/${created.body.id}`)).body;
      return got.status === 'active' ? got : undefined;
    }, 30_000);
    /** Simulates an inbound bank transfer; answers the transaction it made, which exists already. */
    const transfer = async (amount: string, body: Record<string, unknown> = {}) => {
      const res = await post(`/virtual-accounts/${va.id}/simulate/inbound-transfer`, { amount, ...body });
      expect(res.status).toBe(201);
      const txn = await get(`/transactions/${res.body.transactionId}`);
      expect(txn.status).toBe(200);
      return txn.body as Txn;
    };
    const transaction = (id: string, until: (t: Txn) => boolean) =>
      eventually(async () => {
        const res = await get(`/transactions/${id}`);
        return res.status === 200 && until(res.body) ? (res.body as Txn) : undefined;
      }, 30_000);
    /** Every partner event of this transaction received so far, in delivery-creation order, once every delivery made so far arrived. */
    const events = async (transactionId: string, until: (names: string[]) => boolean) =>
      eventually(async () => {
        const deliveries = [...(await get(`/webhooks/${hook.id}/deliveries?limit=100`)).body.data].reverse() as Array<{
          id: string;
        }>;
        const received = receiver.at(`/${name}`).map((r) => r.body);
        if (!deliveries.every((d) => received.some((b) => b.id === d.id))) return undefined;
        const mine = deliveries
          .map((d) => received.find((b) => b.id === d.id))
          .filter((b) => b && b.data?.id === transactionId);
        const names = mine.map((b) =>
          b.eventType === 'transaction.statusChanged' ? `statusChanged:${b.data.subStatus ?? b.data.status}` : b.event,
        );
        return until(names) ? { names, bodies: mine } : undefined;
      }, 30_000);
    /** What the ledger holds for a transaction: its transit account, every posting's balance, and the rail and retained accounts it touched. */
    const ledger = async (transactionId: string) => {
      const [transit] = await platform.db.query<{ total: string | null }>(
        `SELECT sum(amount)::text AS total FROM accounts.ledger_entries WHERE account = $1`,
        [`transit:${transactionId}`],
      );
      const unbalanced = await platform.db.query(
        `SELECT posting_id FROM accounts.ledger_entries WHERE posting_id LIKE $1 GROUP BY posting_id, asset HAVING sum(amount) <> 0`,
        [`${transactionId}%`],
      );
      const touched = await platform.db.query<{ account: string; total: string }>(
        `SELECT account, sum(amount)::text AS total FROM accounts.ledger_entries WHERE posting_id LIKE $1 AND (account LIKE 'rail:%' OR account LIKE 'retained:%') GROUP BY account ORDER BY account`,
        [`${transactionId}%`],
      );
      return {
        transit: Number(transit?.total ?? 0) === 0 ? '0' : transit!.total!,
        unbalanced: unbalanced.length,
        accounts: Object.fromEntries(touched.map((r) => [r.account, Number(r.total).toFixed(2)])),
      };
    };
    /** The ledger once the accounts service posted what the last legs moved; the webhooks all delivered, their sequence never going back. */
    const settledLedger = async (transactionId: string, transitLeft = '0') => {
      const settled = await eventually(async () => {
        const l = await ledger(transactionId);
        return (transitLeft === '0' ? l.transit === '0' : Number(l.transit) === Number(transitLeft)) ? l : undefined;
      }, 30_000);
      const { bodies } = await events(transactionId, (n) => n.length > 0);
      expect(nonDecreasing(sequences(bodies))).toBe(true);
      return settled;
    };
    /**
     * The bank settles the deposit (ACH), then the delivery answers: the delivery is scheduled when the
     * settlement is handled, so the clock moves on again only once it has been.
     */
    const deliver = async (id: string, rail = ACH) => {
      await advance(rail);
      await transaction(id, (x) => x.legs.length >= 2 || x.subStatus === 'processing.underReview');
      await advance(CRYPTO);
    };
    /** Makes an external account unusable: the provider invalidates it, or the partner deletes it (204). */
    const spoil = async (accountId: string, how: 'invalidate' | 'delete') => {
      if (how === 'invalidate')
        expect((await post(`/external-accounts/${accountId}/simulate/invalidate`, {})).body).toMatchObject({
          status: 'invalid',
        });
      else expect((await base.del(`/external-accounts/${accountId}`)).status).toBe(204);
    };
    return {
      projectId,
      token,
      customer,
      walletId,
      returnAccount,
      destination,
      va,
      post,
      patch,
      get,
      admin,
      advance,
      deliver,
      transfer,
      transaction,
      events,
      ledger,
      settledLedger,
      bank,
      externalWallet,
      spoil,
    };
  }

  it('turns an ACH transfer into USDC in the customer wallet: the bank deposit settles, the crypto goes out, each leg announced in order', async () => {
    const t = await tenant();
    const txn = await t.transfer('250.00', { senderName: 'Acme Payroll' });
    expect(txn).toMatchObject({
      object: 'transaction',
      sourceToDestination: 'fiatAccountToCrypto',
      status: 'processing',
      subStatus: null,
      customerId: t.customer.id,
      precursor: { type: 'virtualAccount', id: t.va.id },
      source: {
        type: 'virtualAccount',
        category: 'fiat',
        details: { id: t.va.id, asset: 'usd', network: 'ach', senderName: 'Acme Payroll' },
        party: { relationship: 'externalUnregistered' },
      },
      destination: {
        type: 'walletOms',
        category: 'crypto',
        details: { id: t.walletId, asset: 'usdc', network: NETWORK },
      },
      pricing: {
        source: { asset: 'usd', amountGross: '250.00', amountNet: '250.00' },
        destination: { asset: 'usdc', amountGross: '250.00', amountNet: '250.00' },
        fixedAmountSide: 'source',
      },
    });
    expect(txn).not.toHaveProperty('hold');
    expect(txn.legs.map((l: Txn) => [l.kind, l.rail, l.asset, l.amount, l.status])).toEqual([
      ['deposit', 'ach', 'usd', '250.00', 'pending'],
    ]);
    expect((await t.get(`/transactions?customerId=${t.customer.id}`)).body.data.map((x: Txn) => x.id)).toContain(
      txn.id,
    );

    await t.advance(ACH);
    const delivering = await t.transaction(txn.id, (x) => x.legs.length === 2);
    expect(delivering.legs[0]).toMatchObject({
      status: 'settled',
      endToEndId: expect.any(String),
      settledAt: expect.any(String),
    });
    expect(delivering.legs[1]).toMatchObject({
      kind: 'payout',
      rail: 'crypto',
      asset: 'usdc',
      amount: '250.00',
      status: 'pending',
    });
    await t.advance(CRYPTO);
    const done = await t.transaction(txn.id, (x) => x.status === 'completed');
    expect(done.subStatus).toBeNull();
    const { names, bodies } = await t.events(txn.id, (n) => n.includes('statusChanged:completed'));
    expect(names).toEqual([
      'statusChanged:processing',
      'virtualAccount.deposit.pending',
      'virtualAccount.deposit.settled',
      'virtualAccount.cryptoTransfer.initiated',
      'virtualAccount.cryptoTransfer.pending',
      'virtualAccount.cryptoTransfer.settled',
      'statusChanged:completed',
    ]);
    expect(nonDecreasing(sequences(bodies))).toBe(true);
    expect(await t.settledLedger(txn.id)).toEqual({
      transit: '0',
      unbalanced: 0,
      accounts: { 'rail:usd:ach': '-250.00' },
    });
    const balance = await eventually(async () => {
      const b = (await t.get(`/wallets/${t.walletId}/balance`)).body.data;
      return Number(b.balance) === 250 ? b : undefined;
    }, 30_000);
    expect(balance).toMatchObject({ walletId: t.walletId, asset: 'usdc' });
  }, 180_000);

  it("carries an incoming wire's bank reference on its deposit leg and pays a bank destination as a fiat transfer", async () => {
    const t = await tenant({ destination: 'bankUs' });
    const wire = await t.transfer('40.00', { rail: 'wire' });
    expect(wire.legs[0]).toMatchObject({ kind: 'deposit', rail: 'wire', status: 'pending' });
    await t.advance(WIRE);
    await t.transaction(wire.id, (x) => x.legs.length === 2);
    await t.advance(WIRE);
    const done = await t.transaction(wire.id, (x) => x.status === 'completed');
    expect(done.legs[0]).toMatchObject({ rail: 'wire', status: 'settled', imad: expect.any(String) });
    expect(done.legs[0]).toHaveProperty('instructionId');
    expect(done.legs[1]).toMatchObject({
      kind: 'payout',
      rail: 'wire',
      asset: 'usd',
      amount: '40.00',
      status: 'settled',
    });
    expect(done).toMatchObject({
      destination: { type: 'bankUs', category: 'fiat' },
      payoutOrigin: { type: 'virtualAccount', id: t.va.id, accountHolder: 'customer' },
    });
    const { names } = await t.events(wire.id, (n) => n.includes('statusChanged:completed'));
    expect(names.filter((n) => n.startsWith('virtualAccount.'))).toEqual([
      'virtualAccount.deposit.pending',
      'virtualAccount.deposit.settled',
      'virtualAccount.fiatTransfer.initiated',
      'virtualAccount.fiatTransfer.pending',
      'virtualAccount.fiatTransfer.settled',
    ]);
    expect(await t.settledLedger(wire.id)).toEqual({
      transit: '0',
      unbalanced: 0,
      accounts: { 'rail:usd:wire': '0.00' },
    });

    const international = await t.transfer('12.00', { rail: 'internationalWire' });
    await t.advance(ACH);
    const settled = await t.transaction(international.id, (x) => x.legs[0].status === 'settled');
    expect(settled.legs[0]).toMatchObject({ rail: 'internationalWire', instructionId: expect.any(String) });
  }, 180_000);

  it('fails a transfer the bank refused (.91) or returned (.92): nothing is credited', async () => {
    const t = await tenant();
    const refused = await t.transfer('25.91');
    const failed = await t.transaction(refused.id, (x) => x.status === 'failed');
    expect(failed).toMatchObject({
      subStatus: 'failed.providerDeclined',
      legs: [{ kind: 'deposit', status: 'failed', failure: { code: 'providerError' } }],
    });
    const returned = await t.transfer('25.92');
    await t.advance(ACH);
    const back = await t.transaction(returned.id, (x) => x.status === 'failed');
    expect(back.subStatus).toBe('failed.inboundFailed');
    const refusedEvents = await t.events(refused.id, (n) => n.includes('statusChanged:failed.providerDeclined'));
    expect(refusedEvents.names).toEqual([
      'statusChanged:processing',
      'virtualAccount.deposit.pending',
      'virtualAccount.deposit.failed',
      'statusChanged:failed.providerDeclined',
    ]);
    const returnedEvents = await t.events(returned.id, (n) => n.includes('statusChanged:failed.inboundFailed'));
    expect(returnedEvents.names).toEqual([
      'statusChanged:processing',
      'virtualAccount.deposit.pending',
      'virtualAccount.deposit.returned',
      'statusChanged:failed.inboundFailed',
    ]);
    for (const id of [refused.id, returned.id])
      expect(await t.ledger(id)).toEqual({ transit: '0', unbalanced: 0, accounts: {} });
  }, 180_000);

  it('holds a failed delivery (.94) for review with the money kept; the operator refund goes to the return destination as a fiat transfer', async () => {
    const t = await tenant({ destination: 'walletExternal', returnDestination: true });
    const txn = await t.transfer('25.94');
    await t.deliver(txn.id);
    const held = await t.transaction(txn.id, (x) => x.subStatus === 'processing.underReview');
    expect(held.legs[1]).toMatchObject({ kind: 'payout', status: 'failed', failure: { code: 'providerError' } });
    expect((await t.settledLedger(txn.id, '25.94')).transit).toMatch(/^25\.94/);
    const refund = await t.admin(`/transactions/${txn.id}/refund`, { reason: 'the customer asked for the money back' });
    expect(refund.status).toBe(200);
    expect(refund.body).toMatchObject({
      result: 'refunding',
      transaction: { subStatus: 'processing.returningToSender' },
    });
    expect(refund.body.transaction.legs[2]).toMatchObject({
      kind: 'refund',
      rail: 'ach',
      asset: 'usd',
      amount: '25.94',
      status: 'pending',
    });
    await t.advance(ACH);
    const back = await t.transaction(txn.id, (x) => x.status === 'failed');
    expect(back).toMatchObject({
      subStatus: 'failed.returnedToSender',
      error: { refund: { status: 'completed', amount: '25.94', asset: 'usd' } },
    });
    const { names } = await t.events(txn.id, (n) => n.includes('statusChanged:failed.returnedToSender'));
    expect(names).toEqual([
      'statusChanged:processing',
      'virtualAccount.deposit.pending',
      'virtualAccount.deposit.settled',
      'virtualAccount.cryptoTransfer.initiated',
      'virtualAccount.cryptoTransfer.pending',
      'virtualAccount.cryptoTransfer.failed',
      'statusChanged:processing.underReview',
      'virtualAccount.fiatTransfer.initiated',
      'statusChanged:processing.returningToSender',
      'virtualAccount.fiatTransfer.pending',
      'virtualAccount.fiatTransfer.settled',
      'statusChanged:failed.returnedToSender',
    ]);
    expect(await t.settledLedger(txn.id)).toEqual({
      transit: '0',
      unbalanced: 0,
      accounts: { 'rail:usd:ach': '0.00' },
    });
  }, 180_000);

  it('respects a partial and a zero refund: the transfer carries what goes back, the rest is retained, the ledger balances', async () => {
    const t = await tenant({ returnDestination: true });
    for (const [amount, retained] of [
      ['10.00', '15.94'],
      ['0.00', '25.94'],
    ]) {
      const txn = await t.transfer('25.94');
      await t.deliver(txn.id);
      await t.transaction(txn.id, (x) => x.subStatus === 'processing.underReview');
      const refund = await t.admin(`/transactions/${txn.id}/refund`, { reason: 'the bank kept its fee', amount });
      expect(refund.status).toBe(200);
      await t.advance(ACH);
      const back = await t.transaction(txn.id, (x) => x.status === 'failed');
      expect(back).toMatchObject({
        subStatus: 'failed.returnedToSender',
        error: { refund: { status: 'completed', amount, asset: 'usd' } },
      });
      expect(back.legs.at(-1)).toMatchObject({ kind: 'refund', amount, status: 'settled' });
      const { bodies } = await t.events(txn.id, (n) => n.includes('virtualAccount.fiatTransfer.settled'));
      expect(
        bodies.filter((b) => b.event?.startsWith('virtualAccount.fiatTransfer')).map((b) => b.data.legs.at(-1).amount),
      ).toEqual([amount, amount, amount]);
      expect(await t.settledLedger(txn.id)).toEqual({
        transit: '0',
        unbalanced: 0,
        accounts: { 'rail:usd:ach': (Number(amount) - 25.94).toFixed(2), 'retained:usd': retained },
      });
    }
    // More than is held, or an amount on another kind of transaction, is refused and changes nothing.
    const txn = await t.transfer('25.94');
    await t.deliver(txn.id);
    await t.transaction(txn.id, (x) => x.subStatus === 'processing.underReview');
    const tooMuch = await t.admin(`/transactions/${txn.id}/refund`, { reason: 'x', amount: '26.00' });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body).toMatchObject({ error: 'InvalidRequest', cause: expect.stringContaining('more than') });
    expect((await t.admin(`/transactions/${txn.id}/refund`, { reason: 'x', amount: '-1.00' })).status).toBe(400);
    expect((await t.get(`/transactions/${txn.id}`)).body.subStatus).toBe('processing.underReview');
  }, 240_000);

  it('a refund the bank reported only as initiated (.99) waits for the operator: complete-refund ends it returnedToSender, once', async () => {
    const t = await tenant({ returnDestination: true });
    const txn = await t.transfer('30.99');
    await t.deliver(txn.id);
    await t.transaction(txn.id, (x) => x.subStatus === 'processing.underReview');
    expect((await t.admin(`/transactions/${txn.id}/refund`, { reason: 'send it back' })).status).toBe(200);
    await t.advance(ACH);
    await t.advance(301);
    const stuck = await t.transaction(
      txn.id,
      (x) => x.subStatus === 'processing.underReview' && x.legs.at(-1).kind === 'refund',
    );
    expect(stuck.legs.at(-1)).toMatchObject({ kind: 'refund', status: 'pending' });
    // Nothing else may touch money whose refund is out.
    expect((await t.admin(`/transactions/${txn.id}/retry`, { reason: 'x' })).status).toBe(409);
    const completed = await t.admin(`/transactions/${txn.id}/complete-refund`, {
      reason: 'the bank confirmed the return by phone',
    });
    expect(completed.status).toBe(200);
    expect(completed.body).toMatchObject({
      result: 'refundCompleted',
      transaction: {
        status: 'failed',
        subStatus: 'failed.returnedToSender',
        error: { refund: { status: 'completed', amount: '30.99' } },
      },
    });
    expect(completed.body.transaction.legs.at(-1)).toMatchObject({ kind: 'refund', status: 'settled' });
    const again = await t.admin(`/transactions/${txn.id}/complete-refund`, { reason: 'again' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      result: 'already_completed',
      transaction: { subStatus: 'failed.returnedToSender' },
    });
    const { names } = await t.events(txn.id, (n) => n.includes('statusChanged:failed.returnedToSender'));
    expect(names.slice(-5)).toEqual([
      'virtualAccount.fiatTransfer.initiated',
      'statusChanged:processing.returningToSender',
      'statusChanged:processing.underReview',
      'virtualAccount.fiatTransfer.settled',
      'statusChanged:failed.returnedToSender',
    ]);
    expect(names).not.toContain('virtualAccount.fiatTransfer.pending');
    expect(await t.settledLedger(txn.id)).toEqual({
      transit: '0',
      unbalanced: 0,
      accounts: { 'rail:usd:ach': '0.00' },
    });
    // Any other payment: 422 refundNotCompletable (10368).
    const other = await t.transfer('5.00');
    const refused = await t.admin(`/transactions/${other.id}/complete-refund`, { reason: 'x' });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ error: 'refundNotCompletable', code: 10368 });
  }, 240_000);

  it('reviews a transfer at the threshold once it settled; a rejection (.98) refunds the sender on the rail it came by', async () => {
    const t = await tenant();
    const reviews = await t.post('/webhooks', {
      url: receiver.url(`/reviews-${t.projectId}`),
      subscriptions: ['transaction.fiatToCrypto.underReview'],
    });
    expect(reviews.status).toBe(201);
    const txn = await t.transfer('10000.98', { rail: 'wire' });
    await t.advance(WIRE);
    const held = await t.transaction(txn.id, (x) => x.subStatus === 'processing.underReview');
    expect(held.legs.map((l: Txn) => [l.kind, l.status])).toEqual([['deposit', 'settled']]);
    const told = await eventually(
      async () => receiver.at(`/reviews-${t.projectId}`).find((r) => r.body.data?.id === txn.id)?.body,
      30_000,
    );
    expect(told).toMatchObject({
      event: 'transaction.fiatToCrypto.underReview',
      data: { precursor: { type: 'virtualAccount' } },
    });
    await t.advance(61);
    const returning = await t.transaction(txn.id, (x) => x.subStatus === 'processing.returningToSender');
    expect(returning.legs.at(-1)).toMatchObject({ kind: 'refund', rail: 'wire', asset: 'usd', amount: '10000.98' });
    await t.advance(WIRE);
    const back = await t.transaction(txn.id, (x) => x.status === 'failed');
    expect(back).toMatchObject({ subStatus: 'failed.returnedToSender', error: { code: 'complianceRejected' } });
    expect((await t.settledLedger(txn.id)).unbalanced).toBe(0);
  }, 180_000);

  it('sweeps an unconfirmed delivery the provider has none of (.96) into review; mark-failed, then the operator retry is refused and a refund returns it', async () => {
    const t = await tenant({ returnDestination: true });
    const txn = await t.transfer('12.96');
    await t.advance(ACH);
    await t.transaction(txn.id, (x) => x.legs.length === 2);
    await t.advance(301);
    await t.transaction(txn.id, (x) => x.subStatus === 'processing.payoutUnconfirmed');
    await t.advance(601);
    const swept = await t.transaction(txn.id, (x) => x.subStatus === 'processing.underReview');
    expect(swept.legs[1]).toMatchObject({ kind: 'payout', status: 'failed', failure: { code: 'providerTimeout' } });
    expect((await t.admin(`/transactions/${txn.id}/mark-failed`, { reason: 'gave up on the chain' })).status).toBe(200);
    await t.transaction(txn.id, (x) => x.subStatus === 'failed.outboundFailed');
    expect((await t.admin(`/transactions/${txn.id}/refund`, { reason: 'return it' })).status).toBe(200);
    await t.advance(ACH);
    await t.transaction(txn.id, (x) => x.subStatus === 'failed.returnedToSender');
    expect((await t.settledLedger(txn.id)).unbalanced).toBe(0);
  }, 180_000);

  it('returns a transfer to a frozen account at once, and one transfer replayed with its Idempotency-Key makes one transaction', async () => {
    const t = await tenant();
    const send = () =>
      platform.request('POST', `/v0.13/virtual-accounts/${t.va.id}/simulate/inbound-transfer`, {
        token: t.token,
        body: { amount: '5.00' },
        idempotencyKey: `transfer-${t.va.id}`,
      });
    const [a, b] = [await send(), await send()];
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body.transactionId).toBe(a.body.transactionId);
    expect(
      ((await t.get(`/transactions?customerId=${t.customer.id}`)).body.data as Txn[]).filter(
        (x) => x.precursor?.id === t.va.id,
      ),
    ).toHaveLength(1);

    expect((await t.post(`/virtual-accounts/${t.va.id}/simulate/freeze`, {})).status).toBe(200);
    const txn = await t.transfer('9.00');
    expect(txn).toMatchObject({
      status: 'failed',
      subStatus: 'failed.returnedToSender',
      error: { code: 'virtualAccountInactive' },
    });
    expect(txn.legs).toEqual([expect.objectContaining({ kind: 'deposit', status: 'failed' })]);
    const { names } = await t.events(txn.id, (n) => n.includes('statusChanged:failed.returnedToSender'));
    expect(names).toEqual([
      'statusChanged:processing',
      'virtualAccount.deposit.pending',
      'virtualAccount.deposit.returned',
      'statusChanged:failed.returnedToSender',
    ]);
    expect(await t.ledger(txn.id)).toEqual({ transit: '0', unbalanced: 0, accounts: {} });
  }, 180_000);

  // Issue 42, items 1 and 2. Spec: States / Transaction ("blocked on ... missing payout destination" holds it
  // `awaitingAction` with `hold`; "hold cleared (for example a new payout destination is set)" resumes it;
  // `processing.underReview`: the service holds the money for an operator), Deposit address (a deposit whose
  // destination was deleted waits until a new one is set: a virtual account's the same), External account
  // (`invalid`; DELETE answers 204). The account is checked when the payout or refund starts and when the
  // payout answers: nothing is paid to an account invalidated or deleted before then.
  describe('a destination or return destination that went away', () => {
    const HOLD = { code: 'payoutDestinationMissing', message: expect.stringContaining('virtual account') };
    const kinds = (txn: Txn) => txn.legs.map((l: Txn) => [l.kind, l.status]);
    /** What the transaction's transit account holds once the accounts service has posted the deposit. */
    const transit = (t: Awaited<ReturnType<typeof tenant>>, id: string) =>
      eventually(async () => {
        const l = await t.ledger(id);
        return l.transit === '0' ? undefined : Number(l.transit);
      }, 30_000);

    const bankCases: Array<[string, 'invalidate' | 'delete', 'beforeTheTransfer' | 'whileTheWireIsPending']> = [
      ['invalidated by its provider before the transfer', 'invalidate', 'beforeTheTransfer'],
      ['deleted before the transfer', 'delete', 'beforeTheTransfer'],
      ['deleted while the inbound wire is pending', 'delete', 'whileTheWireIsPending'],
    ];
    it.each(bankCases)(
      'a bank destination %s: the deposit waits for a destination, nothing is paid to it, and a PATCH pays the new one',
      async (_name, how, when) => {
        const t = await tenant({ destination: 'bankUs' });
        const gone = String(t.destination.externalAccountId);
        if (when === 'beforeTheTransfer') await t.spoil(gone, how);
        const txn = await t.transfer('40.00', { rail: 'wire' });
        if (when === 'whileTheWireIsPending') await t.spoil(gone, how);
        await t.advance(WIRE);
        const held = await t.transaction(txn.id, (x) => x.status !== 'processing' || x.legs.length > 1);
        expect(held).toMatchObject({
          status: 'awaitingAction',
          subStatus: 'awaitingAction.payoutDestinationMissing',
          hold: HOLD,
          destination: { details: { id: gone } },
        });
        expect(held.hold).not.toHaveProperty('deadline');
        expect(kinds(held)).toEqual([['deposit', 'settled']]);
        // The dollars stay in transit however long the clock runs: no payout starts on its own.
        await t.advance(WIRE);
        expect(await transit(t, txn.id)).toBe(40);
        expect(kinds((await t.get(`/transactions/${txn.id}`)).body)).toEqual([['deposit', 'settled']]);

        const replacement = await t.bank('888899990000');
        const patched = await t.patch(`/virtual-accounts/${t.va.id}`, {
          destination: { type: 'bankUs', externalAccountId: replacement.id, payout: { rail: 'wire' } },
        });
        expect(patched.status).toBe(200);
        expect(patched.body).toMatchObject({ status: 'active', destination: { id: replacement.id } });
        const resumed = await t.transaction(txn.id, (x) => x.legs.length === 2);
        expect(resumed).toMatchObject({
          status: 'processing',
          subStatus: null,
          destination: { type: 'bankUs', details: { id: replacement.id } },
        });
        expect(resumed).not.toHaveProperty('hold');
        await t.advance(WIRE);
        const done = await t.transaction(txn.id, (x) => x.status === 'completed');
        expect(kinds(done)).toEqual([
          ['deposit', 'settled'],
          ['payout', 'settled'],
        ]);
        const { names } = await t.events(txn.id, (n) => n.includes('statusChanged:completed'));
        expect(names).toEqual([
          'statusChanged:processing',
          'virtualAccount.deposit.pending',
          'virtualAccount.deposit.settled',
          'statusChanged:awaitingAction.payoutDestinationMissing',
          'statusChanged:processing',
          'virtualAccount.fiatTransfer.initiated',
          'virtualAccount.fiatTransfer.pending',
          'virtualAccount.fiatTransfer.settled',
          'statusChanged:completed',
        ]);
        expect(await t.settledLedger(txn.id)).toEqual({
          transit: '0',
          unbalanced: 0,
          accounts: { 'rail:usd:wire': '0.00' },
        });
      },
      180_000,
    );

    it('a bank destination deleted while its wire payout is pending: the payout is refused, nothing is paid, and the deposit waits for a new destination', async () => {
      const t = await tenant({ destination: 'bankUs' });
      const gone = String(t.destination.externalAccountId);
      const txn = await t.transfer('40.00', { rail: 'wire' });
      await t.advance(WIRE);
      await t.transaction(txn.id, (x) => x.legs.length === 2);
      await t.spoil(gone, 'delete');
      await t.advance(WIRE);
      const held = await t.transaction(txn.id, (x) => x.status !== 'processing');
      expect(held).toMatchObject({
        status: 'awaitingAction',
        subStatus: 'awaitingAction.payoutDestinationMissing',
        hold: HOLD,
      });
      expect(held.legs[1]).toMatchObject({
        kind: 'payout',
        rail: 'wire',
        status: 'failed',
        settledAt: null,
        failure: { code: 'externalAccountDeleted', message: expect.stringContaining(gone) },
      });
      expect(await transit(t, txn.id)).toBe(40);
      const { names } = await t.events(txn.id, (n) =>
        n.includes('statusChanged:awaitingAction.payoutDestinationMissing'),
      );
      expect(names.slice(-2)).toEqual([
        'virtualAccount.fiatTransfer.failed',
        'statusChanged:awaitingAction.payoutDestinationMissing',
      ]);

      const replacement = await t.bank('888899990000');
      expect(
        (
          await t.patch(`/virtual-accounts/${t.va.id}`, {
            destination: { type: 'bankUs', externalAccountId: replacement.id, payout: { rail: 'wire' } },
          })
        ).status,
      ).toBe(200);
      await t.transaction(txn.id, (x) => x.legs.length === 3);
      await t.advance(WIRE);
      const done = await t.transaction(txn.id, (x) => x.status === 'completed');
      expect(kinds(done)).toEqual([
        ['deposit', 'settled'],
        ['payout', 'failed'],
        ['payout', 'settled'],
      ]);
      expect(done.destination.details.id).toBe(replacement.id);
      expect(await t.settledLedger(txn.id)).toEqual({
        transit: '0',
        unbalanced: 0,
        accounts: { 'rail:usd:wire': '0.00' },
      });
    }, 180_000);

    it('a destination deleted and replaced while the transfer is pending: the deposit is paid to the replacement', async () => {
      const t = await tenant({ destination: 'bankUs' });
      const txn = await t.transfer('40.00', { rail: 'wire' });
      await t.spoil(String(t.destination.externalAccountId), 'delete');
      const replacement = await t.bank('888899990000');
      expect(
        (
          await t.patch(`/virtual-accounts/${t.va.id}`, {
            destination: { type: 'bankUs', externalAccountId: replacement.id, payout: { rail: 'wire' } },
          })
        ).status,
      ).toBe(200);
      await t.advance(WIRE);
      const paying = await t.transaction(txn.id, (x) => x.legs.length === 2);
      expect(paying).toMatchObject({
        status: 'processing',
        destination: { details: { id: replacement.id } },
        legs: [{ status: 'settled' }, { kind: 'payout', status: 'pending' }],
      });
      await t.advance(WIRE);
      await t.transaction(txn.id, (x) => x.status === 'completed');
      expect(await t.settledLedger(txn.id)).toEqual({
        transit: '0',
        unbalanced: 0,
        accounts: { 'rail:usd:wire': '0.00' },
      });
    }, 180_000);

    it('an external wallet destination deleted: the USDC is not sent; a PATCH to a custodial wallet delivers it', async () => {
      const t = await tenant({ destination: 'walletExternal' });
      await t.spoil(String(t.destination.externalAccountId), 'delete');
      const txn = await t.transfer('25.00');
      await t.advance(ACH);
      const held = await t.transaction(txn.id, (x) => x.status !== 'processing' || x.legs.length > 1);
      expect(held).toMatchObject({
        status: 'awaitingAction',
        subStatus: 'awaitingAction.payoutDestinationMissing',
        hold: HOLD,
        destination: { type: 'walletExternal' },
      });
      expect(kinds(held)).toEqual([['deposit', 'settled']]);
      await t.advance(CRYPTO);
      expect(await transit(t, txn.id)).toBe(25);

      const wallet = await t.post(`/customers/${t.customer.id}/wallets`, { asset: 'usdc', network: NETWORK });
      expect(wallet.status).toBe(201);
      expect(
        (
          await t.patch(`/virtual-accounts/${t.va.id}`, {
            destination: { type: 'walletOms', walletId: wallet.body.id },
          })
        ).status,
      ).toBe(200);
      const resumed = await t.transaction(txn.id, (x) => x.legs.length === 2);
      expect(resumed).toMatchObject({
        status: 'processing',
        destination: { type: 'walletOms', details: { id: wallet.body.id } },
        legs: [{}, { kind: 'payout', rail: 'crypto', status: 'pending' }],
      });
      await t.advance(CRYPTO);
      await t.transaction(txn.id, (x) => x.status === 'completed');
      const { names } = await t.events(txn.id, (n) => n.includes('statusChanged:completed'));
      expect(names.slice(2)).toEqual([
        'virtualAccount.deposit.settled',
        'statusChanged:awaitingAction.payoutDestinationMissing',
        'statusChanged:processing',
        'virtualAccount.cryptoTransfer.initiated',
        'virtualAccount.cryptoTransfer.pending',
        'virtualAccount.cryptoTransfer.settled',
        'statusChanged:completed',
      ]);
      await eventually(
        async () =>
          Number((await t.get(`/wallets/${wallet.body.id}/balance`)).body.data.balance) === 25 ? true : undefined,
        30_000,
      );
    }, 180_000);

    it('a refund to a deleted return destination is refused and moves nothing; the operator sends the money back to the sender instead', async () => {
      const t = await tenant({ destination: 'walletExternal', returnDestination: true });
      const txn = await t.transfer('25.94', { rail: 'wire' });
      await t.deliver(txn.id, WIRE);
      await t.transaction(txn.id, (x) => x.subStatus === 'processing.underReview');
      const gone = t.returnAccount!.id;
      await t.spoil(gone, 'delete');
      // The return destination is still named on the account, but no refund goes to it.
      expect((await t.get(`/virtual-accounts/${t.va.id}`)).body.returnDestination).toMatchObject({ id: gone });

      const refused = await t.admin(`/transactions/${txn.id}/refund`, { reason: 'the customer asked for it back' });
      expectError(refused, 422, 'ExternalAccountNotActive');
      expect(refused.body.cause).toContain(gone);
      expect(refused.body.cause).toMatch(/"to": "sender"/);
      const same = (await t.get(`/transactions/${txn.id}`)).body;
      expect(same).toMatchObject({ status: 'processing', subStatus: 'processing.underReview' });
      expect(kinds(same)).toEqual([
        ['deposit', 'settled'],
        ['payout', 'failed'],
      ]);
      expect(await transit(t, txn.id)).toBe(25.94);

      const back = await t.admin(`/transactions/${txn.id}/refund`, {
        reason: 'the return account is closed',
        to: 'sender',
      });
      expect(back.status).toBe(200);
      expect(back.body).toMatchObject({
        result: 'refunding',
        transaction: { subStatus: 'processing.returningToSender' },
      });
      expect(back.body.transaction.legs[2]).toMatchObject({
        kind: 'refund',
        rail: 'wire',
        asset: 'usd',
        amount: '25.94',
        status: 'pending',
      });
      await t.advance(WIRE);
      const done = await t.transaction(txn.id, (x) => x.status === 'failed');
      expect(done).toMatchObject({
        subStatus: 'failed.returnedToSender',
        error: { refund: { status: 'completed', amount: '25.94', asset: 'usd' } },
      });
      expect(await t.settledLedger(txn.id)).toEqual({
        transit: '0',
        unbalanced: 0,
        accounts: { 'rail:usd:wire': '0.00' },
      });
    }, 180_000);

    it("a rejected review's refund to an invalidated return destination is held for an operator: nothing is sent, the money is kept", async () => {
      const t = await tenant({ returnDestination: true });
      const gone = t.returnAccount!.id;
      await t.spoil(gone, 'invalidate');
      const txn = await t.transfer('10000.98', { rail: 'wire' });
      await t.advance(WIRE);
      await t.transaction(txn.id, (x) => x.subStatus === 'processing.underReview');
      await t.advance(61);
      const held = await t.transaction(txn.id, (x) => x.legs.length > 1);
      expect(held).toMatchObject({ status: 'processing', subStatus: 'processing.underReview' });
      expect(held).not.toHaveProperty('error');
      expect(held.legs[1]).toMatchObject({
        kind: 'refund',
        rail: 'ach',
        amount: '10000.98',
        status: 'failed',
        settledAt: null,
        failure: { code: 'externalAccountInvalid', message: expect.stringContaining(gone) },
      });
      expect(await t.settledLedger(txn.id, '10000.98')).toMatchObject({
        unbalanced: 0,
        accounts: { 'rail:usd:wire': '-10000.98' },
      });
      const { names } = await t.events(txn.id, (n) => n.includes('virtualAccount.fiatTransfer.failed'));
      expect(names.slice(-1)).toEqual(['virtualAccount.fiatTransfer.failed']);
      // It waits in the operator's queue.
      const queue = await platform.admin('GET', `/transactions/held?projectId=${t.projectId}&limit=100`);
      expect(queue.body.data.map((h: Txn) => h.transaction.id)).toContain(txn.id);

      // Nothing was sent, so there is no refund to complete; the review rejected the payout, so no retry.
      expectError(
        await t.admin(`/transactions/${txn.id}/complete-refund`, { reason: 'x' }),
        422,
        'refundNotCompletable',
      );
      expectError(await t.admin(`/transactions/${txn.id}/retry`, { reason: 'x' }), 409, 'TransactionNotActionable');
      expectError(await t.admin(`/transactions/${txn.id}/refund`, { reason: 'x' }), 422, 'ExternalAccountNotActive');
      expect(
        (await t.admin(`/transactions/${txn.id}/refund`, { reason: 'return it to the sender', to: 'sender' })).status,
      ).toBe(200);
      await t.advance(WIRE);
      const done = await t.transaction(txn.id, (x) => x.status === 'failed');
      expect(done).toMatchObject({
        subStatus: 'failed.returnedToSender',
        error: { code: 'complianceRejected', refund: { status: 'completed', amount: '10000.98' } },
      });
      expect(done.legs.at(-1)).toMatchObject({ kind: 'refund', rail: 'wire', status: 'settled' });
      expect(await t.settledLedger(txn.id)).toEqual({
        transit: '0',
        unbalanced: 0,
        accounts: { 'rail:usd:wire': '0.00' },
      });
    }, 180_000);
  });
});
