// Spec: Deposit address (the v1 shape), States / Deposit address, Endpoints
// (Deposit addresses), Events (catalog, tie 3), Errors; API-CONTRACT: Deposit
// addresses, Sandbox simulations; docs/sandbox.md; ADR 0030. The feature gate,
// every route and every status of an address with its webhooks in order, what
// its deposits answer on this side (the transactions they make are the
// transactions service's), and every bad input refused with nothing stored, in
// both modes.
import { randomUUID } from 'node:crypto';
import { newTenant } from './support/tenant';
import { eventually, expectError, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';
import { WebhookReceiver } from './support/webhook-receiver';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const DA = /^da_[0-9a-hjkmnp-tv-z]{26}$/;
const TXN = /^txn_[0-9a-hjkmnp-tv-z]{26}$/;
const EVM = /^0x[0-9a-fA-F]{40}$/;
const HASH = /^0x[0-9a-f]{64}$/;
const PROVISIONED_WITHIN_MS = 20_000;
const SENDER = '0x8617E340B3D01FA5F11F306F4090FD50E238070D';
const RETURN_WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
const UNKNOWN_DA = 'da_01h455vb4pex5vsknk084sn02q';

/** A fresh EVM address (lower case: valid without a checksum). */
const evmAddress = () => `0x${randomUUID().replace(/-/g, '')}${randomUUID().replace(/-/g, '').slice(0, 8)}`;

describe('deposit addresses', () => {
  let platform: TestPlatform;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    [platform, receiver] = await Promise.all([TestPlatform.shared(), WebhookReceiver.start()]);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await receiver?.stop();
    await platform?.stop();
  });

  /** This file's projects: on the shared platform, other files store deposit addresses meanwhile. */
  const projects: string[] = [];

  /**
   * Addresses made and not yet answered by the custodian (2 s of their project's clock later), each with a way
   * to see it answered: the counts below are taken only once the custodian has answered them all, so that a
   * provisioning falling due meanwhile is not taken for something a refused request stored.
   */
  const provisioning: Array<() => Promise<unknown>> = [];

  /** What the deposit-addresses service stored for this file's projects: a refused request changes none of it. */
  const stored = async () => {
    for (const answered of provisioning.splice(0)) await answered();
    return counts();
  };
  const counts = async () =>
    (
      await platform.db.query(
        `SELECT (SELECT count(*) FROM deposit_addresses.addresses WHERE project_id = ANY($1))::int AS addresses,
                (SELECT count(*) FROM deposit_addresses.events WHERE metadata->>'projectId' = ANY($1))::int AS events,
                (SELECT count(*) FROM deposit_addresses.deposits WHERE project_id = ANY($1))::int AS deposits,
                (SELECT count(*) FROM platform.timers WHERE kind = 'depositAddress.provisioning' AND project_id = ANY($1))::int AS timers`,
        [projects],
      )
    )[0];

  /** A project of its own (the feature on unless asked), a customer with every endorsement active, and its bank accounts. */
  async function tenant(name: string, { enabled = true }: { enabled?: boolean } = {}) {
    const base = await newTenant(platform, {
      name,
      settings: enabled ? { features: { depositAddresses: true } } : undefined,
    });
    projects.push(base.projectId);
    const { get, post } = base;
    const t = {
      ...base,
      create: async (body: Record<string, unknown>, idempotencyKey?: string) => {
        const res = await post('/deposit-addresses', body, idempotencyKey);
        if (res.status === 201 && res.body.status === 'pending' && body.label !== 'ProvisioningSlow') {
          provisioning.push(() =>
            eventually(
              async () =>
                (await get(`/deposit-addresses/${res.body.id}`)).body.status !== 'pending' ? true : undefined,
              PROVISIONED_WITHIN_MS,
            ),
          );
        }
        return res;
      },
      /** The address once the custodian answered (active, or another status it ends in). */
      until: (id: string, status: string) =>
        eventually(async () => {
          const a = (await get(`/deposit-addresses/${id}`)).body;
          return a.status === status ? a : undefined;
        }, PROVISIONED_WITHIN_MS),
      deposit: (id: string, body: Record<string, unknown>, idempotencyKey?: string) =>
        post(`/deposit-addresses/${id}/simulate/crypto-deposit`, body, idempotencyKey),
      simulate: (id: string, what: 'freeze' | 'unfreeze' | 'close') =>
        post(`/deposit-addresses/${id}/simulate/${what}`),
      /** Every delivery to `path` about this resource, in sequence order, once there are n. */
      deliveries: (path: string, id: string, n: number) =>
        eventually(async () => {
          const got = receiver
            .at(path)
            .map((r) => r.body)
            .filter((b) => b.data?.id === id);
          return got.length >= n ? got.sort((a, b) => a.sequence - b.sequence) : undefined;
        }, 30_000),
    };
    return t;
  }
  type Tenant = Awaited<ReturnType<typeof tenant>>;

  /** The address as created for `customer`, paid on ACH to `bank`. */
  const basic = (customerId: string, bankId: string, extra: Record<string, unknown> = {}) => ({
    customerId,
    expectedSourceAsset: 'usdc',
    expectedSourceNetwork: 'meridianchain',
    destination: { externalAccountId: bankId },
    payout: { rail: 'ach' },
    ...extra,
  });

  describe('the project feature', () => {
    it("refuses a project without depositAddresses (403 FeatureNotEnabled, nothing stored), and takes the operator's PATCH at once", async () => {
      const t = await tenant('da-feature', { enabled: false });
      const ada = await t.customer();
      const bank = await t.bankUs(ada.id);
      const before = await stored();
      const refused = await t.create(basic(ada.id, bank.id));
      expectError(refused, 403, 'FeatureNotEnabled', 1141);
      expect(refused.body.cause).toContain('depositAddresses');
      expect(await stored()).toEqual(before);
      expect((await t.get('/deposit-addresses')).body).toEqual({ data: [], hasMore: false, nextCursor: null });
      // The gateway's answer now: the very next request after the operator's 200 is taken.
      expect(
        (await platform.admin('PATCH', `/projects/${t.projectId}`, { body: { features: { depositAddresses: true } } }))
          .status,
      ).toBe(200);
      expect((await t.create(basic(ada.id, bank.id))).status).toBe(201);
      expect(
        (await platform.admin('PATCH', `/projects/${t.projectId}`, { body: { features: { depositAddresses: false } } }))
          .status,
      ).toBe(200);
      expectError(await t.create(basic(ada.id, bank.id)), 403, 'FeatureNotEnabled');
      // Addresses made while it was on are still read.
      expect((await t.get('/deposit-addresses')).body.data).toHaveLength(1);
    });
  });

  describe('lifecycle', () => {
    let t: Tenant;
    let ada: { id: string };
    let bank: { id: string; details: Record<string, unknown> };
    const hook = '/da-lifecycle';
    beforeAll(async () => {
      t = await tenant('da-lifecycle');
      expect((await t.post('/webhooks', { url: receiver.url(hook), subscriptions: ['*'] })).status).toBe(201);
      ada = await t.customer();
      bank = await t.bankUs(ada.id);
    }, 60_000);

    it('POST answers 201 pending with null depositInstructions in the exact v1 shape; the custodian makes it active; GET answers the same', async () => {
      const created = await t.create({ ...basic(ada.id, bank.id), metadata: { account: 'A-1' } });
      expect(created.status).toBe(201);
      const expected = {
        id: expect.stringMatching(DA),
        object: 'depositAddress',
        customerId: ada.id,
        expectedSourceAsset: 'usdc',
        expectedSourceNetwork: 'meridianchain',
        destination: {
          type: 'bankUs',
          id: bank.id,
          asset: 'usd',
          network: 'ach',
          owner: { kind: 'customer', id: ada.id, name: 'Ada Lovelace' },
          details: bank.details,
        },
        payout: { rail: 'ach' },
        status: 'pending',
        depositInstructions: null,
        payoutOrigin: {
          type: 'depositAddress',
          id: created.body.id,
          accountHolder: 'customer',
          accountHolderName: 'Ada Lovelace',
        },
        metadata: { account: 'A-1' },
        createdAt: expect.stringMatching(ISO),
        updatedAt: created.body.createdAt,
      };
      expect(created.body).toEqual(expected);
      // The removed fields of the v1 shape, and the optional ones not set, are absent.
      for (const absent of [
        'sourceToDestination',
        'returnDestination',
        'returnDestinationTypes',
        'hold',
        'sponsorGas',
        'requiresCounterpartyWalletRegistration',
        'label',
      ])
        expect(created.body).not.toHaveProperty(absent);
      expect(created.body.destination).not.toHaveProperty('payoutOrigin');
      const id = created.body.id as string;

      const active = await t.until(id, 'active');
      expect(active).toEqual({
        ...expected,
        status: 'active',
        depositInstructions: { address: expect.stringMatching(EVM), asset: 'usdc', network: 'meridianchain' },
        updatedAt: expect.stringMatching(ISO),
      });
      expect(active.depositInstructions).not.toHaveProperty('expiresAt');
      expect(Date.parse(active.updatedAt) - Date.parse(active.createdAt)).toBeGreaterThanOrEqual(2000);
      expect((await t.get(`/deposit-addresses/${id}`)).body).toEqual(active);

      // depositAddress.created, then the statusChanged and active of its provisioning, with the address as it was.
      const events = await t.deliveries(hook, id, 3);
      expect(events.map((e) => [e.event ?? e.eventType, e.sequence, e.data.status])).toEqual([
        ['depositAddress.created', 1, 'pending'],
        ['depositAddress.statusChanged', 2, 'active'],
        ['depositAddress.active', 2, 'active'],
      ]);
      expect(events[0]).toMatchObject({ event: 'depositAddress.created', data: created.body });
      expect(events[1]).toMatchObject({
        eventType: 'depositAddress.statusChanged',
        eventId: expect.stringMatching(/^evt_/),
        previousStatus: 'pending',
        data: active,
      });
      expect(events[1]).not.toHaveProperty('event');
      expect(events[2]).toMatchObject({ event: 'depositAddress.active', data: active });
    });

    it("shows the optional fields when set: a counterparty's bank account, a return wallet, registration required, sponsorGas, label; ACH fields", async () => {
      const acme = await t.counterparty(ada.id);
      const theirs = await t.bankUs(ada.id, acme.id, '223456789012');
      const back = await t.externalWallet(ada.id, RETURN_WALLET);
      const created = await t.create({
        ...basic(ada.id, theirs.id),
        payout: { rail: 'achSameDay', secCode: 'CCD', companyDiscretionaryData: 'INV 77' },
        returnDestination: { externalAccountId: back.id },
        requiresCounterpartyWalletRegistration: true,
        sponsorGas: true,
        label: 'Acme payouts',
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        destination: {
          type: 'bankUs',
          id: theirs.id,
          asset: 'usd',
          network: 'achSameDay',
          owner: { kind: 'counterparty', id: acme.id, name: 'Acme Ltd' },
        },
        payout: { rail: 'achSameDay', secCode: 'CCD', companyDiscretionaryData: 'INV 77' },
        returnDestination: {
          type: 'walletExternal',
          id: back.id,
          asset: 'usdc',
          network: 'meridianchain',
          owner: { kind: 'customer', id: ada.id, name: 'Ada Lovelace' },
          details: { address: RETURN_WALLET, network: 'meridianchain', asset: 'usdc' },
        },
        returnDestinationTypes: ['walletExternal'],
        requiresCounterpartyWalletRegistration: true,
        sponsorGas: true,
        label: 'Acme payouts',
        metadata: {},
      });
      expect(created.body).not.toHaveProperty('hold');
      // A CAD payout (bankCanada on the local rail) needs the basic endorsement, which Ada has.
      const cad = await t.bankCanada(ada.id);
      expect((await t.create(basic(ada.id, cad.id, { payout: { rail: 'local' } }))).body.destination).toMatchObject({
        type: 'bankCanada',
        asset: 'cad',
        network: 'local',
      });
    });

    it('lists newest first, filtered by customerId, page by page', async () => {
      const grace = await t.customer({ firstName: 'Grace', lastName: 'Hopper' });
      const graceBank = await t.bankUs(grace.id);
      const mine = [];
      for (let i = 0; i < 3; i++) mine.push((await t.create(basic(grace.id, graceBank.id))).body.id);
      const all = (await t.get('/deposit-addresses?limit=100')).body;
      expect(all.data.map((a: { id: string }) => a.id)).toEqual(
        [...all.data.map((a: { id: string }) => a.id)].sort().reverse(),
      );
      expect(all.data.length).toBeGreaterThanOrEqual(5);
      const first = (await t.get(`/deposit-addresses?customerId=${grace.id}&limit=2`)).body;
      expect(first).toEqual({
        data: [expect.objectContaining({ id: mine[2] }), expect.objectContaining({ id: mine[1] })],
        hasMore: true,
        nextCursor: expect.any(String),
      });
      const second = (await t.get(`/deposit-addresses?customerId=${grace.id}&limit=2&cursor=${first.nextCursor}`)).body;
      expect(second).toEqual({ data: [expect.objectContaining({ id: mine[0] })], hasMore: false, nextCursor: null });
      expect((await t.get(`/deposit-addresses?customerId=cst_01h455vb4pex5vsknk084sn02q`)).body.data).toEqual([]);
      expectError(await t.get('/deposit-addresses?customerId=nobody'), 400, 'InvalidCustomerID');
      expectError(await t.get('/deposit-addresses?cursor=nonsense'), 400, 'InvalidCursor');
      expectError(await t.get('/deposit-addresses?limit=101'), 400, 'InvalidRequest');
    });

    it('PATCH changes the payout, return destination, label and metadata: depositAddress.updated names what changed; a PATCH that changes nothing sends nothing', async () => {
      const hookPath = '/da-patch';
      expect(
        (await t.post('/webhooks', { url: receiver.url(hookPath), subscriptions: ['depositAddress.updated'] })).status,
      ).toBe(201);
      const created = (await t.create({ ...basic(ada.id, bank.id), metadata: { a: '1', b: '2' } })).body;
      await t.until(created.id, 'active');
      const back = await t.externalWallet(ada.id, evmAddress());
      const first = await t.patch(`/deposit-addresses/${created.id}`, {
        payout: { rail: 'wire' },
        label: 'Main',
        metadata: { a: null, c: '3' },
        returnDestination: { externalAccountId: back.id },
      });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({
        status: 'active',
        destination: { id: bank.id, network: 'wire' },
        payout: { rail: 'wire' },
        label: 'Main',
        metadata: { b: '2', c: '3' },
        returnDestination: { id: back.id },
      });
      const same = await t.patch(`/deposit-addresses/${created.id}`, {
        payout: { rail: 'wire' },
        label: 'Main',
        metadata: { c: '3' },
      });
      expect(same.status).toBe(200);
      expect(same.body).toEqual(first.body);
      const second = await t.patch(`/deposit-addresses/${created.id}`, { label: null, returnDestination: null });
      expect(second.status).toBe(200);
      for (const removed of ['label', 'returnDestination', 'returnDestinationTypes'])
        expect(second.body).not.toHaveProperty(removed);
      expect((await t.get(`/deposit-addresses/${created.id}`)).body).toEqual(second.body);
      const updates = await t.deliveries(hookPath, created.id, 2);
      expect(updates.map((e) => [e.event, e.sequence, e.changedFields])).toEqual([
        ['depositAddress.updated', 3, ['payout', 'returnDestination', 'label', 'metadata']],
        ['depositAddress.updated', 4, ['returnDestination', 'label']],
      ]);
      expect(updates[0].data).toEqual(first.body);
      expect(updates[1].data).toEqual(second.body);
    });

    it('has no DELETE', async () => {
      const created = (await t.create(basic(ada.id, bank.id))).body;
      const res = await platform.request('DELETE', `/v0.13/deposit-addresses/${created.id}`, { token: t.token });
      expectError(res, 405, 'MethodNotAllowed', 1105);
      expect(res.headers.get('allow')).toBe('GET, HEAD, PATCH');
      expect((await t.get(`/deposit-addresses/${created.id}`)).status).toBe(200);
    });
  });

  describe('the custodian: frozen, unfrozen, closed, failed (sandbox)', () => {
    let t: Tenant;
    let ada: { id: string };
    let bank: { id: string };
    const hook = '/da-custodian';
    beforeAll(async () => {
      t = await tenant('da-custodian');
      expect(
        (
          await t.post('/webhooks', {
            url: receiver.url(hook),
            subscriptions: [
              'depositAddress.statusChanged',
              'depositAddress.frozen',
              'depositAddress.closed',
              'depositAddress.failed',
            ],
          })
        ).status,
      ).toBe(201);
      ada = await t.customer();
      bank = await t.bankUs(ada.id);
    }, 60_000);

    it('freeze, unfreeze, freeze again and close: each a statusChanged, with frozen and closed named too; deposits to it are answered still', async () => {
      const id = (await t.create(basic(ada.id, bank.id))).body.id;
      await t.until(id, 'active');
      const frozen = await t.simulate(id, 'freeze');
      expect(frozen.status).toBe(200);
      expect(frozen.body).toMatchObject({
        id,
        status: 'frozen',
        depositInstructions: { address: expect.stringMatching(EVM) },
      });
      expectError(await t.simulate(id, 'freeze'), 422, 'DepositAddressTransitionNotAllowed');
      // Sent to a frozen address, a deposit is taken (and returned to its sender by its transaction).
      expect((await t.deposit(id, { amount: '5.00' })).status).toBe(201);
      expect((await t.simulate(id, 'unfreeze')).body.status).toBe('active');
      expectError(await t.simulate(id, 'unfreeze'), 422, 'DepositAddressTransitionNotAllowed');
      expect((await t.simulate(id, 'freeze')).body.status).toBe('frozen');
      const closed = await t.simulate(id, 'close');
      expect(closed.body.status).toBe('closed');
      for (const what of ['freeze', 'unfreeze', 'close'] as const)
        expectError(await t.simulate(id, what), 422, 'DepositAddressTransitionNotAllowed');
      expect((await t.deposit(id, { amount: '5.00' })).status).toBe(201);

      const events = await t.deliveries(hook, id, 8);
      expect(events.map((e) => [e.event ?? e.eventType, e.sequence, e.data.status, e.previousStatus])).toEqual([
        ['depositAddress.statusChanged', 2, 'active', 'pending'],
        ['depositAddress.statusChanged', 3, 'frozen', 'active'],
        ['depositAddress.frozen', 3, 'frozen', undefined],
        ['depositAddress.statusChanged', 4, 'active', 'frozen'],
        ['depositAddress.statusChanged', 5, 'frozen', 'active'],
        ['depositAddress.frozen', 5, 'frozen', undefined],
        ['depositAddress.statusChanged', 6, 'closed', 'frozen'],
        ['depositAddress.closed', 6, 'closed', undefined],
      ]);
    });

    it('a pending address cannot be frozen or closed', async () => {
      const id = (await t.create(basic(ada.id, bank.id, { label: 'ProvisioningSlow' }))).body.id;
      expectError(await t.simulate(id, 'freeze'), 422, 'DepositAddressTransitionNotAllowed');
      expectError(await t.simulate(id, 'close'), 422, 'DepositAddressTransitionNotAllowed');
      expect((await t.get(`/deposit-addresses/${id}`)).body.status).toBe('pending');
    });

    it('the custodian fails a labelled address: failed, with no instructions; it cannot be changed or take a deposit', async () => {
      const id = (await t.create(basic(ada.id, bank.id, { label: 'ProvisioningFails' }))).body.id;
      const failed = await t.until(id, 'failed');
      expect(failed).toMatchObject({ status: 'failed', depositInstructions: null, label: 'ProvisioningFails' });
      expectError(await t.patch(`/deposit-addresses/${id}`, { label: 'x' }), 422, 'DepositAddressTransitionNotAllowed');
      const before = await stored();
      expectError(await t.deposit(id, { amount: '10.00' }), 422, 'DepositAddressNotProvisioned');
      expect(await stored()).toEqual(before);
      for (const what of ['freeze', 'unfreeze', 'close'] as const)
        expectError(await t.simulate(id, what), 422, 'DepositAddressTransitionNotAllowed');
      const events = await t.deliveries(hook, id, 2);
      expect(events.map((e) => [e.event ?? e.eventType, e.sequence, e.data.status, e.previousStatus])).toEqual([
        ['depositAddress.statusChanged', 2, 'failed', 'pending'],
        ['depositAddress.failed', 2, 'failed', undefined],
      ]);
    });

    it('the custodian answers on the project clock: a slow address is pending until an hour passes', async () => {
      const id = (await t.create(basic(ada.id, bank.id, { label: 'ProvisioningSlow' }))).body.id;
      expect((await t.get(`/deposit-addresses/${id}`)).body.status).toBe('pending');
      expect((await t.post('/sandbox/clock/advance', { seconds: 3600 })).status).toBe(200);
      expect((await t.until(id, 'active')).depositInstructions).toMatchObject({
        asset: 'usdc',
        network: 'meridianchain',
      });
    });
  });

  describe('a lost destination (spec: States / Deposit address)', () => {
    let t: Tenant;
    let ada: { id: string };
    const hook = '/da-lost';
    beforeAll(async () => {
      t = await tenant('da-lost');
      expect(
        (
          await t.post('/webhooks', {
            url: receiver.url(hook),
            subscriptions: ['depositAddress.statusChanged', 'depositAddress.updated'],
          })
        ).status,
      ).toBe(201);
      ada = await t.customer();
    }, 60_000);

    it.each([
      [
        'deleted',
        (t: Tenant, accountId: string) =>
          platform.request('DELETE', `/v0.13/external-accounts/${accountId}`, { token: t.token }),
      ],
      [
        'invalidated',
        (t: Tenant, accountId: string) => t.post(`/external-accounts/${accountId}/simulate/invalidate`, {}),
      ],
    ])(
      'its destination %s: inactiveActionRequired with a hold; a PATCH to an active account makes it active again',
      async (_how, lose) => {
        const bank = await t.bankUs(ada.id);
        const id = (await t.create(basic(ada.id, bank.id))).body.id;
        await t.until(id, 'active');
        expect([200, 204]).toContain((await lose(t, bank.id)).status);
        const inactive = await t.until(id, 'inactiveActionRequired');
        expect(inactive).toMatchObject({
          destination: { id: bank.id },
          hold: { code: 'payoutDestinationMissing', message: expect.any(String) },
        });
        // A deposit meanwhile is taken, held for a destination on the transactions side.
        expect((await t.deposit(id, { amount: '20.00' })).status).toBe(201);
        // Re-pointing at the lost account is refused; at an active one restores the address.
        expect(
          (await t.patch(`/deposit-addresses/${id}`, { destination: { externalAccountId: bank.id } })).status,
        ).toBeGreaterThanOrEqual(400);
        const next = await t.bankUs(ada.id, undefined, '323456789012');
        const restored = await t.patch(`/deposit-addresses/${id}`, { destination: { externalAccountId: next.id } });
        expect(restored.status).toBe(200);
        expect(restored.body).toMatchObject({ status: 'active', destination: { id: next.id, network: 'ach' } });
        expect(restored.body).not.toHaveProperty('hold');
        const events = await t.deliveries(hook, id, 4);
        expect(
          events.map((e) => [
            e.event ?? e.eventType,
            e.sequence,
            e.data.status,
            e.previousStatus ?? null,
            e.changedFields ?? null,
          ]),
        ).toEqual([
          ['depositAddress.statusChanged', 2, 'active', 'pending', null],
          ['depositAddress.statusChanged', 3, 'inactiveActionRequired', 'active', null],
          ['depositAddress.updated', 4, 'inactiveActionRequired', null, ['destination']],
          ['depositAddress.statusChanged', 5, 'active', 'inactiveActionRequired', null],
        ]);
        // The held deposit is released to the new destination, priced to it (the transactions service acts on it).
        const [restoredEvent] = await platform.db.query(
          `SELECT data FROM deposit_addresses.events WHERE stream_id = $1 AND type = 'depositAddress.destinationRestored'`,
          [`depositAddress-${id}`],
        );
        expect(restoredEvent.data.releases).toEqual([
          {
            transactionId: expect.stringMatching(TXN),
            target: expect.objectContaining({
              destination: expect.objectContaining({ details: expect.objectContaining({ id: next.id }) }),
              pricing: expect.objectContaining({ pair: 'usdc/usd' }),
            }),
          },
        ]);
      },
    );
  });

  describe('deposits (this side: the answer; the transactions they make are tested with the transactions service)', () => {
    let t: Tenant;
    let ada: { id: string };
    let bank: { id: string };
    let address: { id: string; depositInstructions: { address: string } };
    beforeAll(async () => {
      t = await tenant('da-deposits');
      ada = await t.customer();
      bank = await t.bankUs(ada.id);
      address = await t.until((await t.create(basic(ada.id, bank.id))).body.id, 'active');
    }, 60_000);

    it('answers 201 depositAddressDeposit with the transaction it made, once per Idempotency-Key', async () => {
      const key = randomUUID();
      const res = await t.deposit(address.id, { amount: '125.50', senderAddress: SENDER }, key);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        object: 'depositAddressDeposit',
        depositAddressId: address.id,
        amount: '125.50',
        asset: 'usdc',
        network: 'meridianchain',
        senderAddress: SENDER,
        txHash: expect.stringMatching(HASH),
        transactionId: expect.stringMatching(TXN),
      });
      const replay = await t.deposit(address.id, { amount: '125.50', senderAddress: SENDER }, key);
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(res.body);
      const rows = await platform.db.query(
        `SELECT transaction_id, disposition FROM deposit_addresses.deposits WHERE deposit_address_id = $1`,
        [address.id],
      );
      expect(rows).toEqual([{ transaction_id: res.body.transactionId, disposition: 'payout' }]);
      // Without a sender, one is made up: a fresh address, unregistered.
      const anonymous = await t.deposit(address.id, { amount: '1.000000' });
      expect(anonymous.body).toMatchObject({ amount: '1.000000', senderAddress: expect.stringMatching(EVM) });
      expect(anonymous.body.transactionId).not.toBe(res.body.transactionId);
    });

    it('refuses a pending address, a bad amount or sender, and an amount that does not pay out in whole cents; nothing stored', async () => {
      const pending = (await t.create(basic(ada.id, bank.id, { label: 'ProvisioningSlow' }))).body.id;
      const before = await stored();
      const refused = await t.deposit(pending, { amount: '10.00' });
      expectError(refused, 422, 'DepositAddressNotProvisioned', 15002);
      expect(refused.body.cause).toContain('pending');
      expectError(await t.deposit(address.id, { amount: '0' }), 400, 'InvalidAmount');
      expectError(await t.deposit(address.id, { amount: '1.0000001' }), 400, 'InvalidAmount');
      expectError(await t.deposit(address.id, { amount: 10 }), 400, 'InvalidAmount');
      expectError(await t.deposit(address.id, { amount: '10.005' }), 422, 'InexactConversion');
      expectError(
        await t.deposit(address.id, { amount: '10.00', senderAddress: '0x123' }),
        422,
        'InvalidWalletAddress',
      );
      expectError(await t.deposit(address.id, { amount: '10.00', extra: 1 }), 400, 'InvalidRequest');
      expectError(await t.deposit(UNKNOWN_DA, { amount: '10.00' }), 404, 'DepositAddressNotFound');
      expectError(await t.deposit('da_nonsense', { amount: '10.00' }), 400, 'InvalidDepositAddressID');
      expect(await stored()).toEqual(before);
    });

    it("holds a deposit from an unregistered sender when the address requires registration, and attributes it when the sender's wallet is registered", async () => {
      const strict = await t.until(
        (await t.create(basic(ada.id, bank.id, { requiresCounterpartyWalletRegistration: true }))).body.id,
        'active',
      );
      const registered = await t.externalWallet(ada.id, evmAddress());
      const paid = await t.deposit(strict.id, {
        amount: '30.00',
        senderAddress: String(registered.details.address).toLowerCase(),
      });
      const sender = evmAddress();
      const held = await t.deposit(strict.id, { amount: '40.00', senderAddress: sender });
      expect([paid.status, held.status]).toEqual([201, 201]);
      const dispositions = async () =>
        Object.fromEntries(
          (
            await platform.db.query(
              `SELECT transaction_id, disposition, held FROM deposit_addresses.deposits WHERE deposit_address_id = $1`,
              [strict.id],
            )
          ).map((r) => [r.transaction_id, [r.disposition, r.held]]),
        );
      expect(await dispositions()).toEqual({
        [paid.body.transactionId]: ['payout', null],
        [held.body.transactionId]: ['awaitingSenderAttribution', 'attribution'],
      });
      const [received] = await platform.db.query(`SELECT data FROM deposit_addresses.events WHERE stream_id = $1`, [
        `depositAddressDeposit-${held.body.transactionId}`,
      ]);
      const settings = (await platform.admin('GET', `/projects/${t.projectId}`)).body;
      expect(Date.parse(received.data.attributionDeadline) - Date.parse(received.data.at)).toBe(
        settings.attributionTimeoutHours * 3_600_000,
      );

      // A counterparty registers the sender's wallet: the deposit is attributed to it.
      const acme = await t.counterparty(ada.id);
      const theirs = await t.externalWallet(ada.id, sender, 'meridianchain', acme.id);
      const attributed = await eventually(async () => {
        const [row] = await platform.db.query(
          `SELECT data FROM deposit_addresses.events WHERE stream_id = $1 AND type = 'depositAddress.senderAttributed'`,
          [`depositAddressDeposit-${held.body.transactionId}`],
        );
        return row?.data;
      }, 20_000);
      expect(attributed).toMatchObject({
        transactionId: held.body.transactionId,
        externalAccountId: theirs.id,
        sender: { relationship: 'externalRegistered', counterpartyId: acme.id },
        destinationMissing: false,
      });
      expect(await dispositions()).toEqual({
        [paid.body.transactionId]: ['payout', null],
        [held.body.transactionId]: ['awaitingSenderAttribution', null],
      });
    });
  });

  describe('bad input: a 4xx in the error body, and nothing stored', () => {
    let t: Tenant;
    let ada: { id: string };
    let bank: { id: string };
    let other: { id: string };
    let grace: { id: string };
    let graceBank: { id: string };
    let failed: { id: string };
    let wallet: { id: string };
    let card: { id: string };
    let foreign: { customer: string; bank: string; address: string };
    let address: string;
    beforeAll(async () => {
      t = await tenant('da-bad-input');
      ada = await t.customer();
      bank = await t.bankUs(ada.id);
      other = await t.bankUs(ada.id, undefined, '423456789012');
      grace = await t.customer({ firstName: 'Grace', lastName: 'Hopper' });
      graceBank = await t.bankUs(grace.id);
      failed = await t.account(
        {
          owner: { kind: 'customer', customerId: ada.id },
          type: 'bankUs',
          bankUs: { accountNumber: '000123450002', routingNumber: '021000021' },
        },
        'failed',
      );
      wallet = await t.externalWallet(ada.id, evmAddress(), 'ethereum');
      const cardRes = await t.post('/external-accounts/cards', {
        owner: { kind: 'customer', customerId: ada.id },
        card: {
          cardNumber: '4242424242424242',
          expiryMonth: 12,
          expiryYear: 2031,
          cvc: '123',
          billingAddress: {
            addressLine1: '1 Market St',
            city: 'San Francisco',
            state: 'CA',
            country: 'US',
            zipCode: '94105',
          },
        },
      });
      card = cardRes.body;
      const f = await tenant('da-bad-input-foreign');
      const fc = await f.customer();
      const fb = await f.bankUs(fc.id);
      foreign = { customer: fc.id, bank: fb.id, address: (await f.create(basic(fc.id, fb.id))).body.id };
      address = (await t.create(basic(ada.id, bank.id))).body.id;
    }, 120_000);

    const cases: Array<[string, number, string, () => Record<string, unknown>]> = [
      ['an unknown customer', 404, 'CustomerNotFound', () => basic('cst_01h455vb4pex5vsknk084sn02q', bank.id)],
      ['a malformed customer id', 400, 'InvalidCustomerID', () => basic('customer-1', bank.id)],
      ["another project's customer", 404, 'CustomerNotFound', () => basic(foreign.customer, bank.id)],
      ["another project's bank account", 404, 'ExternalAccountNotFound', () => basic(ada.id, foreign.bank)],
      ["another customer's bank account", 422, 'ExternalAccountHolderMismatch', () => basic(ada.id, graceBank.id)],
      ['an inactive (failed) bank account', 422, 'ExternalAccountNotActive', () => basic(ada.id, failed.id)],
      ['a walletExternal as destination', 422, 'external_account_rail_mismatch', () => basic(ada.id, wallet.id)],
      ['a card as destination', 422, 'external_account_rail_mismatch', () => basic(ada.id, card.id)],
      [
        'a rail the account does not take',
        422,
        'external_account_rail_mismatch',
        () => basic(ada.id, bank.id, { payout: { rail: 'swift' } }),
      ],
      [
        'an unknown rail',
        422,
        'external_account_rail_mismatch',
        () => basic(ada.id, bank.id, { payout: { rail: 'pigeon' } }),
      ],
      [
        'ACH fields on a wire',
        400,
        'InvalidRequest',
        () => basic(ada.id, bank.id, { payout: { rail: 'wire', secCode: 'PPD' } }),
      ],
      [
        'an unknown SEC code',
        400,
        'InvalidRequest',
        () => basic(ada.id, bank.id, { payout: { rail: 'ach', secCode: 'ABC' } }),
      ],
      [
        'company discretionary data too long',
        400,
        'InvalidRequest',
        () => basic(ada.id, bank.id, { payout: { rail: 'ach', companyDiscretionaryData: 'X'.repeat(21) } }),
      ],
      [
        'an expected asset other than usdc',
        400,
        'UnsupportedAssetNetwork',
        () => basic(ada.id, bank.id, { expectedSourceAsset: 'usdt' }),
      ],
      [
        'an unsupported network',
        400,
        'UnsupportedAssetNetwork',
        () => basic(ada.id, bank.id, { expectedSourceNetwork: 'solana' }),
      ],
      [
        'a return wallet on another network',
        422,
        'AssetNetworkMismatch',
        () => basic(ada.id, bank.id, { returnDestination: { externalAccountId: wallet.id } }),
      ],
      [
        'a bank account as return destination',
        422,
        'external_account_rail_mismatch',
        () => basic(ada.id, bank.id, { returnDestination: { externalAccountId: other.id } }),
      ],
      ['a malformed account id', 400, 'InvalidExternalAccountID', () => basic(ada.id, 'ext-1')],
      ['no payout', 400, 'InvalidRequest', () => ({ ...basic(ada.id, bank.id), payout: undefined })],
      [
        'an unknown field',
        400,
        'InvalidRequest',
        () => basic(ada.id, bank.id, { expiresAt: '2030-01-01T00:00:00.000Z' }),
      ],
      ['sponsorGas as a string', 400, 'InvalidRequest', () => basic(ada.id, bank.id, { sponsorGas: 'yes' })],
    ];

    it.each(cases)('POST with %s: %d %s', async (_what, status, error, body) => {
      const before = await stored();
      const listed = (await t.get('/deposit-addresses')).body;
      const res = await t.create(body());
      expectError(res, status, error);
      expect(await stored()).toEqual(before);
      expect((await t.get('/deposit-addresses')).body).toEqual(listed);
    });

    it('a customer without the usd endorsement cannot have USD payouts, nor one without basic CAD payouts', async () => {
      const basicOnly = await t.customer({ firstName: 'Basic', lastName: 'Only' }, ['basic']);
      const theirBank = await t.bankUs(basicOnly.id);
      const usdOnly = await t.customer({ firstName: 'Usd', lastName: 'Only' }, ['usd']);
      const theirCanadian = await t.bankCanada(usdOnly.id);
      const before = await stored();
      expectError(await t.create(basic(basicOnly.id, theirBank.id)), 422, 'UsdEndorsementRequired');
      expectError(
        await t.create(basic(usdOnly.id, theirCanadian.id, { payout: { rail: 'local' } })),
        422,
        'BasicEndorsementRequired',
      );
      expect(await stored()).toEqual(before);
      // Paid in USD over swift, the same Canadian account is open to the usd endorsement.
      expect((await t.create(basic(usdOnly.id, theirCanadian.id, { payout: { rail: 'swift' } }))).status).toBe(201);
    });

    it('PATCH with bad input changes nothing', async () => {
      await t.until(address, 'active');
      const read = (await t.get(`/deposit-addresses/${address}`)).body;
      const before = await stored();
      for (const [body, status, error] of [
        [{ destination: { externalAccountId: graceBank.id } }, 422, 'ExternalAccountHolderMismatch'],
        [{ destination: { externalAccountId: failed.id } }, 422, 'ExternalAccountNotActive'],
        [{ destination: { externalAccountId: wallet.id } }, 422, 'external_account_rail_mismatch'],
        [{ destination: { externalAccountId: foreign.bank } }, 404, 'ExternalAccountNotFound'],
        [{ payout: { rail: 'local' } }, 422, 'external_account_rail_mismatch'],
        [{ payout: { rail: 'wire', companyDiscretionaryData: 'A' } }, 400, 'InvalidRequest'],
        [{ returnDestination: { externalAccountId: wallet.id } }, 422, 'AssetNetworkMismatch'],
        [{ expectedSourceNetwork: 'ethereum' }, 400, 'InvalidRequest'],
        [{ status: 'active' }, 400, 'InvalidRequest'],
        [{ label: 7 }, 400, 'InvalidRequest'],
      ] as const) {
        expectError(await t.patch(`/deposit-addresses/${address}`, body), status, error);
      }
      expect(await stored()).toEqual(before);
      expect((await t.get(`/deposit-addresses/${address}`)).body).toEqual(read);
    });

    it("another project's address is not found, on every route", async () => {
      const before = await stored();
      expectError(await t.get(`/deposit-addresses/${foreign.address}`), 404, 'DepositAddressNotFound');
      expectError(
        await t.patch(`/deposit-addresses/${foreign.address}`, { label: 'mine' }),
        404,
        'DepositAddressNotFound',
      );
      expectError(await t.deposit(foreign.address, { amount: '10.00' }), 404, 'DepositAddressNotFound');
      for (const what of ['freeze', 'unfreeze', 'close'] as const)
        expectError(await t.simulate(foreign.address, what), 404, 'DepositAddressNotFound');
      expectError(await t.get(`/deposit-addresses/${UNKNOWN_DA}`), 404, 'DepositAddressNotFound');
      expectError(await t.get('/deposit-addresses/da_bad'), 400, 'InvalidDepositAddressID');
      expect((await t.get(`/deposit-addresses?customerId=${foreign.customer}`)).body.data).toEqual([]);
      expect(await stored()).toEqual(before);
    });
  });
});
