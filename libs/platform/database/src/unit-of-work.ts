// One database transaction per command (ARCHITECTURE: a command handler appends
// its events, updates its read models and records the idempotency result in the
// SAME transaction). The current transaction travels in AsyncLocalStorage, so
// repositories need no transaction parameter and a nested run() joins the outer one.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DataSource, EntityManager } from 'typeorm';

export class UnitOfWork {
  private readonly current = new AsyncLocalStorage<EntityManager>();

  constructor(readonly dataSource: DataSource) {}

  /** The transaction's manager when inside run(), else the pool's. */
  get manager(): EntityManager {
    return this.current.getStore() ?? this.dataSource.manager;
  }

  get inTransaction(): boolean {
    return this.current.getStore() !== undefined;
  }

  /** Runs fn in a transaction, or inside the caller's transaction if there is one. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.current.getStore()) return fn();
    return this.dataSource.transaction((manager) => this.current.run(manager, fn));
  }

  /** Runs fn outside any caller transaction, in a transaction of its own. */
  async runDetached<T>(fn: () => Promise<T>): Promise<T> {
    return this.current.exit(() => this.run(fn));
  }

  async query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.manager.query(sql, params);
  }
}
