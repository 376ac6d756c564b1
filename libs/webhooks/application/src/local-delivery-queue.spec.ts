// The local queue between this process's writers and its delivery worker (ADR
// 0053, ADR 0055), in memory: what is offered goes to the worker it was leased
// to, in commit order; nothing is offered ahead of a delivery left in the table
// until a claim has found the table clear of it.
import type { ClaimedDelivery } from '@mm/webhooks/infrastructure';
import { LocalDeliveryQueue, type LocalDeliveryConsumer } from './local-delivery-queue';

const delivery = (id: string) => ({ id }) as ClaimedDelivery;

describe('the local delivery queue', () => {
  function worker(room = true) {
    const seen = { offered: 0, wakes: 0 };
    const consumer: LocalDeliveryConsumer = {
      hasRoom: () => room,
      offered: () => void seen.offered++,
      wake: () => void seen.wakes++,
    };
    return { consumer, seen };
  }

  it('accepts nothing while no worker runs, and wakes none', () => {
    const queue = new LocalDeliveryQueue();
    expect(queue.worker).toBeUndefined();
    expect(queue.accepts()).toBe(false);
    expect(queue.wake()).toBe(false);
  });

  it('offers to the worker the deliveries were leased to, in commit order, and to no other', () => {
    const queue = new LocalDeliveryQueue();
    const first = worker();
    queue.open(first.consumer);
    expect(queue.accepts()).toBe(true);
    queue.offer(first.consumer, [delivery('whd_1'), delivery('whd_2')], 1);
    queue.offer(first.consumer, [delivery('whd_3')], 2);
    expect(first.seen.offered).toBe(2);
    expect(queue.size).toBe(3);
    expect([queue.take(), queue.take()].map((o) => [o?.delivery.id, o?.since])).toEqual([
      ['whd_1', 1],
      ['whd_2', 1],
    ]);
    // Stopped, and another worker started: what was leased to the first is not offered to the second.
    expect(queue.close().map((d) => d.id)).toEqual(['whd_3']);
    const second = worker();
    queue.open(second.consumer);
    queue.offer(first.consumer, [delivery('whd_4')], 3);
    expect(second.seen.offered).toBe(0);
    expect(queue.size).toBe(0);
  });

  it('accepts only while the worker has room for one more beyond those offered and not taken', () => {
    const queue = new LocalDeliveryQueue();
    const waiting: number[] = [];
    const hasRoom = (n: number) => {
      waiting.push(n);
      return n < 1;
    };
    queue.open({ hasRoom, offered: () => undefined, wake: () => undefined });
    expect(queue.accepts()).toBe(true);
    queue.offer(queue.worker!, [delivery('whd_1')], 0);
    expect(queue.accepts()).toBe(false);
    expect(waiting).toEqual([0, 1]);
  });

  it('offers nothing after a delivery left in the table until a claim after its wake-up finds less than it asked for', () => {
    const queue = new LocalDeliveryQueue();
    const { consumer, seen } = worker();
    queue.open(consumer);
    expect(queue.leftInTable()).toBe(1);
    expect(queue.accepts()).toBe(false);
    // A claim asked before the commit's wake-up may not see the row: it clears nothing.
    const early = queue.claimAsked();
    queue.claimFoundLess(early);
    expect(queue.accepts()).toBe(false);
    // Woken after the commit: a claim asked then, finding less than it asked for, clears the way.
    expect(queue.wake()).toBe(true);
    expect(seen.wakes).toBe(1);
    const mark = queue.claimAsked();
    queue.claimFoundLess(mark);
    expect(queue.accepts()).toBe(true);
  });

  it('keeps the way shut when another delivery is left in the table while a claim is asked', () => {
    const queue = new LocalDeliveryQueue();
    queue.open(worker().consumer);
    queue.leftInTable();
    queue.wake();
    const mark = queue.claimAsked();
    const left = queue.leftInTable();
    queue.claimFoundLess(mark);
    expect(queue.accepts()).toBe(false);
    // Given back and woken for: the next claim clears it.
    queue.tableWoken(left);
    queue.claimFoundLess(queue.claimAsked());
    expect(queue.accepts()).toBe(true);
  });
});
