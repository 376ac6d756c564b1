// Cards registered before cards lapsed on the project clock (issue 26 item 1):
// the migration gives each one still usable the timer a registration now
// schedules, on a real PostgreSQL.
import { createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { AccountsCardExpiryTimers1700000002360, CARD_EXPIRY_TIMER } from './card-expiry-timers.migration';

describe('the card expiry timers of cards registered before them', () => {
  let db: TestDatabase;
  const PROJECT = 'prj_01h455vb4pex5vsknk084sn0aa';
  const CUSTOMER = 'cst_01h455vb4pex5vsknk084sn0aa';
  const at = '2026-01-05T10:00:00.000Z';
  const card = (month: number, year: number) => ({
    holderName: 'Ada Lovelace',
    brand: 'mastercard',
    last4: '4444',
    expiryMonth: month,
    expiryYear: year,
    billingAddress: {},
  });
  const insert = (id: string, type: string, status: string, details: object, deleted = false) =>
    db.uow.query(
      `INSERT INTO accounts.external_accounts (id, project_id, customer_id, type, status, details, supported_destinations, provider_reference, metadata, version, created_at, updated_at, deleted_at)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, '[]'::jsonb, 'pvd', '{}'::jsonb, 2, $7, $7, $8)`,
      [id, PROJECT, CUSTOMER, type, status, JSON.stringify(details), at, deleted ? at : null],
    );
  const timers = async () =>
    Object.fromEntries(
      (
        await db.uow.query<{ key: string; due_at: Date; payload: object; project_id: string }>(
          `SELECT key, due_at, payload, project_id FROM platform.timers WHERE kind = $1 ORDER BY key`,
          [CARD_EXPIRY_TIMER],
        )
      ).map((r) => [r.key, { dueAt: new Date(r.due_at).toISOString(), payload: r.payload, projectId: r.project_id }]),
    );

  beforeAll(async () => {
    db = await createTestDatabase(2);
    await db.uow.query(
      `INSERT INTO accounts.customers (id, project_id, type, first_name, last_name, version, created_at, updated_at) VALUES ($1, $2, 'individual', 'Ada', 'Lovelace', 1, $3, $3)`,
      [CUSTOMER, PROJECT, at],
    );
    await insert('ext_active', 'card', 'active', card(12, 2026));
    await insert('ext_pending', 'card', 'pending', card(2, 2028));
    await insert('ext_lapsed', 'card', 'active', card(1, 2020));
    await insert('ext_invalid', 'card', 'invalid', card(12, 2030));
    await insert('ext_failed', 'card', 'failed', card(12, 2030));
    await insert('ext_deleted', 'card', 'active', card(12, 2030), true);
    await insert('ext_bank', 'bankUs', 'active', {
      holderName: 'Ada Lovelace',
      routingNumber: '021000021',
      accountNumberLast4: '9012',
    });
    await insert('ext_scheduled', 'card', 'active', card(6, 2027));
    await db.uow.query(
      `INSERT INTO platform.timers (project_id, kind, key, payload, due_at) VALUES ($1, $2, 'ext_scheduled', '{}'::jsonb, '2027-07-01T00:00:00Z')`,
      [PROJECT, CARD_EXPIRY_TIMER],
    );
    const runner = db.dataSource.createQueryRunner();
    try {
      await new AccountsCardExpiryTimers1700000002360().up(runner);
    } finally {
      await runner.release();
    }
  });
  afterAll(() => db.close());

  it('schedules every usable card for the first instant after its expiry month, one already lapsed at once', async () => {
    const scheduled = await timers();
    expect(scheduled).toEqual({
      ext_active: {
        dueAt: '2027-01-01T00:00:00.000Z',
        payload: { externalAccountId: 'ext_active' },
        projectId: PROJECT,
      },
      ext_lapsed: {
        dueAt: '2020-02-01T00:00:00.000Z',
        payload: { externalAccountId: 'ext_lapsed' },
        projectId: PROJECT,
      },
      ext_pending: {
        dueAt: '2028-03-01T00:00:00.000Z',
        payload: { externalAccountId: 'ext_pending' },
        projectId: PROJECT,
      },
      // One that has its timer keeps it.
      ext_scheduled: { dueAt: '2027-07-01T00:00:00.000Z', payload: {}, projectId: PROJECT },
    });
  });
});
