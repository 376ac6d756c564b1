// Spec: External account, Counterparty, States/External account, Events (tie 2),
// Errors, rule 9; docs/sandbox.md for the magic values. Over HTTP, both modes.
import fc from 'fast-check';
import {
  EXAMPLE_IBANS,
  ibanWithCheckDigits,
  luhnComplete,
  VALID_ABA_ROUTING_NUMBERS,
  VALID_CARD_NUMBERS,
  VALID_EVM_ADDRESSES,
  validAbaRoutingNumber,
  validIban,
} from '@mm/accounts/testing';
import { settledRowCounts } from './support/row-counts';
import { eventually, expectError, type Response, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const EXT_ID = /^ext_[0-9a-hjkmnp-tv-z]{26}$/;
const BILLING = { addressLine1: '1 Market St', city: 'San Francisco', state: 'CA', country: 'US', zipCode: '94105' };

describe('external accounts', () => {
  let platform: TestPlatform;
  let token: string;
  let customer: { id: string };
  const post = (path: string, body?: unknown) => platform.request('POST', `/v0.13${path}`, { token, body });
  const get = (path: string) => platform.request('GET', `/v0.13${path}`, { token });
  const patch = (path: string, body?: unknown) => platform.request('PATCH', `/v0.13${path}`, { token, body });
  const del = (path: string) => platform.request('DELETE', `/v0.13${path}`, { token });
  const ownedBy = (id = customer.id) => ({ kind: 'customer', customerId: id });
  const bankUs = (accountNumber = '123456789012', extra: Record<string, unknown> = {}) =>
    post('/external-accounts', {
      owner: ownedBy(),
      type: 'bankUs',
      bankUs: { accountNumber, routingNumber: '021000021', ...extra },
    });
  const card = (cardNumber = '4242424242424242', extra: Record<string, unknown> = {}) =>
    post('/external-accounts/cards', {
      owner: ownedBy(),
      card: { cardNumber, expiryMonth: 12, expiryYear: 2031, cvc: '123', billingAddress: BILLING, ...extra },
    });
  const settledStatus = (id: string) =>
    eventually(async () => {
      const res = await get(`/external-accounts/${id}`);
      return res.body.status === 'pending' ? undefined : res.body;
    });
  const streamTypes = async (id: string) =>
    (
      await platform.db.query<{ type: string }>(
        `SELECT type FROM accounts.events WHERE stream_id = $1 ORDER BY stream_version`,
        [`external-account-${id}`],
      )
    ).map((r) => r.type);
  const newCustomer = async (lastName = 'Lovelace') =>
    (await post('/customers', { type: 'individual', firstName: 'Ada', lastName })).body;

  /** A refusal: the status and error, and not a row stored anywhere once the platform is idle. */
  async function refusedAndNothingStored(
    send: () => Promise<Response>,
    status: number,
    error: string,
  ): Promise<Response> {
    const before = await settledRowCounts(platform);
    const res = await send();
    expectError(res, status, error);
    expect(await settledRowCounts(platform)).toEqual(before);
    return res;
  }

  beforeAll(async () => {
    platform = await TestPlatform.shared();
    token = await platform.token();
    customer = await newCustomer();
  }, START_TIMEOUT_MS);
  afterAll(() => platform.stop());

  describe('registration and the v1 instrument shape', () => {
    it('registers a US bank account pending, then active, with the events in order', async () => {
      const res = await bankUs('123456789012', { accountType: 'savings', bankName: 'Chase' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(EXT_ID),
        object: 'externalAccount',
        type: 'bankUs',
        status: 'pending',
        customer: { id: customer.id, name: 'Ada Lovelace' },
        details: {
          holderName: 'Ada Lovelace',
          bankName: 'Chase',
          routingNumber: '021000021',
          accountNumberLast4: '9012',
          accountType: 'savings',
        },
        supportedDestinations: [
          { asset: 'usd', network: 'ach' },
          { asset: 'usd', network: 'achSameDay' },
          { asset: 'usd', network: 'wire' },
        ],
        failure: null,
        label: null,
        metadata: {},
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      });
      for (const removed of ['owner', 'bankUs', 'category', 'resolvedTransactions', 'accountNumber'])
        expect(res.body).not.toHaveProperty(removed);
      const active = await settledStatus(res.body.id);
      expect(active).toEqual({ ...res.body, status: 'active', updatedAt: expect.stringMatching(ISO) });
      expect(await streamTypes(res.body.id)).toEqual([
        'externalAccount.created',
        'externalAccount.statusChanged',
        'externalAccount.verified',
      ]);
    });

    it('registers an IBAN account, deriving countryCode, showing ibanLast4 only', async () => {
      const res = await post('/external-accounts', {
        owner: ownedBy(),
        type: 'bankIban',
        bankIban: { iban: 'gb29 nwbk 6016 1331 9268 19', BIC: 'NWBKGB2L', bankAddress: '1 Princes St, London' },
      });
      expect(res.status).toBe(201);
      expect(res.body.details).toEqual({
        holderName: 'Ada Lovelace',
        ibanLast4: '6819',
        bic: 'NWBKGB2L',
        countryCode: 'GB',
        bankAddress: '1 Princes St, London',
      });
      expect(res.body.supportedDestinations).toEqual([{ asset: 'usd', network: 'swift' }]);
      expect((await settledStatus(res.body.id)).status).toBe('active');
    });

    it('registers a Canadian account for USD over SWIFT and CAD locally', async () => {
      const res = await post('/external-accounts', {
        owner: ownedBy(),
        type: 'bankCanada',
        bankCanada: { institutionNumber: '001', transitNumber: '00011', accountNumber: '1234567890' },
      });
      expect(res.status).toBe(201);
      expect(res.body.details).toEqual({
        holderName: 'Ada Lovelace',
        bankName: null,
        institutionNumber: '001',
        transitNumber: '00011',
        accountNumberLast4: '7890',
      });
      expect(res.body.supportedDestinations).toEqual([
        { asset: 'usd', network: 'swift' },
        { asset: 'cad', network: 'local' },
      ]);
    });

    it('registers an external wallet on each network, keeping the checksummed address', async () => {
      for (const network of ['ethereum', 'meridianchain']) {
        const res = await post('/external-accounts', {
          owner: ownedBy(),
          type: 'walletExternal',
          walletExternal: { address: VALID_EVM_ADDRESSES[0].toLowerCase(), network },
        });
        expect(res.status).toBe(201);
        expect(res.body.details).toEqual({ address: VALID_EVM_ADDRESSES[0], network, asset: 'usdc' });
        expect(res.body.supportedDestinations).toEqual([{ asset: 'usdc', network }]);
        expect((await settledStatus(res.body.id)).status).toBe('active');
      }
    });

    it('registers a card at its own endpoint: last4 and brand kept, the billing address inside card or at the top level', async () => {
      const inside = await card();
      expect(inside.status).toBe(201);
      expect(inside.body).toMatchObject({
        type: 'card',
        status: 'pending',
        supportedDestinations: [{ asset: 'usd', network: 'card' }],
      });
      expect(inside.body.details).toEqual({
        holderName: 'Ada Lovelace',
        brand: 'visa',
        last4: '4242',
        expiryMonth: 12,
        expiryYear: 2031,
        billingAddress: { ...BILLING, addressLine2: null },
      });
      const top = await post('/external-accounts/cards', {
        owner: ownedBy(),
        card: { cardNumber: '5555 5555 5555 4444', expiryMonth: 1, expiryYear: 2030, holderName: 'A LOVELACE' },
        billingAddress: { ...BILLING, addressLine2: 'Suite 5' },
      });
      expect(top.status).toBe(201);
      expect(top.body.details).toMatchObject({
        holderName: 'A LOVELACE',
        brand: 'mastercard',
        last4: '4444',
        billingAddress: { addressLine2: 'Suite 5' },
      });
      expect((await settledStatus(top.body.id)).status).toBe('active');
    });

    it.each(VALID_CARD_NUMBERS.map((c) => [c.brand, c.number]))('detects the brand %s of %s', async (brand, number) => {
      const res = await card(number);
      expect(res.status).toBe(201);
      expect(res.body.details).toMatchObject({ brand, last4: number.slice(-4) });
    });

    it('names the owning counterparty, whose name is the holder name', async () => {
      const counterparty = (
        await post('/counterparties', { customerId: customer.id, entityType: 'business', businessName: 'Acme Ltd' })
      ).body;
      const res = await post('/external-accounts', {
        owner: { kind: 'counterparty', counterpartyId: counterparty.id },
        type: 'bankUs',
        bankUs: { accountNumber: '55554444', routingNumber: '011000015' },
      });
      expect(res.status).toBe(201);
      expect(res.body.customer).toEqual({ id: customer.id, name: 'Ada Lovelace' });
      expect(res.body.owner).toEqual({ kind: 'counterparty', id: counterparty.id, name: 'Acme Ltd' });
      expect(res.body.details.holderName).toBe('Acme Ltd');
    });
  });

  describe('lifecycle on the sandbox magic values', () => {
    it.each([
      [
        'bankUs',
        { type: 'bankUs', bankUs: { accountNumber: '000123450002', routingNumber: '021000021' } },
        'provider_rejected',
      ],
      [
        'bankIban',
        { type: 'bankIban', bankIban: { iban: 'DE40370400440532010002', BIC: 'COBADEFFXXX' } },
        'provider_rejected',
      ],
      [
        'bankCanada',
        {
          type: 'bankCanada',
          bankCanada: { institutionNumber: '001', transitNumber: '00011', accountNumber: '1234560002' },
        },
        'provider_rejected',
      ],
    ])('%s ending 0002: the provider rejects it, failed with failure.code', async (_type, body, code) => {
      const res = await post('/external-accounts', { owner: ownedBy(), ...body });
      expect(res.status).toBe(201);
      const failed = await settledStatus(res.body.id);
      expect(failed).toMatchObject({ status: 'failed', failure: { code, message: expect.any(String) } });
      expect(await streamTypes(res.body.id)).toEqual([
        'externalAccount.created',
        'externalAccount.statusChanged',
        'externalAccount.declined',
        'externalAccount.updated',
      ]);
    });

    it('a card ending 0002 is declined', async () => {
      const res = await card('4000000000000002');
      expect(await settledStatus(res.body.id)).toMatchObject({ status: 'failed', failure: { code: 'card_declined' } });
    });

    it('ending 0003: pending until the 15-minute provisioning deadline on the sandbox clock, then failed', async () => {
      const project = await platform.newProject('timeouts');
      const as = (method: string, path: string, body?: unknown) =>
        platform.request(method, `/v0.13${path}`, { token: project.token, body });
      const owner = (await as('POST', '/customers', { type: 'individual', firstName: 'Tim', lastName: 'Out' })).body;
      const bank = await as('POST', '/external-accounts', {
        owner: ownedBy(owner.id),
        type: 'bankUs',
        bankUs: { accountNumber: '000123450003', routingNumber: '021000021' },
      });
      const cardRes = await as('POST', '/external-accounts/cards', {
        owner: ownedBy(owner.id),
        card: { cardNumber: '4000000000090003', expiryMonth: 1, expiryYear: 2040, billingAddress: BILLING },
      });
      await platform.settle();
      // Real time passes too: a margin either side of the deadline.
      await as('POST', '/sandbox/clock/advance', { seconds: 870 });
      for (const id of [bank.body.id, cardRes.body.id])
        expect((await as('GET', `/external-accounts/${id}`)).body.status).toBe('pending');
      await as('POST', '/sandbox/clock/advance', { seconds: 60 });
      for (const id of [bank.body.id, cardRes.body.id]) {
        expect((await as('GET', `/external-accounts/${id}`)).body).toMatchObject({
          status: 'failed',
          failure: { code: 'provisioning_timeout' },
        });
      }
    });

    it.each([
      ['Sanctioned', 'sanctions_screening_hit'],
      ['AmlFlagged', 'aml_screening_hit'],
    ])('screens every bank beneficiary before payout: a holder named %s fails with %s', async (magic, code) => {
      const flagged = await newCustomer(magic);
      const res = await post('/external-accounts', {
        owner: ownedBy(flagged.id),
        type: 'bankUs',
        bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
      });
      expect(await settledStatus(res.body.id)).toMatchObject({ status: 'failed', failure: { code } });
      const counterparty = (
        await post('/counterparties', {
          customerId: customer.id,
          entityType: 'business',
          businessName: `${magic} Trading`,
        })
      ).body;
      const owned = await post('/external-accounts', {
        owner: { kind: 'counterparty', counterpartyId: counterparty.id },
        type: 'bankIban',
        bankIban: { iban: 'DE89370400440532013000', BIC: 'COBADEFFXXX' },
      });
      expect(await settledStatus(owned.body.id)).toMatchObject({ status: 'failed', failure: { code } });
    });

    it('becomes invalid from any status through the simulation, always announced by statusChanged', async () => {
      const res = await bankUs('22223333');
      await settledStatus(res.body.id);
      const invalid = await post(`/external-accounts/${res.body.id}/simulate/invalidate`, {});
      expect(invalid.status).toBe(200);
      expect(invalid.body).toMatchObject({ status: 'invalid', failure: { code: 'account_closed' } });
      expect(await streamTypes(res.body.id)).toEqual([
        'externalAccount.created',
        'externalAccount.statusChanged',
        'externalAccount.verified',
        'externalAccount.statusChanged',
        'externalAccount.updated',
      ]);
    });
  });

  describe('reads, lists, updates and deletion', () => {
    it('lists by customerId (required), newest first, with the counterpartyId filter and cursor pagination', async () => {
      const owner = await newCustomer('Lister');
      const counterparty = (
        await post('/counterparties', {
          customerId: owner.id,
          entityType: 'individual',
          firstName: 'Grace',
          lastName: 'Hopper',
        })
      ).body;
      const ids: string[] = [];
      for (let i = 0; i < 3; i++)
        ids.push(
          (
            await post('/external-accounts', {
              owner: ownedBy(owner.id),
              type: 'bankUs',
              bankUs: { accountNumber: `1000000${i}`, routingNumber: '021000021' },
            })
          ).body.id,
        );
      const theirs = (
        await post('/external-accounts', {
          owner: { kind: 'counterparty', counterpartyId: counterparty.id },
          type: 'bankUs',
          bankUs: { accountNumber: '77776666', routingNumber: '021000021' },
        })
      ).body.id;
      const first = await get(`/external-accounts?customerId=${owner.id}&limit=3`);
      expect(first.status).toBe(200);
      expect(first.body.data.map((a: { id: string }) => a.id)).toEqual([theirs, ids[2], ids[1]]);
      expect(first.body.hasMore).toBe(true);
      const second = await get(`/external-accounts?customerId=${owner.id}&limit=3&cursor=${first.body.nextCursor}`);
      expect(second.body).toEqual({
        data: [expect.objectContaining({ id: ids[0] })],
        hasMore: false,
        nextCursor: null,
      });
      const filtered = await get(`/external-accounts?customerId=${owner.id}&counterpartyId=${counterparty.id}`);
      expect(filtered.body.data.map((a: { id: string }) => a.id)).toEqual([theirs]);
      expectError(await get('/external-accounts'), 400, 'InvalidRequest');
      expectError(await get('/external-accounts?customerId=nope'), 400, 'InvalidCustomerID');
      expectError(await get('/external-accounts?customerId=cst_01h455vb4pex5vsknk084sn02q'), 404, 'CustomerNotFound');
      expectError(
        await get(`/external-accounts?customerId=${owner.id}&counterpartyId=nope`),
        400,
        'InvalidCounterpartyID',
      );
    });

    it('changes label and metadata only: merged, removed with null, announced by updated with changedFields', async () => {
      const res = await bankUs('33334444');
      const first = await patch(`/external-accounts/${res.body.id}`, {
        label: 'Payroll',
        metadata: { ref: 'a', team: 'ops' },
      });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ label: 'Payroll', metadata: { ref: 'a', team: 'ops' } });
      const second = await patch(`/external-accounts/${res.body.id}`, { metadata: { team: null, cost: 'b' } });
      expect(second.body.metadata).toEqual({ ref: 'a', cost: 'b' });
      const [updated] = await platform.db.query(
        `SELECT data FROM accounts.events WHERE stream_id = $1 AND type = 'externalAccount.updated' ORDER BY stream_version`,
        [`external-account-${res.body.id}`],
      );
      expect(updated.data.changedFields).toEqual(['label', 'metadata']);
      for (const [field, value] of [
        ['accountNumber', '999999999'],
        ['routingNumber', '011000015'],
        ['status', 'active'],
        ['type', 'bankIban'],
        ['bankUs', { accountNumber: '1' }],
      ] as const) {
        const refused = await refusedAndNothingStored(
          () => patch(`/external-accounts/${res.body.id}`, { label: 'x', [field]: value }),
          422,
          'ExternalAccountFieldImmutable',
        );
        expect(refused.body.cause).toMatch(new RegExp(`^${field}:`));
      }
      expectError(await patch(`/external-accounts/${res.body.id}`, { metadata: { k: 5 } }), 400, 'InvalidRequest');
    });

    it('deletes softly: 204, then gone from reads and lists, and a second delete is 404', async () => {
      const res = await bankUs('44445555');
      const deleted = await del(`/external-accounts/${res.body.id}`);
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');
      expectError(await get(`/external-accounts/${res.body.id}`), 404, 'ExternalAccountNotFound');
      expect(
        (await get(`/external-accounts?customerId=${customer.id}&limit=100`)).body.data.map(
          (a: { id: string }) => a.id,
        ),
      ).not.toContain(res.body.id);
      expectError(await del(`/external-accounts/${res.body.id}`), 404, 'ExternalAccountNotFound');
      expectError(await patch(`/external-accounts/${res.body.id}`, { label: 'x' }), 404, 'ExternalAccountNotFound');
      // Still resolvable by what used it: the record stays, marked deleted.
      const [row] = await platform.db.query(`SELECT deleted_at FROM accounts.external_accounts WHERE id = $1`, [
        res.body.id,
      ]);
      expect(row.deleted_at).not.toBeNull();
      expect(await streamTypes(res.body.id)).toContain('externalAccount.deleted');
    });

    it("answers 404 for another project's account", async () => {
      const res = await bankUs('55556666');
      const other = await platform.newProject('other');
      expectError(
        await platform.request('GET', `/v0.13/external-accounts/${res.body.id}`, { token: other.token }),
        404,
        'ExternalAccountNotFound',
      );
      expectError(
        await platform.request('DELETE', `/v0.13/external-accounts/${res.body.id}`, { token: other.token }),
        404,
        'ExternalAccountNotFound',
      );
      expectError(await get('/external-accounts/ext_nope'), 400, 'InvalidExternalAccountID');
    });
  });

  describe('refusals: a clear 4xx naming the field, and nothing stored', () => {
    const cases: Array<[string, () => Record<string, unknown>, number, string, RegExp?]> = [
      [
        'type card on the generic endpoint',
        () => ({ owner: ownedBy(), type: 'card', card: { cardNumber: '4242424242424242' } }),
        422,
        'CardMustUseCardEndpoint',
      ],
      [
        'a mismatched per-type object',
        () => ({ owner: ownedBy(), type: 'bankUs', bankIban: { iban: 'DE89370400440532013000', BIC: 'COBADEFFXXX' } }),
        422,
        'ExternalAccountTypeMismatch',
      ],
      ['no per-type object', () => ({ owner: ownedBy(), type: 'bankUs' }), 422, 'ExternalAccountTypeMismatch'],
      [
        'two per-type objects',
        () => ({
          owner: ownedBy(),
          type: 'bankUs',
          bankUs: { accountNumber: '12345678', routingNumber: '021000021' },
          walletExternal: { address: VALID_EVM_ADDRESSES[0], network: 'ethereum' },
        }),
        422,
        'ExternalAccountTypeMismatch',
      ],
      ['an unknown type', () => ({ owner: ownedBy(), type: 'bankMars', bankUs: {} }), 400, 'InvalidRequest'],
      [
        'a routing number failing its checksum',
        () => ({ owner: ownedBy(), type: 'bankUs', bankUs: { accountNumber: '12345678', routingNumber: '021000022' } }),
        422,
        'InvalidRoutingNumber',
        /^bankUs\.routingNumber: /,
      ],
      [
        'a routing number of 8 digits',
        () => ({ owner: ownedBy(), type: 'bankUs', bankUs: { accountNumber: '12345678', routingNumber: '02100002' } }),
        422,
        'InvalidRoutingNumber',
      ],
      [
        'a US account number with letters',
        () => ({ owner: ownedBy(), type: 'bankUs', bankUs: { accountNumber: '1234ABCD', routingNumber: '021000021' } }),
        422,
        'InvalidAccountNumber',
        /^bankUs\.accountNumber: /,
      ],
      [
        'a US account number of 18 digits',
        () => ({
          owner: ownedBy(),
          type: 'bankUs',
          bankUs: { accountNumber: '123456789012345678', routingNumber: '021000021' },
        }),
        422,
        'InvalidAccountNumber',
      ],
      [
        'an account number that is not a string',
        () => ({ owner: ownedBy(), type: 'bankUs', bankUs: { accountNumber: 12345678, routingNumber: '021000021' } }),
        400,
        'InvalidRequest',
        /^bankUs\.accountNumber: /,
      ],
      [
        'an unknown bankUs field',
        () => ({
          owner: ownedBy(),
          type: 'bankUs',
          bankUs: { accountNumber: '12345678', routingNumber: '021000021', swift: 'x' },
        }),
        400,
        'InvalidRequest',
        /^bankUs\.swift: unknown field/,
      ],
      [
        'an IBAN with wrong check digits',
        () => ({
          owner: ownedBy(),
          type: 'bankIban',
          bankIban: { iban: 'DE88370400440532013000', BIC: 'COBADEFFXXX' },
        }),
        422,
        'InvalidIban',
        /^bankIban\.iban: /,
      ],
      [
        'an IBAN of the wrong length for its country',
        () => ({ owner: ownedBy(), type: 'bankIban', bankIban: { iban: 'GB29NWBK6016133192681', BIC: 'NWBKGB2L' } }),
        422,
        'InvalidIban',
      ],
      [
        'an IBAN of a country without IBANs',
        () => ({ owner: ownedBy(), type: 'bankIban', bankIban: { iban: 'US29NWBK60161331926819', BIC: 'NWBKGB2L' } }),
        422,
        'InvalidIban',
      ],
      [
        'a BIC of 9 characters',
        () => ({ owner: ownedBy(), type: 'bankIban', bankIban: { iban: 'DE89370400440532013000', BIC: 'COBADEFFX' } }),
        422,
        'InvalidBic',
        /^bankIban\.BIC: /,
      ],
      [
        'a BIC with an unknown country',
        () => ({ owner: ownedBy(), type: 'bankIban', bankIban: { iban: 'DE89370400440532013000', BIC: 'COBAQQFF' } }),
        422,
        'InvalidBic',
      ],
      [
        'a countryCode contradicting the IBAN',
        () => ({
          owner: ownedBy(),
          type: 'bankIban',
          bankIban: { iban: 'DE89370400440532013000', BIC: 'COBADEFFXXX', countryCode: 'FR' },
        }),
        422,
        'CountryCodeMismatch',
        /^bankIban\.countryCode: /,
      ],
      [
        'a Canadian institution number of 4 digits',
        () => ({
          owner: ownedBy(),
          type: 'bankCanada',
          bankCanada: { institutionNumber: '0001', transitNumber: '00011', accountNumber: '1234567' },
        }),
        422,
        'InvalidInstitutionNumber',
      ],
      [
        'a Canadian transit number of 4 digits',
        () => ({
          owner: ownedBy(),
          type: 'bankCanada',
          bankCanada: { institutionNumber: '001', transitNumber: '0011', accountNumber: '1234567' },
        }),
        422,
        'InvalidTransitNumber',
      ],
      [
        'a Canadian account number of 6 digits',
        () => ({
          owner: ownedBy(),
          type: 'bankCanada',
          bankCanada: { institutionNumber: '001', transitNumber: '00011', accountNumber: '123456' },
        }),
        422,
        'InvalidAccountNumber',
      ],
      [
        'a wallet address with a broken checksum',
        () => ({
          owner: ownedBy(),
          type: 'walletExternal',
          walletExternal: { address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD', network: 'ethereum' },
        }),
        422,
        'InvalidWalletAddress',
        /^walletExternal\.address: /,
      ],
      [
        'a wallet address that is not hex',
        () => ({
          owner: ownedBy(),
          type: 'walletExternal',
          walletExternal: { address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', network: 'meridianchain' },
        }),
        422,
        'InvalidWalletAddress',
      ],
      [
        'a wallet on an unsupported network',
        () => ({
          owner: ownedBy(),
          type: 'walletExternal',
          walletExternal: { address: VALID_EVM_ADDRESSES[0], network: 'solana' },
        }),
        400,
        'UnsupportedAssetNetwork',
      ],
      [
        'an unknown customer',
        () => ({
          owner: ownedBy('cst_01h455vb4pex5vsknk084sn02q'),
          type: 'bankUs',
          bankUs: { accountNumber: '12345678', routingNumber: '021000021' },
        }),
        404,
        'CustomerNotFound',
      ],
      [
        'a malformed customer id',
        () => ({
          owner: ownedBy('cst_nope'),
          type: 'bankUs',
          bankUs: { accountNumber: '12345678', routingNumber: '021000021' },
        }),
        400,
        'InvalidCustomerID',
      ],
      [
        'an unknown counterparty',
        () => ({
          owner: { kind: 'counterparty', counterpartyId: 'cpty_01h455vb4pex5vsknk084sn02q' },
          type: 'bankUs',
          bankUs: { accountNumber: '12345678', routingNumber: '021000021' },
        }),
        404,
        'CounterpartyNotFound',
      ],
      [
        'an owner of the wrong kind for its id',
        () => ({
          owner: { kind: 'counterparty', customerId: customer.id },
          type: 'bankUs',
          bankUs: { accountNumber: '12345678', routingNumber: '021000021' },
        }),
        400,
        'InvalidRequest',
      ],
    ];

    // Every row with all five columns: Jest reads a test function with more parameters than columns as taking `done`.
    it.each(cases.map(([name, body, status, error, cause]) => [name, body, status, error, cause ?? null] as const))(
      'refuses %s',
      async (_name, body, status, error, cause) => {
        const res = await refusedAndNothingStored(() => post('/external-accounts', body()), status, error);
        if (cause) expect(res.body.cause).toMatch(cause);
      },
    );

    const cardCases: Array<[string, Record<string, unknown>, string, RegExp?]> = [
      [
        'a number failing Luhn',
        { card: { cardNumber: '4242424242424241', expiryMonth: 12, expiryYear: 2031, billingAddress: BILLING } },
        'InvalidCardNumber',
        /^card\.cardNumber: /,
      ],
      [
        'a Visa number of 15 digits',
        {
          card: {
            cardNumber: luhnComplete('42424242424242'),
            expiryMonth: 12,
            expiryYear: 2031,
            billingAddress: BILLING,
          },
        },
        'InvalidCardNumber',
      ],
      [
        'an expired card',
        { card: { cardNumber: '4242424242424242', expiryMonth: 1, expiryYear: 2020, billingAddress: BILLING } },
        'InvalidCardExpiry',
      ],
      [
        'no billing address',
        { card: { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: 2031 } },
        'billing_address_invalid',
      ],
      ...(['addressLine1', 'city', 'state', 'country', 'zipCode'] as const).flatMap(
        (field): Array<[string, Record<string, unknown>, string, RegExp]> => [
          [
            `a billing address without ${field}`,
            {
              card: {
                cardNumber: '4242424242424242',
                expiryMonth: 12,
                expiryYear: 2031,
                billingAddress: { ...BILLING, [field]: undefined },
              },
            },
            'billing_address_invalid',
            new RegExp(`^billingAddress\\.${field}: `),
          ],
          [
            `a billing address with a blank ${field}`,
            {
              card: { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: 2031 },
              billingAddress: { ...BILLING, [field]: ' \t' },
            },
            'billing_address_invalid',
            new RegExp(`^billingAddress\\.${field}: `),
          ],
        ],
      ),
      [
        'a billing country that is not ISO 3166',
        {
          card: {
            cardNumber: '4242424242424242',
            expiryMonth: 12,
            expiryYear: 2031,
            billingAddress: { ...BILLING, country: 'XX' },
          },
        },
        'billing_address_invalid',
      ],
    ];

    it.each(cardCases.map(([name, body, error, cause]) => [name, body, error, cause ?? null] as const))(
      'refuses a card with %s',
      async (_name, body, error, cause) => {
        const res = await refusedAndNothingStored(
          () => post('/external-accounts/cards', { owner: ownedBy(), ...body }),
          422,
          error,
        );
        if (cause) expect(res.body.cause).toMatch(cause);
      },
    );

    it('never repeats a refused number in the error', async () => {
      const res = await post('/external-accounts', {
        owner: ownedBy(),
        type: 'bankIban',
        bankIban: { iban: 'DE88370400440532013000', BIC: 'COBADEFFXXX' },
      });
      expect(res.text).not.toContain('370400440532013000');
    });
  });

  describe('property-based', () => {
    it('accepts the published example IBAN of every country in the fixtures', async () => {
      for (const { country, iban } of EXAMPLE_IBANS) {
        const res = await post('/external-accounts', {
          owner: ownedBy(),
          type: 'bankIban',
          bankIban: { iban, BIC: `ABCD${country}2L` },
        });
        expect({ country, status: res.status, countryCode: res.body.details?.countryCode }).toEqual({
          country,
          status: 201,
          countryCode: country,
        });
      }
    });

    it('accepts well-known routing numbers', async () => {
      for (const routingNumber of VALID_ABA_ROUTING_NUMBERS) {
        const res = await post('/external-accounts', {
          owner: ownedBy(),
          type: 'bankUs',
          bankUs: { accountNumber: '987654321', routingNumber },
        });
        expect({ routingNumber, status: res.status }).toEqual({ routingNumber, status: 201 });
      }
    });

    it('accepts generated valid identifiers', () =>
      fc.assert(
        fc.asyncProperty(validAbaRoutingNumber(), validIban(), async (routingNumber, iban) => {
          expect(
            (
              await post('/external-accounts', {
                owner: ownedBy(),
                type: 'bankUs',
                bankUs: { accountNumber: '12345678', routingNumber },
              })
            ).status,
          ).toBe(201);
          expect(
            (
              await post('/external-accounts', {
                owner: ownedBy(),
                type: 'bankIban',
                bankIban: { iban, BIC: 'COBADEFFXXX' },
              })
            ).status,
          ).toBe(201);
        }),
        { numRuns: 10 },
      ));

    const digitChanged = (value: string) =>
      fc
        .tuple(fc.nat({ max: value.length - 1 }), fc.integer({ min: 1, max: 9 }))
        .map(([i, d]) => value.slice(0, i) + String((Number(value[i]) + d) % 10) + value.slice(i + 1));
    const invalidBankBody = fc.oneof(
      validAbaRoutingNumber()
        .chain(digitChanged)
        .map((routingNumber) => ({ type: 'bankUs', bankUs: { accountNumber: '12345678', routingNumber } })),
      fc
        .string({ maxLength: 30 })
        .filter((s) => !/^\d{4,17}$/.test(s))
        .map((accountNumber) => ({ type: 'bankUs', bankUs: { accountNumber, routingNumber: '021000021' } })),
      fc
        .tuple(fc.constantFrom('DE', 'AT', 'CH', 'FI'), fc.nat({ max: 10 ** 9 }), fc.integer({ min: 1, max: 9 }))
        .map(([country, n, d]) => {
          const valid = ibanWithCheckDigits(
            country,
            String(n).padStart(country === 'DE' ? 18 : country === 'CH' ? 17 : country === 'AT' ? 16 : 14, '0'),
          );
          return valid.slice(0, 2) + String((Number(valid[2]) + d) % 10) + valid.slice(3);
        })
        .map((iban) => ({ type: 'bankIban', bankIban: { iban, BIC: 'COBADEFFXXX' } })),
      fc.string({ maxLength: 40 }).map((iban) => ({ type: 'bankIban', bankIban: { iban, BIC: 'COBADEFFXXX' } })),
      fc
        .string({ maxLength: 12 })
        .filter((s) => !/^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(s))
        .map((BIC) => ({ type: 'bankIban', bankIban: { iban: 'DE89370400440532013000', BIC } })),
      fc
        .tuple(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }))
        .filter(([i, t]) => !/^\d{3}$/.test(i) || !/^\d{5}$/.test(t))
        .map(([institutionNumber, transitNumber]) => ({
          type: 'bankCanada',
          bankCanada: { institutionNumber, transitNumber, accountNumber: '1234567' },
        })),
    );

    it('refuses generated invalid bank identifiers with a 4xx and stores nothing', async () => {
      const before = await settledRowCounts(platform);
      await fc.assert(
        fc.asyncProperty(invalidBankBody, async (body) => {
          const res = await post('/external-accounts', { owner: ownedBy(), ...body });
          expect(res.status).toBeGreaterThanOrEqual(400);
          expect(res.status).toBeLessThan(500);
          expect(typeof res.body.error).toBe('string');
        }),
        { numRuns: 40 },
      );
      expect(await settledRowCounts(platform)).toEqual(before);
    });
  });
});

describe('counterparties', () => {
  let platform: TestPlatform;
  let token: string;
  let customer: { id: string };
  const post = (path: string, body?: unknown) => platform.request('POST', `/v0.13${path}`, { token, body });
  const get = (path: string) => platform.request('GET', `/v0.13${path}`, { token });

  beforeAll(async () => {
    platform = await TestPlatform.shared();
    token = await platform.token();
    customer = (await post('/customers', { type: 'individual', firstName: 'Ada', lastName: 'Lovelace' })).body;
  }, START_TIMEOUT_MS);
  afterAll(() => platform.stop());

  it('creates an individual with a composed name; the tax id is write-only', async () => {
    const res = await post('/counterparties', {
      customerId: customer.id,
      entityType: 'individual',
      firstName: 'Grace',
      lastName: 'Hopper',
      email: 'grace@example.com',
      phone: '+14155550123',
      taxId: '123-45-6789',
      address: { streetAddress: '1 Navy Way', city: 'Arlington', postalCode: '22202', country: 'us' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^cpty_[0-9a-hjkmnp-tv-z]{26}$/),
      object: 'counterparty',
      customerId: customer.id,
      entityType: 'individual',
      name: 'Grace Hopper',
      firstName: 'Grace',
      lastName: 'Hopper',
      businessName: null,
      email: 'grace@example.com',
      phone: '+14155550123',
      taxIdProvided: true,
      address: { streetAddress: '1 Navy Way', city: 'Arlington', postalCode: '22202', country: 'US' },
      status: 'active',
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    expect(res.body).not.toHaveProperty('taxId');
    expect((await get(`/counterparties/${res.body.id}`)).body).toEqual(res.body);
    const types = await platform.db.query(`SELECT type FROM accounts.events WHERE stream_id = $1`, [
      `counterparty-${res.body.id}`,
    ]);
    expect(types.map((r: { type: string }) => r.type)).toEqual(['counterparty.created']);
  });

  it('creates a business named by its business name', async () => {
    const res = await post('/counterparties', {
      customerId: customer.id,
      entityType: 'business',
      businessName: 'Acme Ltd',
    });
    expect(res.body).toMatchObject({
      name: 'Acme Ltd',
      entityType: 'business',
      firstName: null,
      lastName: null,
      taxIdProvided: false,
      address: null,
    });
  });

  it.each([
    [{ entityType: 'individual', firstName: 'Grace' }, 422, 'CounterpartyFieldsInvalid'],
    [
      { entityType: 'individual', firstName: 'Grace', lastName: 'Hopper', businessName: 'Acme' },
      422,
      'CounterpartyFieldsInvalid',
    ],
    [{ entityType: 'business' }, 422, 'CounterpartyFieldsInvalid'],
    [{ entityType: 'business', businessName: 'Acme', lastName: 'Hopper' }, 422, 'CounterpartyFieldsInvalid'],
    [{ entityType: 'trust', businessName: 'Acme' }, 400, 'InvalidRequest'],
    [{ entityType: 'business', businessName: 'Acme', phone: '555-0123' }, 400, 'InvalidRequest'],
    [{ entityType: 'business', businessName: 'Acme', address: { country: 'ZZ' } }, 400, 'InvalidRequest'],
    [{ entityType: 'business', businessName: '   ' }, 400, 'InvalidRequest'],
  ])('refuses %p', async (body, status, error) => {
    const before = await settledRowCounts(platform);
    expectError(await post('/counterparties', { customerId: customer.id, ...body }), status, error);
    expect(await settledRowCounts(platform)).toEqual(before);
  });

  it('lists by customerId with pagination', async () => {
    const owner = (await post('/customers', { type: 'individual', firstName: 'List', lastName: 'Owner' })).body;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (await post('/counterparties', { customerId: owner.id, entityType: 'business', businessName: `Biz ${i}` })).body
          .id,
      );
    const first = await get(`/counterparties?customerId=${owner.id}&limit=2`);
    expect(first.body.data.map((c: { id: string }) => c.id)).toEqual([ids[2], ids[1]]);
    const second = await get(`/counterparties?customerId=${owner.id}&limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body).toEqual({ data: [expect.objectContaining({ id: ids[0] })], hasMore: false, nextCursor: null });
    expectError(await get('/counterparties'), 400, 'InvalidRequest');
  });

  it('updates names (recomposing name) and contact details; entityType and customerId are fixed', async () => {
    const created = (
      await post('/counterparties', {
        customerId: customer.id,
        entityType: 'individual',
        firstName: 'Grace',
        lastName: 'Hopper',
      })
    ).body;
    const res = await platform.request('PATCH', `/v0.13/counterparties/${created.id}`, {
      token,
      body: { lastName: 'Murray Hopper', email: 'g@example.com', taxId: '987654321' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Grace Murray Hopper',
      lastName: 'Murray Hopper',
      email: 'g@example.com',
      taxIdProvided: true,
    });
    expectError(
      await platform.request('PATCH', `/v0.13/counterparties/${created.id}`, {
        token,
        body: { entityType: 'business' },
      }),
      400,
      'InvalidRequest',
    );
    expectError(
      await platform.request('PATCH', `/v0.13/counterparties/${created.id}`, {
        token,
        body: { customerId: customer.id },
      }),
      400,
      'InvalidRequest',
    );
    expectError(
      await platform.request('PATCH', `/v0.13/counterparties/${created.id}`, { token, body: { lastName: null } }),
      422,
      'CounterpartyFieldsInvalid',
    );
  });

  it('refuses deletion while it owns an active external account (409), deletes after (204), then 404', async () => {
    const counterparty = (
      await post('/counterparties', { customerId: customer.id, entityType: 'business', businessName: 'Owner Co' })
    ).body;
    const account = (
      await post('/external-accounts', {
        owner: { kind: 'counterparty', counterpartyId: counterparty.id },
        type: 'bankUs',
        bankUs: { accountNumber: '12121212', routingNumber: '021000021' },
      })
    ).body;
    await eventually(async () =>
      (await get(`/external-accounts/${account.id}`)).body.status === 'active' ? true : undefined,
    );
    const refused = await platform.request('DELETE', `/v0.13/counterparties/${counterparty.id}`, { token });
    expectError(refused, 409, 'CounterpartyHasActiveExternalAccounts');
    expect(refused.body.cause).toContain(account.id);
    expect((await platform.request('DELETE', `/v0.13/external-accounts/${account.id}`, { token })).status).toBe(204);
    const deleted = await platform.request('DELETE', `/v0.13/counterparties/${counterparty.id}`, { token });
    expect(deleted.status).toBe(204);
    expectError(await get(`/counterparties/${counterparty.id}`), 404, 'CounterpartyNotFound');
    expectError(
      await platform.request('DELETE', `/v0.13/counterparties/${counterparty.id}`, { token }),
      404,
      'CounterpartyNotFound',
    );
    const types = await platform.db.query(
      `SELECT type FROM accounts.events WHERE stream_id = $1 ORDER BY stream_version`,
      [`counterparty-${counterparty.id}`],
    );
    expect(types.map((r: { type: string }) => r.type)).toEqual(['counterparty.created', 'counterparty.deleted']);
    expectError(await get('/counterparties/cpty_nope'), 400, 'InvalidCounterpartyID');
  });
});
