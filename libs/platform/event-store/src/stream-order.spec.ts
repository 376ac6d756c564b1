import fc from 'fast-check';
import type { RecordedEvent } from './event-store';
import { inStreamOrder } from './stream-order';

const event = (streamId: string, streamVersion: number): RecordedEvent => ({
  eventId: `evt_${streamId}_${streamVersion}`,
  source: 'test',
  globalPosition: '0',
  transactionId: '0',
  streamId,
  streamVersion,
  type: 'thing.happened',
  data: {},
  metadata: {},
  recordedAt: '2026-11-29T00:00:00.000Z',
});
const names = (events: RecordedEvent[]) => events.map((e) => `${e.streamId}${e.streamVersion}`);

describe('inStreamOrder', () => {
  it('hands the events over as read when every stream is in version order already', () => {
    const read = [event('a', 1), event('b', 1), event('a', 2)];
    expect(inStreamOrder(read, [false, false, false])).toEqual({ events: read, count: 3 });
  });

  it("holds an event read before its stream's previous version until that version is handled", () => {
    // a2 committed under the lock after a1, with an earlier transaction id.
    const read = [event('a', 2), event('b', 1), event('a', 1), event('a', 3)];
    const { events, count } = inStreamOrder(read, [true, false, false, false]);
    expect(names(events)).toEqual(['b1', 'a1', 'a2', 'a3']);
    expect(count).toBe(4);
  });

  it('releases a chain of waiting versions in order', () => {
    const read = [event('a', 3), event('a', 2), event('a', 1)];
    expect(names(inStreamOrder(read, [true, true, false]).events)).toEqual(['a1', 'a2', 'a3']);
  });

  it("stops before an event whose stream's previous version was not read (beyond the horizon or the limit)", () => {
    const read = [event('b', 1), event('a', 2), event('c', 1)];
    expect(inStreamOrder(read, [false, true, false])).toEqual({ events: [read[0]], count: 1 });
    expect(inStreamOrder([event('a', 2)], [true])).toEqual({ events: [], count: 0 });
  });

  it('moves the stop earlier when an event before it waits for a version after it', () => {
    // b2 waits for b1, which comes after a2, which waits for a version not read: neither b2 nor b1 can go.
    const read = [event('c', 1), event('b', 2), event('a', 2), event('b', 1)];
    expect(inStreamOrder(read, [false, true, true, false])).toEqual({ events: [read[0]], count: 1 });
  });

  it('handles every event once, each stream in version order, whatever the read order and however the reads are cut', () => {
    const log = fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 5 }).chain((lengths) => {
      const all = lengths.flatMap((length, s) => Array.from({ length }, (_, v) => event(`s${s}`, v + 1)));
      return fc.tuple(
        fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length }),
        fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 20 }),
      );
    });
    fc.assert(
      fc.property(log, ([order, visible]) => {
        const position = new Map(order.map((e, i) => [`${e.streamId}/${e.streamVersion}`, i]));
        const handled: RecordedEvent[] = [];
        let from = 0;
        for (let round = 0; from < order.length; round++) {
          // Each read sees a prefix of what is left (the horizon and the limit); the last read sees it all.
          const size = round < visible.length ? visible[round] : order.length;
          const read = order.slice(from, from + size);
          const later = read.map(
            (e) => (position.get(`${e.streamId}/${e.streamVersion - 1}`) ?? -1) > from + read.indexOf(e),
          );
          const { events, count } = inStreamOrder(read, later);
          expect(new Set(events)).toEqual(new Set(read.slice(0, count)));
          if (round >= visible.length) expect(count).toBe(read.length);
          handled.push(...events);
          from += count;
        }
        expect(handled).toHaveLength(order.length);
        const last = new Map<string, number>();
        for (const e of handled) {
          expect(e.streamVersion).toBe((last.get(e.streamId) ?? 0) + 1);
          last.set(e.streamId, e.streamVersion);
        }
      }),
    );
  });
});
