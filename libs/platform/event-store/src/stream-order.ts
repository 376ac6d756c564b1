// A log is read in (transaction id, position) order, which is the order transactions could commit in;
// a stream's versions follow the order its writers took the stream's lock. The two differ when a
// transaction took its id (its first write) before waiting for a stream's lock that a later-numbered
// transaction then held and committed under: that stream's version n + 1 then reads before version n.
// A reader hands each stream's events over in version order all the same (ADR 0049).
import type { RecordedEvent } from './event-store';

export interface StreamOrdered {
  /** The events to handle now, each stream's in version order. */
  events: RecordedEvent[];
  /** How many of the read events (a prefix, in read order) they are: the checkpoint moves past these only. */
  count: number;
}

const key = (streamId: string, version: number) => `${version}\n${streamId}`;

/**
 * `read` in read order, and for each whether its stream's previous version comes after it in read order
 * (`later`, as the reader's statement tells). Such an event waits for that version: handled right after
 * it when it is in this batch, and otherwise (beyond the read horizon or the batch's limit) left with
 * everything after it in read order for a later read, so that the checkpoint never passes an event
 * that was not handled.
 */
export function inStreamOrder(read: readonly RecordedEvent[], later: readonly boolean[]): StreamOrdered {
  // Almost every read: no stream's versions came against their order, and the read is the order.
  if (!later.includes(true)) return { events: [...read], count: read.length };
  const at = new Map<string, number>();
  read.forEach((event, i) => at.set(key(event.streamId, event.streamVersion), i));
  // The first event whose previous version is not among the events before the cut ends the batch;
  // each cut can leave an earlier event's previous version beyond it, so look again until none does.
  const previousAt = (i: number) => at.get(key(read[i].streamId, read[i].streamVersion - 1));
  let count = read.length;
  for (let i = 0; i < count; i++) {
    if (!later[i]) continue;
    const previous = previousAt(i);
    if (previous === undefined || previous >= count) {
      count = i;
      i = -1;
    }
  }
  // An event waits for its stream's previous version while that is among these and not yet handed over
  // (read after it, or read before it but waiting itself).
  const waiting = new Map<string, number>();
  const done = new Set<number>();
  const events: RecordedEvent[] = [];
  for (let i = 0; i < count; i++) {
    const previous = previousAt(i);
    if (previous !== undefined && previous < count && !done.has(previous)) {
      waiting.set(key(read[i].streamId, read[i].streamVersion - 1), i);
      continue;
    }
    // This one, then the events that waited for it, each for the one before it.
    for (let next: number | undefined = i; next !== undefined;) {
      const event = read[next];
      waiting.delete(key(event.streamId, event.streamVersion - 1));
      events.push(event);
      done.add(next);
      next = waiting.get(key(event.streamId, event.streamVersion));
    }
  }
  return { events, count };
}
