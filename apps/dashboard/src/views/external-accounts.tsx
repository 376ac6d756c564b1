// External accounts: a customer's bank accounts, cards and external wallets (the API lists them per
// customer, so a picker of the project's customers chooses whose), each as a card saying what it is: type,
// last four, holder, rails, status. The API masks numbers itself; the page shows only the last four it sends.
import { get, post, type Schemas } from '../api';
import { navigate, routeQuery, useAction, useResource } from '../hooks';
import { customerName, Ref, rememberCustomers, ShortId } from '../ids';
import { label } from '../labels';
import { Empty, Loaded, ProblemNote, Status, Time } from '../ui';

type Account = Schemas['ExternalAccountResponse'];

interface AnyAccountDetails {
  holderName?: string;
  bankName?: string | null;
  accountNumberLast4?: string;
  ibanLast4?: string;
  last4?: string;
  brand?: string;
  expiryMonth?: number;
  expiryYear?: number;
  address?: string;
  asset?: string;
  network?: string;
  countryCode?: string;
}

/** "US bank account ••9012", "Visa ••4242", "External wallet 0x52…9ee7": what the account is, in a few words. */
export function accountTitle(a: Pick<Account, 'type' | 'details'>): string {
  const d = a.details as AnyAccountDetails;
  switch (a.type) {
    case 'card':
      return `${d.brand ? d.brand.charAt(0).toUpperCase() + d.brand.slice(1) : 'Card'} ••${d.last4}`;
    case 'walletExternal':
      return `${label(a.type)} ${d.address ? `${d.address.slice(0, 6)}…${d.address.slice(-4)}` : ''}`;
    default:
      return `${label(a.type)} ••${d.accountNumberLast4 ?? d.ibanLast4 ?? d.last4 ?? '????'}`;
  }
}

export function AccountCard({ account: a, onInvalidate }: { account: Account; onInvalidate?: () => void }) {
  const d = a.details as AnyAccountDetails;
  const rails = a.supportedDestinations.map((s) => label(s.network)).join(', ');
  return (
    <article class="account" aria-label={accountTitle(a)}>
      <header>
        <a href={`#/external-accounts/${a.id}`}>{accountTitle(a)}</a> <ShortId id={a.id} />{' '}
        <Status status={a.status} sub={a.failure?.code} />
      </header>
      <dl class="facts">
        <dt>Type</dt>
        <dd title={a.type}>{label(a.type)}</dd>
        {d.holderName && (
          <>
            <dt>Holder</dt>
            <dd>{d.holderName}</dd>
          </>
        )}
        {d.bankName && (
          <>
            <dt>Bank</dt>
            <dd>{d.bankName}</dd>
          </>
        )}
        {d.asset && d.network && (
          <>
            <dt>Asset</dt>
            <dd>
              {d.asset.toUpperCase()} on {d.network}
            </dd>
          </>
        )}
        {d.expiryMonth && (
          <>
            <dt>Expires</dt>
            <dd>
              {String(d.expiryMonth).padStart(2, '0')}/{d.expiryYear}
            </dd>
          </>
        )}
        <dt>Rails</dt>
        <dd>{rails || '—'}</dd>
        <dt>Customer</dt>
        <dd>
          <Ref href={`#/customers/${a.customer.id}`} id={a.customer.id}>
            {a.customer.name}
          </Ref>
        </dd>
        {a.owner && (
          <>
            <dt>Owner</dt>
            <dd>
              {a.owner.name} <ShortId id={a.owner.id} />
            </dd>
          </>
        )}
        {a.label && (
          <>
            <dt>Label</dt>
            <dd>{a.label}</dd>
          </>
        )}
        {a.failure && (
          <>
            <dt>Failure</dt>
            <dd>
              <span title={a.failure.code}>{label(a.failure.code)}</span>: {a.failure.message}
            </dd>
          </>
        )}
        <dt>Created</dt>
        <dd>
          <Time iso={a.createdAt} />
        </dd>
      </dl>
      {onInvalidate && a.status !== 'invalid' && (
        <button
          type="button"
          class="secondary outline"
          onClick={onInvalidate}
          aria-label={`Invalidate (sandbox) ${accountTitle(a)}`}
          title="Simulate the provider reporting the account unusable"
        >
          Invalidate (sandbox)
        </button>
      )}
    </article>
  );
}

export function ExternalAccounts() {
  const customerId = routeQuery().get('customerId') ?? '';
  const customers = useResource(async () => {
    const page = await get('/v0.13/customers', { query: { limit: 100 } });
    rememberCustomers(page.data);
    return page.data;
  }, []);
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
      <Loaded resource={customers} label="customers">
        {(all) => (
          <label>
            Customer (accounts are listed per customer)
            <select
              name="customerId"
              value={customerId}
              onChange={(e) => navigate(`/external-accounts?customerId=${encodeURIComponent(e.currentTarget.value)}`)}
            >
              <option value="">choose a customer</option>
              {customerId && !all.some((c) => c.id === customerId) && <option value={customerId}>this customer</option>}
              {all.map((c) => (
                <option key={c.id} value={c.id}>
                  {customerName(c)} ({c.id.slice(-4)})
                </option>
              ))}
            </select>
          </label>
        )}
      </Loaded>
      {invalidate.error && <ProblemNote problem={invalidate.error} />}
      {!customerId ? (
        <Empty>Choose a customer to see their accounts.</Empty>
      ) : (
        <Loaded resource={list} label="external accounts">
          {(page) =>
            !page || page.data.length === 0 ? (
              <Empty>This customer has no external account.</Empty>
            ) : (
              <ul class="queue">
                {page.data.map((a) => (
                  <li key={a.id}>
                    <AccountCard account={a} onInvalidate={() => void invalidate.act(a.id)} />
                  </li>
                ))}
              </ul>
            )
          }
        </Loaded>
      )}
    </section>
  );
}

export function ExternalAccountDetail({ id }: { id: string }) {
  const account = useResource(() => get('/v0.13/external-accounts/{id}', { params: { id } }), [id]);
  return (
    <section aria-labelledby="external-account-title">
      <h2 id="external-account-title">
        External account <ShortId id={id} />
      </h2>
      <Loaded resource={account} label="the external account">
        {(a) => (
          <>
            <AccountCard account={a} />
            <p>
              <a href={`#/external-accounts?customerId=${a.customer.id}`}>The customer's other accounts</a>
            </p>
          </>
        )}
      </Loaded>
    </section>
  );
}
