// Live pages: one poll for the whole page. A partner's newest event (GET /events?limit=1) is read every
// LIVE_POLL_MS; when it changes, every view on screen reads its data again, so a transfer is seen moving
// without reloading. The operator has no Events API (events belong to a project): the operator's views read
// again every OPERATOR_POLL_MS. Views whose data changes without an event poll on their own (hooks.ts). Nothing is polled while the tab is hidden.
import { useEffect, useState } from 'preact/hooks';
import { get } from './api';
import { currentSession } from './session';

export const LIVE_POLL_MS = 1_500;
export const OPERATOR_POLL_MS = 4_000;

let version = 0;
let newest: string | undefined;
let lastOperatorTick = 0;
const listeners = new Set<() => void>();

/** Every view reads its data again (after an action of this page, or an event). */
export function refreshAll(): void {
  version += 1;
  for (const listener of listeners) listener();
}

async function poll(): Promise<void> {
  const session = currentSession();
  if (!session || document.visibilityState === 'hidden') return;
  if (session.kind === 'operator') {
    if (Date.now() - lastOperatorTick >= OPERATOR_POLL_MS) {
      lastOperatorTick = Date.now();
      refreshAll();
    }
    return;
  }
  try {
    const page = await get('/v0.13/events', { query: { limit: 1 } });
    const id = page.data[0]?.id;
    if (id !== newest) {
      newest = id;
      refreshAll();
    }
  } catch {
    // The views say what is wrong when they read; the poll tries again.
  }
}

let timer: ReturnType<typeof setInterval> | undefined;
export function startLive(): void {
  timer ??= setInterval(() => void poll(), LIVE_POLL_MS);
}

/** The live version: a view's data is read again whenever it changes. */
export function useLiveVersion(): number {
  const [, setTick] = useState(0);
  useEffect(() => {
    const listener = () => setTick((t) => t + 1);
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return version;
}
