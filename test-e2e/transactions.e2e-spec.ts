// Spec: Quote, Pricing, Party, Transaction, States / Transaction and Quote,
// Events (transaction.statusChanged, underReview), rules 2, 4, 5;
// API-CONTRACT: Quotes; docs/sandbox.md for the magic cents. Every corridor's
// happy path and the failure rows of the state tables, over HTTP, in both modes.
import { newTenant } from './support/tenant';
import { ADMIN_TOKEN, eventually, expectError, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';
import { WebhookReceiver } from './support/webhook-receiver';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const QT = /^qt_[0-9a-hjkmnp-tv-z]{26}$/;
const TXN = /^txn_[0-9a-hjkmnp-tv-z]{26}$/;
const ZERO_FEES = (zero: string) => ({ total: zero, developer: zero, gas: zero, meridian: zero });

describe('quotes and transactions', () => {
  let platform: TestPlatform;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    [platform, receiver] = await Promise.all([TestPlatform.shared(), WebhookReceiver.start()]);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await receiver?.stop();
    await platform?.stop();
  });

  /** A project of its own (its own sandbox clock), with a customer holding a funded wallet. */
  async function tenant(name: string, funding = '1000') {
    const base = await newTenant(platform, { name });
    const { get, post } = base;
    /** A customer whose endorsements are active: its wallets need cryptoCustody, its payouts usd or basic. */
    const customer = (lastName = 'Lovelace') => base.customer({ lastName });
    const wallet = (customerId: string, amount?: string, network = 'meridianchain') =>
      base.wallet(customerId, { network, funding: amount });
    const ada = await customer();
    const adaWallet = await wallet(ada.id, funding);
    return {
      ...base,
      customer,
      wallet,
      ada,
      adaWallet,
      bankUs: (customerId = ada.id) => base.bankUs(customerId),
      bankIban: () => base.bankIban(ada.id),
      bankCanada: () => base.bankCanada(ada.id),
      card: () => base.card(ada.id),
      externalWallet: () => base.externalWallet(ada.id, '0x52908400098527886E0F7030069857D2E4169EE7', 'ethereum'),
      quote: (body: Record<string, unknown>) => post('/quotes', { customerId: ada.id, ...body }),
      transaction: (quoteId: string) => post('/transactions', { quoteId }),
      /** The transaction once its status is the one given (the rails answer on the project's clock). */
      until: (id: string, status: string, subStatus?: string | null) =>
        eventually(async () => {
          const t = (await get(`/transactions/${id}`)).body;
          return t.status === status && (subStatus === undefined || t.subStatus === subStatus) ? t : undefined;
        }, 15_000),
    };
  }
  type Tenant = Awaited<ReturnType<typeof tenant>>;

  const walletToBank = (t: Tenant, accountId: string, type: string, network: string, amount = '100.00') =>
    t.quote({
      source: { type: 'walletOms', details: { id: t.adaWallet.id }, amount },
      destination: { type, details: { id: accountId, network, accountHolder: 'customer' } },
    });

  describe('POST /quotes', () => {
    it('prices a wallet to ACH quote exactly, open until expiresAt, with every Pricing field', async () => {
      const t = await tenant('quote-ach');
      const bank = await t.bankUs();
      const res = await walletToBank(t, bank.id, 'bankUs', 'ach', '100.25');
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(QT),
        object: 'quote',
        status: 'open',
        customerId: t.ada.id,
        sourceToDestination: 'cryptoToFiatAccount',
        source: {
          type: 'walletOms',
          category: 'crypto',
          details: { id: t.adaWallet.id, asset: 'usdc', network: 'meridianchain', address: t.adaWallet.address },
          amount: '100.25',
          party: { relationship: 'customer', customerId: t.ada.id, entityType: 'individual' },
        },
        destination: {
          type: 'bankUs',
          category: 'fiat',
          details: { id: bank.id, asset: 'usd', network: 'ach', accountHolder: 'customer', last4: '9012' },
          party: { relationship: 'customer', customerId: t.ada.id, entityType: 'individual' },
        },
        sponsorGas: true,
        pricing: {
          source: { asset: 'usdc', amountGross: '100.25', amountNet: '100.25', feesDeducted: ZERO_FEES('0.00') },
          destination: { asset: 'usd', amountGross: '100.25', amountNet: '100.25', feesDeducted: ZERO_FEES('0.00') },
          pair: 'usdc/usd',
          exchangeRate: '1.00',
          effectiveRate: '1.00',
          fixedAmountSide: 'source',
          sponsorGas: true,
          sponsorGasCost: '0.00',
        },
        metadata: {},
        transactionId: null,
        expiresAt: expect.stringMatching(ISO),
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      });
      expect(Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt)).toBe(60_000);
      expect((await t.get(`/quotes/${res.body.id}`)).body).toEqual(res.body);
    });

    it('prices CAD from a fixed destination amount at the sandbox rate, exactly', async () => {
      const t = await tenant('quote-cad');
      const bank = await t.bankCanada();
      const res = await t.quote({
        source: { type: 'walletOms', details: { id: t.adaWallet.id } },
        destination: {
          type: 'bankCanada',
          details: { id: bank.id, network: 'local', accountHolder: 'customer' },
          amount: '125.10',
        },
      });
      expect(res.status).toBe(201);
      expect(res.body.pricing).toMatchObject({
        pair: 'usdc/cad',
        exchangeRate: '1.25',
        fixedAmountSide: 'destination',
        source: { amountNet: '100.08' },
        destination: { asset: 'cad', amountGross: '125.10' },
      });
    });
  });

  describe('wallet to bank, completed', () => {
    it('pulls the funds, pays out over ACH, and completes with subStatus null', async () => {
      const t = await tenant('ach');
      const bank = await t.bankUs();
      const quote = (await walletToBank(t, bank.id, 'bankUs', 'ach')).body;
      const res = await t.transaction(quote.id);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        id: expect.stringMatching(TXN),
        object: 'transaction',
        status: 'processing',
        subStatus: 'processing.fundsPulled',
        customerId: t.ada.id,
        sourceToDestination: 'cryptoToFiatAccount',
        precursor: { type: 'quote', id: quote.id },
      });
      expect(await t.balance(t.adaWallet.id)).toBe('900.00');
      expect((await t.get(`/quotes/${quote.id}`)).body).toMatchObject({
        status: 'accepted',
        transactionId: res.body.id,
      });
      await t.advance(60);
      const done = await t.until(res.body.id, 'completed');
      expect(done.subStatus).toBeNull();
      expect(done.legs).toEqual([
        expect.objectContaining({
          kind: 'payout',
          rail: 'ach',
          status: 'settled',
          endToEndId: expect.stringMatching(/^E2E/),
        }),
      ]);
      expectError(await t.transaction(quote.id), 409, 'QuoteAlreadyAccepted');
    });

    it('answers exactly the current partner shape: the removed fields are absent', async () => {
      const t = await tenant('shape');
      const bank = await t.bankUs();
      const quote = (await walletToBank(t, bank.id, 'bankUs', 'wire', '7.00')).body;
      const created = (await t.post('/transactions', { quoteId: quote.id })).body;
      await t.advance(30);
      const done = await t.until(created.id, 'completed');
      for (const txn of [created, done]) {
        expect(Object.keys(txn).sort()).toEqual(
          [
            'createdAt',
            'customerId',
            'destination',
            'id',
            'legs',
            'metadata',
            'object',
            'payoutOrigin',
            'precursor',
            'pricing',
            'source',
            'sourceToDestination',
            'status',
            'subStatus',
            'updatedAt',
          ].sort(),
        );
        for (const side of [txn.source, txn.destination])
          expect(Object.keys(side).sort()).toEqual(['category', 'details', 'party', 'type']);
        expect(txn.source.party).toEqual({ relationship: 'customer', customerId: t.ada.id, entityType: 'individual' });
        expect(txn.pricing).toEqual(quote.pricing);
      }
      expect(done.legs[0]).toEqual({
        id: expect.any(String),
        kind: 'payout',
        rail: 'wire',
        asset: 'usd',
        network: 'wire',
        amount: '7.00',
        status: 'settled',
        txHash: null,
        imad: expect.stringMatching(/^\d{8}\w+$/),
        uetr: null,
        endToEndId: null,
        failure: null,
        initiatedAt: expect.stringMatching(ISO),
        settledAt: expect.stringMatching(ISO),
      });
      expect((await t.get(`/transactions/${done.id}`)).body).toEqual(done);
    });
  });

  describe('every corridor, to completion', () => {
    const bankCases: Array<[string, string, 'bankUs' | 'bankIban' | 'bankCanada', string, string]> = [
      ['same-day ACH', 'achSameDay', 'bankUs', 'endToEndId', 'usd'],
      ['a domestic wire, with its IMAD', 'wire', 'bankUs', 'imad', 'usd'],
      ['SWIFT to an IBAN, with its UETR', 'swift', 'bankIban', 'uetr', 'usd'],
      ['SWIFT to a Canadian account in USD', 'swift', 'bankCanada', 'uetr', 'usd'],
      ['a local Canadian transfer in CAD', 'local', 'bankCanada', 'endToEndId', 'cad'],
    ];
    it.each(bankCases)('wallet to bank over %s', async (_name, network, type, reference, asset) => {
      const t = await tenant(`bank-${network}-${type}`);
      const bank =
        type === 'bankUs' ? await t.bankUs() : type === 'bankIban' ? await t.bankIban() : await t.bankCanada();
      const quote = await walletToBank(t, bank.id, type, network, '40.00');
      expect(quote.status).toBe(201);
      expect(quote.body.pricing.destination).toMatchObject({ asset, amountGross: asset === 'cad' ? '50.00' : '40.00' });
      const txn = (await t.transaction(quote.body.id)).body;
      await t.advance(60);
      const done = await t.until(txn.id, 'completed', null);
      expect(done.legs[0]).toMatchObject({
        kind: 'payout',
        rail: network,
        asset,
        network,
        status: 'settled',
        [reference]: expect.any(String),
      });
      expect(done.payoutOrigin).toEqual({
        type: 'quote',
        id: quote.body.id,
        accountHolder: 'customer',
        accountHolderName: 'Ada Lovelace',
      });
      expect(await t.balance(t.adaWallet.id)).toBe('960.00');
    });

    it("wallet to another customer's wallet: the destination is credited once the transfer settles on chain", async () => {
      const t = await tenant('wallet-wallet');
      const grace = await t.customer('Hopper');
      const graceWallet = await t.wallet(grace.id);
      const quote = (
        await t.quote({
          source: { type: 'walletOms', details: { id: t.adaWallet.id }, amount: '12.345678' },
          destination: { type: 'walletOms', details: { id: graceWallet.id } },
        })
      ).body;
      expect(quote).toMatchObject({
        sourceToDestination: 'cryptoToCrypto',
        destination: { party: { relationship: 'otherCustomer', customerId: grace.id, entityType: 'individual' } },
        pricing: { pair: 'usdc/usdc' },
      });
      const txn = (await t.transaction(quote.id)).body;
      await t.advance(5);
      const done = await t.until(txn.id, 'completed', null);
      expect(done.legs[0]).toMatchObject({ rail: 'crypto', txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      expect(await eventually(async () => ((await t.balance(graceWallet.id)) === '12.345678' ? true : undefined))).toBe(
        true,
      );
      expect(await t.balance(t.adaWallet.id)).toBe('987.654322');
      // The transaction is listed for the customer on either side.
      for (const id of [t.ada.id, grace.id])
        expect((await t.get(`/transactions?customerId=${id}`)).body.data.map((x: { id: string }) => x.id)).toContain(
          txn.id,
        );
    });

    it('wallet to a registered external wallet', async () => {
      const t = await tenant('wallet-external');
      const ext = await t.externalWallet();
      const eth = await t.wallet(t.ada.id, '50', 'ethereum');
      const quote = (
        await t.quote({
          source: { type: 'walletCrypto', details: { id: eth.id }, amount: '10' },
          destination: { type: 'walletExternal', details: { id: ext.id } },
        })
      ).body;
      expect(quote.destination).toMatchObject({
        type: 'walletExternal',
        category: 'crypto',
        details: { network: 'ethereum', asset: 'usdc' },
      });
      const txn = (await t.transaction(quote.id)).body;
      await t.advance(5);
      await t.until(txn.id, 'completed', null);
      expect(await t.balance(eth.id)).toBe('40.00');
    });

    it('an internal card sell pays out to the card', async () => {
      const t = await tenant('card-sell');
      const card = await t.card();
      const quote = (
        await t.quote({
          source: { type: 'walletOms', details: { id: t.adaWallet.id }, amount: '25.00' },
          destination: { type: 'card', details: { externalAccountId: card.id } },
        })
      ).body;
      expect(quote).toMatchObject({
        settlementType: 'internal',
        sourceToDestination: 'cryptoToFiatAccount',
        destination: { type: 'card', details: { externalAccountId: card.id, network: 'card', last4: '4242' } },
      });
      const txn = (await t.transaction(quote.id)).body;
      await t.advance(5);
      const done = await t.until(txn.id, 'completed', null);
      expect(done.legs).toEqual([expect.objectContaining({ kind: 'payout', rail: 'card', status: 'settled' })]);
    });

    it('a card buy charges the card (a deposit on rail card), then delivers the crypto', async () => {
      const t = await tenant('card-buy');
      const card = await t.card();
      const quote = (
        await t.quote({
          source: { type: 'card', details: { externalAccountId: card.id }, amount: '30.00' },
          destination: { type: 'walletOms', details: { id: t.adaWallet.id } },
        })
      ).body;
      expect(quote).toMatchObject({
        settlementType: 'external',
        sourceToDestination: 'fiatAccountToCrypto',
        pricing: { pair: 'usd/usdc', destination: { asset: 'usdc', amountGross: '30.00' } },
      });
      const txn = (await t.transaction(quote.id)).body;
      expect(txn).toMatchObject({
        status: 'processing',
        subStatus: null,
        legs: [expect.objectContaining({ kind: 'deposit', rail: 'card', status: 'pending' })],
      });
      await t.advance(5);
      await t.until(txn.id, 'processing', 'processing.fundsPulled');
      await t.advance(5);
      const done = await t.until(txn.id, 'completed', null);
      expect(done.legs.map((l: { kind: string; status: string }) => [l.kind, l.status])).toEqual([
        ['deposit', 'settled'],
        ['payout', 'settled'],
      ]);
      expect(await eventually(async () => ((await t.balance(t.adaWallet.id)) === '1030.00' ? true : undefined))).toBe(
        true,
      );
    });
  });

  describe('the failure rows', () => {
    it('a payout the provider declines goes back to the sender: returningToSender, then failed.returnedToSender', async () => {
      const t = await tenant('declined');
      const bank = await t.bankUs();
      const quote = (await walletToBank(t, bank.id, 'bankUs', 'ach', '10.91')).body;
      const txn = (await t.transaction(quote.id)).body;
      expect(await t.balance(t.adaWallet.id)).toBe('989.09');
      const failed = await t.until(txn.id, 'failed', 'failed.returnedToSender');
      expect(failed.error).toEqual({
        code: 'providerError',
        message: expect.any(String),
        occurredAt: expect.stringMatching(ISO),
        recoverable: false,
        refund: { status: 'completed', amount: '10.91', asset: 'usdc' },
      });
      expect(failed.legs.map((l: { kind: string; status: string }) => [l.kind, l.status])).toEqual([
        ['payout', 'failed'],
        ['refund', 'settled'],
      ]);
      expect(failed.legs[0].failure).toEqual({ code: 'providerError', message: expect.any(String) });
      expect(await t.balance(t.adaWallet.id)).toBe('1000.00');
    });

    it('a payout that fails after it was sent ends failed.outboundFailed, recoverable, the money held', async () => {
      const t = await tenant('outbound');
      const bank = await t.bankUs();
      const quote = (await walletToBank(t, bank.id, 'bankUs', 'wire', '10.92')).body;
      const txn = (await t.transaction(quote.id)).body;
      await t.advance(30);
      const failed = await t.until(txn.id, 'failed', 'failed.outboundFailed');
      expect(failed.error).toMatchObject({ code: 'providerError', recoverable: true, recovery: 'refund' });
      expect(await t.balance(t.adaWallet.id)).toBe('989.08');
    });

    const cardFailures: Array<[string, string, string, string]> = [
      ['the issuer declines the charge', '20.91', 'failed.providerDeclined', 'cardDeclined'],
      ['the card fails verification', '20.93', 'failed.providerDeclined', 'cardVerificationDeclined'],
      ['the charge is reversed after authorisation', '20.92', 'failed.inboundFailed', 'providerError'],
    ];
    it.each(cardFailures)('a card buy where %s', async (_name, amount, subStatus, code) => {
      const t = await tenant(`card-${amount}`);
      const card = await t.card();
      const quote = (
        await t.quote({
          source: { type: 'card', details: { externalAccountId: card.id }, amount },
          destination: { type: 'walletOms', details: { id: t.adaWallet.id } },
        })
      ).body;
      const txn = (await t.transaction(quote.id)).body;
      await t.advance(5);
      const failed = await t.until(txn.id, 'failed', subStatus);
      expect(failed.error).toMatchObject({ code, recoverable: false });
      expect(failed.legs[0]).toMatchObject({ kind: 'deposit', rail: 'card', status: 'failed', failure: { code } });
      expect(await t.balance(t.adaWallet.id)).toBe('1000.00');
    });

    it('holds an amount over the review threshold in processing.underReview, then completes', async () => {
      const t = await tenant('review', '20000');
      const bank = await t.bankUs();
      const quote = (await walletToBank(t, bank.id, 'bankUs', 'ach', '15000.00')).body;
      const txn = (await t.transaction(quote.id)).body;
      expect(txn).toMatchObject({ status: 'processing', subStatus: 'processing.underReview', legs: [] });
      await t.advance(60);
      await t.until(txn.id, 'processing', 'processing.fundsPulled');
      await t.advance(60);
      await t.until(txn.id, 'completed', null);
    });

    it('a review that rejects the transaction returns the money: failed.returnedToSender', async () => {
      const t = await tenant('review-rejected', '20000');
      const bank = await t.bankUs();
      const quote = (await walletToBank(t, bank.id, 'bankUs', 'ach', '15000.98')).body;
      const txn = (await t.transaction(quote.id)).body;
      await t.advance(60);
      const failed = await t.until(txn.id, 'failed', 'failed.returnedToSender');
      expect(failed.error).toMatchObject({
        code: 'complianceRejected',
        recoverable: false,
        refund: { status: 'completed', amount: '15000.98' },
      });
      expect(await t.balance(t.adaWallet.id)).toBe('20000.00');
    });

    it('an expired quote is refused, and nothing moves', async () => {
      const t = await tenant('expired');
      const bank = await t.bankUs();
      const quote = (await walletToBank(t, bank.id, 'bankUs', 'ach')).body;
      await t.advance(61);
      expect(
        await eventually(async () =>
          (await t.get(`/quotes/${quote.id}`)).body.status === 'expired' ? true : undefined,
        ),
      ).toBe(true);
      expectError(await t.transaction(quote.id), 409, 'QuoteExpired');
      expect(await t.balance(t.adaWallet.id)).toBe('1000.00');
      expect((await t.get(`/transactions?customerId=${t.ada.id}`)).body.data).toEqual([]);
    });

    it('refuses insufficient funds before anything moves; the quote stays open', async () => {
      const t = await tenant('insufficient', '50');
      const bank = await t.bankUs();
      const quote = (await walletToBank(t, bank.id, 'bankUs', 'ach', '50.01')).body;
      expectError(await t.transaction(quote.id), 422, 'InsufficientFunds');
      expect((await t.get(`/quotes/${quote.id}`)).body.status).toBe('open');
      expect(await t.balance(t.adaWallet.id)).toBe('50.00');
      expectError(await t.get(`/transactions/${quote.id.replace('qt_', 'txn_')}`), 404, 'TransactionNotFound');
    });
  });

  describe('quote validation', () => {
    let t: Tenant;
    let bank: { id: string };
    let card: { id: string };
    beforeAll(async () => {
      t = await tenant('validation');
      [bank, card] = await Promise.all([t.bankUs(), t.card()]);
    });
    const wallet = () => ({ type: 'walletOms', details: { id: t.adaWallet.id } });

    it('refuses a bank as a source (rule 2)', async () => {
      expectError(
        await t.quote({ source: { type: 'bankUs', details: { id: bank.id }, amount: '1' }, destination: wallet() }),
        422,
        'UnsupportedCorridor',
      );
    });
    it('needs the amount on exactly one side', async () => {
      expectError(
        await t.quote({
          source: { ...wallet(), amount: '1' },
          destination: {
            type: 'bankUs',
            details: { id: bank.id, network: 'ach', accountHolder: 'customer' },
            amount: '1',
          },
        }),
        400,
        'InvalidRequest',
      );
      expectError(
        await t.quote({
          source: wallet(),
          destination: { type: 'bankUs', details: { id: bank.id, network: 'ach', accountHolder: 'customer' } },
        }),
        400,
        'InvalidRequest',
      );
    });
    it('needs accountHolder customer and a network of the bank type', async () => {
      expectError(
        await t.quote({
          source: { ...wallet(), amount: '1' },
          destination: { type: 'bankUs', details: { id: bank.id, network: 'ach' } },
        }),
        400,
        'InvalidRequest',
      );
      expectError(
        await t.quote({
          source: { ...wallet(), amount: '1' },
          destination: { type: 'bankUs', details: { id: bank.id, network: 'swift', accountHolder: 'customer' } },
        }),
        400,
        'InvalidRequest',
      );
    });
    it('refuses an amount with more decimals than its asset, and one that does not convert exactly', async () => {
      expectError(await walletToBank(t, bank.id, 'bankUs', 'ach', '1.001'), 422, 'InexactConversion');
      const other = await t.wallet(t.ada.id);
      expectError(
        await t.quote({
          source: { ...wallet(), amount: '1.0000001' },
          destination: { type: 'walletOms', details: { id: other.id } },
        }),
        400,
        'InvalidAmount',
      );
      expectError(
        await t.quote({ source: { ...wallet(), amount: '1' }, destination: wallet() }),
        400,
        'InvalidRequest',
      );
    });
    it('applies the card rules of the spec', async () => {
      const buy = (
        details: Record<string, unknown>,
        extra: Record<string, unknown> = {},
        destination: Record<string, unknown> = wallet(),
      ) => t.quote({ source: { type: 'card', details, amount: '10' }, destination, ...extra });
      const sell = (details: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
        t.quote({ source: { ...wallet(), amount: '10' }, destination: { type: 'card', details }, ...extra });
      expectError(
        await sell({ externalAccountId: card.id }, { settlementType: 'external' }),
        422,
        'external_sell_unsupported',
      );
      expectError(await buy({ externalAccountId: bank.id }), 422, 'external_account_rail_mismatch');
      expectError(await sell({ externalAccountId: bank.id }), 422, 'external_account_rail_mismatch');
      expectError(await walletToBank(t, card.id, 'bankUs', 'ach'), 422, 'external_account_rail_mismatch');
      expectError(await buy({}), 422, 'external_account_required');
      expectError(await sell({}), 422, 'external_account_required');
      expectError(
        await buy(
          { externalAccountId: card.id },
          { settlementType: 'internal' },
          { type: 'walletExternal', details: { id: bank.id } },
        ),
        422,
        'external_custody_not_allowed',
      );
      expectError(
        await buy({ externalAccountId: card.id, address: '0x52908400098527886E0F7030069857D2E4169EE7' }),
        422,
        'source_wallet_address_not_allowed',
      );
      expectError(await sell({ externalAccountId: card.id, walletId: t.adaWallet.id }), 400, 'invalid_wallet_target');
      expectError(
        await t.quote({
          source: { ...wallet(), amount: '1' },
          destination: { type: 'bankUs', details: { id: bank.id, network: 'ach', accountHolder: 'customer' } },
          settlementType: 'internal',
        }),
        400,
        'InvalidRequest',
      );
      // settlementType is persisted on the quote.
      expect((await buy({ externalAccountId: card.id }, { settlementType: 'internal' })).body.settlementType).toBe(
        'internal',
      );
    });
    it("refuses another customer's bank account and a pending one", async () => {
      const other = await t.customer('Other');
      const theirs = await t.bankUs(other.id);
      expectError(await walletToBank(t, theirs.id, 'bankUs', 'ach'), 422, 'ExternalAccountHolderMismatch');
      const pending = await t.post('/external-accounts', {
        owner: { kind: 'customer', customerId: t.ada.id },
        type: 'bankUs',
        bankUs: { accountNumber: '123450003', routingNumber: '021000021' },
      });
      expectError(await walletToBank(t, pending.body.id, 'bankUs', 'ach'), 422, 'ExternalAccountNotActive');
    });
    it('answers 404 for unknown ids and 400 for malformed ones', async () => {
      expectError(await t.get('/quotes/qt_01h455vb4pex5vsknk084sn02q'), 404, 'QuoteNotFound');
      expectError(await t.get('/quotes/nope'), 400, 'InvalidQuoteID');
      expectError(await t.transaction('qt_01h455vb4pex5vsknk084sn02q'), 404, 'QuoteNotFound');
      expectError(await t.get('/transactions/txn_01h455vb4pex5vsknk084sn02q'), 404, 'TransactionNotFound');
      expectError(await t.get('/transactions/nope'), 400, 'InvalidTransactionID');
      expectError(await t.get(`/customers/${t.ada.id}/transactions`), 404, 'NotFound');
      expectError(
        await t.quote({
          customerId: 'cst_01h455vb4pex5vsknk084sn02q',
          source: { ...wallet(), amount: '1' },
          destination: wallet(),
        }),
        404,
        'CustomerNotFound',
      );
    });
  });

  describe('concurrency', () => {
    it('accepts one quote exactly once under many concurrent POST /transactions', async () => {
      const t = await tenant('one-quote');
      const bank = await t.bankUs();
      const quote = (await walletToBank(t, bank.id, 'bankUs', 'ach', '10.00')).body;
      const results = await Promise.all(Array.from({ length: 12 }, () => t.transaction(quote.id)));
      expect(results.filter((r) => r.status === 201)).toHaveLength(1);
      for (const r of results.filter((x) => x.status !== 201)) expect([409]).toContain(r.status);
      expect(await t.balance(t.adaWallet.id)).toBe('990.00');
    });

    it('lets only the quotes the wallet can pay succeed when together they overdraw it', async () => {
      const t = await tenant('overdraw', '100');
      const bank = await t.bankUs();
      const quotes = await Promise.all(
        Array.from({ length: 7 }, () => walletToBank(t, bank.id, 'bankUs', 'ach', '30.00')),
      );
      const results = await Promise.all(quotes.map((q) => t.transaction(q.body.id)));
      expect(results.filter((r) => r.status === 201)).toHaveLength(3);
      for (const r of results.filter((x) => x.status !== 201)) expectError(r, 422, 'InsufficientFunds');
      expect(await t.balance(t.adaWallet.id)).toBe('10.00');
    });
  });

  describe('transaction.statusChanged and the list', () => {
    it('announces every status change with previousStatus and sequence, and the underReview event to those who name it', async () => {
      const t = await tenant('events', '20000');
      const bank = await t.bankUs();
      expect(
        (
          await t.post('/webhooks', {
            url: receiver.url('/txn-events'),
            subscriptions: ['transaction.statusChanged', 'transaction.cryptoToFiat.underReview'],
          })
        ).status,
      ).toBe(201);
      const quote = (await walletToBank(t, bank.id, 'bankUs', 'ach', '12000.91')).body;
      const txn = (await t.transaction(quote.id)).body;
      await t.advance(60);
      await t.until(txn.id, 'failed', 'failed.returnedToSender');
      const deliveries = await eventually(async () => {
        const got = receiver
          .at('/txn-events')
          .map((r) => r.body)
          .filter((b) => b.data.id === txn.id);
        return got.length >= 6 ? got : undefined;
      }, 15_000);
      const changes = deliveries
        .filter((b) => b.eventType === 'transaction.statusChanged')
        .sort((a, b) => a.sequence - b.sequence);
      // The wallet's money is pulled before the transaction is made: it starts processing.fundsPulled.
      expect(changes.map((b) => [b.previousStatus, b.data.status, b.data.subStatus])).toEqual([
        [null, 'processing', 'processing.fundsPulled'],
        ['processing', 'processing', 'processing.underReview'],
        ['processing', 'processing', 'processing.fundsPulled'],
        ['processing', 'processing', 'processing.returningToSender'],
        ['processing', 'failed', 'failed.returnedToSender'],
      ]);
      for (const b of changes)
        expect(b).toMatchObject({ eventId: expect.stringMatching(/^evt_/), sequence: expect.any(Number) });
      expect(deliveries.filter((b) => b.event === 'transaction.cryptoToFiat.underReview')).toHaveLength(1);
    });

    it('filters by status: a refund in flight is processing, not failed; pages with a cursor', async () => {
      const t = await tenant('list');
      const bank = await t.bankUs();
      const made: string[] = [];
      for (const amount of ['1.00', '2.00', '3.92']) {
        const quote = (await walletToBank(t, bank.id, 'bankUs', 'wire', amount)).body;
        made.push((await t.transaction(quote.id)).body.id);
      }
      await t.advance(30);
      await t.until(made[2], 'failed', 'failed.outboundFailed');
      await t.until(made[0], 'completed');
      expect((await t.get('/transactions?status=failed')).body.data.map((x: { id: string }) => x.id)).toEqual([
        made[2],
      ]);
      expect((await t.get('/transactions?status=completed')).body.data.map((x: { id: string }) => x.id)).toEqual([
        made[1],
        made[0],
      ]);
      const first = (await t.get('/transactions?limit=2')).body;
      expect(first).toMatchObject({ hasMore: true, nextCursor: expect.any(String) });
      const second = (await t.get(`/transactions?limit=2&cursor=${first.nextCursor}`)).body;
      expect([...first.data, ...second.data].map((x: { id: string }) => x.id)).toEqual([...made].reverse());
      expectError(await t.get('/transactions?status=done'), 400, 'InvalidRequest');
    });
  });

  describe('unconfirmed payouts and operator actions', () => {
    const operator = (action: string, id: string, body: Record<string, unknown> = { reason: 'ops ticket 42' }) =>
      platform.request('POST', `/v0.13/admin/transactions/${id}/${action}`, { token: ADMIN_TOKEN, body });
    const unconfirmed = async (t: Tenant, amount: string) => {
      const bank = await t.bankUs();
      const quote = (await walletToBank(t, bank.id, 'bankUs', 'ach', amount)).body;
      const txn = (await t.transaction(quote.id)).body;
      await t.advance(300);
      return t.until(txn.id, 'processing', 'processing.payoutUnconfirmed');
    };

    it('the sweeper finds the transfer at the provider: it completes as that transfer, never sent twice', async () => {
      const t = await tenant('sweep-held');
      const txn = await unconfirmed(t, '10.95');
      await t.advance(600);
      const done = await t.until(txn.id, 'completed', null);
      expect(done.legs).toEqual([expect.objectContaining({ kind: 'payout', status: 'settled', id: txn.legs[0].id })]);
    });

    it('the sweeper finds no transfer: providerTimeout, and a wallet withdrawal ends failed.outboundFailed', async () => {
      const t = await tenant('sweep-none');
      const txn = await unconfirmed(t, '10.96');
      await t.advance(600);
      const failed = await t.until(txn.id, 'failed', 'failed.outboundFailed');
      expect(failed.legs[0]).toMatchObject({ status: 'failed', failure: { code: 'providerTimeout' } });
      expect(failed.error).toMatchObject({ code: 'providerTimeout', recoverable: true });
    });

    it('answers 10369 when the provider cannot be reached to look an unconfirmed payout up, and changes nothing', async () => {
      const t = await tenant('sweep-unreachable');
      const txn = await unconfirmed(t, '10.97');
      for (const action of ['retry', 'refund', 'mark-failed'])
        expectError(await operator(action, txn.id), 503, 'unconfirmedPayoutUnverifiable', 10369);
      await t.advance(600);
      expect((await t.get(`/transactions/${txn.id}`)).body).toMatchObject({
        status: 'processing',
        subStatus: 'processing.payoutUnconfirmed',
      });
    });

    it('mark-failed of an unconfirmed payout the provider holds is vendorOrderExists; the payout completes', async () => {
      const t = await tenant('vendor-order');
      const txn = await unconfirmed(t, '10.95');
      expectError(await operator('mark-failed', txn.id), 422, 'vendorOrderExists');
      // A refused request changes nothing; the sweeper completes the transfer it finds.
      expect((await t.get(`/transactions/${txn.id}`)).body.subStatus).toBe('processing.payoutUnconfirmed');
      await t.advance(600);
      await t.until(txn.id, 'completed', null);
      const again = await operator('retry', txn.id);
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({
        result: 'already_completed',
        transaction: { id: txn.id, status: 'completed' },
      });
    });

    it('a card buy whose crypto fails after the charge is held for review; an operator retry sends it again and it completes', async () => {
      const t = await tenant('card-held-retry');
      const card = await t.card();
      const quote = (
        await t.quote({
          source: { type: 'card', details: { externalAccountId: card.id }, amount: '40.94' },
          destination: { type: 'walletOms', details: { id: t.adaWallet.id } },
        })
      ).body;
      const txn = (await t.transaction(quote.id)).body;
      await t.advance(5);
      await t.until(txn.id, 'processing', 'processing.fundsPulled');
      await t.advance(5);
      await t.until(txn.id, 'processing', 'processing.underReview');
      const retried = await operator('retry', txn.id);
      expect(retried.status).toBe(200);
      expect(retried.body).toMatchObject({
        result: 'retried',
        transaction: { status: 'processing', subStatus: 'processing.payoutRetrying' },
      });
      await t.advance(5);
      const done = await t.until(txn.id, 'completed', null);
      expect(done.legs.map((l: { kind: string; status: string }) => [l.kind, l.status])).toEqual([
        ['deposit', 'settled'],
        ['payout', 'failed'],
        ['payout', 'settled'],
      ]);
      expect(await eventually(async () => ((await t.balance(t.adaWallet.id)) === '1040.94' ? true : undefined))).toBe(
        true,
      );
    });

    it('held money goes back to its source on an operator refund (a card buy to its card, a withdrawal to its wallet)', async () => {
      const t = await tenant('operator-refund');
      const card = await t.card();
      const quote = (
        await t.quote({
          source: { type: 'card', details: { externalAccountId: card.id }, amount: '40.94' },
          destination: { type: 'walletOms', details: { id: t.adaWallet.id } },
        })
      ).body;
      const buy = (await t.transaction(quote.id)).body;
      await t.advance(5);
      await t.advance(5);
      await t.until(buy.id, 'processing', 'processing.underReview');
      expect((await operator('refund', buy.id)).body).toMatchObject({
        result: 'refunding',
        transaction: { subStatus: 'processing.returningToSender' },
      });
      const refunded = await t.until(buy.id, 'failed', 'failed.returnedToSender');
      expect(refunded.legs.at(-1)).toMatchObject({ kind: 'refund', rail: 'card', status: 'settled', amount: '40.94' });

      const bank = await t.bankUs();
      const out = (await t.transaction((await walletToBank(t, bank.id, 'bankUs', 'wire', '10.92')).body.id)).body;
      await t.advance(30);
      await t.until(out.id, 'failed', 'failed.outboundFailed');
      expectError(await operator('retry', out.id), 409, 'TransactionNotActionable');
      expect((await operator('refund', out.id)).status).toBe(200);
      const back = await t.until(out.id, 'failed', 'failed.returnedToSender');
      expect(back.error).toMatchObject({
        code: 'providerError',
        recoverable: false,
        refund: { status: 'completed', amount: '10.92', asset: 'usdc' },
      });
      expect(await t.balance(t.adaWallet.id)).toBe('1000.00');
      expectError(await operator('refund', out.id), 409, 'TransactionNotActionable');
    });

    it('complete-refund answers refundNotCompletable for a transaction with no virtual account refund; operator routes need the operator token', async () => {
      const t = await tenant('complete-refund');
      const bank = await t.bankUs();
      const txn = (await t.transaction((await walletToBank(t, bank.id, 'bankUs', 'ach')).body.id)).body;
      expectError(
        await operator('complete-refund', txn.id, { reason: 'bank confirmed' }),
        422,
        'refundNotCompletable',
        10368,
      );
      expectError(
        await operator('complete-refund', 'txn_01h455vb4pex5vsknk084sn02q', { reason: 'x' }),
        404,
        'TransactionNotFound',
      );
      expectError(
        await platform.request('POST', `/v0.13/admin/transactions/${txn.id}/retry`, { token: t.token, body: {} }),
        401,
        'Unauthorized',
      );
    });
  });

  describe('project limits on bank payouts', () => {
    it("applies the operator's per-transaction minimum, maximum and multiple and its daily cap to source-pinned sells only, never splitting", async () => {
      const { projectId, token } = await platform.newProject('limits');
      const t = await tenant('limits-unused');
      // The tenant helper's project has no limits; this one gets them.
      const call = (method: string, path: string, body?: unknown) =>
        platform.request(method, `/v0.13${path}`, { token, body });
      const ada = await platform.endorsedCustomer(token, { lastName: 'Limits' });
      const w = (await call('POST', `/customers/${ada.id}/wallets`, { asset: 'usdc', network: 'meridianchain' })).body;
      await call('POST', `/sandbox/wallets/${w.id}/fund`, { amount: '5000' });
      const bankRes = await call('POST', '/external-accounts', {
        owner: { kind: 'customer', customerId: ada.id },
        type: 'bankUs',
        bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
      });
      await eventually(async () =>
        (await call('GET', `/external-accounts/${bankRes.body.id}`)).body.status === 'active' ? true : undefined,
      );
      const limits = {
        perTransactionMin: '20',
        perTransactionMax: '500',
        perTransactionMultiple: '10',
        dailyBankPayoutCap: '100',
      };
      // Decided on the gateway's limits from the PATCH's 200 on (kill-switches e2e).
      expect(
        (
          await platform.request('PATCH', `/v0.13/admin/projects/${projectId}`, {
            token: ADMIN_TOKEN,
            body: { limits },
          })
        ).status,
      ).toBe(200);
      const sell = async (amount: string, side: 'source' | 'destination' = 'source') => {
        const quote = await call('POST', '/quotes', {
          customerId: ada.id,
          source: { type: 'walletOms', details: { id: w.id }, ...(side === 'source' ? { amount } : {}) },
          destination: {
            type: 'bankUs',
            details: { id: bankRes.body.id, network: 'ach', accountHolder: 'customer' },
            ...(side === 'destination' ? { amount } : {}),
          },
        });
        expect(quote.status).toBe(201);
        return call('POST', '/transactions', { quoteId: quote.body.id });
      };
      expectError(await sell('10'), 422, 'TransactionLimitExceeded');
      expectError(await sell('510'), 422, 'TransactionLimitExceeded');
      expectError(await sell('25'), 422, 'TransactionLimitExceeded');
      expect((await sell('60')).status).toBe(201);
      expect((await sell('40')).status).toBe(201);
      const over = await sell('20');
      expectError(over, 422, 'TransactionLimitExceeded');
      expect(over.body.cause).toMatch(/daily/);
      // A destination-pinned payout is not a source-pinned sell: no limit applies.
      expect((await sell('15', 'destination')).status).toBe(201);
      expect((await call('GET', `/wallets/${w.id}/balance`)).body.data.balance).toBe('4885.00');
      // Other projects have no limits at all by default.
      const bank = await t.bankUs();
      expect((await t.transaction((await walletToBank(t, bank.id, 'bankUs', 'wire', '999.00')).body.id)).status).toBe(
        201,
      );
    });
  });
});
