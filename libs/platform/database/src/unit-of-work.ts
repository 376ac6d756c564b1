// One database transaction per command (ARCHITECTURE: a command handler appends
// its events, updates its read models and records the idempotency result in the
// SAME transaction). The current transaction travels in AsyncLocalStorage, so
// repositories need no transaction parameter and a nested run() joins the outer one.
//
// Statements go straight to the pg pool that TypeORM opened (TypeORM keeps the
// migrations): a query runner per statement cost more CPU than the statement,
// and every query answers its rows, whatever the command (TypeORM answers
// [rows, count] for UPDATE and DELETE).
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Pool, PoolClient } from 'pg';
import type { DataSource } from 'typeorm';

export class UnitOfWork {
  private readonly current = new AsyncLocalStorage<PoolClient>();

  constructor(readonly dataSource: DataSource) {}

  private get pool(): Pool {
    return (this.dataSource.driver as unknown as { master: Pool }).master;
  }

  get inTransaction(): boolean {
    return this.current.getStore() !== undefined;
  }

  /** Runs fn in a transaction, or inside the caller's transaction if there is one. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.current.getStore()) return fn();
    const client = await this.pool.connect();
    let broken: Error | undefined;
    // pg emits 'error' on a checked-out client whose connection dies (PostgreSQL stopping, a network
    // cut); unheard, that would end the process. The statement under way fails on its own.
    const onError = (error: Error) => (broken = error);
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const result = await this.current.run(client, fn);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      // A connection that cannot even roll back is not given back to the pool.
      await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      throw error;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  /** Runs fn outside any caller transaction, in a transaction of its own. */
  async runDetached<T>(fn: () => Promise<T>): Promise<T> {
    return this.current.exit(() => this.run(fn));
  }

  /** The statement's rows, in the current transaction when there is one. */
  async query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    const result = await (this.current.getStore() ?? this.pool).query(sql, params);
    return result.rows as T[];
  }
}
