// Issue 17, item 1: a quote outlives the account it pays. Spec: External account (statuses,
// soft delete), Counterparty, States / Transaction (a provider refusal; failed.returnedToSender,
// failed.providerDeclined), Errors; docs/sandbox.md ("An account that stops being usable").
// An external account invalidated or deleted after its quote was made is checked again when the
// quote is accepted (422, nothing moves, the quote stays open) and again when its leg answers (the
// money goes back to the source wallet, never to the account). Both modes.
import { newTenant } from './support/tenant';
import { eventually, expectError, TestPlatform } from './support/test-platform';

const ACCOUNT_NUMBER = '123456789012';
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

type Unusable = 'invalidate' | 'delete' | 'deleteWithCounterparty';

describe('stale destinations: a quote whose account stopped being usable', () => {
  let platform: TestPlatform;

  // Distributed mode starts a process per service: on a busy machine that takes longer than a test.
  beforeAll(async () => {
    platform = await TestPlatform.shared();
  }, 180_000);
  afterAll(async () => {
    await platform?.stop();
  });

  /** A project of its own (its own sandbox clock), with a customer holding funded wallets. */
  async function tenant(name: string) {
    const base = await newTenant(platform, { name });
    const { get } = base;
    const ada = await base.customer();
    const [usdc, eth] = [
      await base.wallet(ada.id, { funding: '1000' }),
      await base.wallet(ada.id, { network: 'ethereum', funding: '1000' }),
    ];
    let counterpartyOf: Record<string, string> = {};
    const t = {
      ...base,
      ada,
      usdc,
      eth,
      bank: () => base.bankUs(ada.id, undefined, ACCOUNT_NUMBER),
      card: () => base.card(ada.id),
      /** An external wallet of a counterparty of the customer's (a quote may pay one; a bank payout may not). */
      counterpartyWallet: async () => {
        const counterparty = await base.counterparty(ada.id);
        const account = await base.externalWallet(
          ada.id,
          '0x52908400098527886E0F7030069857D2E4169EE7',
          'ethereum',
          counterparty.id,
        );
        counterpartyOf = { ...counterpartyOf, [account.id]: counterparty.id };
        return account;
      },
      /** Makes the account unusable: the provider invalidates it, the partner deletes it, or deletes it and then its counterparty. */
      spoil: async (accountId: string, how: Unusable) => {
        if (how === 'invalidate') {
          expect((await base.post(`/external-accounts/${accountId}/simulate/invalidate`, {})).body).toMatchObject({
            status: 'invalid',
            failure: { code: 'account_closed' },
          });
          return;
        }
        expect((await base.del(`/external-accounts/${accountId}`)).status).toBe(204);
        if (how === 'deleteWithCounterparty')
          expect((await base.del(`/counterparties/${counterpartyOf[accountId]}`)).status).toBe(204);
      },
      /** The transaction once it is in the status given; one that ends otherwise fails the test at once, saying how it ended. */
      until: (id: string, status: string, subStatus?: string | null) =>
        eventually(async () => {
          const txn = (await get(`/transactions/${id}`)).body;
          if (txn.status === status && (subStatus === undefined || txn.subStatus === subStatus)) return txn;
          if (txn.status === 'completed' || txn.status === 'failed') {
            const legs = txn.legs.map((l: { kind: string; status: string }) => `${l.kind} ${l.status}`).join(', ');
            throw new Error(
              `transaction ${id} ended ${txn.status} (${txn.subStatus}; legs: ${legs}), not ${status} (${subStatus})`,
            );
          }
          return undefined;
        }, 15_000),
    };
    return t;
  }
  type Tenant = Awaited<ReturnType<typeof tenant>>;

  /** The corridors that pay an external account (or charge one), and the seconds their first leg takes to answer. */
  const corridors = {
    bank: {
      instrument: (t: Tenant) => t.bank(),
      quote: (t: Tenant, id: string) => ({
        source: { type: 'walletOms', details: { id: t.usdc.id }, amount: '100.00' },
        destination: { type: 'bankUs', details: { id, network: 'ach', accountHolder: 'customer' } },
      }),
      wallet: (t: Tenant) => t.usdc.id,
      seconds: 60,
    },
    cardSell: {
      instrument: (t: Tenant) => t.card(),
      quote: (t: Tenant, id: string) => ({
        source: { type: 'walletOms', details: { id: t.usdc.id }, amount: '100.00' },
        destination: { type: 'card', details: { externalAccountId: id } },
      }),
      wallet: (t: Tenant) => t.usdc.id,
      seconds: 5,
    },
    counterpartyWallet: {
      instrument: (t: Tenant) => t.counterpartyWallet(),
      quote: (t: Tenant, id: string) => ({
        source: { type: 'walletCrypto', details: { id: t.eth.id }, amount: '100.00' },
        destination: { type: 'walletExternal', details: { id } },
      }),
      wallet: (t: Tenant) => t.eth.id,
      seconds: 5,
    },
    cardBuy: {
      instrument: (t: Tenant) => t.card(),
      quote: (t: Tenant, id: string) => ({
        source: { type: 'card', details: { externalAccountId: id }, amount: '100.00' },
        destination: { type: 'walletOms', details: { id: t.usdc.id } },
      }),
      wallet: (t: Tenant) => t.usdc.id,
      seconds: 5,
    },
  } as const;

  /** The transaction's ledger: the steps posted for it (pull, refund, payout, ...) and whether its transit account is empty. */
  async function ledger(transactionId: string): Promise<{ steps: string[]; transitEmpty: boolean }> {
    const [row] = await platform.db.query<{ steps: string[]; transit_empty: boolean }>(
      `SELECT array(SELECT DISTINCT split_part(substr(posting_id, length($1) + 2), ':', 1) FROM accounts.ledger_entries WHERE posting_id LIKE $1 || ':%' ORDER BY 1) AS steps,
              (SELECT coalesce(sum(amount), 0) = 0 FROM accounts.ledger_entries WHERE account = 'transit:' || $1) AS transit_empty`,
      [transactionId],
    );
    return { steps: row.steps, transitEmpty: row.transit_empty };
  }

  describe('when the quote is accepted: 422 ExternalAccountNotActive, nothing moves, the quote stays open', () => {
    const cases: Array<[string, keyof typeof corridors, Unusable, RegExp]> = [
      [
        'a bank account the provider invalidated',
        'bank',
        'invalidate',
        /destination external account ext_\w+ is invalid \(account_closed\)/,
      ],
      ['a deleted bank account', 'bank', 'delete', /destination external account ext_\w+ was deleted/],
      ['a deleted card a card sell pays', 'cardSell', 'delete', /destination external account ext_\w+ was deleted/],
      [
        "a counterparty's external wallet, deleted with the counterparty",
        'counterpartyWallet',
        'deleteWithCounterparty',
        /destination external account ext_\w+ was deleted/,
      ],
      ['a deleted card a card buy charges', 'cardBuy', 'delete', /source external account ext_\w+ was deleted/],
      [
        'an invalidated card a card buy charges',
        'cardBuy',
        'invalidate',
        /source external account ext_\w+ is invalid \(account_closed\)/,
      ],
    ];
    it.each(cases)('%s', async (_name, corridor, how, cause) => {
      const c = corridors[corridor];
      const t = await tenant(`stale-accept-${corridor}-${how}`);
      const account = await c.instrument(t);
      const quote = await t.post('/quotes', { customerId: t.ada.id, ...c.quote(t, account.id) });
      expect(quote.status).toBe(201);
      await t.spoil(account.id, how);

      const refused = await t.post('/transactions', { quoteId: quote.body.id });
      expectError(refused, 422, 'ExternalAccountNotActive');
      expect(refused.body.cause).toMatch(cause);
      expect(refused.body.cause).toContain(account.id);
      expect(refused.body.cause).toMatch(/create a new quote/);
      expect(refused.text).not.toContain(ACCOUNT_NUMBER);

      // Nothing moved: the quote is open, no transaction, no posting, the wallet as it was.
      expect((await t.get(`/quotes/${quote.body.id}`)).body).toMatchObject({ status: 'open', transactionId: null });
      const transactionId = quote.body.id.replace('qt_', 'txn_');
      expectError(await t.get(`/transactions/${transactionId}`), 404, 'TransactionNotFound');
      expect((await t.get(`/transactions?customerId=${t.ada.id}`)).body.data).toEqual([]);
      expect(await t.balance(c.wallet(t))).toBe('1000.00');
      expect(await ledger(transactionId)).toEqual({ steps: [], transitEmpty: true });
      // Asking again is refused again, the same way.
      expectError(await t.post('/transactions', { quoteId: quote.body.id }), 422, 'ExternalAccountNotActive');
    });
  });

  it("answers the account's refusal before the wallet's when neither could go on, and moves nothing", async () => {
    const t = await tenant('stale-accept-before-funds');
    const bank = await t.bank();
    const quote = (amount: string) =>
      t.post('/quotes', {
        customerId: t.ada.id,
        source: { type: 'walletOms', details: { id: t.usdc.id }, amount },
        destination: { type: 'bankUs', details: { id: bank.id, network: 'ach', accountHolder: 'customer' } },
      });
    const [first, second] = [await quote('600.00'), await quote('600.00')];
    expect((await t.post('/transactions', { quoteId: first.body.id })).status).toBe(201);
    const left = await t.balance(t.usdc.id);
    await t.spoil(bank.id, 'invalidate');
    // The second quote's wallet no longer holds its amount, and its account is invalid: the account decides.
    const refused = await t.post('/transactions', { quoteId: second.body.id });
    expectError(refused, 422, 'ExternalAccountNotActive');
    expect(refused.body.cause).toContain(bank.id);
    expect((await t.get(`/quotes/${second.body.id}`)).body).toMatchObject({ status: 'open', transactionId: null });
    expect(await t.balance(t.usdc.id)).toBe(left);
    expect(await ledger(second.body.id.replace('qt_', 'txn_'))).toEqual({ steps: [], transitEmpty: true });
  });

  describe('after acceptance: the leg answers with the account unusable, and nothing is paid to it', () => {
    const payouts: Array<[string, keyof typeof corridors, Unusable, string]> = [
      ['an ACH payout to a bank account the provider invalidated', 'bank', 'invalidate', 'externalAccountInvalid'],
      ['an ACH payout to a deleted bank account', 'bank', 'delete', 'externalAccountDeleted'],
      ['a card sell to a deleted card', 'cardSell', 'delete', 'externalAccountDeleted'],
      [
        "a payout to a counterparty's external wallet, deleted with the counterparty",
        'counterpartyWallet',
        'deleteWithCounterparty',
        'externalAccountDeleted',
      ],
    ];
    it.each(payouts)(
      '%s goes back to the source wallet: failed.returnedToSender',
      async (_name, corridor, how, code) => {
        const c = corridors[corridor];
        const t = await tenant(`stale-payout-${corridor}-${how}`);
        const account = await c.instrument(t);
        const quote = (await t.post('/quotes', { customerId: t.ada.id, ...c.quote(t, account.id) })).body;
        const created = await t.post('/transactions', { quoteId: quote.id });
        expect(created.body).toMatchObject({ status: 'processing', subStatus: 'processing.fundsPulled' });
        expect(await t.balance(c.wallet(t))).toBe('900.00');
        await t.spoil(account.id, how);

        await t.advance(c.seconds);
        const failed = await t.until(created.body.id, 'failed', 'failed.returnedToSender');
        expect(failed.legs.map((l: { kind: string; status: string }) => [l.kind, l.status])).toEqual([
          ['payout', 'failed'],
          ['refund', 'settled'],
        ]);
        expect(failed.legs[0].failure).toEqual({ code, message: expect.stringContaining(account.id) });
        expect(failed.legs[0].settledAt).toBeNull();
        expect(failed.error).toEqual({
          code,
          message: failed.legs[0].failure.message,
          occurredAt: expect.stringMatching(ISO),
          recoverable: false,
          refund: { status: 'completed', amount: '100.00', asset: 'usdc' },
        });
        expect(JSON.stringify(failed)).not.toContain(ACCOUNT_NUMBER);
        // Pulled, then returned: no payout posting, the transit account empty, the wallet whole again.
        expect(await ledger(created.body.id)).toEqual({ steps: ['pull', 'refund'], transitEmpty: true });
        expect(await t.balance(c.wallet(t))).toBe('1000.00');
        // The quote stays accepted by its transaction: it cannot be used again.
        expectError(await t.post('/transactions', { quoteId: quote.id }), 409, 'QuoteAlreadyAccepted');
      },
    );

    const charges: Array<[string, Unusable, string]> = [
      ['deleted', 'delete', 'externalAccountDeleted'],
      ['invalidated', 'invalidate', 'externalAccountInvalid'],
    ];
    it.each(charges)(
      'a card buy whose card was %s is never charged: failed.providerDeclined',
      async (_name, how, code) => {
        const c = corridors.cardBuy;
        const t = await tenant(`stale-charge-${how}`);
        const card = await c.instrument(t);
        const quote = (await t.post('/quotes', { customerId: t.ada.id, ...c.quote(t, card.id) })).body;
        const created = await t.post('/transactions', { quoteId: quote.id });
        expect(created.body).toMatchObject({
          status: 'processing',
          subStatus: null,
          legs: [expect.objectContaining({ kind: 'deposit', status: 'pending' })],
        });
        await t.spoil(card.id, how);

        await t.advance(c.seconds);
        const failed = await t.until(created.body.id, 'failed', 'failed.providerDeclined');
        expect(failed.legs).toEqual([
          expect.objectContaining({
            kind: 'deposit',
            rail: 'card',
            status: 'failed',
            failure: { code, message: expect.stringContaining(card.id) },
          }),
        ]);
        expect(failed.error).toMatchObject({ code, recoverable: false });
        expect(failed.error.refund).toBeUndefined();
        // Nothing was charged and nothing delivered.
        expect(await ledger(created.body.id)).toEqual({ steps: [], transitEmpty: true });
        expect(await t.balance(t.usdc.id)).toBe('1000.00');
      },
    );

    it('a card buy whose external wallet was invalidated is not charged either: the crypto would have nowhere to go', async () => {
      const t = await tenant('stale-charge-destination');
      const card = await t.card();
      const wallet = await t.counterpartyWallet();
      const quote = (
        await t.post('/quotes', {
          customerId: t.ada.id,
          source: { type: 'card', details: { externalAccountId: card.id }, amount: '100.00' },
          destination: { type: 'walletExternal', details: { id: wallet.id } },
        })
      ).body;
      expect(quote.status).toBe('open');
      const created = await t.post('/transactions', { quoteId: quote.id });
      expect(created.status).toBe(201);
      await t.spoil(wallet.id, 'invalidate');

      await t.advance(5);
      const failed = await t.until(created.body.id, 'failed', 'failed.providerDeclined');
      expect(failed.legs).toEqual([
        expect.objectContaining({
          kind: 'deposit',
          status: 'failed',
          failure: { code: 'externalAccountInvalid', message: expect.stringContaining(wallet.id) },
        }),
      ]);
      expect(await ledger(created.body.id)).toEqual({ steps: [], transitEmpty: true });
    });

    it('a card buy whose external wallet was invalidated after the charge holds the money for an operator, who refunds the card', async () => {
      const t = await tenant('stale-buy-payout');
      const card = await t.card();
      const wallet = await t.counterpartyWallet();
      const quote = (
        await t.post('/quotes', {
          customerId: t.ada.id,
          source: { type: 'card', details: { externalAccountId: card.id }, amount: '100.00' },
          destination: { type: 'walletExternal', details: { id: wallet.id } },
        })
      ).body;
      const created = await t.post('/transactions', { quoteId: quote.id });
      await t.advance(5);
      await t.until(created.body.id, 'processing', 'processing.fundsPulled');
      await t.spoil(wallet.id, 'invalidate');

      await t.advance(5);
      const held = await t.until(created.body.id, 'processing', 'processing.underReview');
      expect(held.legs.map((l: { kind: string; status: string }) => [l.kind, l.status])).toEqual([
        ['deposit', 'settled'],
        ['payout', 'failed'],
      ]);
      expect(held.legs[1].failure).toEqual({
        code: 'externalAccountInvalid',
        message: expect.stringContaining(wallet.id),
      });
      // The charge is in transit; nothing went to the wallet.
      expect(
        await eventually(async () =>
          (await ledger(created.body.id)).steps.length > 0 ? ledger(created.body.id) : undefined,
        ),
      ).toEqual({ steps: ['deposit'], transitEmpty: false });

      // An operator's retry (which the sandbox rail would settle) meets the same check.
      const retried = await platform.admin('POST', `/transactions/${created.body.id}/retry`, {
        body: { reason: 'try again' },
      });
      expect(retried.body).toMatchObject({
        result: 'retried',
        transaction: { subStatus: 'processing.payoutRetrying' },
      });
      await t.advance(5);
      const again = await eventually(async () => {
        const txn = (await t.get(`/transactions/${created.body.id}`)).body;
        return txn.subStatus === 'processing.underReview' && txn.legs.length === 3 ? txn : undefined;
      }, 15_000);
      expect(again.legs[2]).toMatchObject({
        kind: 'payout',
        status: 'failed',
        failure: { code: 'externalAccountInvalid' },
      });

      const refund = await platform.admin('POST', `/transactions/${created.body.id}/refund`, {
        body: { reason: 'the external wallet was closed' },
      });
      expect(refund.body).toMatchObject({ result: 'refunding' });
      const refunded = await t.until(created.body.id, 'failed', 'failed.returnedToSender');
      expect(refunded.legs.at(-1)).toMatchObject({ kind: 'refund', rail: 'card', status: 'settled', amount: '100.00' });
      expect(await ledger(created.body.id)).toEqual({ steps: ['deposit', 'refund'], transitEmpty: true });
    });

    it('an account still active pays out as before', async () => {
      const t = await tenant('stale-control');
      const bank = await t.bank();
      const quote = (await t.post('/quotes', { customerId: t.ada.id, ...corridors.bank.quote(t, bank.id) })).body;
      const created = await t.post('/transactions', { quoteId: quote.id });
      await t.advance(60);
      const done = await t.until(created.body.id, 'completed', null);
      expect(done.legs).toEqual([expect.objectContaining({ kind: 'payout', status: 'settled' })]);
      // The accounts service posts the payout once it hears the leg settled.
      await eventually(async () => ((await ledger(created.body.id)).steps.includes('payout') ? true : undefined));
      expect(await ledger(created.body.id)).toEqual({ steps: ['convert', 'payout', 'pull'], transitEmpty: true });
    });
  });
});
