// Customers (search by id or name), a customer's wallets and balances; quotes by id; cash-ins; a
// customer's external accounts, as masked as the API answers them.
import { useState } from 'preact/hooks';
import { ApiProblem, get, post, type Schemas } from '../api';
import { navigate, routeQuery, useAction, useResource } from '../hooks';
import { Amount, Empty, IdLink, Loaded, Pager, ProblemNote, Status, Time } from '../ui';

type Customer = Schemas['CustomerResponse'];
const name = (c: Customer) => [c.firstName, c.lastName].filter(Boolean).join(' ') || '(no name)';

export function CustomersList() {
  const search = routeQuery().get('q') ?? '';
  const cursor = routeQuery().get('cursor') ?? '';
  const [text, setText] = useState(search);
  const byId = /^cst_/.test(search.trim());
  const list = useResource(async () => {
    if (byId) {
      try {
        return {
          customers: [await get('/v0.13/customers/{id}', { params: { id: search.trim() } })],
          page: { hasMore: false },
        };
      } catch (error) {
        if (error instanceof ApiProblem && error.status === 404) return { customers: [], page: { hasMore: false } };
        throw error;
      }
    }
    const page = await get('/v0.13/customers', { query: { limit: 100, cursor: cursor || undefined } });
    const words = search.trim().toLowerCase();
    return {
      customers: page.data.filter((c) => !words || name(c).toLowerCase().includes(words) || c.id.includes(words)),
      page,
    };
  }, [search, cursor]);
  return (
    <section aria-labelledby="customers-title">
      <h2 id="customers-title">Customers</h2>
      <form
        role="search"
        aria-label="Search customers"
        onSubmit={(e) => {
          e.preventDefault();
          navigate(`/customers${text.trim() ? `?q=${encodeURIComponent(text.trim())}` : ''}`);
        }}
      >
        <label for="customer-search">Customer id or name</label>
        <fieldset role="group">
          <input
            id="customer-search"
            type="search"
            name="q"
            placeholder="cst_… or a name"
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
          />
          <button type="submit">Search</button>
        </fieldset>
      </form>
      <Loaded resource={list} label="customers">
        {({ customers, page }) =>
          customers.length === 0 ? (
            <>
              <Empty>No customer matches.</Empty>
              <Pager page={page} />
            </>
          ) : (
            <>
              <div class="overflow-auto" tabIndex={0} role="region" aria-label="Table (scrolls sideways when narrow)">
                <table class="striped">
                  <thead>
                    <tr>
                      <th scope="col">Customer</th>
                      <th scope="col">Name</th>
                      <th scope="col">Type</th>
                      <th scope="col">Endorsements</th>
                      <th scope="col">Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {customers.map((c) => (
                      <tr key={c.id}>
                        <td>
                          <IdLink id={c.id} href={`#/customers/${c.id}`} />
                        </td>
                        <td>{name(c)}</td>
                        <td>{c.type}</td>
                        <td>{c.endorsements.map((e) => `${e.name}: ${e.status}`).join(', ') || '—'}</td>
                        <td>
                          <Time iso={c.createdAt} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager page={page} />
            </>
          )
        }
      </Loaded>
    </section>
  );
}

export function CustomerDetail({ id }: { id: string }) {
  const customer = useResource(() => get('/v0.13/customers/{id}', { params: { id } }), [id]);
  const balance = useResource(() => get('/v0.13/customers/{id}/balance', { params: { id } }), [id]);
  const wallets = useResource(async () => {
    const page = await get('/v0.13/wallets', { query: { customerId: id, limit: 100 } });
    return Promise.all(
      page.data.map(async (w) => ({
        wallet: w,
        balance: await get('/v0.13/wallets/{id}/balance', { params: { id: w.id } }).then(
          (b) => b.data,
          (e: ApiProblem) => e,
        ),
      })),
    );
  }, [id]);
  return (
    <section aria-labelledby="customer-title">
      <h2 id="customer-title">
        Customer <code>{id}</code>
      </h2>
      <Loaded resource={customer} label="the customer">
        {(c) => (
          <dl class="facts">
            <dt>Name</dt>
            <dd>{name(c)}</dd>
            <dt>Type</dt>
            <dd>{c.type}</dd>
            <dt>Email</dt>
            <dd>{c.email ?? '—'}</dd>
            <dt>Endorsements</dt>
            <dd>{c.endorsements.map((e) => `${e.name}: ${e.status}`).join(', ') || '—'}</dd>
            <dt>Created</dt>
            <dd>
              <Time iso={c.createdAt} />
            </dd>
          </dl>
        )}
      </Loaded>
      <p>
        <a href={`#/transactions?customerId=${id}`}>Their transactions</a> ·{' '}
        <a href={`#/external-accounts?customerId=${id}`}>Their external accounts</a>
      </p>
      <h3>Balance</h3>
      <Loaded resource={balance} label="the balance">
        {(b) => (
          <p>
            Estimated <Amount amount={b.data.estimatedBalanceValue} asset={b.data.estimatedBalanceCurrencyCode} />
          </p>
        )}
      </Loaded>
      <h3>Wallets</h3>
      <Loaded resource={wallets} label="wallets">
        {(rows) =>
          rows.length === 0 ? (
            <Empty>No wallet yet.</Empty>
          ) : (
            <div class="overflow-auto" tabIndex={0} role="region" aria-label="Table (scrolls sideways when narrow)">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Wallet</th>
                    <th scope="col">Asset</th>
                    <th scope="col">Address</th>
                    <th scope="col">Balance</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map(({ wallet, balance: b }) => (
                    <tr key={wallet.id}>
                      <td>
                        <code>{wallet.id}</code>
                      </td>
                      <td>
                        {wallet.asset.toUpperCase()} on {wallet.network}
                      </td>
                      <td>
                        <code>{wallet.address}</code>
                      </td>
                      <td>
                        {b instanceof ApiProblem ? (
                          <small role="alert">{b.message}</small>
                        ) : (
                          <Amount amount={b.balance} asset={b.asset} />
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loaded>
    </section>
  );
}

export function QuoteLookup({ id }: { id?: string }) {
  const [text, setText] = useState(id ?? '');
  const quote = useResource(
    () => (id ? get('/v0.13/quotes/{id}', { params: { id } }) : Promise.resolve(undefined)),
    [id],
  );
  return (
    <section aria-labelledby="quotes-title">
      <h2 id="quotes-title">Quotes</h2>
      <form
        role="search"
        aria-label="Find a quote"
        onSubmit={(e) => {
          e.preventDefault();
          navigate(`/quotes/${encodeURIComponent(text.trim())}`);
        }}
      >
        <label for="quote-id">Quote id (quotes are read by id: a transaction names its quote)</label>
        <fieldset role="group">
          <input
            id="quote-id"
            name="id"
            placeholder="qt_…"
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
            required
          />
          <button type="submit">Open</button>
        </fieldset>
      </form>
      {id && (
        <Loaded resource={quote} label="the quote">
          {(q) =>
            q && (
              <dl class="facts">
                <dt>Status</dt>
                <dd>
                  <Status status={q.status} />
                </dd>
                <dt>Kind</dt>
                <dd>{q.sourceToDestination}</dd>
                <dt>Customer</dt>
                <dd>
                  <IdLink id={q.customerId} href={`#/customers/${q.customerId}`} />
                </dd>
                <dt>Source</dt>
                <dd>
                  <Amount amount={q.pricing.source.amountGross} asset={q.pricing.source.asset} /> ({q.source.type})
                </dd>
                <dt>Destination</dt>
                <dd>
                  <Amount amount={q.pricing.destination.amountNet} asset={q.pricing.destination.asset} /> (
                  {q.destination.type})
                </dd>
                <dt>Fees</dt>
                <dd>
                  <Amount amount={q.pricing.source.feesDeducted.total} asset={q.pricing.source.asset} />
                </dd>
                <dt>Rate</dt>
                <dd>
                  {q.pricing.exchangeRate} ({q.pricing.pair})
                </dd>
                <dt>Expires</dt>
                <dd>
                  <Time iso={q.expiresAt} />
                </dd>
                <dt>Transaction</dt>
                <dd>
                  {q.transactionId ? <IdLink id={q.transactionId} href={`#/transactions/${q.transactionId}`} /> : '—'}
                </dd>
              </dl>
            )
          }
        </Loaded>
      )}
    </section>
  );
}

export function CashIns() {
  const cursor = routeQuery().get('cursor') ?? '';
  const list = useResource(
    () => get('/v0.13/cash-ins', { query: { limit: 100, cursor: cursor || undefined } }),
    [cursor],
  );
  return (
    <section aria-labelledby="cash-ins-title">
      <h2 id="cash-ins-title">Cash-ins</h2>
      <Loaded resource={list} label="cash-ins">
        {(page) =>
          page.data.length === 0 ? (
            <Empty>No cash-in yet.</Empty>
          ) : (
            <>
              <div class="overflow-auto" tabIndex={0} role="region" aria-label="Table (scrolls sideways when narrow)">
                <table class="striped">
                  <thead>
                    <tr>
                      <th scope="col">Cash-in</th>
                      <th scope="col">Status</th>
                      <th scope="col">Indicated</th>
                      <th scope="col">Customer</th>
                      <th scope="col">Transaction</th>
                      <th scope="col">Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.data.map((c) => (
                      <tr key={c.id}>
                        <td>
                          <code>{c.id}</code>
                        </td>
                        <td>
                          <Status status={c.status} sub={c.subStatus} />
                        </td>
                        <td>
                          <Amount amount={c.source.indicatedAmount} asset={c.source.asset} />
                        </td>
                        <td>
                          <IdLink id={c.customerId} href={`#/customers/${c.customerId}`} />
                        </td>
                        <td>
                          {c.transactionId ? (
                            <IdLink id={c.transactionId} href={`#/transactions/${c.transactionId}`} />
                          ) : (
                            '—'
                          )}
                        </td>
                        <td>
                          <Time iso={c.createdAt} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager page={page} />
            </>
          )
        }
      </Loaded>
    </section>
  );
}

/** What the API shows of an account's details (it masks numbers itself), one "name: value" per field. */
function describeDetails(details: unknown): string {
  if (!details || typeof details !== 'object') return '—';
  return Object.entries(details as Record<string, unknown>)
    .filter(([, v]) => v !== null && v !== undefined && typeof v !== 'object')
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join(', ');
}

export function ExternalAccounts() {
  const customerId = routeQuery().get('customerId') ?? '';
  const [text, setText] = useState(customerId);
  const list = useResource(
    () =>
      customerId ? get('/v0.13/external-accounts', { query: { customerId, limit: 100 } }) : Promise.resolve(undefined),
    [customerId],
  );
  const invalidate = useAction((id: string) =>
    post('/v0.13/external-accounts/{id}/simulate/invalidate', { params: { id }, body: {} }),
  );
  return (
    <section aria-labelledby="external-accounts-title">
      <h2 id="external-accounts-title">External accounts</h2>
      <form
        aria-label="Choose a customer"
        onSubmit={(e) => {
          e.preventDefault();
          navigate(`/external-accounts?customerId=${encodeURIComponent(text.trim())}`);
        }}
      >
        <label for="accounts-customer">Customer id (accounts are listed per customer)</label>
        <fieldset role="group">
          <input
            id="accounts-customer"
            name="customerId"
            placeholder="cst_…"
            required
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
          />
          <button type="submit">Show</button>
        </fieldset>
      </form>
      {invalidate.error && <ProblemNote problem={invalidate.error} />}
      {customerId && (
        <Loaded resource={list} label="external accounts">
          {(page) =>
            !page || page.data.length === 0 ? (
              <Empty>No external account.</Empty>
            ) : (
              <div class="overflow-auto" tabIndex={0} role="region" aria-label="Table (scrolls sideways when narrow)">
                <table class="striped">
                  <thead>
                    <tr>
                      <th scope="col">Account</th>
                      <th scope="col">Type</th>
                      <th scope="col">Status</th>
                      <th scope="col">Details (masked)</th>
                      <th scope="col">Label</th>
                      <th scope="col">Sandbox</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.data.map((a) => (
                      <tr key={a.id}>
                        <td>
                          <code>{a.id}</code>
                        </td>
                        <td>{a.type}</td>
                        <td>
                          <Status status={a.status} sub={a.failure?.code} />
                        </td>
                        <td>{describeDetails(a.details)}</td>
                        <td>{a.label ?? '—'}</td>
                        <td>
                          <button
                            type="button"
                            class="secondary outline"
                            disabled={invalidate.busy}
                            onClick={() => void invalidate.act(a.id)}
                            aria-label={`Simulate the provider invalidating ${a.id}`}
                          >
                            Invalidate
                          </button>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )
          }
        </Loaded>
      )}
    </section>
  );
}
