// Ids as people read them: shortened ("cst_…abcd") with the whole id on hover and in a copy button, and the
// objects a page mentions named and linked (a customer by name, an account by what it is). Names the page does
// not have are read through the partner API, once per id for the whole page (a cache shared by every view).
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiProblem, get, type Schemas } from './api';
import { label, shortId } from './labels';
import { currentSession } from './session';

/** Copies a value (an id, a raw status) to the clipboard; says so for a moment. */
export function CopyButton({ value, what = 'id' }: { value: string; what?: string }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    // How long "copied" shows: a message's lifetime, not a wait on anything.
    const timer = setTimeout(() => setCopied(false), 1500);
    return () => clearTimeout(timer);
  }, [copied]);
  return (
    <button
      type="button"
      class="copy"
      aria-label={`Copy ${what} ${value}`}
      title={`Copy ${value}`}
      onClick={() =>
        void navigator.clipboard?.writeText(value).then(
          () => setCopied(true),
          () => undefined,
        )
      }
    >
      <svg aria-hidden="true" width="12" height="12" viewBox="0 0 16 16" fill="none" stroke="currentColor">
        {copied ? <path d="M3 8l3 3 7-7" stroke-width="2" /> : <rect x="2" y="2" width="9" height="9" rx="1" />}
        {!copied && <path d="M5 14h8a1 1 0 0 0 1-1V5" stroke-width="1.5" />}
      </svg>
      {copied && (
        <span class="visually-hidden" role="status">
          Copied
        </span>
      )}
    </button>
  );
}

/** A short id, the whole one on hover and copied by its button. */
export function ShortId({ id }: { id: string }) {
  return (
    <span class="short-id">
      <code title={id}>{shortId(id)}</code>
      <CopyButton value={id} />
    </span>
  );
}

/** An object's name linking to its page, then its short id with copy. */
export function Ref({ href, id, children }: { href?: string; id?: string | null; children: ComponentChildren }) {
  return (
    <span class="ref">
      {href ? <a href={href}>{children}</a> : <span>{children}</span>}
      {id ? (
        <>
          {' '}
          <ShortId id={id} />
        </>
      ) : null}
    </span>
  );
}

/** An API value in words, the raw value on hover and in a copy button. */
export function Label({ value, copy = false }: { value: string | null | undefined; copy?: boolean }) {
  if (!value) return <span>—</span>;
  return (
    <span class="label">
      <span title={value}>{label(value)}</span>
      {copy && <CopyButton value={value} what="value" />}
    </span>
  );
}

type Customer = Schemas['CustomerResponse'];
export const customerName = (c: Pick<Customer, 'firstName' | 'lastName'>) =>
  [c.firstName, c.lastName].filter(Boolean).join(' ') || '(no name)';

const customers = new Map<string, Promise<string | null>>();
/** The names read so far, so that a view opened again shows them at once rather than after a moment. */
const known = new Map<string, string>();

/** Remembers customers a list has read already, so that their names need no request of their own. */
export function rememberCustomers(list: Customer[]): void {
  for (const c of list) {
    known.set(c.id, customerName(c));
    customers.set(c.id, Promise.resolve(customerName(c)));
  }
}

/** A customer's name, read once per id for the page (an operator's through the operator route); null while unknown. */
export function useCustomerName(id: string | null | undefined): string | null {
  const [name, setName] = useState<string | null>(() => (id ? (known.get(id) ?? null) : null));
  useEffect(() => {
    setName(id ? (known.get(id) ?? null) : null);
    const session = currentSession();
    if (!id || !session) return;
    let read = customers.get(id);
    if (!read) {
      const customer =
        session.kind === 'partner'
          ? get('/v0.13/customers/{id}', { params: { id } })
          : get('/v0.13/admin/customers/{customerId}', { params: { customerId: id } });
      read = customer.then(
        (c) => {
          known.set(id, customerName(c));
          return customerName(c);
        },
        (e: unknown) => {
          // Not found now may be found later (a read model catching up): forget it, so a later view asks again.
          customers.delete(id);
          if (e instanceof ApiProblem) return null;
          throw e;
        },
      );
      customers.set(id, read);
    }
    let live = true;
    void read.then((n) => live && setName(n));
    return () => void (live = false);
  }, [id]);
  return name;
}

/** A customer by name, linking to their page (an operator has none to link to), with their short id. */
export function CustomerRef({ id }: { id: string }) {
  const name = useCustomerName(id);
  return (
    <Ref href={currentSession()?.kind === 'partner' ? `#/customers/${id}` : undefined} id={id}>
      {name ?? 'Customer'}
    </Ref>
  );
}
