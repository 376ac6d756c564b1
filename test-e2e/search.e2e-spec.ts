// The list filters the dashboard's search box asks (docs/sdk.md, "Searching"): customers by part of a name or
// an email, transactions by a leg's rail reference. Spec: Lists/pagination (a filtered list pages as any other),
// Errors (bad input is a 400 in the error body, naming the field); ARCHITECTURE: every query is scoped to the
// project in its token, so another project's objects are never found. Over HTTP, in both run modes.
import { newTenant, type Tenant } from './support/tenant';
import { eventually, expectError, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';

const ids = (res: { body: { data: Array<{ id: string }> } }) => res.body.data.map((x) => x.id);

describe('searching customers and transactions', () => {
  let platform: TestPlatform;
  let a: Tenant;
  let b: Tenant;
  const people: Record<string, { id: string }> = {};

  beforeAll(async () => {
    platform = await TestPlatform.shared();
    [a, b] = await Promise.all([newTenant(platform, { name: 'search-a' }), newTenant(platform, { name: 'search-b' })]);
    // Endorsements play no part in a search: the customers are listed as soon as they are made.
    const made = (t: Tenant, firstName: string, lastName: string, email?: string) =>
      t.customer({ firstName, lastName, ...(email ? { email } : {}) }, [], 'created');
    people.ada = await made(a, 'Ada', 'Lovelace', 'ada.lovelace@example.com');
    people.grace = await made(a, 'Grace', 'Hopper', 'g.hopper@navy.example');
    people.alan = await made(a, 'Alan', 'Turing');
    people.other = await made(b, 'Ada', 'Byron', 'countess@elsewhere.example');
  }, START_TIMEOUT_MS);
  afterAll(() => platform?.stop());

  describe('GET /customers?search=', () => {
    it.each([
      ['part of a first name', 'rac', ['grace']],
      ['part of a last name', 'ovel', ['ada']],
      ['the whole name, first then last', 'Ada Lovelace', ['ada']],
      ['another case', 'HOPPER', ['grace']],
      ['part of an email', 'navy.example', ['grace']],
      ['a whole email in another case', 'Ada.Lovelace@Example.com', ['ada']],
      ['text in two names, newest first', 'ac', ['grace', 'ada']],
      ['a name alone, for a customer without an email', 'uring', ['alan']],
      ['text nobody has', 'zz', []],
      ['a LIKE wildcard, as itself', '%a', []],
    ])('finds customers by %s', async (_what, search, expected) => {
      const res = await a.get(`/customers?search=${encodeURIComponent(search)}`);
      expect(res.status).toBe(200);
      expect(ids(res)).toEqual(expected.map((k) => people[k].id));
    });

    it("never finds another project's customer, by name or by email", async () => {
      expect(ids(await a.get('/customers?search=Byron'))).toEqual([]);
      expect(ids(await a.get('/customers?search=countess'))).toEqual([]);
      expect(ids(await a.get('/customers?search=ada'))).toEqual([people.ada.id]);
      expect(ids(await b.get('/customers?search=ada'))).toEqual([people.other.id]);
    });

    it('pages through the matches with the cursor, as any list', async () => {
      const one = await a.get('/customers?search=ac&limit=1');
      expect(ids(one)).toEqual([people.grace.id]);
      expect(one.body.hasMore).toBe(true);
      const two = await a.get(`/customers?search=ac&limit=1&cursor=${encodeURIComponent(one.body.nextCursor)}`);
      expect(ids(two)).toEqual([people.ada.id]);
      expect(two.body).toMatchObject({ hasMore: false, nextCursor: null });
    });

    it.each([
      ['of one character', 'a', 'search: must be longer than or equal to 2 characters'],
      ['of more than 200 characters', 'x'.repeat(201), 'search: must be shorter than or equal to 200 characters'],
      ['given twice', 'ada&search=grace', 'search: must be a string'],
    ])('refuses a search %s with 400 naming the field, and changes nothing', async (_what, search, cause) => {
      const before = await a.get('/customers');
      const res = await a.get(`/customers?search=${search}`);
      expectError(res, 400, 'InvalidRequest');
      expect(res.body.cause).toContain(cause);
      expect(await a.get('/customers')).toMatchObject({ status: 200, body: before.body });
    });
  });

  describe('GET /transactions?reference=', () => {
    let wire: { id: string; legs: Array<Record<string, string>> };
    let crypto: { id: string; legs: Array<Record<string, string>> };

    beforeAll(async () => {
      const sender = await a.customer({ firstName: 'Katherine', lastName: 'Johnson' });
      const wallet = await a.wallet(sender.id, { funding: '500' });
      const receiver = await a.wallet((await a.customer({ firstName: 'Mary', lastName: 'Jackson' })).id);
      const bank = await a.bankUs(sender.id);
      const pay = async (destination: Record<string, unknown>) => {
        const quote = await a.post('/quotes', {
          customerId: sender.id,
          source: { type: 'walletOms', details: { id: wallet.id }, amount: '10.00' },
          destination,
        });
        expect(quote.status).toBe(201);
        const txn = await a.post('/transactions', { quoteId: quote.body.id });
        expect(txn.status).toBe(201);
        return txn.body.id as string;
      };
      const wireId = await pay({
        type: 'bankUs',
        details: { id: bank.id, network: 'wire', accountHolder: 'customer' },
      });
      const cryptoId = await pay({ type: 'walletOms', details: { id: receiver.id } });
      await a.advance(60);
      const done = (id: string) =>
        eventually(async () => {
          const t = (await a.get(`/transactions/${id}`)).body;
          return t.status === 'completed' ? t : undefined;
        }, 15_000);
      [wire, crypto] = await Promise.all([done(wireId), done(cryptoId)]);
    }, START_TIMEOUT_MS);

    it("finds a wire payout by its leg's IMAD", async () => {
      const imad = wire.legs[0].imad;
      expect(imad).toEqual(expect.any(String));
      expect(ids(await a.get(`/transactions?reference=${encodeURIComponent(imad)}`))).toEqual([wire.id]);
      // Exactly: part of it is not a reference.
      expect(ids(await a.get(`/transactions?reference=${encodeURIComponent(imad.slice(0, -1))}`))).toEqual([]);
    });

    it("finds an on-chain transfer by its leg's tx hash, in any case", async () => {
      const hash = crypto.legs[0].txHash;
      expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
      for (const written of [hash, hash.toUpperCase().replace('0X', '0x')])
        expect(ids(await a.get(`/transactions?reference=${written}`))).toEqual([crypto.id]);
      // With the other filters, as any list.
      expect(ids(await a.get(`/transactions?reference=${hash}&status=completed`))).toEqual([crypto.id]);
      expect(ids(await a.get(`/transactions?reference=${hash}&status=failed`))).toEqual([]);
    });

    it("never finds another project's transaction by its reference", async () => {
      for (const reference of [wire.legs[0].imad, crypto.legs[0].txHash])
        expect(ids(await b.get(`/transactions?reference=${encodeURIComponent(reference)}`))).toEqual([]);
    });

    it.each([
      ['that is blank', '%20%20', 'reference: must contain a visible character'],
      ['of more than 200 characters', 'x'.repeat(201), 'reference: must be shorter than or equal to 200 characters'],
    ])('refuses a reference %s with 400 naming the field, and changes nothing', async (_what, reference, cause) => {
      const before = await a.get('/transactions');
      const res = await a.get(`/transactions?reference=${reference}`);
      expectError(res, 400, 'InvalidRequest');
      expect(res.body.cause).toContain(cause);
      expect(await a.get('/transactions')).toMatchObject({ status: 200, body: before.body });
    });
  });
});
