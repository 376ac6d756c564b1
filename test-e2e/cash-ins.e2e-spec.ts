// Spec: Cash-in, Cash location (read), States / Cash-in, Endpoints (Cash-in
// and cash locations), Limits / Cash-in, rules 1, 3, 4, Events (ties 1 and 6),
// Errors; API-CONTRACT: Cash locations, Sandbox simulations; docs/sandbox.md;
// ADR 0020. Every route, every row of the cash-in state table, every limit at
// its boundary and one cent or one count past it, on the sandbox clock, in
// both modes.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EndorsementName } from '@mm/contracts';
import { newTenant } from './support/tenant';
import { E2E_MODE, eventually, expectError, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';
import { WebhookReceiver } from './support/webhook-receiver';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const CI = /^ci_[0-9a-hjkmnp-tv-z]{26}$/;
const CODE = /^[0-9]{3} [0-9]{3}$/;
const HOUR = 3600;
const DAY = 86_400;
const ZERO_FEES = (zero: string) => ({ total: zero, developer: zero, gas: zero, meridian: zero });
const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

// The sandbox network's fixed locations (docs/sandbox.md).
const LA_BIGMART = { locationId: 'loc_01m846c3h4e06945jf6mfht9tc', locationReference: 'BIGMART-1001' };
const LA_QUICKSTOP = { locationId: 'loc_01m846c3h7e06945mv76kz01kg', locationReference: 'QUICKSTOP-2002' };
const LA_PICKUP_ONLY = { locationId: 'loc_01m846c3h7e06945rfwsbap6wh', locationReference: 'CASHPOINT-4001' };
const LA_BIGMART_ADDRESS = {
  line1: '1200 S Figueroa St',
  city: 'Los Angeles',
  state: 'CA',
  postalCode: '90015',
  country: 'US',
};
const LOCATIONS_IN_NETWORK = 30;

describe('cash-ins and cash locations', () => {
  let platform: TestPlatform;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    [platform, receiver] = await Promise.all([TestPlatform.shared(), WebhookReceiver.start()]);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await receiver?.stop();
    await platform?.stop();
  });

  /** This file's projects: on the shared platform, other files store cash-ins meanwhile. */
  const projects: string[] = [];

  /** What the cash-in service stored for this file's projects: a refused request changes none of it. */
  const stored = async () =>
    (
      await platform.db.query(
        `SELECT (SELECT count(*) FROM cash_in.cash_ins WHERE project_id = ANY($1))::int AS cash_ins,
                (SELECT count(*) FROM cash_in.events WHERE metadata->>'projectId' = ANY($1))::int AS events,
                (SELECT count(*) FROM cash_in.deposits WHERE project_id = ANY($1))::int AS deposits,
                (SELECT count(*) FROM cash_in.customer_usage WHERE project_id = ANY($1))::int AS usage,
                (SELECT count(*) FROM platform.timers WHERE kind = 'cashIn.codeExpiry' AND project_id = ANY($1))::int AS timers`,
        [projects],
      )
    )[0];

  /** A project of its own (its own sandbox clock) and a customer whose usd endorsement is active. */
  async function tenant(name: string) {
    const base = await newTenant(platform, { name });
    projects.push(base.projectId);
    const { post, get } = base;
    /** A customer, once the endorsements it asks for are active (a wallet needs cryptoCustody, a cash-in usd); Rejected's never are. */
    const customer = (lastName = 'Lovelace', endorsements: EndorsementName[] = ['basic', 'cryptoCustody', 'usd']) =>
      base.customer({ lastName }, endorsements, lastName === 'Rejected' ? 'created' : 'active');
    const wallet = (customerId: string, network = 'meridianchain') => base.wallet(customerId, { network });
    const ada = await customer();
    const adaWallet = await wallet(ada.id);
    let probe: { id: string; wallet: string } | undefined;
    const now = async () => (await base.clock()).getTime();
    const t = {
      token: base.token,
      post,
      get,
      customer,
      wallet,
      ada,
      adaWallet,
      now,
      /** A cash-in for `customerId` into its wallet at a location. */
      cashIn: (
        customerId: string,
        walletId: string,
        location = LA_QUICKSTOP,
        source: Record<string, unknown> = { asset: 'usd' },
        extra: Record<string, unknown> = {},
      ) =>
        post('/cash-ins', {
          customerId,
          source,
          destination: { asset: 'usdc', network: 'meridianchain', wallet: { id: walletId } },
          cash: location,
          ...extra,
        }),
      deposit: (id: string, amount: string, code?: string) =>
        post(`/cash-ins/${id}/simulate/deposit`, { amount, ...(code ? { code } : {}) }),
      /**
       * Moves the project's clock. Across processes the cash-in service hears of it by a database
       * notification: wait until a probe cash-in it creates carries the new time.
       */
      advance: async (seconds: number) => {
        const target = (await base.advance(seconds)).getTime();
        if (E2E_MODE !== 'distributed') return;
        if (!probe) {
          const c = await customer('Probe');
          probe = { id: c.id, wallet: (await wallet(c.id)).id };
        }
        await eventually(async () => {
          const created = await t.cashIn(probe!.id, probe!.wallet);
          expect(created.status).toBe(201);
          return Date.parse(created.body.createdAt) >= target ? true : undefined;
        });
      },
      /** To `seconds` past the next UTC midnight, the next Monday's or the next month's first day's. */
      advanceToNext: async (boundary: 'day' | 'monday' | 'month', seconds = 60) => {
        const d = new Date(await now());
        let start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
        if (boundary === 'monday') start += ((8 - new Date(start).getUTCDay()) % 7) * DAY * 1000;
        if (boundary === 'month') start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
        await t.advance(Math.ceil((start + seconds * 1000 - d.getTime()) / 1000) + 1);
      },
      /** A cash-in deposited at once: creates it (no indicated amount) and deposits `amount`. */
      completed: async (customerId: string, walletId: string, amount: string, location = LA_QUICKSTOP) => {
        const created = await t.cashIn(customerId, walletId, location);
        expect(created.status).toBe(201);
        const done = await t.deposit(created.body.id, amount);
        expect({ status: done.status, body: done.status === 200 ? undefined : done.body }).toEqual({
          status: 200,
          body: undefined,
        });
        return done.body;
      },
    };
    return t;
  }
  type Tenant = Awaited<ReturnType<typeof tenant>>;

  describe('GET /cash-locations', () => {
    let t: Tenant;
    beforeAll(async () => {
      t = await tenant('locations');
    });
    const all = async (query: string) => {
      const items: any[] = [];
      let cursor: string | null = null;
      do {
        const res = await t.get(`/cash-locations?${query}&limit=7${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.status).toBe(200);
        expect(res.body.data.length).toBeLessThanOrEqual(7);
        items.push(...res.body.data);
        cursor = res.body.hasMore ? res.body.nextCursor : null;
        if (!res.body.hasMore) expect(res.body.nextCursor).toBeNull();
      } while (cursor);
      return items;
    };

    it('answers cash-in locations nearest first, each item in the contract shape with distanceKm', async () => {
      const res = await t.get('/cash-locations?latitude=34.0522&longitude=-118.2437&flow=cash_in');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: expect.any(Array), hasMore: true, nextCursor: expect.any(String) });
      expect(res.body.data).toHaveLength(20);
      const [first] = res.body.data;
      expect(Object.keys(first).sort()).toEqual(
        [
          'address',
          'cashLocationReference',
          'distanceKm',
          'flows',
          'latitude',
          'locId',
          'longitude',
          'name',
          'provider',
        ].sort(),
      );
      expect(first).toMatchObject({
        locId: expect.stringMatching(/^loc_[0-9a-hjkmnp-tv-z]{26}$/),
        address: { city: 'Los Angeles', state: 'CA', country: 'US' },
        flows: expect.arrayContaining(['cash_in']),
      });
      const distances = res.body.data.map((l: { distanceKm: number }) => l.distanceKm);
      expect(distances).toEqual([...distances].sort((a: number, b: number) => a - b));
      expect(distances[0]).toBeLessThan(2);
      for (const d of distances) expect(String(d)).toMatch(/^\d+(\.\d{1,2})?$/);
      // The whole list, page by page: every cash-in location once, still nearest first.
      const pages = await all('latitude=34.0522&longitude=-118.2437&flow=cash_in');
      expect(new Set(pages.map((l) => l.locId)).size).toBe(pages.length);
      expect(pages.map((l) => l.distanceKm)).toEqual(pages.map((l) => l.distanceKm).sort((a, b) => a - b));
      expect(pages.every((l) => l.flows.includes('cash_in'))).toBe(true);
      expect(pages.slice(0, 20)).toEqual(res.body.data);
    });

    it('answers the pickup locations for flow=cash_out: some take cash-ins too, some only pickups', async () => {
      const pickup = await all('flow=cash_out');
      const deposit = await all('flow=cash_in');
      expect(pickup.every((l) => l.flows.includes('cash_out'))).toBe(true);
      expect(pickup.some((l) => l.flows.length === 1)).toBe(true);
      expect(deposit.some((l) => l.flows.length === 1)).toBe(true);
      expect(pickup.map((l) => l.locId)).toContain(LA_PICKUP_ONLY.locationId);
      expect(deposit.map((l) => l.locId)).not.toContain(LA_PICKUP_ONLY.locationId);
      expect(new Set([...pickup, ...deposit].map((l) => l.locId)).size).toBe(LOCATIONS_IN_NETWORK);
      const states = new Set([...pickup, ...deposit].map((l) => l.address.state));
      for (const state of ['CA', 'NM']) expect(states.has(state)).toBe(true);
    });

    it('without coordinates: by reference, distanceKm null; cash_in by default; filtered by provider', async () => {
      const res = await t.get('/cash-locations?provider=bigmart');
      expect(res.status).toBe(200);
      const references = res.body.data.map((l: { cashLocationReference: string }) => l.cashLocationReference);
      expect(references).toEqual([...references].sort());
      expect(
        res.body.data.every(
          (l: { provider: string; distanceKm: unknown; flows: string[] }) =>
            l.provider === 'bigmart' && l.distanceKm === null && l.flows.includes('cash_in'),
        ),
      ).toBe(true);
      expect(res.body.data.find((l: { locId: string }) => l.locId === LA_BIGMART.locationId)).toEqual({
        locId: LA_BIGMART.locationId,
        cashLocationReference: 'BIGMART-1001',
        name: 'BigMart Supercenter #1001',
        provider: 'bigmart',
        address: LA_BIGMART_ADDRESS,
        latitude: 34.040713,
        longitude: -118.266556,
        distanceKm: null,
        flows: ['cash_in', 'cash_out'],
      });
      expect(
        (await t.get('/cash-locations?provider=cashpoint&flow=cash_in')).body.data.map(
          (l: { cashLocationReference: string }) => l.cashLocationReference,
        ),
      ).toEqual(['CASHPOINT-4006']);
    });

    it.each([
      ['latitude=34.05', 'InvalidCoordinates'],
      ['longitude=-118.24', 'InvalidCoordinates'],
      ['latitude=90.5&longitude=0', 'InvalidCoordinates'],
      ['latitude=0&longitude=-180.01', 'InvalidCoordinates'],
      ['latitude=north&longitude=west', 'InvalidCoordinates'],
      ['latitude=&longitude=1', 'InvalidCoordinates'],
      ['flow=cash_sideways', 'InvalidRequest'],
      ['provider=megamart', 'UnknownCashLocationProvider'],
      ['provider=BIG%20MART', 'UnknownCashLocationProvider'],
      ['limit=0', 'InvalidRequest'],
      ['limit=101', 'InvalidRequest'],
      ['cursor=nonsense', 'InvalidCursor'],
      ['radius=5', 'InvalidRequest'],
    ])('refuses %s with 400 %s', async (query, error) => {
      expectError(await t.get(`/cash-locations?${query}`), 400, error);
    });

    it('refuses a cursor of another search', async () => {
      const page = (await t.get('/cash-locations?flow=cash_out&provider=cashpoint&limit=2')).body;
      expect(page.hasMore).toBe(true);
      expectError(
        await t.get(`/cash-locations?flow=cash_out&provider=bigmart&cursor=${page.nextCursor}`),
        400,
        'InvalidCursor',
      );
    });

    it('are the locations docs/sandbox.md lists, by id, reference and flows', async () => {
      const doc = readFileSync(join(__dirname, '..', 'docs', 'sandbox.md'), 'utf8');
      for (const l of [...(await all('flow=cash_in')), ...(await all('flow=cash_out'))]) {
        expect(doc).toContain(`| \`${l.locId}\` | \`${l.cashLocationReference}\` | ${l.name} | \`${l.provider}\` |`);
        expect(doc).toContain(
          `| ${l.latitude}, ${l.longitude} | ${l.flows.map((f: string) => `\`${f}\``).join(', ')} |`,
        );
      }
    });

    it('publishes every location in the cash-in log once (cashLocation.published), with its state', async () => {
      const events = await platform.db.query(
        `SELECT stream_id, stream_version, data FROM cash_in.events WHERE type = 'cashLocation.published'`,
      );
      expect(events).toHaveLength(LOCATIONS_IN_NETWORK);
      expect(new Set(events.map((e) => e.stream_id)).size).toBe(LOCATIONS_IN_NETWORK);
      const la = events.find((e) => e.data.locId === LA_BIGMART.locationId)!;
      expect(la).toMatchObject({ stream_id: `cashLocation-${LA_BIGMART.locationId}`, stream_version: 1 });
      expect(la.data).toEqual({
        locId: LA_BIGMART.locationId,
        cashLocationReference: 'BIGMART-1001',
        name: 'BigMart Supercenter #1001',
        provider: 'bigmart',
        address: LA_BIGMART_ADDRESS,
        latitude: 34.040713,
        longitude: -118.266556,
        flows: ['cash_in', 'cash_out'],
        publishedAt: expect.stringMatching(ISO),
      });
    });
  });

  describe('POST /cash-ins', () => {
    let t: Tenant;
    beforeAll(async () => {
      t = await tenant('create');
    });

    it('(none) -> pending: a one-time code valid one hour, estimates from indicatedAmount, the v1 shape', async () => {
      const res = await t.cashIn(
        t.ada.id,
        t.adaWallet.id,
        LA_BIGMART,
        { asset: 'usd', indicatedAmount: '100.5' },
        { metadata: { order: '42' } },
      );
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(CI),
        object: 'cashIn',
        type: 'fiatToCrypto',
        status: 'pending',
        subStatus: null,
        customerId: t.ada.id,
        source: {
          asset: 'usd',
          indicatedAmount: '100.50',
          amountGross: '100.50',
          amountNet: '100.50',
          feesDeducted: ZERO_FEES('0.00'),
        },
        destination: {
          asset: 'usdc',
          network: 'meridianchain',
          amountGross: '100.50',
          amountNet: '100.50',
          feesDeducted: ZERO_FEES('0.00'),
          wallet: { id: t.adaWallet.id, blockchainAddress: t.adaWallet.address, externalAccount: null },
        },
        cash: LA_BIGMART,
        location: {
          name: 'BigMart Supercenter #1001',
          locationProvider: 'bigmart',
          locationAddress: LA_BIGMART_ADDRESS,
        },
        rates: { pair: 'usd/usdc', exchangeRate: '1.00', effectiveRate: '1.00' },
        fixedAmountSide: 'source',
        sponsorGas: true,
        sponsorGasCost: '0.00',
        depositInstructions: {
          code: expect.stringMatching(CODE),
          expiresAt: expect.stringMatching(ISO),
          locationName: 'BigMart Supercenter #1001',
          locationAddress: LA_BIGMART_ADDRESS,
        },
        transactionId: null,
        metadata: { order: '42' },
        createdAt: expect.stringMatching(ISO),
        updatedAt: res.body.createdAt,
        completedAt: null,
      });
      expect(Date.parse(res.body.depositInstructions.expiresAt) - Date.parse(res.body.createdAt)).toBe(HOUR * 1000);
      expect((await t.get(`/cash-ins/${res.body.id}`)).body).toEqual(res.body);
    });

    it('carries no estimates without an indicated amount, and takes sponsorGas: true', async () => {
      const res = await t.cashIn(
        t.ada.id,
        t.adaWallet.id,
        LA_QUICKSTOP,
        { asset: 'usd', indicatedAmount: null },
        { sponsorGas: true },
      );
      expect(res.status).toBe(201);
      expect(res.body.source).toEqual({
        asset: 'usd',
        indicatedAmount: null,
        amountGross: null,
        amountNet: null,
        feesDeducted: null,
      });
      expect(res.body.destination).toMatchObject({ amountGross: null, amountNet: null, feesDeducted: null });
      expect(res.body.rates).toEqual({ pair: 'usd/usdc', exchangeRate: '1.00', effectiveRate: '1.00' });
    });

    it('delivers to a bare address or to a registered external wallet of the customer', async () => {
      const toAddress = await t.post('/cash-ins', {
        customerId: t.ada.id,
        source: { asset: 'usd' },
        destination: { asset: 'usdc', network: 'ethereum', wallet: { blockchainAddress: ADDRESS } },
        cash: LA_QUICKSTOP,
      });
      expect(toAddress.status).toBe(201);
      expect(toAddress.body.destination).toMatchObject({
        network: 'ethereum',
        wallet: { id: null, blockchainAddress: ADDRESS, externalAccount: null },
      });
      const ext = await t.post('/external-accounts', {
        owner: { kind: 'customer', customerId: t.ada.id },
        type: 'walletExternal',
        walletExternal: { address: ADDRESS, network: 'ethereum' },
      });
      await eventually(async () =>
        (await t.get(`/external-accounts/${ext.body.id}`)).body.status === 'active' ? true : undefined,
      );
      const toExternal = await t.post('/cash-ins', {
        customerId: t.ada.id,
        source: { asset: 'usd' },
        destination: { asset: 'usdc', network: 'ethereum', wallet: { externalAccount: ext.body.id } },
        cash: LA_QUICKSTOP,
      });
      expect(toExternal.status).toBe(201);
      expect(toExternal.body.destination.wallet).toEqual({
        id: null,
        blockchainAddress: ADDRESS,
        externalAccount: ext.body.id,
      });
      expectError(
        await t.post('/cash-ins', {
          customerId: t.ada.id,
          source: { asset: 'usd' },
          destination: { asset: 'usdc', network: 'meridianchain', wallet: { externalAccount: ext.body.id } },
          cash: LA_QUICKSTOP,
        }),
        422,
        'AssetNetworkMismatch',
      );
      const bank = await t.post('/external-accounts', {
        owner: { kind: 'customer', customerId: t.ada.id },
        type: 'bankUs',
        bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
      });
      expectError(
        await t.post('/cash-ins', {
          customerId: t.ada.id,
          source: { asset: 'usd' },
          destination: { asset: 'usdc', network: 'ethereum', wallet: { externalAccount: bank.body.id } },
          cash: LA_QUICKSTOP,
        }),
        422,
        'external_account_rail_mismatch',
      );
    });

    it('replays the same Idempotency-Key with the same cash-in and code', async () => {
      const key = randomUUID();
      const body = {
        customerId: t.ada.id,
        source: { asset: 'usd' },
        destination: { asset: 'usdc', network: 'meridianchain', wallet: { id: t.adaWallet.id } },
        cash: LA_QUICKSTOP,
      };
      const first = await t.post('/cash-ins', body, key);
      const again = await t.post('/cash-ins', body, key);
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
    });

    it('needs an active usd endorsement', async () => {
      const basic = await t.customer('Basic', ['basic', 'cryptoCustody']);
      expectError(await t.cashIn(basic.id, (await t.wallet(basic.id)).id), 422, 'UsdEndorsementRequired');
      const rejected = await t.customer('Rejected', ['basic', 'usd']);
      await eventually(async () =>
        (await t.get(`/customers/${rejected.id}`)).body.endorsements.some(
          (e: { name: string; status: string }) => e.name === 'usd' && e.status === 'rejected',
        )
          ? true
          : undefined,
      );
      // Every endorsement of this customer is rejected, so it holds no wallet: the cash-in goes to an address.
      const toAddress = await t.post('/cash-ins', {
        customerId: rejected.id,
        source: { asset: 'usd' },
        destination: { asset: 'usdc', network: 'meridianchain', wallet: { blockchainAddress: ADDRESS } },
        cash: LA_QUICKSTOP,
      });
      expectError(toAddress, 422, 'UsdEndorsementRequired');
      expect(toAddress.body.cause).toContain(
        `a cash-in needs an active usd endorsement, and customer ${rejected.id}'s usd endorsement is rejected`,
      );
    });

    const valid = () => ({
      customerId: t.ada.id,
      source: { asset: 'usd', indicatedAmount: '50.00' },
      destination: { asset: 'usdc', network: 'meridianchain', wallet: { id: t.adaWallet.id } },
      cash: LA_QUICKSTOP,
    });
    const cases: Array<[string, (b: any) => unknown, number, string]> = [
      ['no cash', ({ cash: _cash, ...b }) => b, 400, 'InvalidRequest'],
      ['no source', ({ source: _source, ...b }) => b, 400, 'InvalidRequest'],
      ['no customerId', ({ customerId: _c, ...b }) => b, 400, 'InvalidRequest'],
      ['source.asset usdc', (b) => ({ ...b, source: { asset: 'usdc' } }), 400, 'InvalidRequest'],
      ['no source.asset', (b) => ({ ...b, source: {} }), 400, 'InvalidRequest'],
      [
        'an indicated amount with 3 decimals',
        (b) => ({ ...b, source: { asset: 'usd', indicatedAmount: '50.001' } }),
        400,
        'InvalidAmount',
      ],
      [
        'an indicated amount with 3 places, the last a zero',
        (b) => ({ ...b, source: { asset: 'usd', indicatedAmount: '50.000' } }),
        400,
        'InvalidAmount',
      ],
      [
        'an indicated amount as a number',
        (b) => ({ ...b, source: { asset: 'usd', indicatedAmount: 50 } }),
        400,
        'InvalidAmount',
      ],
      ['sponsorGas false', (b) => ({ ...b, sponsorGas: false }), 400, 'SponsorGasRequired'],
      ['sponsorGas null', (b) => ({ ...b, sponsorGas: null }), 400, 'InvalidRequest'],
      [
        'destination usd',
        (b) => ({ ...b, destination: { ...b.destination, asset: 'usd' } }),
        400,
        'UnsupportedAssetNetwork',
      ],
      [
        'destination on a network not offered',
        (b) => ({ ...b, destination: { ...b.destination, network: 'solana' } }),
        400,
        'UnsupportedAssetNetwork',
      ],
      [
        'two wallet forms',
        (b) => ({
          ...b,
          destination: { ...b.destination, wallet: { id: t.adaWallet.id, blockchainAddress: ADDRESS } },
        }),
        400,
        'InvalidRequest',
      ],
      ['no wallet form', (b) => ({ ...b, destination: { ...b.destination, wallet: {} } }), 400, 'InvalidRequest'],
      [
        'a malformed address',
        (b) => ({ ...b, destination: { ...b.destination, wallet: { blockchainAddress: '0x1234' } } }),
        422,
        'InvalidWalletAddress',
      ],
      [
        'an address with a bad checksum',
        (b) => ({
          ...b,
          destination: { ...b.destination, wallet: { blockchainAddress: ADDRESS.replace('E7', 'e7') } },
        }),
        422,
        'InvalidWalletAddress',
      ],
      [
        'a malformed wallet id',
        (b) => ({ ...b, destination: { ...b.destination, wallet: { id: 'wallet-1' } } }),
        400,
        'InvalidWalletID',
      ],
      [
        'an unknown wallet',
        (b) => ({ ...b, destination: { ...b.destination, wallet: { id: 'wlt_01h455vb4pex5vsknk084sn02q' } } }),
        404,
        'WalletNotFound',
      ],
      [
        'an unknown external account',
        (b) => ({
          ...b,
          destination: { ...b.destination, wallet: { externalAccount: 'ext_01h455vb4pex5vsknk084sn02q' } },
        }),
        404,
        'ExternalAccountNotFound',
      ],
      ['a malformed customer id', (b) => ({ ...b, customerId: 'ada' }), 400, 'InvalidCustomerID'],
      ['an unknown customer', (b) => ({ ...b, customerId: 'cst_01h455vb4pex5vsknk084sn02q' }), 404, 'CustomerNotFound'],
      [
        'a malformed location id',
        (b) => ({ ...b, cash: { ...b.cash, locationId: 'LA-1' } }),
        400,
        'InvalidCashLocationID',
      ],
      [
        'an unknown location',
        (b) => ({ ...b, cash: { ...b.cash, locationId: 'loc_01h455vb4pex5vsknk084sn02q' } }),
        404,
        'CashLocationNotFound',
      ],
      [
        "another location's reference",
        (b) => ({ ...b, cash: { ...b.cash, locationReference: 'BIGMART-1001' } }),
        422,
        'CashLocationReferenceMismatch',
      ],
      ['a pickup-only location', (b) => ({ ...b, cash: LA_PICKUP_ONLY }), 422, 'CashLocationFlowUnsupported'],
      [
        'an indicated amount under the minimum',
        (b) => ({ ...b, source: { asset: 'usd', indicatedAmount: '19.99' } }),
        422,
        'CashInBelowMinimum',
      ],
      ['an unknown field', (b) => ({ ...b, fee: '1.00' }), 400, 'InvalidRequest'],
      ['metadata that is not strings', (b) => ({ ...b, metadata: { order: 42 } }), 400, 'InvalidRequest'],
    ];
    it.each(cases)('refuses %s, storing nothing', async (_name, change, status, error) => {
      const before = await stored();
      expectError(await t.post('/cash-ins', change(valid())), status, error);
      expect(await stored()).toEqual(before);
    });

    it("refuses another customer's wallet and a wallet on another network", async () => {
      const grace = await t.customer('Hopper');
      const theirs = await t.wallet(grace.id);
      expectError(
        await t.post('/cash-ins', {
          ...valid(),
          destination: { asset: 'usdc', network: 'meridianchain', wallet: { id: theirs.id } },
        }),
        422,
        'WalletNotOwned',
      );
      const eth = await t.wallet(t.ada.id, 'ethereum');
      expectError(
        await t.post('/cash-ins', {
          ...valid(),
          destination: { asset: 'usdc', network: 'meridianchain', wallet: { id: eth.id } },
        }),
        422,
        'AssetNetworkMismatch',
      );
    });
  });

  describe('reading and listing', () => {
    it('lists newest first with limit and cursor; another project sees none of them', async () => {
      const t = await tenant('list');
      const made: string[] = [];
      for (let i = 0; i < 5; i++) made.push((await t.cashIn(t.ada.id, t.adaWallet.id)).body.id);
      const first = (await t.get('/cash-ins?limit=2')).body;
      expect(first).toMatchObject({ hasMore: true, nextCursor: expect.any(String) });
      const second = (await t.get(`/cash-ins?limit=2&cursor=${first.nextCursor}`)).body;
      const third = (await t.get(`/cash-ins?limit=2&cursor=${second.nextCursor}`)).body;
      expect(third).toMatchObject({ hasMore: false, nextCursor: null });
      expect([...first.data, ...second.data, ...third.data].map((c: { id: string }) => c.id)).toEqual(
        [...made].reverse(),
      );
      expect((await t.get('/cash-ins')).body.data.map((c: { id: string }) => c.id)).toEqual([...made].reverse());
      expectError(await t.get('/cash-ins?limit=0'), 400, 'InvalidRequest');
      expectError(await t.get('/cash-ins?cursor=abc'), 400, 'InvalidCursor');

      const other = await tenant('list-other');
      expect((await other.get('/cash-ins')).body.data).toEqual([]);
      expectError(await other.get(`/cash-ins/${made[0]}`), 404, 'CashInNotFound');
      expectError(await other.post(`/cash-ins/${made[0]}/refresh`), 404, 'CashInNotFound');
      expectError(await other.deposit(made[0], '50.00'), 404, 'CashInNotFound');
      expect((await t.get(`/cash-ins/${made[0]}`)).body.status).toBe('pending');
    });

    it('answers 404 for an unknown cash-in and 400 for a malformed id', async () => {
      const t = await tenant('ids');
      expectError(await t.get('/cash-ins/ci_01h455vb4pex5vsknk084sn02q'), 404, 'CashInNotFound');
      expectError(await t.get('/cash-ins/nope'), 400, 'InvalidCashInID');
      expectError(await t.get('/cash-ins/txn_01h455vb4pex5vsknk084sn02q'), 400, 'InvalidCashInID');
      expectError(await t.post('/cash-ins/nope/refresh'), 400, 'InvalidCashInID');
      expectError(await t.deposit('ci_01h455vb4pex5vsknk084sn02q', '50.00'), 404, 'CashInNotFound');
    });

    it('is in the OpenAPI document', async () => {
      const paths = Object.keys((await platform.request('GET', '/openapi.json')).body.paths);
      for (const path of [
        '/v0.13/cash-ins',
        '/v0.13/cash-ins/{id}',
        '/v0.13/cash-ins/{id}/refresh',
        '/v0.13/cash-ins/{id}/simulate/deposit',
        '/v0.13/cash-locations',
      ])
        expect(paths).toContain(path);
    });
  });

  describe('the state table', () => {
    it('pending -> completed: the deposit settles it with its transaction id, recalculated amounts and the deposit event; single-use', async () => {
      const t = await tenant('deposit');
      const created = (
        await t.cashIn(
          t.ada.id,
          t.adaWallet.id,
          LA_BIGMART,
          { asset: 'usd', indicatedAmount: '100.00' },
          { metadata: { order: '7' } },
        )
      ).body;
      await t.advance(600);
      expectError(await t.deposit(created.id, '87.505'), 400, 'InvalidAmount');
      expectError(await t.deposit(created.id, '0'), 400, 'InvalidAmount');
      const res = await t.deposit(created.id, '87.5', created.depositInstructions.code);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...created,
        status: 'completed',
        subStatus: 'settled',
        source: {
          asset: 'usd',
          indicatedAmount: '100.00',
          amountGross: '87.50',
          amountNet: '87.50',
          feesDeducted: ZERO_FEES('0.00'),
        },
        destination: { ...created.destination, amountGross: '87.50', amountNet: '87.50' },
        transactionId: created.id.replace('ci_', 'txn_'),
        completedAt: expect.stringMatching(ISO),
        updatedAt: res.body.completedAt,
      });
      expect(Date.parse(res.body.completedAt) - Date.parse(created.createdAt)).toBeGreaterThanOrEqual(600_000);
      expect((await t.get(`/cash-ins/${created.id}`)).body).toEqual(res.body);
      // Single-use: no second deposit, no refresh.
      const before = await stored();
      expectError(await t.deposit(created.id, '87.50'), 422, 'CashInNotPending');
      expectError(await t.post(`/cash-ins/${created.id}/refresh`), 422, 'CashInNotPending');
      expect(await stored()).toEqual(before);
      // The domain event the transactions service creates the cashToCrypto transaction from.
      const [event] = await platform.db.query(
        `SELECT data, metadata FROM cash_in.events WHERE stream_id = $1 AND type = 'cashIn.deposited'`,
        [`cashIn-${created.id}`],
      );
      expect(event.data).toEqual({
        cashInId: created.id,
        projectId: expect.stringMatching(/^prj_/),
        customerId: t.ada.id,
        transactionId: res.body.transactionId,
        deposit: { asset: 'usd', amount: '87.50' },
        destination: {
          asset: 'usdc',
          network: 'meridianchain',
          walletId: t.adaWallet.id,
          externalAccountId: null,
          blockchainAddress: t.adaWallet.address,
        },
        pricing: {
          source: { asset: 'usd', amountGross: '87.50', amountNet: '87.50', feesDeducted: ZERO_FEES('0.00') },
          destination: { asset: 'usdc', amountGross: '87.50', amountNet: '87.50', feesDeducted: ZERO_FEES('0.00') },
          pair: 'usd/usdc',
          exchangeRate: '1.00',
          effectiveRate: '1.00',
          fixedAmountSide: 'source',
          sponsorGas: true,
          sponsorGasCost: '0.00',
        },
        location: {
          locId: LA_BIGMART.locationId,
          reference: 'BIGMART-1001',
          name: 'BigMart Supercenter #1001',
          provider: 'bigmart',
          state: 'CA',
          address: LA_BIGMART_ADDRESS,
        },
        metadata: { order: '7' },
        at: res.body.completedAt,
      });
      expect(event.metadata.projectId).toBe(event.data.projectId);
    });

    it('pending -> pending: refresh issues a new code an hour from the refresh on the sandbox clock and voids the old one', async () => {
      const t = await tenant('refresh');
      const created = (await t.cashIn(t.ada.id, t.adaWallet.id)).body;
      await t.advance(45 * 60);
      const refreshed = await t.post(`/cash-ins/${created.id}/refresh`);
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.depositInstructions.code).toMatch(CODE);
      expect(refreshed.body.depositInstructions.code).not.toBe(created.depositInstructions.code);
      expect(Date.parse(refreshed.body.updatedAt) - Date.parse(created.createdAt)).toBeGreaterThanOrEqual(
        45 * 60 * 1000,
      );
      expect(Date.parse(refreshed.body.depositInstructions.expiresAt) - Date.parse(refreshed.body.updatedAt)).toBe(
        HOUR * 1000,
      );
      expect(refreshed.body).toMatchObject({
        status: 'pending',
        createdAt: created.createdAt,
        depositInstructions: { locationName: created.depositInstructions.locationName },
      });
      // Past the first code's hour the refreshed code is still live; the first one is void.
      await t.advance(30 * 60);
      expect((await t.get(`/cash-ins/${created.id}`)).body).toEqual(refreshed.body);
      expectError(await t.deposit(created.id, '50.00', created.depositInstructions.code), 422, 'DepositCodeMismatch');
      const done = await t.deposit(created.id, '50.00', refreshed.body.depositInstructions.code);
      expect(done.body).toMatchObject({ status: 'completed', depositInstructions: refreshed.body.depositInstructions });
    });

    it('pending -> expired: the code lapses after one hour on the sandbox clock, with no transaction', async () => {
      const t = await tenant('expiry');
      const created = (
        await t.cashIn(t.ada.id, t.adaWallet.id, LA_QUICKSTOP, { asset: 'usd', indicatedAmount: '40.00' })
      ).body;
      const lapses = Date.parse(created.depositInstructions.expiresAt);
      // Ten seconds before the hour: still pending. The project clock runs on in real time between the advance
      // and the read, so a margin of one second was a race on a loaded machine.
      await t.advance(Math.floor((lapses - (await t.now())) / 1000) - 10);
      expect((await t.get(`/cash-ins/${created.id}`)).body.status).toBe('pending');
      await t.advance(11);
      const expired = await eventually(async () => {
        const c = (await t.get(`/cash-ins/${created.id}`)).body;
        return c.status === 'expired' ? c : undefined;
      });
      expect(expired).toEqual({ ...created, status: 'expired', updatedAt: created.depositInstructions.expiresAt });
      expectError(await t.deposit(created.id, '40.00'), 422, 'CashInNotPending');
      // The expiry timer records it in the log (and frees the code); the read stays the same.
      await eventually(async () =>
        (await platform.db.query(`SELECT 1 FROM cash_in.cash_ins WHERE id = $1 AND status = 'expired'`, [created.id]))
          .length > 0
          ? true
          : undefined,
      );
      expect(
        await platform.db.query(`SELECT type FROM cash_in.events WHERE stream_id = $1 ORDER BY stream_version`, [
          `cashIn-${created.id}`,
        ]),
      ).toEqual([{ type: 'cashIn.created' }, { type: 'cashIn.expired' }]);
      expect((await t.get(`/cash-ins/${created.id}`)).body).toEqual(expired);
      const before = await stored();
      expectError(await t.deposit(created.id, '40.00'), 422, 'CashInNotPending');
      expectError(await t.post(`/cash-ins/${created.id}/refresh`), 422, 'CashInNotPending');
      expect(await stored()).toEqual(before);
      expect(expired.transactionId).toBeNull();
      expect((await t.get('/cash-ins')).body.data.find((c: { id: string }) => c.id === created.id)).toEqual(expired);
    });
  });

  describe('deposit codes', () => {
    it('are two groups of three digits, unique among live cash-ins, enforced by the database', async () => {
      const t = await tenant('codes');
      const results = await Promise.all(Array.from({ length: 30 }, () => t.cashIn(t.ada.id, t.adaWallet.id)));
      expect(results.map((r) => r.status)).toEqual(results.map(() => 201));
      const codes = results.map((r) => r.body.depositInstructions.code as string);
      for (const code of codes) expect(code).toMatch(CODE);
      const live = await platform.db.query<{ code: string }>(
        `SELECT code FROM cash_in.cash_ins WHERE status = 'pending'`,
      );
      expect(new Set(live.map((r) => r.code)).size).toBe(live.length);
      // The partial unique index refuses a second pending cash-in with a live code.
      await expect(
        platform.db.query(`UPDATE cash_in.cash_ins SET code = $1 WHERE id = $2`, [codes[0], results[1].body.id]),
      ).rejects.toThrow(/cash_ins_live_code_unique/);
      expect((await t.get(`/cash-ins/${results[1].body.id}`)).body.depositInstructions.code).toBe(codes[1]);
    });
  });

  describe('limits (spec: Limits / Cash-in), per customer, on the project clock', () => {
    it('the transaction minimum and maximum, at creation and at the deposit; $1,000 at the large retailer', async () => {
      const t = await tenant('per-transaction');
      const create = (amount: string, location = LA_QUICKSTOP) =>
        t.cashIn(t.ada.id, t.adaWallet.id, location, { asset: 'usd', indicatedAmount: amount });
      expectError(await create('19.99'), 422, 'CashInBelowMinimum');
      expect((await create('20.00')).status).toBe(201);
      expect((await create('500.00')).status).toBe(201);
      expectError(await create('500.01'), 422, 'CashInAboveMaximum');
      expect((await create('1000.00', LA_BIGMART)).status).toBe(201);
      expectError(await create('1000.01', LA_BIGMART), 422, 'CashInAboveMaximum');
      const quick = (await t.cashIn(t.ada.id, t.adaWallet.id)).body;
      const big = (await t.cashIn(t.ada.id, t.adaWallet.id, LA_BIGMART)).body;
      const before = await stored();
      expectError(await t.deposit(quick.id, '19.99'), 422, 'CashInBelowMinimum');
      expectError(await t.deposit(quick.id, '500.01'), 422, 'CashInAboveMaximum');
      expectError(await t.deposit(big.id, '1000.01'), 422, 'CashInAboveMaximum');
      expect(await stored()).toEqual(before);
      expect((await t.deposit(quick.id, '500.00')).status).toBe(200);
      expect((await t.deposit(big.id, '1000.00')).status).toBe(200);
    });

    it('daily: $1,500 and 3 completed cash-ins per UTC day', async () => {
      const t = await tenant('daily');
      await t.advanceToNext('day');
      await t.completed(t.ada.id, t.adaWallet.id, '1000.00', LA_BIGMART);
      await t.completed(t.ada.id, t.adaWallet.id, '480.00');
      // Creation counts this one at its indicated amount: 1,480 + 20.01 is one cent over.
      expectError(
        await t.cashIn(t.ada.id, t.adaWallet.id, LA_QUICKSTOP, { asset: 'usd', indicatedAmount: '20.01' }),
        422,
        'CashInDailyAmountExceeded',
      );
      const third = (await t.cashIn(t.ada.id, t.adaWallet.id, LA_QUICKSTOP, { asset: 'usd', indicatedAmount: '20.00' }))
        .body;
      const fourth = (await t.cashIn(t.ada.id, t.adaWallet.id)).body;
      expectError(await t.deposit(third.id, '20.01'), 422, 'CashInDailyAmountExceeded');
      expect((await t.deposit(third.id, '20.00')).body).toMatchObject({ status: 'completed' });
      // 3 completed today: a fourth is refused at the deposit and at creation.
      expectError(await t.deposit(fourth.id, '20.00'), 422, 'CashInDailyCountExceeded');
      expectError(await t.cashIn(t.ada.id, t.adaWallet.id), 422, 'CashInDailyCountExceeded');
      // Another customer of the project has limits of its own.
      const grace = await t.customer('Hopper');
      await t.completed(grace.id, (await t.wallet(grace.id)).id, '500.00');
      // The next UTC day starts afresh.
      await t.advanceToNext('day');
      await t.completed(t.ada.id, t.adaWallet.id, '500.00');
    }, 120_000);

    it('weekly: $3,500 and 12 completed cash-ins per ISO week (Monday to Sunday, UTC)', async () => {
      const t = await tenant('weekly');
      const count = await t.customer('Counted');
      const countWallet = (await t.wallet(count.id)).id;
      await t.advanceToNext('monday');
      for (let day = 0; day < 4; day++) {
        if (day < 2) {
          await t.completed(t.ada.id, t.adaWallet.id, '1000.00', LA_BIGMART);
          await t.completed(t.ada.id, t.adaWallet.id, '500.00');
        }
        for (let i = 0; i < 3; i++) await t.completed(count.id, countWallet, '20.00');
        if (day === 2) {
          // 3,000 this week: 480.00 more, then one cent over the 3,500.
          await t.completed(t.ada.id, t.adaWallet.id, '480.00');
          const last = (await t.cashIn(t.ada.id, t.adaWallet.id)).body;
          expectError(await t.deposit(last.id, '20.01'), 422, 'CashInWeeklyAmountExceeded');
          expect((await t.deposit(last.id, '20.00')).status).toBe(200);
        }
        await t.advance(DAY);
      }
      // Friday: 12 completed this week for the counted customer.
      const thirteenth = await t.cashIn(count.id, countWallet);
      expectError(thirteenth, 422, 'CashInWeeklyCountExceeded');
      expectError(await t.cashIn(t.ada.id, t.adaWallet.id), 422, 'CashInWeeklyAmountExceeded');
      await t.advanceToNext('monday');
      await t.completed(count.id, countWallet, '20.00');
      await t.completed(t.ada.id, t.adaWallet.id, '500.00');
    }, 180_000);

    it('monthly: $5,000 and 20 completed cash-ins per UTC calendar month; parallel deposits never pass the cap', async () => {
      const t = await tenant('monthly');
      const count = await t.customer('Counted');
      const countWallet = (await t.wallet(count.id)).id;
      const racer = await t.customer('Racer');
      const racerWallet = (await t.wallet(racer.id)).id;
      await t.advanceToNext('month');
      // Day of the month -> [amount customer's deposits, counted customer's deposits].
      const plan: Record<number, [string[], number]> = {
        1: [['1000.00', '500.00'], 3],
        2: [['1000.00', '500.00'], 3],
        3: [['500.00'], 3],
        4: [[], 3],
        9: [['1000.00', '480.00'], 0],
        15: [[], 3],
        16: [[], 3],
        17: [[], 2],
      };
      let last: { id: string } | undefined;
      for (let day = 1; day <= 17; day++) {
        const [amounts, counted] = plan[day] ?? [[], 0];
        // Made with 18 completed: the deposit counts again once the 19th and 20th are in.
        if (day === 17) last = (await t.cashIn(count.id, countWallet)).body;
        for (const amount of amounts) {
          await t.completed(t.ada.id, t.adaWallet.id, amount, amount === '1000.00' ? LA_BIGMART : LA_QUICKSTOP);
          await t.completed(racer.id, racerWallet, amount, amount === '1000.00' ? LA_BIGMART : LA_QUICKSTOP);
        }
        for (let i = 0; i < counted; i++) await t.completed(count.id, countWallet, '20.00');
        if (day === 10) {
          // 4,980 this month: one cent over the 5,000 is refused, the 5,000 itself is not.
          const last = (await t.cashIn(t.ada.id, t.adaWallet.id)).body;
          expectError(await t.deposit(last.id, '20.01'), 422, 'CashInMonthlyAmountExceeded');
          expect((await t.deposit(last.id, '20.00')).status).toBe(200);
          expectError(await t.cashIn(t.ada.id, t.adaWallet.id), 422, 'CashInMonthlyAmountExceeded');
          // The racer has 4,980 too: of three parallel 20.00 deposits, exactly one fits.
          const pending = await Promise.all(
            [1, 2, 3].map(() =>
              t.cashIn(racer.id, racerWallet, LA_QUICKSTOP, { asset: 'usd', indicatedAmount: '20.00' }),
            ),
          );
          expect(pending.map((p) => p.status)).toEqual([201, 201, 201]);
          const raced = await Promise.all(pending.map((p) => t.deposit(p.body.id, '20.00')));
          expect(raced.filter((r) => r.status === 200)).toHaveLength(1);
          for (const r of raced.filter((x) => x.status !== 200)) expectError(r, 422, 'CashInMonthlyAmountExceeded');
        }
        if (day < 17) await t.advance(DAY);
      }
      // Day 17: 20 completed this month for the counted customer: the 21st is refused.
      expectError(await t.deposit(last!.id, '20.00'), 422, 'CashInMonthlyCountExceeded');
      expectError(await t.cashIn(count.id, countWallet), 422, 'CashInMonthlyCountExceeded');
      const totals = await platform.db.query(
        `SELECT customer_id, count(*)::int AS n, sum(amount)::text AS total FROM cash_in.deposits WHERE customer_id = ANY($1) GROUP BY customer_id`,
        [[t.ada.id, racer.id, count.id]],
      );
      expect(Object.fromEntries(totals.map((r) => [r.customer_id, [r.n, r.total]]))).toEqual({
        [t.ada.id]: [8, '5000.00'],
        [racer.id]: [8, '5000.00'],
        [count.id]: [20, '400.00'],
      });
      // The next month starts afresh.
      await t.advanceToNext('month');
      await t.completed(count.id, countWallet, '20.00');
    }, 300_000);

    it('parallel cash-ins and deposits of one customer never pass the daily cap', async () => {
      const t = await tenant('parallel-daily');
      await t.advanceToNext('day');
      const created = await Promise.all(
        Array.from({ length: 8 }, () =>
          t.cashIn(t.ada.id, t.adaWallet.id, LA_QUICKSTOP, { asset: 'usd', indicatedAmount: '500.00' }),
        ),
      );
      expect(created.map((c) => c.status)).toEqual(created.map(() => 201));
      const deposits = await Promise.all(created.map((c) => t.deposit(c.body.id, '500.00')));
      expect(deposits.filter((d) => d.status === 200)).toHaveLength(3);
      for (const d of deposits.filter((x) => x.status !== 200)) {
        expect(d.status).toBe(422);
        expect(['CashInDailyAmountExceeded', 'CashInDailyCountExceeded']).toContain(d.body.error);
      }
      const [usage] = await platform.db.query(
        `SELECT count(*)::int AS n, sum(amount)::text AS total FROM cash_in.deposits WHERE customer_id = $1`,
        [t.ada.id],
      );
      expect(usage).toEqual({ n: 3, total: '1500.00' });
      const statuses = (await t.get('/cash-ins?limit=100')).body.data.map((c: { status: string }) => c.status).sort();
      expect(statuses.filter((s: string) => s === 'completed')).toHaveLength(3);
    }, 60_000);
  });

  describe('partner events', () => {
    it('cashIn.created, cashIn.updated, cashIn.completed and cashIn.expired, in sequence, with the cash-in as it was', async () => {
      const t = await tenant('webhooks');
      expect(
        (
          await t.post('/webhooks', {
            url: receiver.url('/cash-in-events'),
            subscriptions: ['cashIn.created', 'cashIn.updated', 'cashIn.completed', 'cashIn.expired'],
          })
        ).status,
      ).toBe(201);
      const deposited = (await t.cashIn(t.ada.id, t.adaWallet.id)).body;
      const refreshed = (await t.post(`/cash-ins/${deposited.id}/refresh`)).body;
      const completed = (await t.deposit(deposited.id, '25.00')).body;
      const lapsed = (await t.cashIn(t.ada.id, t.adaWallet.id)).body;
      await t.advance(HOUR);
      const of = (id: string, n: number) =>
        eventually(async () => {
          const got = receiver
            .at('/cash-in-events')
            .map((r) => r.body)
            .filter((b) => b.data.id === id);
          return got.length >= n ? got.sort((a, b) => a.sequence - b.sequence) : undefined;
        }, 15_000);
      const first = await of(deposited.id, 3);
      expect(first.map((b) => [b.event, b.sequence, b.data.status])).toEqual([
        ['cashIn.created', 1, 'pending'],
        ['cashIn.updated', 2, 'pending'],
        ['cashIn.completed', 3, 'completed'],
      ]);
      expect(first.map((b) => b.data)).toEqual([deposited, refreshed, completed]);
      for (const b of first)
        expect(b).toMatchObject({
          id: expect.stringMatching(/^whd_/),
          createdAt: expect.stringMatching(ISO),
          occurredAt: expect.stringMatching(ISO),
        });
      const second = await of(lapsed.id, 2);
      expect(second.map((b) => [b.event, b.sequence, b.data.status])).toEqual([
        ['cashIn.created', 1, 'pending'],
        ['cashIn.expired', 2, 'expired'],
      ]);
      expect(second[1].data).toEqual({ ...lapsed, status: 'expired', updatedAt: lapsed.depositInstructions.expiresAt });
    }, 60_000);
  });
});
