// ADR 0030 on a real PostgreSQL: the customer's row lock orders a deposit's registration check and a
// wallet's registration, so the one that comes second sees what the first committed; a registration
// finds the customer's deposits held for that sender whatever the letter case of the address.
import type { DepositAddressView } from '@mm/deposit-addresses/domain';
import { createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { DepositAddressesReadModel, type NewDeposit } from './deposit-addresses.repository';

const ADDRESS = 'da_01h455vb4pex5vsknk084sn02q';
const SENDER = '0x8617E340B3D01FA5F11F306F4090FD50E238070D';

function view(projectId: string, customerId: string): DepositAddressView {
  return {
    id: ADDRESS,
    object: 'depositAddress',
    customerId,
    expectedSourceAsset: 'usdc',
    expectedSourceNetwork: 'meridianchain',
    destination: {
      type: 'bankUs',
      id: 'ext_bank',
      asset: 'usd',
      network: 'ach',
      owner: { kind: 'customer', id: customerId, name: 'Ada Lovelace' },
      details: {
        holderName: 'Ada Lovelace',
        bankName: null,
        routingNumber: '021000021',
        accountNumberLast4: '9012',
        accountType: 'checking',
      },
    },
    payout: { rail: 'ach' },
    requiresCounterpartyWalletRegistration: true,
    status: 'active',
    depositInstructions: {
      address: '0x1111111111111111111111111111111111111111',
      asset: 'usdc',
      network: 'meridianchain',
    },
    payoutOrigin: { type: 'depositAddress', id: ADDRESS, accountHolder: 'customer', accountHolderName: 'Ada Lovelace' },
    metadata: {},
    createdAt: '2030-01-01T00:00:00.000Z',
    updatedAt: '2030-01-01T00:00:02.000Z',
  };
}

const deposit = (transactionId: string, changes: Partial<NewDeposit> = {}): NewDeposit => ({
  transactionId,
  projectId: 'prj_1',
  customerId: 'cst_1',
  depositAddressId: ADDRESS,
  amount: '40.00',
  senderAddress: SENDER,
  network: 'meridianchain',
  disposition: 'awaitingSenderAttribution',
  held: 'attribution',
  attributionDeadline: '2030-01-04T00:00:00.000Z',
  at: '2030-01-01T00:01:00.000Z',
  ...changes,
});

describe('deposit address read models on PostgreSQL', () => {
  let db: TestDatabase;
  let readModel: DepositAddressesReadModel;

  beforeAll(async () => {
    db = await createTestDatabase();
    readModel = new DepositAddressesReadModel(db.uow);
    await db.uow.run(() => readModel.upsert('prj_1', view('prj_1', 'cst_1'), 2));
  });
  afterAll(() => db.close());

  it("orders a deposit and a registration of one customer: the registration waits for the deposit's commit and then finds it held", async () => {
    let releaseDeposit!: () => void;
    const depositHolds = new Promise<void>((resolve) => (releaseDeposit = resolve));
    let depositLocked!: () => void;
    const locked = new Promise<void>((resolve) => (depositLocked = resolve));
    // The deposit: the lock, then (its registration check said "unregistered") its held deposit.
    const arriving = db.uow.run(async () => {
      await readModel.lockCustomer('prj_1', 'cst_1');
      // The lock travels with the transaction's next statement (the deposit sends its address's stream lock).
      await db.uow.query('SELECT 1');
      depositLocked();
      await depositHolds;
      await readModel.recordDeposit(deposit('txn_01h455vb4pex5vsknk084sn0aa'));
    });
    await locked;
    // The registration: the same lock, then the deposits held for its address.
    let found: string[] | undefined;
    const registering = db.uow.run(async () => {
      await readModel.lockCustomer('prj_1', 'cst_1');
      found = (await readModel.heldForSender('prj_1', 'cst_1', 'meridianchain', SENDER)).map((d) => d.transaction_id);
    });
    // Waiting on the deposit's row lock (a condition, not a pause): it has read nothing yet.
    for (;;) {
      const [{ waiting }] = await db.uow.query<{ waiting: number }>(
        `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%customer_locks%'`,
      );
      if (waiting > 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(found).toBeUndefined();
    releaseDeposit();
    await Promise.all([arriving, registering]);
    expect(found).toEqual(['txn_01h455vb4pex5vsknk084sn0aa']);
  });

  it("finds only the customer's deposits held for that sender on that network, whatever the address's case", async () => {
    await db.uow.run(async () => {
      await readModel.recordDeposit(deposit('txn_01h455vb4pex5vsknk084sn0bb', { senderAddress: SENDER.toLowerCase() }));
      await readModel.recordDeposit(deposit('txn_01h455vb4pex5vsknk084sn0cc', { network: 'ethereum' }));
      await readModel.recordDeposit(deposit('txn_01h455vb4pex5vsknk084sn0dd', { held: null, disposition: 'payout' }));
      await readModel.recordDeposit(
        deposit('txn_01h455vb4pex5vsknk084sn0ee', { held: 'destination', disposition: 'payoutDestinationMissing' }),
      );
    });
    const held = await readModel.heldForSender('prj_1', 'cst_1', 'meridianchain', SENDER.toLowerCase());
    expect(held.map((d) => d.transaction_id)).toEqual([
      'txn_01h455vb4pex5vsknk084sn0aa',
      'txn_01h455vb4pex5vsknk084sn0bb',
    ]);
    expect(await readModel.heldForSender('prj_1', 'cst_2', 'meridianchain', SENDER)).toEqual([]);
    expect(await readModel.heldForSender('prj_2', 'cst_1', 'meridianchain', SENDER)).toEqual([]);
    await db.uow.run(() => readModel.setHeld(['txn_01h455vb4pex5vsknk084sn0aa'], null));
    expect(
      (await readModel.heldForSender('prj_1', 'cst_1', 'meridianchain', SENDER)).map((d) => d.transaction_id),
    ).toEqual(['txn_01h455vb4pex5vsknk084sn0bb']);
    expect((await readModel.held(ADDRESS)).map((d) => [d.transaction_id, d.held])).toEqual([
      ['txn_01h455vb4pex5vsknk084sn0bb', 'attribution'],
      ['txn_01h455vb4pex5vsknk084sn0cc', 'attribution'],
      ['txn_01h455vb4pex5vsknk084sn0ee', 'destination'],
    ]);
  });
});
