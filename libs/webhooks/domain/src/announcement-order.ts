// The order the spec ties some events to across resources (spec: Events,
// operation to event ties, 1): a cash-in's completion emits `cashIn.completed`
// THEN `transaction.statusChanged` for the transaction it created. The two live
// in different services' logs, which the fan-out reads independently, and the
// transaction may even be committed first (it exists before the cash-in
// announces its id). So the fan-out holds a transaction's events until the event
// that announces it has been fanned out, and then releases them, in order.

/** The key of the announcement an event must follow, if it must follow one. */
export function awaitedAnnouncement(event: string, data: Record<string, unknown>): string | undefined {
  if (event !== 'transaction.statusChanged') return undefined;
  const precursor = data.precursor as { type?: unknown; id?: unknown } | null | undefined;
  return precursor?.type === 'cashIn' && typeof precursor.id === 'string' ? `cashIn:${precursor.id}` : undefined;
}

/** The key of the announcement an event makes, if it makes one. */
export function announcementOf(event: string, resourceId: string | null): string | undefined {
  return event === 'cashIn.completed' && resourceId ? `cashIn:${resourceId}` : undefined;
}
