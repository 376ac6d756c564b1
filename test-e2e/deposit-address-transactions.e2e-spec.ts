// Issue 19, items 2 to 4: the transaction a deposit address deposit makes. Spec: rule 3 (auto-created
// transactions skip the quote and start `processing`), Deposit address, Transaction (`hold`, sub-statuses,
// the unconfirmed payout sweep: `processing.underReview` on deposit address payouts), States / Transaction
// (holds, attribution timeout), Events (deposit address legs; ties 5 and 6), Operator-only (retry, refund,
// mark-failed); docs/sandbox.md (the cents of the deposit choose the payout's outcome). Every deposit is
// followed to its end with its webhooks in order, and the ledger is read back: the crypto in, the fiat
// out, nothing left in transit once the transaction is terminal. Both modes.
import { newTenant } from './support/tenant';
import { eventually, expectError, TestPlatform } from './support/test-platform';
import { WebhookReceiver } from './support/webhook-receiver';

const NETWORK = 'ethereum';
const SENDER = '0x1111111111111111111111111111111111111111';
const ACH_SETTLES = 61;

type Txn = Record<string, any>;

describe('deposit address deposits: the transaction each one makes', () => {
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
  /** A project of its own (its own clock) with the feature on, an endorsed customer, a bank account and an active address. */
  async function tenant(address: Record<string, unknown> = {}, options: { returnWallet?: boolean } = {}) {
    const name = `deposit-address-txn-${++tenants}`;
    const base = await newTenant(platform, {
      name,
      receiver,
      settings: { features: { depositAddresses: true }, attributionTimeoutHours: 1 },
    });
    const { projectId, token, post, patch, get, advance } = base;
    const admin = (path: string, reason: string) => platform.admin('POST', path, { body: { reason } });
    const customer = await base.customer();
    const bank = (accountNumber = '123456789012') => base.bankUs(customer.id, undefined, accountNumber);
    const destination = await bank();
    // A return wallet of the customer's own, where returns go instead of the sender.
    const returnWallet = options.returnWallet
      ? await base.externalWallet(customer.id, '0x4444444444444444444444444444444444444444', NETWORK)
      : undefined;
    const hook = await base.endpoint(`/${name}`);
    const created = await post('/deposit-addresses', {
      customerId: customer.id,
      expectedSourceAsset: 'usdc',
      expectedSourceNetwork: NETWORK,
      destination: { externalAccountId: destination.id },
      payout: { rail: 'ach' },
      ...(returnWallet ? { returnDestination: { externalAccountId: returnWallet.id } } : {}),
      ...address,
    });
    expect(created.status).toBe(201);
    // The simulated custodian provisions it a few seconds of project time later.
    const da = await eventually(async () => {
      await advance(5);
      const got = (await get(`/deposit-addresses/${created.body.id}`)).body;
      return got.status === 'active' ? got : undefined;
    }, 30_000);
    /** Simulates an on-chain deposit; answers the transaction it made, which exists already. */
    const deposit = async (amount: string, senderAddress = SENDER, id = da.id as string) => {
      const res = await post(`/deposit-addresses/${id}/simulate/crypto-deposit`, { amount, senderAddress });
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
    /** Every partner event of this transaction received so far, in delivery-creation order. */
    const events = async (transactionId: string, until: (names: string[]) => boolean) =>
      eventually(async () => {
        const deliveries = [...(await get(`/webhooks/${hook.id}/deliveries?limit=100`)).body.data].reverse() as Array<{
          id: string;
        }>;
        const received = receiver.at(`/${name}`).map((r) => r.body);
        // Deliveries run concurrently: only once every delivery made so far has arrived is the list complete.
        if (!deliveries.every((d) => received.some((b) => b.id === d.id))) return undefined;
        const mine = deliveries
          .map((d) => received.find((b) => b.id === d.id))
          .filter((b) => b && b.data?.id === transactionId);
        const names = mine.map((b) =>
          b.eventType === 'transaction.statusChanged' ? `statusChanged:${b.data.subStatus ?? b.data.status}` : b.event,
        );
        return until(names) ? { names, bodies: mine } : undefined;
      }, 30_000);
    /** What the ledger holds for a transaction: its transit account, and every posting's balance. */
    const ledger = async (transactionId: string) => {
      const [transit] = await platform.db.query<{ total: string | null }>(
        `SELECT sum(amount)::text AS total FROM accounts.ledger_entries WHERE account = $1`,
        [`transit:${transactionId}`],
      );
      const unbalanced = await platform.db.query(
        `SELECT posting_id FROM accounts.ledger_entries WHERE posting_id LIKE $1 GROUP BY posting_id, asset HAVING sum(amount) <> 0`,
        [`${transactionId}%`],
      );
      const rails = await platform.db.query<{ account: string; total: string }>(
        `SELECT account, sum(amount)::text AS total FROM accounts.ledger_entries WHERE posting_id LIKE $1 AND account LIKE 'rail:%' GROUP BY account ORDER BY account`,
        [`${transactionId}%`],
      );
      return {
        transit: Number(transit?.total ?? 0) === 0 ? '0' : transit!.total!,
        unbalanced: unbalanced.length,
        rails: Object.fromEntries(rails.map((r) => [r.account, Number(r.total).toFixed(2)])),
      };
    };
    /**
     * The ledger once the accounts service has posted what the transaction's last legs moved (it hears of them
     * by event); and the transaction's webhooks, every one delivered, in an order whose `sequence` never goes back.
     */
    const settledLedger = async (transactionId: string) => {
      const settled = await eventually(async () => {
        const l = await ledger(transactionId);
        return l.transit === '0' ? l : undefined;
      }, 30_000);
      const { bodies } = await events(transactionId, (n) => n.length > 0);
      expect(nonDecreasing(sequences(bodies))).toBe(true);
      return settled;
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
      settledLedger,
      post,
      patch,
      get,
      admin,
      advance,
      bank,
      destination,
      returnWallet,
      da,
      deposit,
      transaction,
      events,
      ledger,
      spoil,
    };
  }

  it('pays a deposit out to the bank account on its own: processing with the crypto in, then completed, each leg announced in order', async () => {
    const t = await tenant();
    const txn = await t.deposit('25.00');
    expect(txn).toMatchObject({
      object: 'transaction',
      sourceToDestination: 'cryptoToFiatAccount',
      status: 'processing',
      subStatus: null,
      customerId: t.customer.id,
      precursor: { type: 'depositAddress', id: t.da.id },
      source: {
        type: 'walletExternal',
        category: 'crypto',
        details: { asset: 'usdc', network: NETWORK, address: SENDER },
        party: { relationship: 'externalUnregistered' },
      },
      destination: {
        type: 'bankUs',
        category: 'fiat',
        details: { id: t.destination.id, asset: 'usd', network: 'ach' },
      },
      pricing: {
        source: { asset: 'usdc', amountGross: '25.00', amountNet: '25.00' },
        destination: { asset: 'usd', amountGross: '25.00', amountNet: '25.00' },
        fixedAmountSide: 'source',
        pair: 'usdc/usd',
      },
      payoutOrigin: { type: 'depositAddress', id: t.da.id, accountHolder: 'customer' },
    });
    expect(txn).not.toHaveProperty('hold');
    expect(txn.legs.map((l: Txn) => [l.kind, l.rail, l.asset, l.amount, l.status])).toEqual([
      ['deposit', 'crypto', 'usdc', '25.00', 'settled'],
      ['payout', 'ach', 'usd', '25.00', 'pending'],
    ]);
    expect(txn.legs[0].txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await t.get(`/transactions?customerId=${t.customer.id}`)).body.data.map((x: Txn) => x.id)).toContain(
      txn.id,
    );

    await t.advance(ACH_SETTLES);
    const done = await t.transaction(txn.id, (x) => x.status === 'completed');
    expect(done.subStatus).toBeNull();
    const { names, bodies } = await t.events(txn.id, (n) => n.includes('statusChanged:completed'));
    expect(names).toEqual([
      'statusChanged:processing',
      'deposit_address.crypto_deposit.pending',
      'deposit_address.crypto_deposit.settled',
      'deposit_address.ach_payout.initiated',
      'deposit_address.ach_payout.pending',
      'deposit_address.ach_payout.settled',
      'statusChanged:completed',
    ]);
    expect(nonDecreasing(sequences(bodies))).toBe(true);
    expect(await t.settledLedger(txn.id)).toEqual({
      transit: '0',
      unbalanced: 0,
      rails: { 'rail:usd:ach': '25.00', [`rail:usdc:${NETWORK}`]: '-25.00' },
    });
  }, 120_000);

  it('one deposit makes one transaction: the deposit replayed with its Idempotency-Key answers the same transaction', async () => {
    const t = await tenant();
    const deposit = () =>
      platform.request('POST', `/v0.13/deposit-addresses/${t.da.id}/simulate/crypto-deposit`, {
        token: t.token,
        body: { amount: '5.00', senderAddress: SENDER },
        idempotencyKey: `deposit-${t.da.id}`,
      });
    const [a, b] = [await deposit(), await deposit()];
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body.transactionId).toBe(a.body.transactionId);
    const all = (await t.get(`/transactions?customerId=${t.customer.id}`)).body.data as Txn[];
    expect(all.filter((x) => x.precursor?.id === t.da.id)).toHaveLength(1);
  }, 120_000);

  it('pays out on the wire rail the address names (wire_payout events)', async () => {
    const t = await tenant({ payout: { rail: 'wire' } });
    const txn = await t.deposit('30.00');
    expect(txn.legs[1]).toMatchObject({ kind: 'payout', rail: 'wire', status: 'pending' });
    await t.advance(31);
    await t.transaction(txn.id, (x) => x.status === 'completed');
    const { names } = await t.events(txn.id, (n) => n.includes('statusChanged:completed'));
    expect(names.filter((n) => n.startsWith('deposit_address.wire_payout'))).toEqual([
      'deposit_address.wire_payout.initiated',
      'deposit_address.wire_payout.pending',
      'deposit_address.wire_payout.settled',
    ]);
  }, 120_000);

  it('holds a refused payout (.91) for review with the money kept; the operator refund returns the crypto to the sender', async () => {
    const t = await tenant();
    const txn = await t.deposit('25.91');
    const held = await t.transaction(txn.id, (x) => x.subStatus === 'processing.underReview');
    expect(held.status).toBe('processing');
    expect(held.legs[1]).toMatchObject({ kind: 'payout', status: 'failed', failure: { code: 'providerError' } });
    // The money is held: the crypto sits in transit, nothing left for the bank.
    expect(
      await eventually(async () => ((await t.ledger(txn.id)).transit === '25.910000000000000000' ? true : undefined)),
    ).toBe(true);
    const refund = await t.admin(`/transactions/${txn.id}/refund`, 'the customer asked for the crypto back');
    expect(refund.status).toBe(200);
    const back = await t.transaction(txn.id, (x) => x.status === 'failed');
    expect(back).toMatchObject({
      subStatus: 'failed.returnedToSender',
      error: { refund: { status: 'completed', amount: '25.91', asset: 'usdc' } },
    });
    const { names } = await t.events(txn.id, (n) => n.includes('statusChanged:failed.returnedToSender'));
    expect(names).toEqual([
      'statusChanged:processing',
      'deposit_address.crypto_deposit.pending',
      'deposit_address.crypto_deposit.settled',
      'deposit_address.ach_payout.initiated',
      'deposit_address.ach_payout.pending',
      'deposit_address.ach_payout.failed',
      'statusChanged:processing.underReview',
      'deposit_address.crypto_payout.initiated',
      'deposit_address.crypto_payout.pending',
      'statusChanged:processing.returningToSender',
      'deposit_address.crypto_payout.settled',
      'statusChanged:failed.returnedToSender',
    ]);
    expect(await t.settledLedger(txn.id)).toEqual({
      transit: '0',
      unbalanced: 0,
      rails: { [`rail:usdc:${NETWORK}`]: '0.00' },
    });
  }, 120_000);

  it('holds a returned payout (.94) for review; the operator retry pays it out', async () => {
    const t = await tenant();
    const txn = await t.deposit('40.94');
    await t.advance(ACH_SETTLES);
    await t.transaction(txn.id, (x) => x.subStatus === 'processing.underReview');
    expect((await t.admin(`/transactions/${txn.id}/retry`, 'the bank fixed the account')).status).toBe(200);
    await t.advance(ACH_SETTLES);
    const done = await t.transaction(txn.id, (x) => x.status === 'completed');
    expect(done.legs.map((l: Txn) => [l.kind, l.status])).toEqual([
      ['deposit', 'settled'],
      ['payout', 'failed'],
      ['payout', 'settled'],
    ]);
    const { names } = await t.events(txn.id, (n) => n.includes('statusChanged:completed'));
    expect(names).toContain('deposit_address.ach_payout.returned');
    expect(await t.settledLedger(txn.id)).toEqual({
      transit: '0',
      unbalanced: 0,
      rails: { 'rail:usd:ach': '40.94', [`rail:usdc:${NETWORK}`]: '-40.94' },
    });
  }, 120_000);

  it('sweeps an unconfirmed payout the provider has none of (.96) into review with providerTimeout; mark-failed then refund', async () => {
    const t = await tenant();
    const txn = await t.deposit('12.96');
    await t.advance(301);
    await t.transaction(txn.id, (x) => x.subStatus === 'processing.payoutUnconfirmed');
    await t.advance(601);
    const swept = await t.transaction(txn.id, (x) => x.subStatus === 'processing.underReview');
    expect(swept.legs[1]).toMatchObject({ kind: 'payout', status: 'failed', failure: { code: 'providerTimeout' } });
    expect((await t.admin(`/transactions/${txn.id}/mark-failed`, 'gave up on the bank')).status).toBe(200);
    await t.transaction(txn.id, (x) => x.subStatus === 'failed.outboundFailed');
    expect((await t.admin(`/transactions/${txn.id}/refund`, 'return it')).status).toBe(200);
    await t.transaction(txn.id, (x) => x.subStatus === 'failed.returnedToSender');
    expect((await t.settledLedger(txn.id)).unbalanced).toBe(0);
  }, 120_000);

  it('holds amounts at the review threshold for compliance review and announces transaction.cryptoToFiat.underReview', async () => {
    const t = await tenant();
    const reviews = await t.post('/webhooks', {
      url: receiver.url(`/reviews-${t.projectId}`),
      subscriptions: ['transaction.cryptoToFiat.underReview'],
    });
    expect(reviews.status).toBe(201);
    const txn = await t.deposit('10000.00');
    expect([txn.status, txn.subStatus]).toEqual(['processing', 'processing.underReview']);
    const { names } = await t.events(txn.id, (n) => n.includes('statusChanged:processing.underReview'));
    expect(names).not.toContain('transaction.cryptoToFiat.underReview'); // named only: '*' does not cover it
    // An endpoint that names it hears the hold start, with the transaction held.
    const told = await eventually(
      async () => receiver.at(`/reviews-${t.projectId}`).find((r) => r.body.data?.id === txn.id)?.body,
      30_000,
    );
    expect(told).toMatchObject({
      event: 'transaction.cryptoToFiat.underReview',
      data: { status: 'processing', subStatus: 'processing.underReview', precursor: { type: 'depositAddress' } },
    });
    await t.advance(61);
    const paying = await t.transaction(txn.id, (x) => x.legs.some((l: Txn) => l.kind === 'payout'));
    expect(paying.subStatus).toBeNull();
    await t.advance(ACH_SETTLES);
    await t.transaction(txn.id, (x) => x.status === 'completed');
    expect((await t.settledLedger(txn.id)).unbalanced).toBe(0);
  }, 120_000);

  it('holds an unregistered sender for attribution; registering the wallet releases it, and the deadline returns another', async () => {
    const t = await tenant({ requiresCounterpartyWalletRegistration: true });
    const txn = await t.deposit('20.00');
    expect(txn).toMatchObject({
      status: 'awaitingAction',
      subStatus: 'awaitingAction.awaitingSenderAttribution',
      hold: {
        code: 'senderAttribution',
        message: expect.any(String),
        deadline: expect.any(String),
        match: { address: SENDER, network: NETWORK },
      },
    });
    expect(txn.legs.map((l: Txn) => l.kind)).toEqual(['deposit']);
    // (Wait for the last name the hold's event announces: deliveries of one event may be made in two batches.)
    const held = await t.events(txn.id, (n) => n.includes('statusChanged:awaitingAction.awaitingSenderAttribution'));
    expect(held.names.slice(-2)).toEqual([
      'deposit_address.crypto_deposit.needs_attribution',
      'statusChanged:awaitingAction.awaitingSenderAttribution',
    ]);

    const counterparty = (
      await t.post('/counterparties', {
        customerId: t.customer.id,
        entityType: 'individual',
        firstName: 'Grace',
        lastName: 'Hopper',
      })
    ).body as { id: string };
    const wallet = await t.post('/external-accounts', {
      owner: { kind: 'counterparty', counterpartyId: counterparty.id },
      type: 'walletExternal',
      walletExternal: { address: SENDER, network: NETWORK },
    });
    expect(wallet.status).toBe(201);
    const released = await t.transaction(
      txn.id,
      (x) => x.status === 'processing' && x.legs.some((l: Txn) => l.kind === 'payout'),
    );
    expect(released).not.toHaveProperty('hold');
    expect(released.source).toMatchObject({
      details: { id: wallet.body.id, address: SENDER },
      party: { relationship: 'externalRegistered', counterpartyId: counterparty.id },
    });
    await t.advance(ACH_SETTLES);
    await t.transaction(txn.id, (x) => x.status === 'completed');

    // Another sender, never registered: an hour (the project's attribution timeout) later its crypto goes back.
    const other = await t.deposit('15.00', '0x2222222222222222222222222222222222222222');
    expect(other.subStatus).toBe('awaitingAction.awaitingSenderAttribution');
    expect(Date.parse(other.hold.deadline) - Date.parse(other.createdAt)).toBe(3_600_000);
    await t.advance(3_601);
    const lapsed = await t.transaction(other.id, (x) => x.status === 'failed');
    expect(lapsed).toMatchObject({
      subStatus: 'failed.attributionTimeout',
      error: { code: 'attributionTimeout', refund: { status: 'completed', amount: '15.00', asset: 'usdc' } },
    });
    expect(lapsed).not.toHaveProperty('hold');
    expect(await t.settledLedger(other.id)).toEqual({
      transit: '0',
      unbalanced: 0,
      rails: { [`rail:usdc:${NETWORK}`]: '0.00' },
    });
  }, 180_000);

  it('holds deposits while the destination is gone and pays them to the new one once the address is re-pointed', async () => {
    const t = await tenant();
    expect((await t.post(`/external-accounts/${t.destination.id}/simulate/invalidate`, {})).status).toBe(200);
    await eventually(
      async () =>
        (await t.get(`/deposit-addresses/${t.da.id}`)).body.status === 'inactiveActionRequired' ? true : undefined,
      30_000,
    );
    const txn = await t.deposit('18.00');
    expect(txn).toMatchObject({
      status: 'awaitingAction',
      subStatus: 'awaitingAction.payoutDestinationMissing',
      hold: { code: 'payoutDestinationMissing', message: expect.any(String) },
    });
    expect(txn.hold).not.toHaveProperty('deadline');
    const replacement = await t.bank('987654321098');
    const res = await t.patch(`/deposit-addresses/${t.da.id}`, {
      destination: { externalAccountId: replacement.id },
      payout: { rail: 'ach' },
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('active');
    const resumed = await t.transaction(txn.id, (x) => x.legs.some((l: Txn) => l.kind === 'payout'));
    expect(resumed).toMatchObject({
      status: 'processing',
      subStatus: null,
      destination: { details: { id: replacement.id } },
    });
    expect(resumed).not.toHaveProperty('hold');
    await t.advance(ACH_SETTLES);
    await t.transaction(txn.id, (x) => x.status === 'completed');
    expect((await t.settledLedger(txn.id)).unbalanced).toBe(0);
  }, 180_000);

  it('returns deposits to a frozen address to the sender', async () => {
    const t = await tenant();
    expect((await t.post(`/deposit-addresses/${t.da.id}/simulate/freeze`, {})).status).toBe(200);
    const txn = await t.deposit('9.00');
    const back = await t.transaction(txn.id, (x) => x.status === 'failed');
    expect(back).toMatchObject({
      subStatus: 'failed.returnedToSender',
      error: { code: 'depositAddressInactive', refund: { status: 'completed', amount: '9.00', asset: 'usdc' } },
    });
    expect(await t.settledLedger(txn.id)).toEqual({
      transit: '0',
      unbalanced: 0,
      rails: { [`rail:usdc:${NETWORK}`]: '0.00' },
    });
  }, 120_000);

  // Issue 42, items 1 and 2. Spec: States / Transaction (a missing payout destination holds the transaction
  // `awaitingAction`; setting a new one resumes it; `processing.underReview`: the service holds the money),
  // Deposit address ("a deposit ... whose destination external account was deleted leaves the transaction in
  // awaitingAction"). Both modes: the deposit-addresses service may hear of a deletion after the deposit.
  it('a destination deleted while its payout is pending, or just before a deposit: nothing is paid to it, both wait for a destination, and the PATCH pays them', async () => {
    const t = await tenant();
    const first = await t.deposit('25.00');
    expect(first.legs[1]).toMatchObject({ kind: 'payout', status: 'pending' });
    await t.spoil(t.destination.id, 'delete');
    // At once after the 204: the address may not know yet, the payout's check does.
    const second = await t.deposit('26.00');
    await t.advance(ACH_SETTLES);
    for (const id of [first.id, second.id]) {
      const held = await t.transaction(id, (x) => x.status !== 'processing');
      expect(held).toMatchObject({
        status: 'awaitingAction',
        subStatus: 'awaitingAction.payoutDestinationMissing',
        hold: { code: 'payoutDestinationMissing' },
      });
      expect(held.legs.filter((l: Txn) => l.status === 'settled').map((l: Txn) => l.kind)).toEqual(['deposit']);
    }
    expect((await t.get(`/transactions/${first.id}`)).body.legs[1]).toMatchObject({
      kind: 'payout',
      status: 'failed',
      settledAt: null,
      failure: { code: 'externalAccountDeleted', message: expect.stringContaining(t.destination.id) },
    });
    const { names } = await t.events(first.id, (n) =>
      n.includes('statusChanged:awaitingAction.payoutDestinationMissing'),
    );
    expect(names.slice(-2)).toEqual([
      'deposit_address.ach_payout.failed',
      'statusChanged:awaitingAction.payoutDestinationMissing',
    ]);
    await eventually(
      async () =>
        (await t.get(`/deposit-addresses/${t.da.id}`)).body.status === 'inactiveActionRequired' ? true : undefined,
      30_000,
    );

    const replacement = await t.bank('987654321098');
    expect(
      (await t.patch(`/deposit-addresses/${t.da.id}`, { destination: { externalAccountId: replacement.id } })).status,
    ).toBe(200);
    for (const id of [first.id, second.id])
      await t.transaction(
        id,
        (x) => x.status === 'processing' && x.legs.some((l: Txn) => l.kind === 'payout' && l.status === 'pending'),
      );
    await t.advance(ACH_SETTLES);
    for (const id of [first.id, second.id]) {
      const done = await t.transaction(id, (x) => x.status === 'completed');
      expect(done.destination.details.id).toBe(replacement.id);
      expect((await t.settledLedger(id)).unbalanced).toBe(0);
    }
  }, 180_000);

  it('a destination deleted and replaced while the payout is pending: the payout is refused and the deposit paid to the replacement', async () => {
    const t = await tenant();
    const txn = await t.deposit('25.00');
    await t.spoil(t.destination.id, 'delete');
    await eventually(
      async () =>
        (await t.get(`/deposit-addresses/${t.da.id}`)).body.status === 'inactiveActionRequired' ? true : undefined,
      30_000,
    );
    const replacement = await t.bank('987654321098');
    expect(
      (await t.patch(`/deposit-addresses/${t.da.id}`, { destination: { externalAccountId: replacement.id } })).status,
    ).toBe(200);
    await t.advance(ACH_SETTLES);
    const paying = await t.transaction(txn.id, (x) => x.legs.length === 3);
    expect(paying).toMatchObject({ status: 'processing', destination: { details: { id: replacement.id } } });
    expect(paying.legs.map((l: Txn) => [l.kind, l.status])).toEqual([
      ['deposit', 'settled'],
      ['payout', 'failed'],
      ['payout', 'pending'],
    ]);
    await t.advance(ACH_SETTLES);
    await t.transaction(txn.id, (x) => x.status === 'completed');
    expect(await t.settledLedger(txn.id)).toEqual({
      transit: '0',
      unbalanced: 0,
      rails: { 'rail:usd:ach': '25.00', [`rail:usdc:${NETWORK}`]: '-25.00' },
    });
  }, 180_000);

  it('a refund to a deleted return wallet is refused and moves nothing; the operator sends the crypto back to the sender instead', async () => {
    const t = await tenant({}, { returnWallet: true });
    const txn = await t.deposit('25.91');
    await t.transaction(txn.id, (x) => x.subStatus === 'processing.underReview');
    const gone = t.returnWallet!.id;
    await t.spoil(gone, 'delete');
    const refused = await platform.admin('POST', `/transactions/${txn.id}/refund`, {
      body: { reason: 'the customer asked for it back' },
    });
    expectError(refused, 422, 'ExternalAccountNotActive');
    expect(refused.body.cause).toContain(gone);
    const same = (await t.get(`/transactions/${txn.id}`)).body;
    expect(same).toMatchObject({ status: 'processing', subStatus: 'processing.underReview' });
    expect(same.legs.map((l: Txn) => l.kind)).toEqual(['deposit', 'payout']);

    const back = await platform.admin('POST', `/transactions/${txn.id}/refund`, {
      body: { reason: 'the return wallet is gone', to: 'sender' },
    });
    expect(back.status).toBe(200);
    const done = await t.transaction(txn.id, (x) => x.status === 'failed');
    expect(done).toMatchObject({
      subStatus: 'failed.returnedToSender',
      error: { refund: { status: 'completed', amount: '25.91', asset: 'usdc' } },
    });
    expect(await t.settledLedger(txn.id)).toEqual({
      transit: '0',
      unbalanced: 0,
      rails: { [`rail:usdc:${NETWORK}`]: '0.00' },
    });
  }, 120_000);

  it("a rejected review's return to an invalidated return wallet is held for an operator: nothing is sent, the crypto is kept", async () => {
    const t = await tenant({}, { returnWallet: true });
    const gone = t.returnWallet!.id;
    await t.spoil(gone, 'invalidate');
    const txn = await t.deposit('10000.98');
    expect(txn.subStatus).toBe('processing.underReview');
    await t.advance(61);
    const held = await t.transaction(txn.id, (x) => x.legs.length > 1);
    expect(held).toMatchObject({ status: 'processing', subStatus: 'processing.underReview' });
    expect(held.legs[1]).toMatchObject({
      kind: 'refund',
      rail: 'crypto',
      amount: '10000.98',
      status: 'failed',
      failure: { code: 'externalAccountInvalid', message: expect.stringContaining(gone) },
    });
    expect(
      await eventually(async () => ((await t.ledger(txn.id)).transit === '0' ? undefined : t.ledger(txn.id))),
    ).toMatchObject({ transit: '10000.980000000000000000', rails: { [`rail:usdc:${NETWORK}`]: '-10000.98' } });
    const { names } = await t.events(txn.id, (n) => n.includes('deposit_address.crypto_payout.failed'));
    expect(names.slice(-1)).toEqual(['deposit_address.crypto_payout.failed']);
    expectError(
      await platform.admin('POST', `/transactions/${txn.id}/retry`, { body: { reason: 'x' } }),
      409,
      'TransactionNotActionable',
    );

    expect(
      (
        await platform.admin('POST', `/transactions/${txn.id}/refund`, {
          body: { reason: 'back to the sender', to: 'sender' },
        })
      ).status,
    ).toBe(200);
    const done = await t.transaction(txn.id, (x) => x.status === 'failed');
    expect(done).toMatchObject({
      subStatus: 'failed.returnedToSender',
      error: { code: 'complianceRejected', refund: { status: 'completed', amount: '10000.98' } },
    });
    expect(await t.settledLedger(txn.id)).toEqual({
      transit: '0',
      unbalanced: 0,
      rails: { [`rail:usdc:${NETWORK}`]: '0.00' },
    });
  }, 120_000);
});
