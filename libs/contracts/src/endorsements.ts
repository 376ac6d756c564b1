// Which operations need which endorsement (issue 18 item 6; ADR 0028;
// docs/endorsements.md). The spec names three: `basic` (standard operations),
// `cryptoCustody` (crypto custody) and `usd` (USD operations; cash flows). An
// operation that holds crypto in custody needs `cryptoCustody`; one that moves
// fiat or cash needs the endorsement of its currency's rail: `usd` for US
// dollars, `basic` for a currency that has no endorsement of its own (CAD).
// Moving crypto between wallets needs nothing more than the wallets did.
//
// Every service checks the same way: it reads the customer's endorsements as
// the accounts service has them now (its own table, or the accounts port
// elsewhere), so an endorsement is usable the moment `endorsement.active` is
// sent, and refuses with the endorsement's error before anything is made.
import { ApiError, type ErrorName } from './errors';
import type { EndorsementName, EndorsementStatus } from './events';

/** The refusal for each endorsement: 422, naming the one that is missing. */
export const ENDORSEMENT_REQUIRED: Record<EndorsementName, ErrorName> = {
  basic: 'BasicEndorsementRequired',
  cryptoCustody: 'CryptoCustodyEndorsementRequired',
  usd: 'UsdEndorsementRequired',
};

/** The endorsement a fiat rail (a bank payout, a card, cash) needs, by the currency it moves. */
export function fiatEndorsement(asset: string): EndorsementName {
  return asset === 'usd' ? 'usd' : 'basic';
}

/** What the operations of the table need (docs/endorsements.md). */
export const OPERATION_ENDORSEMENTS = {
  /** POST /customers/{id}/wallets: the service holds the crypto. */
  custodialWallet: 'cryptoCustody',
  /** POST /cash-ins: the spec's own rule. */
  cashIn: 'usd',
  /** A cryptoToCash quote: cash is paid out in US dollars. */
  cashPickup: 'usd',
  /** A card buy or sell: the card rail moves US dollars. */
  card: 'usd',
} as const satisfies Record<string, EndorsementName>;

export interface EndorsedCustomer {
  id: string;
  endorsements: ReadonlyArray<{ name: EndorsementName; status: EndorsementStatus }>;
}

/**
 * Refuses (422, the endorsement's error) unless the customer's endorsement is active. `operation` says
 * what needed it, for the cause: "a cash-in", "a USD bank payout".
 */
export function requireEndorsement(customer: EndorsedCustomer, name: EndorsementName, operation: string): void {
  const held = customer.endorsements.find((e) => e.name === name);
  if (held?.status === 'active') return;
  const state = held ? `is ${held.status}` : 'was never requested';
  throw new ApiError(
    ENDORSEMENT_REQUIRED[name],
    `${operation} needs an active ${name} endorsement, and customer ${customer.id}'s ${name} endorsement ${state}: request it (POST /customers/${customer.id}/endorsements) and wait for endorsement.active`,
  );
}
