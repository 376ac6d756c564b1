// UnitOfWork (libs/platform/database) on a real PostgreSQL. Here rather than beside it: the
// database lib cannot import this testing lib, which builds on it.
import { createTestDatabase, type TestDatabase } from './test-database';

describe('UnitOfWork', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(4);
  });
  afterAll(() => db.close());

  it('answers rows for every kind of statement', async () => {
    await db.uow.query(`CREATE TABLE uow_rows (id int PRIMARY KEY, v text)`);
    expect(await db.uow.query(`INSERT INTO uow_rows VALUES (1, 'a') RETURNING *`)).toEqual([{ id: 1, v: 'a' }]);
    expect(await db.uow.query(`UPDATE uow_rows SET v = 'b' WHERE id = 1 RETURNING v`)).toEqual([{ v: 'b' }]);
    expect(await db.uow.query(`DELETE FROM uow_rows WHERE id = 1 RETURNING id`)).toEqual([{ id: 1 }]);
  });

  it('commits together or not at all', async () => {
    await db.uow.query(`CREATE TABLE uow_atomic (id int PRIMARY KEY)`);
    await expect(
      db.uow.run(async () => {
        await db.uow.query(`INSERT INTO uow_atomic VALUES (1)`);
        await db.uow.query(`INSERT INTO uow_atomic VALUES (1)`);
      }),
    ).rejects.toThrow();
    expect(await db.uow.query(`SELECT * FROM uow_atomic`)).toEqual([]);
  });

  it('survives its connection dying mid-transaction: the command fails, the process and the pool go on', async () => {
    await expect(
      db.uow.run(async () => {
        const [{ pid }] = await db.uow.query<{ pid: number }>(`SELECT pg_backend_pid() AS pid`);
        // Another session ends this one while it sits idle in its transaction, as a PostgreSQL shutdown would.
        await db.uow.runDetached(() => db.uow.query(`SELECT pg_terminate_backend($1)`, [pid]));
        await new Promise((r) => setTimeout(r, 200));
        await db.uow.query(`SELECT 1`);
      }),
    ).rejects.toThrow();
    expect(await db.uow.run(() => db.uow.query(`SELECT 1 AS ok`))).toEqual([{ ok: 1 }]);
  });
});
