// A deposit address's and a virtual account's page, which a transaction made from one links to: whose it is,
// its status, and where what arrives is delivered, each named and linked. A virtual account's number is
// what senders pay to; the page shows its last four only, as it shows every account number.
import { get, type Schemas } from '../api';
import { useResource } from '../hooks';
import { CustomerRef, Ref, ShortId } from '../ids';
import { label } from '../labels';
import { Loaded, Status, Time } from '../ui';

interface AnyDetails {
  holderName?: string;
  accountNumberLast4?: string;
  ibanLast4?: string;
  address?: string;
  asset?: string;
  network?: string;
}
type Destination = Pick<Schemas['DepositAddressInstrumentResponse'], 'id' | 'asset' | 'network'> & {
  type: string;
  details?: unknown;
};

/** Where an origin delivers: a bank account by last four and holder, a wallet by asset and network. */
function DestinationRef({ to, customerId }: { to: Destination; customerId: string }) {
  const d = (to.details ?? {}) as AnyDetails;
  const last4 = d.accountNumberLast4 ?? d.ibanLast4;
  const href = to.id?.startsWith('wlt_') ? `#/customers/${customerId}?wallet=${to.id}` : `#/external-accounts/${to.id}`;
  return (
    <Ref href={to.id ? href : undefined} id={to.id}>
      {label(to.type)}
      {last4 ? ` ••${last4}` : ''}
      {d.holderName ? `, ${d.holderName}` : ''}, {to.asset?.toUpperCase()} by {label(to.network)}
    </Ref>
  );
}

export function DepositAddressDetail({ id }: { id: string }) {
  const address = useResource(() => get('/v0.13/deposit-addresses/{id}', { params: { id } }), [id]);
  return (
    <section aria-labelledby="deposit-address-title">
      <h2 id="deposit-address-title">
        Deposit address <ShortId id={id} />
      </h2>
      <Loaded resource={address} label="the deposit address">
        {(a) => (
          <dl class="facts">
            <dt>Status</dt>
            <dd>
              <Status status={a.status} />
            </dd>
            <dt>Customer</dt>
            <dd>
              <CustomerRef id={a.customerId} />
            </dd>
            <dt>Receives</dt>
            <dd>
              {a.expectedSourceAsset.toUpperCase()} on {a.expectedSourceNetwork}
            </dd>
            <dt>Pays out to</dt>
            <dd>{a.destination ? <DestinationRef to={a.destination} customerId={a.customerId} /> : '—'}</dd>
            <dt>Returns to</dt>
            <dd>{a.returnDestination ? <DestinationRef to={a.returnDestination} customerId={a.customerId} /> : '—'}</dd>
            {a.label && (
              <>
                <dt>Label</dt>
                <dd>{a.label}</dd>
              </>
            )}
            <dt>Created</dt>
            <dd>
              <Time iso={a.createdAt} />
            </dd>
          </dl>
        )}
      </Loaded>
    </section>
  );
}

export function VirtualAccountDetail({ id }: { id: string }) {
  const account = useResource(() => get('/v0.13/virtual-accounts/{id}', { params: { id } }), [id]);
  return (
    <section aria-labelledby="virtual-account-title">
      <h2 id="virtual-account-title">
        Virtual account <ShortId id={id} />
      </h2>
      <Loaded resource={account} label="the virtual account">
        {(v) => (
          <dl class="facts">
            <dt>Status</dt>
            <dd>
              <Status status={v.status} />
            </dd>
            <dt>Customer</dt>
            <dd>
              <CustomerRef id={v.customerId} />
            </dd>
            <dt>Account</dt>
            <dd>
              {v.bankDetails
                ? `${v.bankDetails.bankName} ••${(v.bankDetails.accountNumber ?? '').slice(-4)}, ${v.bankDetails.accountHolderName}`
                : 'not provisioned yet'}
            </dd>
            <dt>Delivers to</dt>
            <dd>
              <DestinationRef to={v.destination} customerId={v.customerId} />
            </dd>
            {v.label && (
              <>
                <dt>Label</dt>
                <dd>{v.label}</dd>
              </>
            )}
            <dt>Created</dt>
            <dd>
              <Time iso={v.createdAt} />
            </dd>
          </dl>
        )}
      </Loaded>
    </section>
  );
}
