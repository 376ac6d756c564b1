// Spec: Virtual account (the v1 shape), States / Virtual account, Endpoints
// (Virtual accounts), Events (catalog, tie 3), Errors (10240, the 202 and 503
// rows); API-CONTRACT: Virtual accounts; docs/sandbox.md; ADR 0032. Every route
// and every row of the state table with its webhooks in order, the delete's
// outcomes (the bank closes, cannot now, refuses, or its answer is lost and the
// sweeper finalises it), what an inbound transfer answers on this side (the
// transactions it makes are the transactions service's), bank details never in
// the logs, and every bad input refused with nothing stored, in both modes.
import { randomUUID } from 'node:crypto';
import { newTenant } from './support/tenant';
import { eventually, expectError, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';
import { WebhookReceiver } from './support/webhook-receiver';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const VA = /^va_[0-9a-hjkmnp-tv-z]{26}$/;
const TXN = /^txn_[0-9a-hjkmnp-tv-z]{26}$/;
const WITHIN_MS = 20_000;
const UNKNOWN_VA = 'va_01h455vb4pex5vsknk084sn02q';
const SOURCES = [
  { asset: 'usd', rail: 'ach' },
  { asset: 'usd', rail: 'wire' },
  { asset: 'usd', rail: 'internationalWire' },
];

/** A fresh EVM address (lower case: valid without a checksum). */
const evmAddress = () => `0x${randomUUID().replace(/-/g, '')}${randomUUID().replace(/-/g, '').slice(0, 8)}`;

/** The ABA checksum: 3, 7, 1 weights over the nine digits, a multiple of 10. */
function isAba(routing: string): boolean {
  if (!/^\d{9}$/.test(routing)) return false;
  const w = [3, 7, 1, 3, 7, 1, 3, 7, 1];
  return [...routing].reduce((sum, d, i) => sum + Number(d) * w[i], 0) % 10 === 0;
}

interface Delivery {
  event?: string;
  eventType?: string;
  eventId?: string;
  sequence: number;
  previousStatus?: string | null;
  changedFields?: string[];
  data: Record<string, any>;
}

/** What a delivery says, comparable: events of one change share a sequence and may arrive in either order, so they sort by name within it. */
const timeline = (events: Delivery[]) =>
  events
    .map((e) => [e.sequence, e.event ?? e.eventType, e.data.status, e.previousStatus ?? null] as const)
    .sort((a, b) => a[0] - b[0] || String(a[1]).localeCompare(String(b[1])));

describe('virtual accounts', () => {
  let platform: TestPlatform;
  let receiver: WebhookReceiver;
  /** Every account number the bank gave, to look for in the logs. */
  const accountNumbers = new Set<string>();

  beforeAll(async () => {
    [platform, receiver] = await Promise.all([TestPlatform.shared(), WebhookReceiver.start()]);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await receiver?.stop();
    await platform?.stop();
  });

  /** This file's projects: on the shared platform, other files store virtual accounts meanwhile. */
  const projects: string[] = [];

  /**
   * Accounts made and not yet opened by the bank (2 s of their project's clock later), each with a way to see
   * it opened: the counts below are taken only once the bank has answered them all, so that an opening
   * falling due meanwhile is not taken for something a refused request stored.
   */
  const opening: Array<() => Promise<unknown>> = [];

  /** What the virtual-accounts service stored for this file's projects: a refused request changes none of it. */
  const stored = async () => {
    for (const opened of opening.splice(0)) await opened();
    return counts();
  };
  const counts = async () =>
    (
      await platform.db.query(
        `SELECT (SELECT count(*) FROM virtual_accounts.accounts WHERE project_id = ANY($1))::int AS accounts,
                (SELECT count(*) FROM virtual_accounts.events WHERE metadata->>'projectId' = ANY($1))::int AS events,
                (SELECT count(*) FROM virtual_accounts.deposits WHERE project_id = ANY($1))::int AS deposits,
                (SELECT count(*) FROM virtual_accounts.bank_accounts WHERE project_id = ANY($1))::int AS bank,
                (SELECT count(*) FROM platform.timers WHERE kind LIKE 'virtualAccount%' AND project_id = ANY($1))::int AS timers`,
        [projects],
      )
    )[0];

  /** A project of its own, a customer with every endorsement active, and its accounts. */
  async function tenant(name: string) {
    const base = await newTenant(platform, { name });
    projects.push(base.projectId);
    const { post, get } = base;
    /** Moves this project's sandbox clock on: the bank's answers are timers on it. */
    const tick = (seconds = 1) => base.advance(seconds);
    /**
     * The account once the bank has brought it to `status`: its bank details remembered for the log check.
     * The bank answers on the project's clock (seconds of it), so the clock moves on a second at a time
     * while the account is not there yet, instead of the test waiting for real seconds to pass.
     */
    const until = (id: string, status: string) =>
      eventually(async () => {
        const a = (await get(`/virtual-accounts/${id}`)).body;
        if (a.bankDetails?.accountNumber) accountNumbers.add(a.bankDetails.accountNumber);
        if (a.status === status) return a;
        await tick();
        return undefined;
      }, WITHIN_MS);
    return {
      ...base,
      /** An external wallet: a fresh address unless one is given. */
      externalWallet: (
        customerId: string,
        address = evmAddress(),
        network = 'meridianchain',
        counterpartyId?: string,
      ) => base.externalWallet(customerId, address, network, counterpartyId),
      create: async (body: Record<string, unknown>, idempotencyKey?: string) => {
        const res = await post('/virtual-accounts', body, idempotencyKey);
        if (res.status === 201 && res.body.status === 'pending' && body.label !== 'ProvisioningSlow') {
          opening.push(() =>
            eventually(
              async () =>
                (await get(`/virtual-accounts/${res.body.id}`)).body.status !== 'pending'
                  ? true
                  : (await tick(), undefined),
              WITHIN_MS,
            ),
          );
        }
        return res;
      },
      until,
      tick,
      /** Created and provisioned. */
      active: async (body: Record<string, unknown>) => {
        const res = await post('/virtual-accounts', body);
        expect(res.status).toBe(201);
        return until(res.body.id, 'active');
      },
      remove: (id: string) => base.del(`/virtual-accounts/${id}`),
      transfer: (id: string, body: Record<string, unknown>, idempotencyKey?: string) =>
        post(`/virtual-accounts/${id}/simulate/inbound-transfer`, body, idempotencyKey),
      simulate: (id: string, what: 'freeze' | 'unfreeze' | 'close') => post(`/virtual-accounts/${id}/simulate/${what}`),
      /** Every delivery to `path` about this resource, once there are n. */
      deliveries: (path: string, id: string, n: number) =>
        eventually(async () => {
          const got = receiver
            .at(path)
            .map((r) => r.body as Delivery)
            .filter((b) => b.data?.id === id);
          return got.length >= n ? got.sort((a, b) => a.sequence - b.sequence) : undefined;
        }, 30_000),
    };
  }
  type Tenant = Awaited<ReturnType<typeof tenant>>;

  /** An account delivering to an external wallet. */
  const toWallet = (customerId: string, walletId: string, extra: Record<string, unknown> = {}) => ({
    customerId,
    source: { asset: 'usd', network: 'ach' },
    destination: { type: 'walletExternal', externalAccountId: walletId },
    accountHolder: 'customer',
    type: 'bankUs',
    ...extra,
  });

  describe('lifecycle', () => {
    let t: Tenant;
    let ada: { id: string };
    let wallet: { id: string; details: Record<string, unknown> };
    const hook = '/va-lifecycle';
    beforeAll(async () => {
      t = await tenant('va-lifecycle');
      expect((await t.post('/webhooks', { url: receiver.url(hook), subscriptions: ['*'] })).status).toBe(201);
      ada = await t.customer();
      wallet = await t.externalWallet(ada.id);
    }, 60_000);

    it('POST answers 201 pending with null bankDetails in the exact v1 shape; the bank provisions it, then active; GET answers the same', async () => {
      const created = await t.create({ ...toWallet(ada.id, wallet.id), metadata: { account: 'A-1' } });
      expect(created.status).toBe(201);
      const expected = {
        id: expect.stringMatching(VA),
        object: 'virtualAccount',
        customerId: ada.id,
        destination: {
          type: 'walletExternal',
          id: wallet.id,
          asset: 'usdc',
          network: 'meridianchain',
          owner: { kind: 'customer', id: ada.id, name: 'Ada Lovelace' },
          details: wallet.details,
        },
        accountHolder: 'customer',
        type: 'bankUs',
        status: 'pending',
        bankDetails: null,
        supportedSources: SOURCES,
        metadata: { account: 'A-1' },
        createdAt: expect.stringMatching(ISO),
        updatedAt: created.body.createdAt,
      };
      expect(created.body).toEqual(expected);
      // Removed from the v1 shape, and optional fields not set: absent.
      for (const absent of [
        'source',
        'sourceToDestination',
        'payoutOrigin',
        'finalBalance',
        'returnDestination',
        'returnPayout',
        'deletionRequestedAt',
        'label',
        'sponsorGas',
      ])
        expect(created.body).not.toHaveProperty(absent);
      const id = created.body.id as string;

      const active = await t.until(id, 'active');
      expect(active).toEqual({
        ...expected,
        status: 'active',
        bankDetails: {
          bankName: expect.any(String),
          accountHolderName: 'Ada Lovelace',
          accountNumber: expect.stringMatching(/^[1-9]\d{9}$/),
          routingNumber: expect.any(String),
          bic: expect.stringMatching(/^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/),
        },
        updatedAt: expect.stringMatching(ISO),
      });
      expect(isAba(active.bankDetails.routingNumber)).toBe(true);
      expect(Date.parse(active.updatedAt) - Date.parse(active.createdAt)).toBeGreaterThanOrEqual(2000);
      expect((await t.get(`/virtual-accounts/${id}`)).body).toEqual(active);

      // created, then provisioned, statusChanged and active of its provisioning, with the account as it was.
      const events = await t.deliveries(hook, id, 4);
      expect(timeline(events)).toEqual([
        [1, 'virtualAccount.created', 'pending', null],
        [2, 'virtualAccount.active', 'active', null],
        [2, 'virtualAccount.provisioned', 'active', null],
        [2, 'virtualAccount.statusChanged', 'active', 'pending'],
      ]);
      expect(events[0]).toMatchObject({ event: 'virtualAccount.created', data: created.body });
      const changed = events.find((e) => e.eventType === 'virtualAccount.statusChanged')!;
      expect(changed).toMatchObject({
        eventId: expect.stringMatching(/^evt_/),
        previousStatus: 'pending',
        data: active,
      });
      expect(changed).not.toHaveProperty('event');
      expect(events.find((e) => e.event === 'virtualAccount.provisioned')!.data).toEqual(active);
    });

    it("shows the optional fields when set: a custodial wallet, a counterparty's bank account with ACH fields, a return destination and its rail, label, sponsorGas", async () => {
      const custodial = await t.wallet(ada.id);
      const toOms = await t.create({
        ...toWallet(ada.id, wallet.id),
        destination: { type: 'walletOms', walletId: custodial.id },
        label: 'Salary',
        sponsorGas: true,
      });
      expect(toOms.status).toBe(201);
      expect(toOms.body).toMatchObject({
        destination: {
          type: 'walletOms',
          id: custodial.id,
          asset: 'usdc',
          network: 'meridianchain',
          owner: { kind: 'customer', id: ada.id, name: 'Ada Lovelace' },
          details: { address: custodial.address },
        },
        label: 'Salary',
        sponsorGas: true,
      });
      expect(toOms.body.destination).not.toHaveProperty('payout');

      const acme = await t.counterparty(ada.id);
      const theirs = await t.bankUs(ada.id, acme.id, '223456789012');
      const back = await t.bankUs(ada.id, undefined, '323456789012');
      const toBank = await t.create({
        ...toWallet(ada.id, wallet.id),
        source: { asset: 'usd', network: 'wire' },
        destination: {
          type: 'bankUs',
          externalAccountId: theirs.id,
          payout: { rail: 'achSameDay', secCode: 'CCD', companyDiscretionaryData: 'INV 77' },
        },
        returnDestination: { externalAccountId: back.id },
        returnPayout: { rail: 'wire' },
        sponsorGas: false,
      });
      expect(toBank.status).toBe(201);
      expect(toBank.body).toMatchObject({
        destination: {
          type: 'bankUs',
          id: theirs.id,
          asset: 'usd',
          network: 'achSameDay',
          owner: { kind: 'counterparty', id: acme.id, name: 'Acme Ltd' },
          details: theirs.details,
          payout: { rail: 'achSameDay', secCode: 'CCD', companyDiscretionaryData: 'INV 77' },
        },
        returnDestination: {
          type: 'bankUs',
          id: back.id,
          asset: 'usd',
          network: 'wire',
          owner: { kind: 'customer', id: ada.id, name: 'Ada Lovelace' },
          details: back.details,
        },
        returnPayout: { rail: 'wire' },
        supportedSources: SOURCES,
      });
      for (const absent of ['sponsorGas', 'label', 'source']) expect(toBank.body).not.toHaveProperty(absent);
    });

    it('lists newest first, filtered by customerId, page by page', async () => {
      const grace = await t.customer({ firstName: 'Grace', lastName: 'Hopper' });
      const hers = await t.externalWallet(grace.id);
      const mine = [];
      for (let i = 0; i < 3; i++) mine.push((await t.create(toWallet(grace.id, hers.id))).body.id);
      const all = (await t.get('/virtual-accounts?limit=100')).body;
      expect(all.data.map((a: { id: string }) => a.id)).toEqual(
        [...all.data.map((a: { id: string }) => a.id)].sort().reverse(),
      );
      const first = (await t.get(`/virtual-accounts?customerId=${grace.id}&limit=2`)).body;
      expect(first).toEqual({
        data: [expect.objectContaining({ id: mine[2] }), expect.objectContaining({ id: mine[1] })],
        hasMore: true,
        nextCursor: expect.any(String),
      });
      const second = (await t.get(`/virtual-accounts?customerId=${grace.id}&limit=2&cursor=${first.nextCursor}`)).body;
      expect(second).toEqual({ data: [expect.objectContaining({ id: mine[0] })], hasMore: false, nextCursor: null });
      expect((await t.get('/virtual-accounts?customerId=cst_01h455vb4pex5vsknk084sn02q')).body.data).toEqual([]);
      expectError(await t.get('/virtual-accounts?customerId=nobody'), 400, 'InvalidCustomerID');
      expectError(await t.get('/virtual-accounts?cursor=nonsense'), 400, 'InvalidCursor');
    });

    it('PATCH changes the destination, return destination and its rail, label and metadata: virtualAccount.updated names what changed; a PATCH that changes nothing sends nothing', async () => {
      const hookPath = '/va-patch';
      expect(
        (await t.post('/webhooks', { url: receiver.url(hookPath), subscriptions: ['virtualAccount.updated'] })).status,
      ).toBe(201);
      const created = await t.active({ ...toWallet(ada.id, wallet.id), metadata: { a: '1', b: '2' } });
      const bank = await t.bankUs(ada.id, undefined, '423456789012');
      const first = await t.patch(`/virtual-accounts/${created.id}`, {
        destination: { type: 'bankUs', externalAccountId: bank.id, payout: { rail: 'wire' } },
        returnDestination: { externalAccountId: bank.id },
        returnPayout: { rail: 'ach' },
        label: 'Main',
        metadata: { a: null, c: '3' },
      });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({
        status: 'active',
        destination: { type: 'bankUs', id: bank.id, network: 'wire', payout: { rail: 'wire' } },
        returnDestination: { id: bank.id, network: 'ach' },
        returnPayout: { rail: 'ach' },
        label: 'Main',
        metadata: { b: '2', c: '3' },
        bankDetails: created.bankDetails,
      });
      const same = await t.patch(`/virtual-accounts/${created.id}`, {
        destination: { type: 'bankUs', externalAccountId: bank.id, payout: { rail: 'wire' } },
        label: 'Main',
        metadata: { c: '3' },
      });
      expect(same.status).toBe(200);
      expect(same.body).toEqual(first.body);
      const rail = await t.patch(`/virtual-accounts/${created.id}`, { returnPayout: { rail: 'achSameDay' } });
      expect(rail.body).toMatchObject({
        returnDestination: { id: bank.id, network: 'achSameDay' },
        returnPayout: { rail: 'achSameDay' },
      });
      const second = await t.patch(`/virtual-accounts/${created.id}`, {
        label: null,
        returnDestination: null,
        destination: { type: 'walletExternal', externalAccountId: wallet.id },
      });
      expect(second.status).toBe(200);
      for (const removed of ['label', 'returnDestination', 'returnPayout'])
        expect(second.body).not.toHaveProperty(removed);
      expect(second.body.destination).toEqual(created.destination);
      expect((await t.get(`/virtual-accounts/${created.id}`)).body).toEqual(second.body);
      const updates = await t.deliveries(hookPath, created.id, 3);
      expect(updates.map((e) => [e.event, e.sequence, e.changedFields])).toEqual([
        ['virtualAccount.updated', 3, ['destination', 'returnDestination', 'returnPayout', 'label', 'metadata']],
        ['virtualAccount.updated', 4, ['returnPayout']],
        ['virtualAccount.updated', 5, ['destination', 'returnDestination', 'returnPayout', 'label']],
      ]);
      expect(updates[0].data).toEqual(first.body);
      expect(updates[2].data).toEqual(second.body);
    });
  });

  describe('the bank: frozen, unfrozen, closed, failed (sandbox)', () => {
    let t: Tenant;
    let ada: { id: string };
    let wallet: { id: string };
    const hook = '/va-bank';
    beforeAll(async () => {
      t = await tenant('va-bank');
      expect(
        (
          await t.post('/webhooks', {
            url: receiver.url(hook),
            subscriptions: [
              'virtualAccount.statusChanged',
              'virtualAccount.active',
              'virtualAccount.frozen',
              'virtualAccount.closed',
              'virtualAccount.failed',
            ],
          })
        ).status,
      ).toBe(201);
      ada = await t.customer();
      wallet = await t.externalWallet(ada.id);
    }, 60_000);

    it('freeze, unfreeze and close: each a statusChanged, beside frozen, active and closed; a transition that does not apply is refused', async () => {
      const { id } = await t.active(toWallet(ada.id, wallet.id));
      const frozen = await t.simulate(id, 'freeze');
      expect(frozen.status).toBe(200);
      expect(frozen.body).toMatchObject({ id, status: 'frozen', bankDetails: { accountNumber: expect.any(String) } });
      expectError(await t.simulate(id, 'freeze'), 422, 'VirtualAccountTransitionNotAllowed', 15103);
      expect((await t.simulate(id, 'unfreeze')).body.status).toBe('active');
      expectError(await t.simulate(id, 'unfreeze'), 422, 'VirtualAccountTransitionNotAllowed');
      expect((await t.simulate(id, 'close')).body.status).toBe('closed');
      for (const what of ['freeze', 'unfreeze', 'close'] as const)
        expectError(await t.simulate(id, what), 422, 'VirtualAccountTransitionNotAllowed');
      const events = await t.deliveries(hook, id, 8);
      expect(timeline(events)).toEqual([
        [2, 'virtualAccount.active', 'active', null],
        [2, 'virtualAccount.statusChanged', 'active', 'pending'],
        [3, 'virtualAccount.frozen', 'frozen', null],
        [3, 'virtualAccount.statusChanged', 'frozen', 'active'],
        [4, 'virtualAccount.active', 'active', null],
        [4, 'virtualAccount.statusChanged', 'active', 'frozen'],
        [5, 'virtualAccount.closed', 'closed', null],
        [5, 'virtualAccount.statusChanged', 'closed', 'active'],
      ]);
    });

    it('a pending account cannot be frozen, closed, deleted, nor take a transfer', async () => {
      const id = (await t.create(toWallet(ada.id, wallet.id, { label: 'ProvisioningSlow' }))).body.id;
      const before = await stored();
      expectError(await t.simulate(id, 'freeze'), 422, 'VirtualAccountTransitionNotAllowed');
      expectError(await t.simulate(id, 'close'), 422, 'VirtualAccountTransitionNotAllowed');
      expectError(await t.remove(id), 422, 'VirtualAccountTransitionNotAllowed');
      const refused = await t.transfer(id, { amount: '10.00' });
      expectError(refused, 422, 'VirtualAccountNotProvisioned', 15102);
      expect(refused.body.cause).toContain('pending');
      expect(await stored()).toEqual(before);
      expect((await t.get(`/virtual-accounts/${id}`)).body).toMatchObject({ status: 'pending', bankDetails: null });
      // The bank answers on the project clock: an hour later it is provisioned.
      expect((await t.post('/sandbox/clock/advance', { seconds: 3600 })).status).toBe(200);
      expect((await t.until(id, 'active')).bankDetails).toMatchObject({ accountHolderName: 'Ada Lovelace' });
    });

    it('the bank fails a labelled account: failed, no bank details; it cannot be changed, deleted, nor take a transfer', async () => {
      const id = (await t.create(toWallet(ada.id, wallet.id, { label: 'ProvisioningFails' }))).body.id;
      const failed = await t.until(id, 'failed');
      expect(failed).toMatchObject({ status: 'failed', bankDetails: null, label: 'ProvisioningFails' });
      const before = await stored();
      expectError(await t.patch(`/virtual-accounts/${id}`, { label: 'x' }), 422, 'VirtualAccountTransitionNotAllowed');
      expectError(await t.remove(id), 422, 'VirtualAccountTransitionNotAllowed');
      expectError(await t.transfer(id, { amount: '10.00' }), 422, 'VirtualAccountNotProvisioned');
      for (const what of ['freeze', 'unfreeze', 'close'] as const)
        expectError(await t.simulate(id, what), 422, 'VirtualAccountTransitionNotAllowed');
      expect(await stored()).toEqual(before);
      const events = await t.deliveries(hook, id, 2);
      expect(timeline(events)).toEqual([
        [2, 'virtualAccount.failed', 'failed', null],
        [2, 'virtualAccount.statusChanged', 'failed', 'pending'],
      ]);
    });
  });

  describe('delete (spec: States / Virtual account; the 202 and 503 rows)', () => {
    let t: Tenant;
    let ada: { id: string };
    let wallet: { id: string };
    const hook = '/va-delete';
    beforeAll(async () => {
      t = await tenant('va-delete');
      expect(
        (
          await t.post('/webhooks', {
            url: receiver.url(hook),
            subscriptions: ['virtualAccount.statusChanged', 'virtualAccount.deleted'],
          })
        ).status,
      ).toBe(201);
      ada = await t.customer();
      wallet = await t.externalWallet(ada.id);
    }, 60_000);

    it('202 with the account deleting and deletionRequestedAt; the bank closes it: deleted; a repeat answers it as it is; a transfer to it is taken (and returned)', async () => {
      const account = await t.active(toWallet(ada.id, wallet.id));
      const res = await t.remove(account.id);
      expect(res.status).toBe(202);
      expect(res.body).toEqual({
        ...account,
        status: 'deleting',
        deletionRequestedAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      });
      expect(res.body.deletionRequestedAt).toBe(res.body.updatedAt);
      const deleted = await t.until(account.id, 'deleted');
      expect(deleted).toMatchObject({
        status: 'deleted',
        deletionRequestedAt: res.body.deletionRequestedAt,
        bankDetails: account.bankDetails,
      });
      const again = await t.remove(account.id);
      expect(again.status).toBe(202);
      expect(again.body).toEqual(deleted);
      expectError(
        await t.patch(`/virtual-accounts/${account.id}`, { label: 'x' }),
        422,
        'VirtualAccountTransitionNotAllowed',
      );
      const transfer = await t.transfer(account.id, { amount: '15.00' });
      expect(transfer.status).toBe(201);
      const [row] = await platform.db.query(
        `SELECT disposition FROM virtual_accounts.deposits WHERE transaction_id = $1`,
        [transfer.body.transactionId],
      );
      expect(row).toEqual({ disposition: 'returnToSender' });
      const events = await t.deliveries(hook, account.id, 4);
      expect(timeline(events)).toEqual([
        [2, 'virtualAccount.statusChanged', 'active', 'pending'],
        [3, 'virtualAccount.statusChanged', 'deleting', 'active'],
        [4, 'virtualAccount.deleted', 'deleted', null],
        [4, 'virtualAccount.statusChanged', 'deleted', 'deleting'],
      ]);
      expect(events.find((e) => e.sequence === 3)!.data).toEqual(res.body);
    });

    it('from frozen and from closed too', async () => {
      for (const what of ['freeze', 'close'] as const) {
        const { id } = await t.active(toWallet(ada.id, wallet.id));
        const status = (await t.simulate(id, what)).body.status;
        const res = await t.remove(id);
        expect(res.status).toBe(202);
        expect(res.body.status).toBe('deleting');
        await t.until(id, 'deleted');
        const events = await t.deliveries(hook, id, 5);
        expect(timeline(events).map(([seq, name, st, prev]) => [seq, name, st, prev])).toContainEqual([
          4,
          'virtualAccount.statusChanged',
          'deleting',
          status,
        ]);
      }
    });

    it('the bank cannot close it now (CloseUnavailable): 503 with Retry-After, the prior status restored; asked again after a new label, it closes', async () => {
      const account = await t.active(toWallet(ada.id, wallet.id, { label: 'CloseUnavailable' }));
      const frozen = (await t.simulate(account.id, 'freeze')).body;
      const res = await t.remove(account.id);
      expectError(res, 503, 'VirtualAccountCloseUnavailable', 15105);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(res.body.cause).toContain('frozen');
      const read = (await t.get(`/virtual-accounts/${account.id}`)).body;
      expect(read).toEqual({ ...frozen, updatedAt: expect.stringMatching(ISO) });
      expect(read).not.toHaveProperty('deletionRequestedAt');
      const events = await t.deliveries(hook, account.id, 4);
      expect(timeline(events)).toEqual([
        [2, 'virtualAccount.statusChanged', 'active', 'pending'],
        [3, 'virtualAccount.statusChanged', 'frozen', 'active'],
        [4, 'virtualAccount.statusChanged', 'deleting', 'frozen'],
        [5, 'virtualAccount.statusChanged', 'frozen', 'deleting'],
      ]);
      expect((await t.patch(`/virtual-accounts/${account.id}`, { label: 'Retry' })).status).toBe(200);
      expect((await t.remove(account.id)).status).toBe(202);
      await t.until(account.id, 'deleted');
    });

    it('the bank refuses the close when it answers (CloseRefused): 202 deleting, then failed', async () => {
      const account = await t.active(toWallet(ada.id, wallet.id, { label: 'CloseRefused' }));
      const res = await t.remove(account.id);
      expect(res.status).toBe(202);
      expect(res.body.status).toBe('deleting');
      const failed = await t.until(account.id, 'failed');
      expect(failed).toMatchObject({
        deletionRequestedAt: res.body.deletionRequestedAt,
        bankDetails: account.bankDetails,
      });
      expectError(await t.remove(account.id), 422, 'VirtualAccountTransitionNotAllowed');
      expectError(await t.transfer(account.id, { amount: '10.00' }), 422, 'VirtualAccountNotProvisioned');
      const events = await t.deliveries(hook, account.id, 3);
      expect(timeline(events)).toEqual([
        [2, 'virtualAccount.statusChanged', 'active', 'pending'],
        [3, 'virtualAccount.statusChanged', 'deleting', 'active'],
        [4, 'virtualAccount.statusChanged', 'failed', 'deleting'],
      ]);
    });

    it("the bank closes it but its answer is lost (CloseAnswerLost): deleting until the sweeper reads the bank's account, once the project clock passes it", async () => {
      const account = await t.active(toWallet(ada.id, wallet.id, { label: 'CloseAnswerLost' }));
      expect((await t.remove(account.id)).status).toBe(202);
      // The bank closed it (its own record), and nothing told the service.
      await eventually(async () => {
        const [row] = await platform.db.query(
          `SELECT status FROM virtual_accounts.bank_accounts WHERE virtual_account_id = $1`,
          [account.id],
        );
        if (row?.status === 'closed') return row;
        await t.tick();
        return undefined;
      }, WITHIN_MS);
      expect((await t.get(`/virtual-accounts/${account.id}`)).body.status).toBe('deleting');
      expect((await t.post('/sandbox/clock/advance', { seconds: 600 })).status).toBe(200);
      const deleted = await t.until(account.id, 'deleted');
      expect(deleted.deletionRequestedAt).toEqual(expect.stringMatching(ISO));
      const [event] = await platform.db.query(
        `SELECT data FROM virtual_accounts.events WHERE stream_id = $1 AND type = 'virtualAccount.deleted'`,
        [`virtualAccount-${account.id}`],
      );
      expect(event.data).toMatchObject({ by: 'sweeper', previousStatus: 'deleting', status: 'deleted' });
      const events = await t.deliveries(hook, account.id, 4);
      expect(timeline(events).slice(-2)).toEqual([
        [4, 'virtualAccount.deleted', 'deleted', null],
        [4, 'virtualAccount.statusChanged', 'deleted', 'deleting'],
      ]);
    });

    it('the close request never reaches the bank (CloseRequestLost, as when the service stops before asking): 202 deleting; the sweeper finds no close at the bank, asks again, and the bank closes it', async () => {
      const account = await t.active(toWallet(ada.id, wallet.id, { label: 'CloseRequestLost' }));
      const res = await t.remove(account.id);
      expect(res.status).toBe(202);
      expect(res.body.status).toBe('deleting');
      const [bank] = await platform.db.query(
        `SELECT status, close_request FROM virtual_accounts.bank_accounts WHERE virtual_account_id = $1`,
        [account.id],
      );
      expect(bank).toEqual({ status: 'open', close_request: null });
      expect((await t.post('/sandbox/clock/advance', { seconds: 600 })).status).toBe(200);
      const deleted = await t.until(account.id, 'deleted');
      expect(deleted.deletionRequestedAt).toBe(res.body.deletionRequestedAt);
      const [event] = await platform.db.query(
        `SELECT data FROM virtual_accounts.events WHERE stream_id = $1 AND type = 'virtualAccount.deleted'`,
        [`virtualAccount-${account.id}`],
      );
      expect(event.data).toMatchObject({ by: 'bank' });
    });

    it("409 VirtualAccountNotEmpty while a transfer's transaction still moves money, nothing changed; accepted once it ended", async () => {
      const account = await t.active(toWallet(ada.id, wallet.id));
      const transfer = await t.transfer(account.id, { amount: '40.00' });
      expect(transfer.status).toBe(201);
      const before = await stored();
      const refused = await t.remove(account.id);
      expectError(refused, 409, 'VirtualAccountNotEmpty', 15104);
      expect(refused.body.cause).toContain(transfer.body.transactionId);
      expect(await stored()).toEqual(before);
      expect((await t.get(`/virtual-accounts/${account.id}`)).body).toEqual(account);
      // The bank settles the ACH deposit a minute of project time later, and the USDC is delivered.
      expect((await t.post('/sandbox/clock/advance', { seconds: 120 })).status).toBe(200);
      // (The delivery is scheduled when the settlement is handled: the clock moves on until it is done.)
      await eventually(async () => {
        if ((await t.get(`/transactions/${transfer.body.transactionId}`)).body.status === 'completed') return true;
        await t.tick(5);
        return undefined;
      }, 30_000);
      const res = await t.remove(account.id);
      expect(res.status).toBe(202);
      await t.until(account.id, 'deleted');
    });

    it("another project's account, or an unknown one, is not found; nothing changes", async () => {
      const other = await tenant('va-delete-foreign');
      const theirs = await other.customer();
      const foreign = await other.active(toWallet(theirs.id, (await other.externalWallet(theirs.id)).id));
      const before = await stored();
      expectError(await t.remove(foreign.id), 404, 'VirtualAccountNotFound', 15101);
      expectError(await t.remove(UNKNOWN_VA), 404, 'VirtualAccountNotFound');
      expectError(await t.remove('va_bad'), 400, 'InvalidVirtualAccountID', 15100);
      expect(await stored()).toEqual(before);
      expect((await other.get(`/virtual-accounts/${foreign.id}`)).body.status).toBe('active');
    });
  });

  describe('inbound transfers (this side: the answer; the transactions they make are tested with the transactions service)', () => {
    let t: Tenant;
    let ada: { id: string };
    let wallet: { id: string };
    let account: { id: string };
    beforeAll(async () => {
      t = await tenant('va-transfers');
      ada = await t.customer();
      wallet = await t.externalWallet(ada.id);
      account = await t.active(toWallet(ada.id, wallet.id, { metadata: { ref: 'R-1' } }));
    }, 60_000);

    it('answers 201 virtualAccountDeposit with the transaction it made, once per Idempotency-Key', async () => {
      const key = randomUUID();
      const res = await t.transfer(account.id, { amount: '125.50', senderName: 'ACME PAYROLL' }, key);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        object: 'virtualAccountDeposit',
        virtualAccountId: account.id,
        amount: '125.50',
        asset: 'usd',
        rail: 'ach',
        senderName: 'ACME PAYROLL',
        reference: expect.stringMatching(/^\d{15}$/),
        transactionId: expect.stringMatching(TXN),
      });
      const replay = await t.transfer(account.id, { amount: '125.50', senderName: 'ACME PAYROLL' }, key);
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(res.body);
      const rows = await platform.db.query(
        `SELECT transaction_id, disposition, rail FROM virtual_accounts.deposits WHERE virtual_account_id = $1`,
        [account.id],
      );
      expect(rows).toEqual([{ transaction_id: res.body.transactionId, disposition: 'deliver', rail: 'ach' }]);
      // What the transactions service makes the transaction from.
      const [received] = await platform.db.query(
        `SELECT type, data FROM virtual_accounts.events WHERE stream_id = $1`,
        [`virtualAccountDeposit-${res.body.transactionId}`],
      );
      expect(received).toEqual({
        type: 'virtualAccount.depositReceived',
        data: {
          virtualAccountId: account.id,
          projectId: t.projectId,
          customerId: ada.id,
          customerName: 'Ada Lovelace',
          transactionId: res.body.transactionId,
          deposit: {
            asset: 'usd',
            rail: 'ach',
            amount: '125.50',
            senderName: 'ACME PAYROLL',
            reference: res.body.reference,
          },
          disposition: 'deliver',
          target: {
            destination: {
              type: 'walletExternal',
              category: 'crypto',
              details: { id: wallet.id, asset: 'usdc', network: 'meridianchain', address: expect.any(String) },
              party: { relationship: 'customer', customerId: ada.id, entityType: 'individual' },
            },
            payout: null,
            pricing: expect.objectContaining({
              pair: 'usd/usdc',
              fixedAmountSide: 'source',
              source: expect.objectContaining({ asset: 'usd', amountGross: '125.50' }),
              destination: expect.objectContaining({ asset: 'usdc' }),
            }),
          },
          returnTo: { externalAccountId: null, rail: 'ach' },
          metadata: { ref: 'R-1' },
          at: expect.stringMatching(ISO),
        },
      });
    });

    it('takes each rail with its reference (an IMAD for a wire, an instruction id for an international wire); senderName null when not given', async () => {
      const wire = await t.transfer(account.id, { amount: '1000', rail: 'wire' });
      expect(wire.body).toMatchObject({
        rail: 'wire',
        amount: '1000',
        senderName: null,
        reference: expect.stringMatching(/^\d{8}[A-Z0-9]{8}\d{6}$/),
      });
      const intl = await t.transfer(account.id, {
        amount: '0.01',
        rail: 'internationalWire',
        senderName: 'Müller GmbH',
      });
      expect(intl.body).toMatchObject({
        rail: 'internationalWire',
        senderName: 'Müller GmbH',
        reference: expect.stringMatching(/^[A-Z0-9]{6,35}$/),
      });
    });

    it('a frozen or closed account takes the transfer and returns it to the sender', async () => {
      const frozen = await t.active(toWallet(ada.id, wallet.id));
      await t.simulate(frozen.id, 'freeze');
      const closed = await t.active(toWallet(ada.id, wallet.id));
      await t.simulate(closed.id, 'close');
      for (const id of [frozen.id, closed.id]) {
        const res = await t.transfer(id, { amount: '20.00' });
        expect(res.status).toBe(201);
        const [row] = await platform.db.query(
          `SELECT disposition FROM virtual_accounts.deposits WHERE transaction_id = $1`,
          [res.body.transactionId],
        );
        expect(row).toEqual({ disposition: 'returnToSender' });
      }
    });

    it('refuses a bad amount or rail, an unknown or foreign account; nothing stored', async () => {
      const other = await tenant('va-transfers-foreign');
      const theirs = await other.customer();
      const foreign = await other.active(toWallet(theirs.id, (await other.externalWallet(theirs.id)).id));
      const before = await stored();
      for (const amount of ['0', '-1.00', '10.001', 'ten', 10, '1e3'])
        expectError(await t.transfer(account.id, { amount }), 400, 'InvalidAmount');
      expectError(await t.transfer(account.id, { amount: '10.00', rail: 'swift' }), 400, 'InvalidRequest');
      expectError(await t.transfer(account.id, { amount: '10.00', rail: 'achSameDay' }), 400, 'InvalidRequest');
      expectError(
        await t.transfer(account.id, { amount: '10.00', senderName: 'x'.repeat(141) }),
        400,
        'InvalidRequest',
      );
      expectError(await t.transfer(account.id, { amount: '10.00', extra: 1 }), 400, 'InvalidRequest');
      expectError(await t.transfer(UNKNOWN_VA, { amount: '10.00' }), 404, 'VirtualAccountNotFound');
      expectError(await t.transfer(foreign.id, { amount: '10.00' }), 404, 'VirtualAccountNotFound');
      expectError(await t.transfer('va_nonsense', { amount: '10.00' }), 400, 'InvalidVirtualAccountID');
      expect(await stored()).toEqual(before);
    });
  });

  describe('bad input: a 4xx in the error body, and nothing stored', () => {
    let t: Tenant;
    let ada: { id: string };
    let wallet: { id: string };
    let bank: { id: string };
    let grace: { id: string };
    let graceWallet: { id: string };
    let graceCustodial: { id: string };
    let failed: { id: string };
    let ethWallet: { id: string };
    let card: { id: string };
    let foreign: { customer: string; wallet: string; account: string };
    let account: string;
    beforeAll(async () => {
      t = await tenant('va-bad-input');
      ada = await t.customer();
      wallet = await t.externalWallet(ada.id);
      bank = await t.bankUs(ada.id);
      grace = await t.customer({ firstName: 'Grace', lastName: 'Hopper' });
      graceWallet = await t.externalWallet(grace.id);
      graceCustodial = await t.wallet(grace.id);
      failed = await t.account(
        {
          owner: { kind: 'customer', customerId: ada.id },
          type: 'bankUs',
          bankUs: { accountNumber: '000123450002', routingNumber: '021000021' },
        },
        'failed',
      );
      ethWallet = await t.externalWallet(ada.id, evmAddress(), 'ethereum');
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
      const f = await tenant('va-bad-input-foreign');
      const fc = await f.customer();
      const fw = await f.externalWallet(fc.id);
      foreign = { customer: fc.id, wallet: fw.id, account: (await f.create(toWallet(fc.id, fw.id))).body.id };
      account = (await t.active(toWallet(ada.id, wallet.id))).id;
    }, 120_000);

    const toBank = (rail: string, extra: Record<string, unknown> = {}) => ({
      type: 'bankUs',
      externalAccountId: bank.id,
      payout: { rail, ...extra },
    });
    const cases: Array<[string, number, string, () => Record<string, unknown>]> = [
      ['an unknown customer', 404, 'CustomerNotFound', () => toWallet('cst_01h455vb4pex5vsknk084sn02q', wallet.id)],
      ['a malformed customer id', 400, 'InvalidCustomerID', () => toWallet('customer-1', wallet.id)],
      ["another project's customer", 404, 'CustomerNotFound', () => toWallet(foreign.customer, wallet.id)],
      ["another project's external wallet", 404, 'ExternalAccountNotFound', () => toWallet(ada.id, foreign.wallet)],
      [
        "another customer's external wallet",
        422,
        'ExternalAccountHolderMismatch',
        () => toWallet(ada.id, graceWallet.id),
      ],
      [
        "another customer's custodial wallet",
        422,
        'WalletNotOwned',
        () => toWallet(ada.id, wallet.id, { destination: { type: 'walletOms', walletId: graceCustodial.id } }),
      ],
      [
        'an unknown custodial wallet',
        404,
        'WalletNotFound',
        () =>
          toWallet(ada.id, wallet.id, {
            destination: { type: 'walletOms', walletId: 'wlt_01h455vb4pex5vsknk084sn02q' },
          }),
      ],
      [
        'a malformed wallet id',
        400,
        'InvalidWalletID',
        () => toWallet(ada.id, wallet.id, { destination: { type: 'walletOms', walletId: 'wallet-1' } }),
      ],
      [
        'an inactive (failed) bank account',
        422,
        'ExternalAccountNotActive',
        () =>
          toWallet(ada.id, wallet.id, {
            destination: { type: 'bankUs', externalAccountId: failed.id, payout: { rail: 'ach' } },
          }),
      ],
      [
        'a card as a walletExternal destination',
        422,
        'external_account_rail_mismatch',
        () => toWallet(ada.id, card.id),
      ],
      [
        'a card as a bankUs destination',
        422,
        'external_account_rail_mismatch',
        () =>
          toWallet(ada.id, wallet.id, {
            destination: { type: 'bankUs', externalAccountId: card.id, payout: { rail: 'ach' } },
          }),
      ],
      [
        'a card destination type',
        400,
        'InvalidRequest',
        () => toWallet(ada.id, wallet.id, { destination: { type: 'card', externalAccountId: card.id } }),
      ],
      [
        'a bank account as a walletExternal destination',
        422,
        'external_account_rail_mismatch',
        () => toWallet(ada.id, bank.id),
      ],
      [
        'a rail the bank account does not take',
        422,
        'VirtualAccountPayoutUnsupported',
        () => toWallet(ada.id, wallet.id, { destination: toBank('swift') }),
      ],
      [
        'ACH fields on a wire',
        422,
        'VirtualAccountPayoutUnsupported',
        () => toWallet(ada.id, wallet.id, { destination: toBank('wire', { secCode: 'PPD' }) }),
      ],
      [
        'a payout on a wallet destination',
        422,
        'VirtualAccountPayoutUnsupported',
        () =>
          toWallet(ada.id, wallet.id, {
            destination: { type: 'walletExternal', externalAccountId: wallet.id, payout: { rail: 'ach' } },
          }),
      ],
      [
        'an unknown SEC code',
        400,
        'InvalidRequest',
        () => toWallet(ada.id, wallet.id, { destination: toBank('ach', { secCode: 'ABC' }) }),
      ],
      [
        'company discretionary data too long',
        400,
        'InvalidRequest',
        () => toWallet(ada.id, wallet.id, { destination: toBank('ach', { companyDiscretionaryData: 'X'.repeat(21) }) }),
      ],
      [
        'a bank destination without payout',
        400,
        'InvalidRequest',
        () => toWallet(ada.id, wallet.id, { destination: { type: 'bankUs', externalAccountId: bank.id } }),
      ],
      [
        'a source asset other than usd',
        400,
        'InvalidRequest',
        () => toWallet(ada.id, wallet.id, { source: { asset: 'usdc', network: 'ach' } }),
      ],
      [
        'an unsupported source rail',
        400,
        'InvalidRequest',
        () => toWallet(ada.id, wallet.id, { source: { asset: 'usd', network: 'sepa' } }),
      ],
      [
        'another accountHolder',
        400,
        'InvalidRequest',
        () => toWallet(ada.id, wallet.id, { accountHolder: 'business' }),
      ],
      ['another type', 400, 'InvalidRequest', () => toWallet(ada.id, wallet.id, { type: 'bankIban' })],
      [
        'a returnDestination without returnPayout',
        400,
        'InvalidRequest',
        () => toWallet(ada.id, wallet.id, { returnDestination: { externalAccountId: bank.id } }),
      ],
      [
        'a returnPayout without returnDestination',
        400,
        'InvalidRequest',
        () => toWallet(ada.id, wallet.id, { returnPayout: { rail: 'ach' } }),
      ],
      [
        'a wallet as returnDestination',
        422,
        'external_account_rail_mismatch',
        () =>
          toWallet(ada.id, wallet.id, {
            returnDestination: { externalAccountId: ethWallet.id },
            returnPayout: { rail: 'ach' },
          }),
      ],
      [
        'a return rail the account does not take',
        422,
        'VirtualAccountPayoutUnsupported',
        () =>
          toWallet(ada.id, wallet.id, {
            returnDestination: { externalAccountId: bank.id },
            returnPayout: { rail: 'swift' },
          }),
      ],
      ['a malformed account id', 400, 'InvalidExternalAccountID', () => toWallet(ada.id, 'ext-1')],
      ['an unknown field', 400, 'InvalidRequest', () => toWallet(ada.id, wallet.id, { finalBalance: '0' })],
      ['sponsorGas as a string', 400, 'InvalidRequest', () => toWallet(ada.id, wallet.id, { sponsorGas: 'yes' })],
    ];

    it.each(cases)('POST with %s: %d %s', async (_what, status, error, body) => {
      const before = await stored();
      const listed = (await t.get('/virtual-accounts')).body;
      const res = await t.create(body());
      expectError(res, status, error);
      if (error === 'VirtualAccountPayoutUnsupported') expect(res.body.code).toBe(10240);
      expect(await stored()).toEqual(before);
      expect((await t.get('/virtual-accounts')).body).toEqual(listed);
    });

    it('a customer without the usd endorsement cannot have one', async () => {
      const basicOnly = await t.customer({ firstName: 'Basic', lastName: 'Only' }, ['basic']);
      const theirs = await t.externalWallet(basicOnly.id);
      const before = await stored();
      expectError(await t.create(toWallet(basicOnly.id, theirs.id)), 422, 'UsdEndorsementRequired');
      expect(await stored()).toEqual(before);
    });

    it('PATCH with bad input changes nothing', async () => {
      const read = (await t.get(`/virtual-accounts/${account}`)).body;
      const before = await stored();
      for (const [body, status, error] of [
        [
          { destination: { type: 'walletExternal', externalAccountId: graceWallet.id } },
          422,
          'ExternalAccountHolderMismatch',
        ],
        [
          { destination: { type: 'bankUs', externalAccountId: failed.id, payout: { rail: 'ach' } } },
          422,
          'ExternalAccountNotActive',
        ],
        [
          { destination: { type: 'walletExternal', externalAccountId: card.id } },
          422,
          'external_account_rail_mismatch',
        ],
        [
          { destination: { type: 'walletExternal', externalAccountId: foreign.wallet } },
          404,
          'ExternalAccountNotFound',
        ],
        [
          { destination: { type: 'bankUs', externalAccountId: bank.id, payout: { rail: 'local' } } },
          422,
          'VirtualAccountPayoutUnsupported',
        ],
        [{ returnDestination: { externalAccountId: bank.id } }, 400, 'InvalidRequest'],
        [{ returnPayout: { rail: 'ach' } }, 400, 'InvalidRequest'],
        [{ returnDestination: null, returnPayout: { rail: 'ach' } }, 400, 'InvalidRequest'],
        [
          { returnDestination: { externalAccountId: wallet.id }, returnPayout: { rail: 'ach' } },
          422,
          'external_account_rail_mismatch',
        ],
        [{ source: { asset: 'usd', network: 'wire' } }, 400, 'InvalidRequest'],
        [{ status: 'active' }, 400, 'InvalidRequest'],
        [{ label: 7 }, 400, 'InvalidRequest'],
      ] as const) {
        expectError(await t.patch(`/virtual-accounts/${account}`, body), status, error);
      }
      expect(await stored()).toEqual(before);
      expect((await t.get(`/virtual-accounts/${account}`)).body).toEqual(read);
    });

    it("another project's account is not found, on every route", async () => {
      const before = await stored();
      expectError(await t.get(`/virtual-accounts/${foreign.account}`), 404, 'VirtualAccountNotFound');
      expectError(
        await t.patch(`/virtual-accounts/${foreign.account}`, { label: 'mine' }),
        404,
        'VirtualAccountNotFound',
      );
      expectError(await t.transfer(foreign.account, { amount: '10.00' }), 404, 'VirtualAccountNotFound');
      expectError(await t.remove(foreign.account), 404, 'VirtualAccountNotFound');
      for (const what of ['freeze', 'unfreeze', 'close'] as const)
        expectError(await t.simulate(foreign.account, what), 404, 'VirtualAccountNotFound');
      expectError(await t.get(`/virtual-accounts/${UNKNOWN_VA}`), 404, 'VirtualAccountNotFound');
      expectError(await t.get('/virtual-accounts/va_bad'), 400, 'InvalidVirtualAccountID');
      expect((await t.get(`/virtual-accounts?customerId=${foreign.customer}`)).body.data).toEqual([]);
      expect(await stored()).toEqual(before);
    });
  });

  describe('bank details', () => {
    it('appear in responses and events only, never in the logs', async () => {
      expect(accountNumbers.size).toBeGreaterThan(5);
      const logs = platform.logs();
      for (const number of accountNumbers) expect(logs.includes(number)).toBe(false);
    });
  });
});
