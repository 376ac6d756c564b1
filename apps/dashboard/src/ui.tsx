// The pieces every view shares: loading and error states, amounts, times, statuses, and actions that ask
// for a reason and show the API's refusal.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { ApiProblem } from './api';
import { formatAmount, formatLocalTime, formatUtc } from './format';
import { routeQuery, type Resource } from './hooks';
import { label } from './labels';

export function ProblemNote({ problem, title = 'The request was refused' }: { problem: ApiProblem; title?: string }) {
  return (
    <div role="alert" class="problem">
      <strong>{title}</strong>
      <p>
        {problem.status ? `${problem.status} ` : ''}
        <code>{problem.error}</code>
        {problem.code ? ` (${problem.code})` : ''}: {problem.cause}
      </p>
      {problem.requestId && <small>Request id: {problem.requestId}</small>}
    </div>
  );
}

/** A resource's three states: reading (first time), refused, or its data (kept on screen while it reads again). */
export function Loaded<T>({
  resource,
  label,
  children,
}: {
  resource: Resource<T>;
  label: string;
  children: (data: T) => ComponentChildren;
}) {
  if (resource.data !== undefined) {
    return (
      <>
        {resource.error && <ProblemNote problem={resource.error} title={`Could not refresh ${label}`} />}
        {children(resource.data)}
      </>
    );
  }
  if (resource.error) return <ProblemNote problem={resource.error} title={`Could not load ${label}`} />;
  return (
    <p aria-busy="true" role="status">
      Loading {label}…
    </p>
  );
}

export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span>—</span>;
  return (
    <time dateTime={iso} title={formatUtc(iso)}>
      {formatLocalTime(iso)}
    </time>
  );
}

export function Amount({ amount, asset }: { amount: string | null | undefined; asset?: string | null }) {
  return <span class="amount">{formatAmount(amount, asset)}</span>;
}

/** A status in words (the raw value on hover, and in data-status for tests and styles). */
export function Status({ status, sub }: { status: string; sub?: string | null }) {
  return (
    <span class={`status status-${status}`} data-status={status} data-sub-status={sub ?? undefined}>
      <span title={status}>{label(status)}</span>
      {sub ? <small title={sub}> ({label(sub)})</small> : null}
    </span>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** An id that links to its page. */
export function IdLink({ id, href }: { id: string; href: string }) {
  return (
    <a href={href}>
      <code>{id}</code>
    </a>
  );
}

/**
 * A button whose action needs a reason (the operator's): it opens a small form asking for one, then
 * shows what the API answered or why it refused.
 */
export function ReasonAction({
  label,
  onConfirm,
  required = false,
}: {
  label: string;
  onConfirm: (reason: string) => Promise<string>;
  required?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string; problem?: ApiProblem }>();
  if (!open) {
    return (
      <span>
        <button type="button" class="secondary outline" onClick={() => (setOpen(true), setOutcome(undefined))}>
          {label}
        </button>
        {outcome &&
          (outcome.problem ? <ProblemNote problem={outcome.problem} /> : <span role="status"> {outcome.text}</span>)}
      </span>
    );
  }
  const id = `reason-${label.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <form
      class="reason"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        try {
          const text = await onConfirm(reason.trim());
          setOutcome({ ok: true, text });
          setOpen(false);
        } catch (error) {
          setOutcome({ ok: false, text: '', problem: error as ApiProblem });
        } finally {
          setBusy(false);
        }
      }}
    >
      <label for={id}>Reason for “{label}”</label>
      <input
        id={id}
        name="reason"
        value={reason}
        required={required}
        placeholder="why (kept with the action)"
        onInput={(e) => setReason(e.currentTarget.value)}
      />
      <div role="group">
        <button type="submit" aria-busy={busy} disabled={busy}>
          Confirm {label.toLowerCase()}
        </button>
        <button type="button" class="secondary" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
      {outcome?.problem && <ProblemNote problem={outcome.problem} />}
    </form>
  );
}

/** A secret shown once (a new API secret, a webhook signing key): the page keeps no copy after it closes. */
export function ShownOnce({ label, value, onDone }: { label: string; value: string; onDone: () => void }) {
  return (
    <article class="shown-once" aria-label={label}>
      <p>
        <strong>{label}</strong>: shown this once, keep it now.
      </p>
      <pre tabIndex={0} aria-label={label}>
        <code>{value}</code>
      </pre>
      <button type="button" onClick={onDone}>
        I have kept it
      </button>
    </article>
  );
}

/** Older and newest pages of a cursor list: the cursor travels in the address, beside the view's filters. */
export function Pager({ page }: { page: { hasMore: boolean; nextCursor?: string | null } }) {
  const query = routeQuery();
  const cursor = query.get('cursor');
  if (!page.hasMore && !cursor) return null;
  const base = location.hash.split('?')[0] || '#/';
  const at = (next?: string | null) => {
    const q = new URLSearchParams(query);
    if (next) q.set('cursor', next);
    else q.delete('cursor');
    const text = q.toString();
    return `${base}${text ? `?${text}` : ''}`;
  };
  return (
    <nav aria-label="Pages" class="pager">
      {cursor && <a href={at()}>Newest</a>}
      {page.hasMore && page.nextCursor && <a href={at(page.nextCursor)}>Older</a>}
    </nav>
  );
}

/** Whether the page is wider than a phone (app.css's breakpoint), following the window as it changes. */
export function useWide(): boolean {
  const query = '(min-width: 577px)';
  const [wide, setWide] = useState(() => matchMedia(query).matches);
  useEffect(() => {
    const list = matchMedia(query);
    const listener = () => setWide(list.matches);
    list.addEventListener('change', listener);
    return () => list.removeEventListener('change', listener);
  }, []);
  return wide;
}

/** A list's filters: open on a wide screen, folded under "Filters" on a phone unless some are applied. */
export function Filters({ applied, children }: { applied: boolean; children: ComponentChildren }) {
  const wide = useWide();
  return (
    <details class="filters-box" open={wide || applied}>
      <summary>Filters{applied ? ' (applied)' : ''}</summary>
      {children}
    </details>
  );
}
