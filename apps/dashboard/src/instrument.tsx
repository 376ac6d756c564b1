// Where money came from and went, in words: a wallet by its asset and network, a bank account by its last
// four, holder and rail, a card by brand and last four, a cash location by name, a virtual account by the
// rail and sender; each linked to the object's page. Numbers are only ever the last four the API returns.
import type { Schemas } from './api';
import { Ref, ShortId } from './ids';
import { label } from './labels';

type Side = Schemas['InstrumentSideResponse'];
type Transaction = Schemas['TransactionResponse'];

/** Loose reading of a side's details: which fields exist depends on the side's type (the schema's oneOf). */
interface AnyDetails {
  id?: string;
  externalAccountId?: string;
  walletId?: string;
  asset?: string;
  network?: string;
  address?: string;
  last4?: string;
  brand?: string;
  accountHolder?: string;
  locationName?: string;
  locationProvider?: string;
  locationReference?: string;
  cashLocationReference?: string;
  senderName?: string;
}

const asset = (d: AnyDetails) => (d.asset ? d.asset.toUpperCase() : '');
const brand = (b?: string) => (b ? b.charAt(0).toUpperCase() + b.slice(1) : 'Card');
const shortAddress = (a?: string) => (a && a.length > 14 ? `${a.slice(0, 6)}…${a.slice(-4)}` : (a ?? ''));

/** The holder of a side's bank account or wallet, when the transaction says who it is. */
function holderOf(side: Side, transaction?: Pick<Transaction, 'payoutOrigin'>): string | null {
  const party = side.party as { relationship?: string; name?: string | null } | undefined;
  if (party?.relationship === 'externalRegistered' && party.name) return party.name;
  const d = side.details as AnyDetails;
  if (d.accountHolder === 'customer' && transaction?.payoutOrigin?.accountHolderName)
    return transaction.payoutOrigin.accountHolderName;
  return null;
}

/** One side of a quote or transaction as a phrase, linked to what it names. */
export function Instrument({
  side,
  customerId,
  transaction,
}: {
  side: Side;
  customerId: string;
  transaction?: Pick<Transaction, 'payoutOrigin'>;
}) {
  const d = side.details as AnyDetails;
  const holder = holderOf(side, transaction);
  switch (side.type) {
    case 'walletOms':
    case 'walletCrypto':
      return (
        <Ref href={d.id ? `#/customers/${customerId}?wallet=${d.id}` : undefined} id={d.id}>
          {label(side.type)}, {asset(d)} on {d.network}
        </Ref>
      );
    case 'walletExternal':
      return (
        <Ref href={d.id ? `#/external-accounts/${d.id}` : undefined} id={d.id}>
          {label(side.type)} {shortAddress(d.address)}, {asset(d)} on {d.network}
          {holder ? `, ${holder}` : ''}
        </Ref>
      );
    case 'bankUs':
    case 'bankIban':
    case 'bankCanada':
      return (
        <Ref href={d.id ? `#/external-accounts/${d.id}` : undefined} id={d.id}>
          {label(side.type)} ••{d.last4}
          {holder ? `, ${holder}` : ''}, {label(d.network)}
        </Ref>
      );
    case 'card':
      return (
        <Ref href={d.externalAccountId ? `#/external-accounts/${d.externalAccountId}` : undefined}>
          {brand(d.brand)} ••{d.last4}
          {d.externalAccountId && (
            <>
              {' '}
              <ShortId id={d.externalAccountId} />
            </>
          )}
        </Ref>
      );
    case 'cash':
      return (
        <span>
          Cash at {d.locationName ?? d.locationProvider} ({d.cashLocationReference ?? d.locationReference})
        </span>
      );
    case 'virtualAccount':
      return (
        <Ref href={d.id ? `#/virtual-accounts/${d.id}` : undefined} id={d.id}>
          {label(side.type)}, by {label(d.network)}
          {d.senderName ? ` from ${d.senderName}` : ''}
        </Ref>
      );
    default:
      return <span>{label(side.type)}</span>;
  }
}

/** Where a transaction came from: its quote, deposit address, virtual account or cash-in, linked. */
export function Precursor({ precursor }: { precursor: Transaction['precursor'] }) {
  const href =
    precursor.type === 'quote'
      ? `#/quotes/${precursor.id}`
      : precursor.type === 'cashIn'
        ? `#/cash-ins/${precursor.id}`
        : precursor.type === 'depositAddress'
          ? `#/deposit-addresses/${precursor.id}`
          : `#/virtual-accounts/${precursor.id}`;
  return (
    <Ref href={href} id={precursor.id}>
      {label(precursor.type)}
    </Ref>
  );
}
