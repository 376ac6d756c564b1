// Customers (search by id or name), each by name with a short id; a customer's page with their wallets
// and balances (a transaction's wallet links here, the wallet marked).
import { useState } from 'preact/hooks';
import { ApiProblem, get, type Schemas } from '../api';
import { navigate, routeQuery, useResource } from '../hooks';
import { customerName as name, Label, Ref, rememberCustomers, ShortId } from '../ids';
import { label } from '../labels';
import { Amount, Empty, Loaded, Pager, Time } from '../ui';

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
    rememberCustomers(page.data);
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
              <div class="overflow-auto" tabIndex={0} role="region" aria-label="Customers">
                <table class="striped cards">
                  <thead>
                    <tr>
                      <th scope="col">Customer</th>
                      <th scope="col">Type</th>
                      <th scope="col">Endorsements</th>
                      <th scope="col">Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {customers.map((c) => (
                      <tr key={c.id}>
                        <td data-label="Customer">
                          <Ref href={`#/customers/${c.id}`} id={c.id}>
                            {name(c)}
                          </Ref>
                        </td>
                        <td data-label="Type">
                          <Label value={c.type} />
                        </td>
                        <td data-label="Endorsements">{endorsements(c)}</td>
                        <td data-label="Created">
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

function endorsements(c: Schemas['CustomerResponse']): string {
  return c.endorsements.map((e) => `${e.name}: ${label(e.status).toLowerCase()}`).join(', ') || '—';
}

export function CustomerDetail({ id }: { id: string }) {
  const marked = routeQuery().get('wallet');
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
        {customer.data ? name(customer.data) : 'Customer'} <ShortId id={id} />
      </h2>
      <Loaded resource={customer} label="the customer">
        {(c) => (
          <dl class="facts">
            <dt>Name</dt>
            <dd>{name(c)}</dd>
            <dt>Type</dt>
            <dd>
              <Label value={c.type} />
            </dd>
            <dt>Email</dt>
            <dd>{c.email ?? '—'}</dd>
            <dt>Endorsements</dt>
            <dd>{endorsements(c)}</dd>
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
            <div class="overflow-auto" tabIndex={0} role="region" aria-label="Wallets">
              <table class="cards">
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
                    <tr key={wallet.id} aria-current={wallet.id === marked ? 'true' : undefined}>
                      <td data-label="Wallet">
                        <ShortId id={wallet.id} />
                      </td>
                      <td data-label="Asset">
                        {wallet.asset.toUpperCase()} on {wallet.network}
                      </td>
                      <td data-label="Address">
                        <code>{wallet.address}</code>
                      </td>
                      <td data-label="Balance">
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
