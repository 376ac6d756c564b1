import { currentScope, inRequestScope, inScope, scopedTransaction } from './async-scope';

describe('the async scope a request and its transactions share', () => {
  const a = { name: 'unit of work a' };
  const b = { name: 'unit of work b' };
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it('carries the request id into a transaction and through its awaits, and out of it again', async () => {
    await inRequestScope('req_1', async () => {
      await inScope({ owner: a, transaction: 'tx-a' }, async () => {
        await tick();
        expect(currentScope()?.requestId).toBe('req_1');
        expect(scopedTransaction(a)).toBe('tx-a');
      });
      await tick();
      expect(scopedTransaction(a)).toBeUndefined();
      expect(currentScope()?.requestId).toBe('req_1');
    });
    expect(currentScope()).toBeUndefined();
  });

  it("keeps each unit of work's transaction its own when they nest, and a detached scope hides only its owner's", async () => {
    await inScope({ owner: a, transaction: 'tx-a' }, async () => {
      await inScope({ owner: b, transaction: 'tx-b' }, async () => {
        await tick();
        expect([scopedTransaction(a), scopedTransaction(b)]).toEqual(['tx-a', 'tx-b']);
        await inScope({ owner: a, transaction: undefined }, async () => {
          await tick();
          expect([scopedTransaction(a), scopedTransaction(b)]).toEqual([undefined, 'tx-b']);
        });
      });
      expect(scopedTransaction(b)).toBeUndefined();
    });
  });

  it('starts a request with nothing of the scope it was entered from', async () => {
    await inScope({ owner: a, transaction: 'tx-a', requestId: 'req_outer' }, async () => {
      await inRequestScope('req_2', async () => {
        await tick();
        expect(currentScope()).toEqual({ requestId: 'req_2' });
        expect(scopedTransaction(a)).toBeUndefined();
      });
    });
  });

  it('keeps concurrent requests apart', async () => {
    const seen = await Promise.all(
      ['req_x', 'req_y'].map((id) =>
        inRequestScope(id, async () => {
          await tick();
          return inScope({ owner: a, transaction: `tx-${id}` }, async () => {
            await tick();
            return [currentScope()?.requestId, scopedTransaction(a)];
          });
        }),
      ),
    );
    expect(seen).toEqual([
      ['req_x', 'tx-req_x'],
      ['req_y', 'tx-req_y'],
    ]);
  });
});
