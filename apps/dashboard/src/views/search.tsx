// The header's search box and its results. An id the page has a view for opens that view; a request id opens
// the request log filtered by it; any other text asks the API at once for the customers whose name or email
// holds it and the transactions with a leg whose rail reference is it (docs/dashboard.md, "Searching").
import { useEffect, useState } from 'preact/hooks';
import { get } from '../api';
import { navigate, routeQuery, useResource } from '../hooks';
import { customerName, rememberCustomers, Ref } from '../ids';
import { Empty, Loaded, Time } from '../ui';
import { TransactionTable } from './transactions';

/** Each id prefix the partner's views open (libs' id kinds), and the view's path. */
const VIEWS: Record<string, string> = {
  cst: 'customers',
  txn: 'transactions',
  qt: 'quotes',
  ext: 'external-accounts',
  ci: 'cash-ins',
  da: 'deposit-addresses',
  va: 'virtual-accounts',
  wh: 'webhooks',
  rlog: 'request-logs',
};
/** A TypeID: a prefix, then 26 characters of Crockford base32 (the platform's ids and request ids alike). */
const TYPE_ID = /^([a-z]+)_[0-9a-hjkmnp-tv-z]{26}$/;
/** The API's bounds on a customer search (GET /customers, search): shorter or longer text is refused. */
const SEARCH_MIN = 2;
const SEARCH_MAX = 200;
/** How many of each the results show: a search narrows to a few, and more is a hint to narrow it further. */
const SHOWN = 50;

/** Where a search goes: an object's own view, the request log filtered by a request id, or the results view. */
export function searchTarget(text: string): string {
  const q = text.trim();
  const id = TYPE_ID.exec(q);
  if (id && VIEWS[id[1]]) return `/${VIEWS[id[1]]}/${q}`;
  if (id && id[1] === 'req') return `/request-logs?requestId=${q}`;
  return `/search?q=${encodeURIComponent(q)}`;
}

/** The header's box: one field, its label kept for screen readers (the placeholder says what it takes). */
export function SearchBox({ route }: { route: string[] }) {
  const current = route[0] === 'search' ? (routeQuery().get('q') ?? '') : '';
  const [text, setText] = useState(current);
  // The results view's own search stays in the box; another view empties it.
  useEffect(() => setText(current), [route.join('/'), current]);
  return (
    <form
      class="global-search"
      role="search"
      aria-label="Everything"
      onSubmit={(e) => {
        e.preventDefault();
        if (text.trim()) navigate(searchTarget(text));
      }}
    >
      <label for="global-search" class="visually-hidden">
        Find by id, name, email or reference
      </label>
      <fieldset role="group">
        <input
          id="global-search"
          type="search"
          name="q"
          maxLength={SEARCH_MAX}
          placeholder="Id, name, email, tx hash, IMAD, UETR…"
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
        <button type="submit" class="secondary">
          Find
        </button>
      </fieldset>
    </form>
  );
}

/** The results of a search that is not an id: customers and transactions, each with its own loading and error. */
export function SearchResults() {
  const q = (routeQuery().get('q') ?? '').trim();
  const customers = useResource(async () => {
    if (q.length < SEARCH_MIN) return undefined;
    const page = await get('/v0.13/customers', { query: { search: q, limit: SHOWN } });
    rememberCustomers(page.data);
    return page;
  }, [q]);
  const transactions = useResource(
    async () => (q ? get('/v0.13/transactions', { query: { reference: q, limit: SHOWN } }) : undefined),
    [q],
  );
  if (!q)
    return (
      <section aria-labelledby="search-title">
        <h2 id="search-title">Search</h2>
        <Empty>Type an id, a name, an email or a rail reference in the search box.</Empty>
      </section>
    );
  return (
    <section aria-labelledby="search-title">
      <h2 id="search-title">Search</h2>
      <p>
        Customers whose name or email holds <q>{q}</q>, and transactions with a leg whose rail reference (tx hash, IMAD,
        UETR, end-to-end id, pickup code) is exactly it.
      </p>
      <h3 id="search-customers">Customers</h3>
      {q.length < SEARCH_MIN ? (
        <Empty>A name or email search takes at least {SEARCH_MIN} characters.</Empty>
      ) : (
        <Loaded resource={customers} label="customers">
          {(page) =>
            !page || page.data.length === 0 ? (
              <Empty>No customer's name or email holds this.</Empty>
            ) : (
              <>
                <div class="overflow-auto" tabIndex={0} role="region" aria-labelledby="search-customers">
                  <table class="striped cards">
                    <thead>
                      <tr>
                        <th scope="col">Customer</th>
                        <th scope="col">Email</th>
                        <th scope="col">Created</th>
                      </tr>
                    </thead>
                    <tbody>
                      {page.data.map((c) => (
                        <tr key={c.id}>
                          <td data-label="Customer">
                            <Ref href={`#/customers/${c.id}`} id={c.id}>
                              {customerName(c)}
                            </Ref>
                          </td>
                          <td data-label="Email">{c.email ?? '—'}</td>
                          <td data-label="Created">
                            <Time iso={c.createdAt} />
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
                {page.hasMore && <p class="hint">The newest {SHOWN} are shown: more match, narrow the search.</p>}
              </>
            )
          }
        </Loaded>
      )}
      <h3>Transactions</h3>
      <Loaded resource={transactions} label="transactions">
        {(page) =>
          !page || page.data.length === 0 ? (
            <Empty>No transaction has a leg with this reference.</Empty>
          ) : (
            <>
              <TransactionTable rows={page.data} />
              {page.hasMore && <p class="hint">The newest {SHOWN} are shown.</p>}
            </>
          )
        }
      </Loaded>
    </section>
  );
}
