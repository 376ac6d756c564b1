import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { installLeanAsyncResourceBind } from './lean-async-resource-bind';

describe('the lean AsyncResource bind', () => {
  const store = new AsyncLocalStorage<string>();
  beforeAll(() => installLeanAsyncResourceBind());

  it('runs the bound function in the context it was bound in, with the caller\'s this and arguments', async () => {
    const bound = store.run('bound here', () =>
      AsyncResource.bind(function (this: unknown, a: number, b: number) {
        return { store: store.getStore(), self: this, sum: a + b };
      }),
    );
    const receiver = { name: 'receiver' };
    const result = await store.run('called here', async () => {
      await Promise.resolve();
      return bound.call(receiver, 2, 3);
    });
    expect(result).toEqual({ store: 'bound here', self: receiver, sum: 5 });
    expect(bound).toHaveLength(2);
    expect(Object.keys(bound)).not.toContain('asyncResource');
  });

  it('binds to thisArg when one is given, and ties promises made inside to the resource', async () => {
    const target = { n: 7 };
    const resource = store.run('resource', () => new AsyncResource('test'));
    // Node's types leave out bind's thisArg.
    const bindTo = resource.bind.bind(resource) as unknown as (fn: (this: { n: number }, k: number) => Promise<string>, thisArg: unknown) => (k: number) => Promise<string>;
    const bound = bindTo(function (this: { n: number }, k: number) {
      return Promise.resolve().then(() => `${store.getStore()} ${this.n * k}`);
    }, target);
    expect(bound).toHaveLength(1);
    await expect(store.run('elsewhere', () => bound(3))).resolves.toBe('resource 21');
  });

  it("refuses what is not a function as Node does", () => {
    expect(() => AsyncResource.bind(42 as unknown as () => void)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE' }));
  });

  it('is installed once, whatever the number of calls', () => {
    const installed = AsyncResource.prototype.bind;
    installLeanAsyncResourceBind();
    expect(AsyncResource.prototype.bind).toBe(installed);
  });
});
