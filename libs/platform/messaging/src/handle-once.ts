// Consumer idempotency for transports that can deliver an event again (Kafka):
// the event id is recorded in the same transaction as the handler's effect, so
// a redelivery finds it and does nothing, and a failed attempt leaves no trace.
import type { UnitOfWork } from '@mm/platform/database';
import type { RecordedEvent } from '@mm/platform/event-store';

/** Runs fn once per (group, event); returns whether it ran this time. Joins the caller's transaction. */
export async function handleOnce(
  uow: UnitOfWork,
  group: string,
  event: Pick<RecordedEvent, 'eventId'>,
  fn: () => Promise<unknown>,
): Promise<boolean> {
  return uow.run(async () => {
    // A concurrent delivery of the same event waits here on the row lock, then finds the row.
    const inserted = await uow.query(
      `INSERT INTO platform.processed_events (consumer_group, event_id) VALUES ($1, $2)
       ON CONFLICT DO NOTHING RETURNING event_id`,
      [group, event.eventId],
    );
    if (inserted.length === 0) return false;
    await fn();
    return true;
  });
}
