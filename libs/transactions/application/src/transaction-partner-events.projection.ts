// The partner events of a transaction's decisions (spec: Events; tie 5), published from the log in the
// command's transaction.
import { underReviewEvent } from '@mm/contracts';
import {
  publishPartnerEvents,
  type AfterDecision,
  type EventStore,
  type PartnerResource,
  type RecordedEvent,
} from '@mm/platform/event-store';
import {
  depositAddressLegEvents,
  transactionDecider,
  transactionView,
  virtualAccountLegEvents,
  type ExistingTransaction,
  type TransactionEvent,
  type TransactionState,
} from '@mm/transactions/domain';

export function publishAnnouncements(store: EventStore): AfterDecision<TransactionEvent, TransactionState> {
  return async (decision, { id }) => {
    const announcements = announce(
      id,
      decision.before,
      decision.events as unknown as Array<RecordedEvent & TransactionEvent>,
    );
    await publishPartnerEvents(store, decision.events, async (event) => announcements.get(event.eventId));
  };
}

/**
 * The partner events of one command's transaction events (spec: Events; tie 5). Every change of status or
 * sub-status is a transaction.statusChanged, and each leg of a deposit address or virtual account deposit is
 * announced by its own event, before the statusChanged it caused. Each announcement carries the transaction
 * as it stands once the command has done everything it did at that step: the events after it that announce
 * nothing (the first leg started with the transaction, the next leg started with a settlement) are part of
 * it, so it is published with the last of them, that version its `sequence`. The command's last
 * announcement is therefore exactly what a GET answers once it commits.
 */
export function announce(
  transactionId: string,
  before: TransactionState,
  events: ReadonlyArray<RecordedEvent & TransactionEvent>,
): Map<string, PartnerResource> {
  const announcements = new Map<string, PartnerResource>();
  let state = before;
  let open: { events: string[]; previousStatus: string | null } | undefined;
  let last: { eventId: string; state: ExistingTransaction } | undefined;
  const close = () => {
    if (open && last)
      announcements.set(last.eventId, {
        resourceId: transactionId,
        data: transactionView(last.state) as unknown as Record<string, unknown>,
        ...open,
      });
    open = undefined;
  };
  for (const event of events) {
    const previous = state;
    const after = transactionDecider.evolve(state, event);
    // (Every event of a stream leaves a transaction: its first is transaction.created.)
    if (after.status === 'none') continue;
    state = after;
    const names = [
      ...depositAddressLegEvents(previous, event, after),
      ...virtualAccountLegEvents(previous, event, after),
    ];
    if (previous.status === 'none' || previous.status !== after.status || previous.subStatus !== after.subStatus) {
      names.push('transaction.statusChanged');
      if (event.type === 'transaction.reviewStarted') names.push(underReviewEvent(after.record.sourceToDestination));
    }
    if (names.length > 0) {
      close();
      open = { events: names, previousStatus: previous.status === 'none' ? null : previous.status };
    }
    last = { eventId: event.eventId, state: after };
  }
  close();
  return announcements;
}
