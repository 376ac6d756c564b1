// Node 20's AsyncResource#bind gives every function it binds a deprecated
// `asyncResource` accessor (DEP0172) built from two deprecate() wrappers, each
// re-prototyped with Object.setPrototypeOf: about 9 µs a bind on this machine,
// against 0.6 µs for the binding alone. Nest binds twice for every request through
// an interceptor (every idempotent POST) and Fastify once for every body it parses,
// so a transfer's two POSTs paid about 2.5% of the process's CPU for accessors no
// code reads. This installs a bind with the same behaviour, less the deprecated
// accessor: the bound function runs fn in the resource's async scope with the
// caller's `this` (or thisArg) and arguments, and keeps fn's length. ADR 0047.
import { AsyncResource } from 'node:async_hooks';

type Bindable = (this: unknown, ...args: unknown[]) => unknown;
/** Node's bind, with the thisArg its types leave out. */
const nodeBind = AsyncResource.prototype.bind as unknown as (this: AsyncResource, fn: unknown, thisArg?: unknown) => Bindable;
let installed = false;

/** fn, run in the resource's async scope with the caller's `this`. */
function inScopeOf(resource: AsyncResource, fn: Bindable): Bindable {
  return function (this: unknown, ...args: unknown[]) {
    return resource.runInAsyncScope(fn, this, ...args);
  };
}

function leanBind(this: AsyncResource, fn: Bindable, thisArg?: unknown): Bindable {
  // Node's own validation and error (ERR_INVALID_ARG_TYPE) for anything that is not a function.
  if (typeof fn !== 'function') return nodeBind.call(this, fn, thisArg);
  const bound: Bindable = thisArg === undefined ? inScopeOf(this, fn) : (this.runInAsyncScope.bind(this, fn, thisArg) as Bindable);
  Object.defineProperty(bound, 'length', { configurable: true, enumerable: false, writable: false, value: fn.length });
  return bound;
}

/** Once per process, before requests are served; the static AsyncResource.bind uses it too. */
export function installLeanAsyncResourceBind(): void {
  if (installed) return;
  installed = true;
  AsyncResource.prototype.bind = leanBind as unknown as typeof AsyncResource.prototype.bind;
}
