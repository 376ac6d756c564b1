// What the webhook views share: why an endpoint sends nothing (suspended by the service or disabled by the partner)
// with its Enable in place, and the phone width at which lists read as cards.
import { useEffect, useState } from 'preact/hooks';
import type { ApiProblem } from '../api';

/** The width below which the app's stylesheet lays out for a phone (its own media query). */
const NARROW = '(max-width: 576px)';

/** Whether the page is phone-narrow now, following the window as it is resized. */
export function useNarrow(): boolean {
  const [narrow, setNarrow] = useState(() => matchMedia(NARROW).matches);
  useEffect(() => {
    const query = matchMedia(NARROW);
    const changed = () => setNarrow(query.matches);
    query.addEventListener('change', changed);
    return () => query.removeEventListener('change', changed);
  }, []);
  return narrow;
}

/** A test send, retry or resend refused because the endpoint is not enabled (409 WebhookNotEnabled). */
export function isNotEnabled(problem: ApiProblem | undefined): boolean {
  return problem?.error === 'WebhookNotEnabled';
}

const WHY: Record<string, { title: string; text: string }> = {
  // docs/webhooks.md, Retries, health and suspension.
  suspended: {
    title: 'Suspended: every attempt failed for about three days',
    text:
      'The service suspended this endpoint after its deliveries kept failing. While it is suspended nothing is sent: ' +
      'new events are recorded as skipped, and queued retries wait. Once your receiver answers again, enable it; ' +
      'then use “Retry every skipped” to send what it missed.',
  },
  disabled: {
    title: 'Disabled',
    text: 'This endpoint was disabled: nothing is sent to it and no delivery is recorded for its events until it is enabled.',
  },
};

/**
 * Why the endpoint sends nothing, with its Enable. `refused`: shown because a request was refused for it, as an
 * alert, instead of the refusal's raw words.
 */
export function EndpointNotEnabled({
  status,
  busy,
  refused = false,
  onEnable,
}: {
  status: string;
  busy: boolean;
  refused?: boolean;
  onEnable: () => void;
}) {
  const why = WHY[status] ?? {
    title: 'Not enabled',
    text: 'This endpoint is not enabled, so nothing is sent to it until it is enabled again.',
  };
  return (
    <div class="problem" role={refused ? 'alert' : 'note'} aria-label="Why this endpoint sends nothing">
      <strong>
        {refused ? `Not sent: the endpoint is ${status === 'enabled' ? 'not enabled' : status}` : why.title}
      </strong>
      <p>{why.text}</p>
      <button type="button" disabled={busy} aria-busy={busy} onClick={onEnable}>
        Enable
      </button>
    </div>
  );
}
