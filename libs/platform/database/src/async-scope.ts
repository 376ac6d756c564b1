// What a piece of work carries through its awaits: the request it serves and the transaction each unit of
// work has open in it. One AsyncLocalStorage for both, not one each: Node 20 copies every live store onto
// every promise and async resource made, so each store costs every await of the process (ADR 0050).
import { AsyncLocalStorage } from 'node:async_hooks';

export interface AsyncScope {
  /** The id of the request being handled (request-id.ts of the HTTP library). */
  readonly requestId?: string;
  /** The unit of work whose transaction (or, undefined, whose absence of one) this scope sets. */
  readonly owner?: object;
  readonly transaction?: unknown;
  /** The scope this one was entered from: another unit of work's transaction stays visible through it. */
  readonly outer?: AsyncScope;
}

const scope = new AsyncLocalStorage<AsyncScope>();

/** The scope of the running code, if any. */
export function currentScope(): AsyncScope | undefined {
  return scope.getStore();
}

/** Runs fn in a scope that adds `change` to the current one (the request id carried over unless changed). */
export function inScope<T>(change: AsyncScope, fn: () => T): T {
  const outer = scope.getStore();
  return scope.run({ requestId: outer?.requestId, ...change, outer }, fn);
}

/** Runs fn in a scope of its own for the request with this id: nothing of the caller's scope (a request starts none of its work inside another's). */
export function inRequestScope<T>(requestId: string, fn: () => T): T {
  return scope.run({ requestId }, fn);
}

/** The transaction `owner` set in the current scope (the nearest setting of its, when several are nested). */
export function scopedTransaction<T>(owner: object): T | undefined {
  for (let s = scope.getStore(); s !== undefined; s = s.outer) {
    if (s.owner === owner) return s.transaction as T | undefined;
  }
  return undefined;
}
