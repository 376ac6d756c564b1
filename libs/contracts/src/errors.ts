// The error catalogue (spec: Errors; API-CONTRACT: codes for conditions the
// spec does not number are the project's own). Every error the API returns is
// one of these names; docs/errors.md and the OpenAPI document are generated
// from this table, so the three cannot disagree.

export interface ErrorDefinition {
  code: number;
  status: number;
  msg: string;
  /** When the error happens, for the catalogue. */
  when: string;
}

export const ERROR_CATALOGUE = {
  // Spec-numbered
  Unauthorized: {
    code: 1000,
    status: 401,
    msg: 'unauthorized access',
    when: 'bad or missing credentials; from POST /auth/token, `cause` is `signature` and `error_description` says what to fix (a key of the other environment, an invalid key or secret, a revoked key)',
  },
  InvalidCustomerID: { code: 10000, status: 400, msg: 'invalid customer_id', when: 'a customer id is malformed' },
  CustomerNotFound: { code: 10001, status: 404, msg: 'customer not found', when: 'no such customer in this project' },
  Provider: {
    code: 10002,
    status: 502,
    msg: 'invalid provider balance response',
    when: 'the balance provider returned an invalid balance',
  },
  ProviderUserAccountNotFound: {
    code: 10029,
    status: 404,
    msg: 'provider account not provisioned for this customer',
    when: 'the customer has no provider account',
  },
  ProviderUnreachable: { code: 10087, status: 503, msg: 'upstream provider unreachable', when: 'the provider is down' },
  // The spec numbers 10240 for the virtual account payout flow and leaves its name and text to the release.
  VirtualAccountPayoutUnsupported: {
    code: 10240,
    status: 422,
    msg: 'the destination cannot take this payout',
    when: "a virtual account's bank destination (or its return destination) names a payout the bank account cannot take: a `payout.rail` (or `returnPayout.rail`) that is not among the account's rails (its `supportedDestinations`: `ach`, `achSameDay`, `wire` for `bankUs`), ACH fields (`secCode`, `companyDiscretionaryData`) on a rail that is not ACH, or a `payout` on a wallet destination",
  },

  // Request conventions (1100-1199)
  InvalidRequest: {
    code: 1100,
    status: 400,
    msg: 'invalid request',
    when: 'a field is missing (`cause` says `<field>: is required`), of the wrong type, out of range or unknown; a route that takes a body got none (an empty body is no body); a body nested deeper than 32 levels, with more than 1,000 keys in an object or 10,000 values, or a duplicate key; NUL or an unpaired surrogate in a string, path or query parameter',
  },
  MalformedJson: {
    code: 1101,
    status: 400,
    msg: 'malformed JSON body',
    when: 'the body is not valid JSON in UTF-8, or has a prototype-poisoning key (`__proto__`, `constructor.prototype`); answered once the caller is authenticated, and never for an empty body',
  },
  UnsupportedMediaType: {
    code: 1102,
    status: 415,
    msg: 'unsupported media type',
    when: 'a body is sent with a Content-Type other than application/json (or none), or a charset other than UTF-8; answered once the caller is authenticated',
  },
  PayloadTooLarge: {
    code: 1103,
    status: 413,
    msg: 'request body too large',
    when: 'the body exceeds the size limit (1 MiB unless the operator set another); the connection then closes, once the rest of the body has arrived or after 5 seconds, so a client still sending reads this answer',
  },
  NotFound: {
    code: 1104,
    status: 404,
    msg: 'not found',
    when: 'no such route, or no such resource in this project; for a path outside /v0.13 (another version, or none) `cause` says the API lives under /v0.13 and names the path meant',
  },
  MethodNotAllowed: {
    code: 1105,
    status: 405,
    msg: 'method not allowed',
    when: 'the path exists but does not take this method (`OPTIONS` included); the `Allow` header lists the methods it takes. A path that does not exist is a 404 `NotFound`',
  },
  IdempotencyKeyRequired: {
    code: 1110,
    status: 400,
    msg: 'Idempotency-Key header required',
    when: 'a POST or PATCH without an Idempotency-Key header',
  },
  IdempotencyKeyInvalid: {
    code: 1111,
    status: 400,
    msg: 'invalid Idempotency-Key header',
    when: 'the key is empty, longer than 255 characters or not printable ASCII',
  },
  IdempotencyKeyReused: {
    code: 1112,
    status: 422,
    msg: 'Idempotency-Key reused with a different request',
    when: 'the same key was used with a different method, path or body',
  },
  IdempotencyKeyInFlight: {
    code: 1113,
    status: 409,
    msg: 'a request with this Idempotency-Key is in progress',
    when: 'a request with the same key has not finished yet; retry later',
  },
  IdempotentReplayUnavailable: {
    code: 1114,
    status: 409,
    msg: 'the response to this Idempotency-Key cannot be replayed',
    when: 'a retry, with the same key, of a request that succeeded and whose response showed a secret that is kept only as a hash (operator route POST /admin/projects/{id}/api-keys): `cause` names what it made; nothing new is made',
  },
  RateLimited: { code: 1120, status: 429, msg: 'rate limit exceeded', when: 'too many requests; see Retry-After' },
  Conflict: {
    code: 1130,
    status: 409,
    msg: 'conflicting concurrent update',
    when: 'the resource changed under the request too many times; retry',
  },
  Forbidden: { code: 1140, status: 403, msg: 'forbidden', when: 'the credential is valid but not allowed here' },
  FeatureNotEnabled: {
    code: 1141,
    status: 403,
    msg: 'feature not enabled for this project',
    when: 'a request that needs a project feature the operator has not enabled: creating a deposit address needs `depositAddresses` (operator route PATCH /admin/projects/{projectId} `{features: {depositAddresses: true}}`)',
  },
  InsufficientRole: {
    code: 1142,
    status: 403,
    msg: 'operator role not allowed here',
    when: "an operator route needs a role the operator's token does not carry (viewer, support, operator, admin, each allowed what the ones before it are); `cause` names the route's role and the operator's",
  },
  InsufficientScope: {
    code: 1143,
    status: 403,
    msg: 'API key scope not allowed here',
    when: "a restricted API key's token on a route its scopes do not cover (`<resource>:read` for GET, `<resource>:write` for the rest); `cause` names the scope the route needs. Nothing changes",
  },
  InvalidCursor: { code: 1150, status: 400, msg: 'invalid cursor', when: 'the list cursor is not one this API issued' },
  RequestTimeout: {
    code: 1160,
    status: 408,
    msg: 'request not received in time',
    when: 'the headers or the whole request did not arrive within the server timeouts; the connection is closed',
  },
  HeadersTooLarge: {
    code: 1161,
    status: 431,
    msg: 'request headers too large',
    when: 'the request line and headers exceed 16 KB; the connection is closed',
  },
  InternalError: { code: 1500, status: 500, msg: 'internal error', when: 'an unexpected failure; nothing was changed' },
  ServiceUnavailable: {
    code: 1503,
    status: 503,
    msg: 'service unavailable',
    when: 'a dependency is down; retry later',
  },

  // Gateway (1200-1299)
  RiskConfigUnavailable: {
    code: 1200,
    status: 503,
    msg: 'risk configuration unavailable',
    when: 'the risk provider is not configured for this deployment',
  },
  ProjectNotFound: { code: 1210, status: 404, msg: 'project not found', when: 'operator route: no such project' },
  ApiKeyNotFound: {
    code: 1211,
    status: 404,
    msg: 'API key not found',
    when: "no such API key (on a partner's `/api-keys` routes: none in the token's project)",
  },
  ApiKeyNotRollable: {
    code: 1212,
    status: 409,
    msg: 'API key cannot be rolled',
    when: 'the key was revoked, has expired, or was rolled already (roll its successor); `cause` says which. Nothing changes',
  },
  RequestLogNotFound: {
    code: 1213,
    status: 404,
    msg: 'request log not found',
    when: "no such request log entry in the token's project, or it is older than the log's retention",
  },
  InvalidApprovalID: {
    code: 1220,
    status: 400,
    msg: 'invalid approval id',
    when: 'operator route: an approval request id is malformed (apr_…)',
  },
  ApprovalNotFound: {
    code: 1221,
    status: 404,
    msg: 'approval not found',
    when: 'operator route: no such approval request',
  },
  ApprovalNotPending: {
    code: 1222,
    status: 409,
    msg: 'approval request not pending',
    when: 'operator route: the approval request was approved, rejected or has expired already; `cause` says which. Nothing changes',
  },
  OwnApprovalRefused: {
    code: 1223,
    status: 403,
    msg: 'an operator cannot approve their own request',
    when: 'operator route: the approval request was made by the operator approving it (four eyes: a second operator approves). Nothing changes',
  },

  // Accounts (10100-10199, 11000-11099)
  UnsupportedCurrency: {
    code: 10100,
    status: 400,
    msg: 'unsupported currency',
    when: 'estimatedBalanceCurrencyCode is not a supported ISO 4217 code',
  },
  // Endorsements (docs/endorsements.md): the operation needs one the customer does not hold active (never
  // requested, pending or rejected); request it and wait for `endorsement.active`. The usd one keeps the code
  // cash-in gave it first.
  UsdEndorsementRequired: {
    code: 14004,
    status: 422,
    msg: 'customer needs an active usd endorsement',
    when: 'a cash-in, a cash pickup quote, a card buy or sell quote, a quote paying out US dollars to a bank account, or a deposit address paying out US dollars (created, or re-pointed by PATCH), or a virtual account (it receives US dollars), for a customer whose `usd` endorsement is not active',
  },
  CryptoCustodyEndorsementRequired: {
    code: 10110,
    status: 422,
    msg: 'customer needs an active cryptoCustody endorsement',
    when: 'POST /customers/{id}/wallets (a custodial wallet) for a customer whose `cryptoCustody` endorsement is not active',
  },
  BasicEndorsementRequired: {
    code: 10111,
    status: 422,
    msg: 'customer needs an active basic endorsement',
    when: 'a quote or a deposit address paying out a currency other than US dollars to a bank account (CAD on the Canadian local rail) for a customer whose `basic` endorsement is not active',
  },
  InvalidWalletID: { code: 11000, status: 400, msg: 'invalid wallet_id', when: 'a wallet id is malformed' },
  WalletNotFound: { code: 11001, status: 404, msg: 'wallet not found', when: 'no such wallet in this project' },
  UnsupportedAssetNetwork: {
    code: 11002,
    status: 400,
    msg: 'unsupported asset and network',
    when: 'a custodial wallet for this asset on this network is not offered, a cash-in names a destination asset and network the service does not deliver, or a deposit address expects a source asset and network it does not take (usdc on meridianchain or ethereum, for both)',
  },
  InvalidAmount: {
    code: 11003,
    status: 400,
    msg: 'invalid amount',
    when: 'an amount, on any route, is not a JSON string of plain decimal digits (no sign, exponent, spaces or leading zeros), is not greater than zero, is over the maximum (1000000000; 1000000 for a sandbox funding), or has more decimal places than its asset (usdc 6, usd and cad 2; trailing zeros count). `cause` names the field and the rule, for example `source.amount: usdc amounts have at most 6 decimal places`; a body whose only problems are amounts answers this, one with other problems too answers InvalidRequest naming them all',
  },
  InsufficientFunds: {
    code: 11004,
    status: 422,
    msg: 'insufficient funds',
    when: 'a debit would take a wallet below zero',
  },

  // External accounts (11100-11199). The cause names the field, for example `bankUs.routingNumber: …`;
  // it never repeats a submitted number.
  InvalidExternalAccountID: {
    code: 11100,
    status: 400,
    msg: 'invalid external_account_id',
    when: 'an external account id is malformed',
  },
  ExternalAccountNotFound: {
    code: 11101,
    status: 404,
    msg: 'external account not found',
    when: 'no such external account in this project, or it was deleted',
  },
  ExternalAccountTypeMismatch: {
    code: 11102,
    status: 422,
    msg: 'per-type object does not match type',
    when: 'the body does not carry exactly one per-type object, named after `type`',
  },
  CardMustUseCardEndpoint: {
    code: 11103,
    status: 422,
    msg: 'cards are registered at POST /external-accounts/cards',
    when: '`type: card` sent to POST /external-accounts',
  },
  billing_address_invalid: {
    code: 11104,
    status: 422,
    msg: 'billing address invalid',
    when: 'a card billing address field (addressLine1, city, state, country, zipCode) is missing or blank, or the country is not an ISO 3166 code',
  },
  InvalidRoutingNumber: {
    code: 11105,
    status: 422,
    msg: 'invalid routing number',
    when: 'an ABA routing number is not 9 digits, has a prefix no Federal Reserve routing uses, or fails its checksum',
  },
  InvalidAccountNumber: {
    code: 11106,
    status: 422,
    msg: 'invalid account number',
    when: 'a US (4-17 digits) or Canadian (7-12 digits) account number is malformed',
  },
  InvalidIban: {
    code: 11107,
    status: 422,
    msg: 'invalid IBAN',
    when: 'an IBAN has the wrong structure, an unknown country, the wrong length or format for its country, or fails mod-97',
  },
  InvalidBic: {
    code: 11108,
    status: 422,
    msg: 'invalid BIC',
    when: 'a BIC is not 8 or 11 characters of bank code, ISO country, location and optional branch',
  },
  CountryCodeMismatch: {
    code: 11109,
    status: 422,
    msg: 'countryCode does not match the IBAN',
    when: '`bankIban.countryCode` contradicts the country of the IBAN',
  },
  InvalidInstitutionNumber: {
    code: 11110,
    status: 422,
    msg: 'invalid institution number',
    when: 'a Canadian institution number is not 3 digits',
  },
  InvalidTransitNumber: {
    code: 11111,
    status: 422,
    msg: 'invalid transit number',
    when: 'a Canadian transit number is not 5 digits',
  },
  InvalidWalletAddress: {
    code: 11112,
    status: 422,
    msg: 'invalid wallet address',
    when: "a `walletExternal` address, a cash-in's `destination.wallet.blockchainAddress` or a simulated deposit's `senderAddress` is not valid on its network (EVM: 0x and 40 hex digits, EIP-55 checksum when mixed case)",
  },
  InvalidCardNumber: {
    code: 11113,
    status: 422,
    msg: 'invalid card number',
    when: 'a card number has a non-digit, an unsupported brand, the wrong length for its brand, or fails the Luhn check',
  },
  InvalidCardExpiry: {
    code: 11114,
    status: 422,
    msg: 'invalid card expiry',
    when: 'the expiry month or year is out of range, or the card has expired',
  },
  ExternalAccountFieldImmutable: {
    code: 11115,
    status: 422,
    msg: 'field cannot be changed',
    when: 'PATCH of an external account names a field other than `label` and `metadata`; register a new account to change financial details',
  },

  // Counterparties (11200-11299)
  InvalidCounterpartyID: {
    code: 11200,
    status: 400,
    msg: 'invalid counterparty_id',
    when: 'a counterparty id is malformed',
  },
  CounterpartyNotFound: {
    code: 11201,
    status: 404,
    msg: 'counterparty not found',
    when: 'no such counterparty in this project, or it was deleted',
  },
  CounterpartyHasActiveExternalAccounts: {
    code: 11202,
    status: 409,
    msg: 'counterparty still owns active external accounts',
    when: 'DELETE of a counterparty that owns active (or pending) external accounts; delete those first',
  },
  CounterpartyFieldsInvalid: {
    code: 11203,
    status: 422,
    msg: 'counterparty fields do not match entityType',
    when: 'an individual without firstName and lastName or with businessName, or a business without businessName or with a first or last name',
  },

  // Webhooks (12000-12099)
  InvalidWebhookID: { code: 12000, status: 400, msg: 'invalid webhook_id', when: 'a webhook endpoint id is malformed' },
  WebhookNotFound: {
    code: 12001,
    status: 404,
    msg: 'webhook endpoint not found',
    when: 'no such webhook endpoint in this project, or it was deleted',
  },
  InvalidWebhookUrl: {
    code: 12002,
    status: 422,
    msg: 'invalid webhook url',
    when: 'the url is not an absolute http(s) URL written with scheme://host, has credentials or a fragment, contains whitespace, a control or invisible character or a backslash, names port 0, or (in production) points at a localhost name or an address that is not public, IPv6 forms carrying such an IPv4 address included',
  },
  UnknownEventType: {
    code: 12003,
    status: 422,
    msg: 'unknown event type',
    when: 'a subscription names an event that is not in the catalogue of this version (events.md), or an event of a resource this version does not offer yet; `cause` names it and where the valid names are listed; use `*` for every partner-visible event',
  },
  InvalidWebhookDeliveryID: {
    code: 12004,
    status: 400,
    msg: 'invalid delivery id',
    when: 'a webhook delivery id is malformed',
  },
  WebhookDeliveryNotFound: {
    code: 12005,
    status: 404,
    msg: 'webhook delivery not found',
    when: 'no such delivery for this webhook endpoint, or it is older than the retention window',
  },
  WebhookNotEnabled: {
    code: 12006,
    status: 409,
    msg: 'webhook endpoint is not enabled',
    when: 'test or retry on a disabled or suspended endpoint; enable it first',
  },
  InvalidDeliveryRetry: {
    code: 12007,
    status: 422,
    msg: 'invalid retry selection',
    when: 'a retry names neither `deliveryIds` nor `status`, names both, or gives a range whose createdAfter is not before createdBefore',
  },
  // The Events API (ADR 0034): every partner event of the project, for the retention window.
  InvalidEventID: {
    code: 12010,
    status: 400,
    msg: 'invalid event id',
    when: 'an event id (`evt_…`), in the path of GET /events/{eventId} or among the `eventIds` of POST /webhooks/{id}/deliveries, is malformed; `cause` names it',
  },
  EventNotFound: {
    code: 12011,
    status: 404,
    msg: 'event not found',
    when: "no such event in this project: another project's, older than the retention window, a test send, or a compliance `underReview` event that no endpoint of the project names. POST /webhooks/{id}/deliveries names every such id in `cause` and creates nothing",
  },

  // Quotes (13000-13099; spec: Quote, Errors / 422 card validation)
  InvalidQuoteID: { code: 13000, status: 400, msg: 'invalid quote_id', when: 'a quote id is malformed' },
  QuoteNotFound: { code: 13001, status: 404, msg: 'quote not found', when: 'no such quote in this project' },
  QuoteExpired: {
    code: 13002,
    status: 409,
    msg: 'quote expired',
    when: "the quote's pricing expired before a transaction was created for it; create a new quote",
  },
  QuoteAlreadyAccepted: {
    code: 13003,
    status: 409,
    msg: 'quote already accepted',
    when: 'a transaction was already created for this quote; a quote is accepted exactly once',
  },
  UnsupportedCorridor: {
    code: 13004,
    status: 422,
    msg: 'unsupported source and destination',
    when: 'the pair of instruments is not one the service moves money between (a bank account is never a source; a cash destination needs the project feature `cashPickup` and a custodial wallet source)',
  },
  ExternalAccountNotActive: {
    code: 13005,
    status: 422,
    msg: 'external account is not active',
    when: 'a quote, a cash-in, a deposit address or a virtual account (its destination or return account, at creation or PATCH) names an external account that is pending, failed or invalid (wait for `externalAccount.verified`); or `POST /transactions` accepts a quote whose external account was invalidated or deleted since the quote was made (nothing moves and the quote stays open; create a new quote to an active account); or an operator refunds a deposit to a return destination invalidated or deleted since it was made (nothing changes; refund with `to: sender` instead)',
  },
  ExternalAccountHolderMismatch: {
    code: 13006,
    status: 422,
    msg: 'external account does not belong to the customer',
    when: "a bank or card on a quote is not registered to the quote's customer (bank destinations take `accountHolder: customer` only), a cash-in's external wallet is not the customer's own, or a deposit address or virtual account names an account of another customer (its destination and return account must be the customer's own or one of its counterparties')",
  },
  WalletNotOwned: {
    code: 13007,
    status: 422,
    msg: 'wallet does not belong to the customer',
    when: "the source wallet of a quote, or the destination wallet of a cash-in or of a virtual account (`walletOms`), is not one of its customer's wallets",
  },
  AssetNetworkMismatch: {
    code: 13008,
    status: 422,
    msg: 'asset or network does not match the instrument',
    when: "a quote side, or a cash-in destination, names an asset or network its wallet or account does not hold or support; or a deposit address's return wallet is not on the asset and network the address expects; or a virtual account's wallet destination does not hold usdc",
  },
  InexactConversion: {
    code: 13009,
    status: 422,
    msg: 'amount does not convert exactly',
    when: "at the quoted rate the fixed amount gives the other side more decimals than its asset has; fix the other side's amount or round this one. A simulated deposit to a deposit address whose amount does not pay out in whole cents (of USD, or of CAD at 1.25), and a PATCH that would re-point held deposits to an account they cannot be paid to exactly, are refused the same way",
  },
  external_sell_unsupported: {
    code: 13010,
    status: 422,
    msg: 'external card sell unsupported',
    when: 'a card sell with `settlementType: external`; card sells settle internally',
  },
  external_account_rail_mismatch: {
    code: 13011,
    status: 422,
    msg: 'external account does not match the rail',
    when: "the external account of a side is not of the side's type (a bank for a card, a card for a bank; a cash-in delivers only to a `walletExternal`), or does not support the requested network; a deposit address's destination that is not a bank account (`bankUs`, `bankIban`, `bankCanada`) or whose `payout.rail` the account does not take, or a return destination that is not a `walletExternal`; a virtual account's destination that is not of its `type` (`walletExternal`, `bankUs`), or a return destination that is not a `bankUs`",
  },
  external_account_required: {
    code: 13012,
    status: 422,
    msg: 'external account required',
    when: 'a card, bank or external wallet side without its external account id (`externalAccountId` for cards, `id` otherwise)',
  },
  external_custody_not_allowed: {
    code: 13013,
    status: 422,
    msg: 'external custody not allowed',
    when: 'a card buy with `settlementType: internal` (the service custodies the crypto) whose destination is an external wallet',
  },
  source_wallet_address_not_allowed: {
    code: 13014,
    status: 422,
    msg: 'source wallet address not allowed',
    when: 'a card quote whose source names a raw wallet `address`; name a custodial wallet by `walletId`',
  },
  invalid_wallet_target: {
    code: 13015,
    status: 400,
    msg: 'invalid wallet target',
    when: 'a card sell that names a wallet as its target; a card sell pays out to the card',
  },

  // Transactions (13100-13199; spec: Transaction, Errors)
  InvalidTransactionID: {
    code: 13100,
    status: 400,
    msg: 'invalid transaction_id',
    when: 'a transaction id is malformed',
  },
  TransactionNotFound: {
    code: 13101,
    status: 404,
    msg: 'transaction not found',
    when: 'no such transaction in this project',
  },
  TransactionNotActionable: {
    code: 13102,
    status: 409,
    msg: 'the transaction is not in a state this action applies to',
    when: 'operator retry of a transaction whose payout is not held, refund of one whose money is not held, mark-failed of one that is not held or unconfirmed',
  },
  vendorOrderExists: {
    code: 13103,
    status: 422,
    msg: 'the provider holds the transfer',
    when: 'operator mark-failed or refund when the provider reports the payout it was waiting for (it completes instead)',
  },
  TransactionLimitExceeded: {
    code: 13104,
    status: 422,
    msg: 'transaction limit exceeded',
    when: "the fiat leg of a source-pinned crypto-to-fiat sell is below the project's per-transaction minimum, above its maximum, not a multiple of its increment, or over its daily or monthly cap (operator route PATCH /admin/projects/{id})",
  },
  refundNotCompletable: {
    code: 10368,
    status: 422,
    msg: 'refund not completable',
    when: 'complete-refund on a payment that is not a virtual account bank refund reported only as initiated',
  },
  unconfirmedPayoutUnverifiable: {
    code: 10369,
    status: 503,
    msg: 'unconfirmed payout unverifiable',
    when: 'an operator action on an unconfirmed payout when the provider cannot be reached to look it up, or when its transfer on a chain is still under way and may land; retry later',
  },

  // Cash-ins and cash locations (14000-14099; spec: Cash-in, Cash location (read), Limits / Cash-in, ADR 0020)
  InvalidCashInID: { code: 14000, status: 400, msg: 'invalid cash_in_id', when: 'a cash-in id is malformed' },
  CashInNotFound: { code: 14001, status: 404, msg: 'cash-in not found', when: 'no such cash-in in this project' },
  CashInNotPending: {
    code: 14002,
    status: 422,
    msg: 'cash-in is not pending',
    when: 'refresh or deposit of a cash-in that is completed (a cash-in is single-use) or expired (its code lapsed; create a new cash-in)',
  },
  DepositCodeMismatch: {
    code: 14003,
    status: 422,
    msg: 'deposit code does not match',
    when: "the sandbox deposit names a code that is not the cash-in's current one (a refresh voids the previous code)",
  },
  SponsorGasRequired: {
    code: 14005,
    status: 400,
    msg: 'sponsorGas must be true',
    when: 'a cash-in with `sponsorGas: false`; cash-ins only accept sponsored gas',
  },
  InvalidCashLocationID: {
    code: 14010,
    status: 400,
    msg: 'invalid cash location id',
    when: 'a cash location id (`cash.locationId` of a cash-in, `cashLocationId` of a cash pickup quote) is malformed',
  },
  CashLocationNotFound: {
    code: 14011,
    status: 404,
    msg: 'cash location not found',
    when: 'no retail location with this id (GET /cash-locations lists them), for a cash-in or a cash pickup quote',
  },
  CashLocationReferenceMismatch: {
    code: 14012,
    status: 422,
    msg: 'cash location reference does not match',
    when: "`cash.locationReference` is not the `cashLocationReference` of `cash.locationId` (a cash-in), or a cash pickup quote's `cashLocationReference` is not that of its `cashLocationId`",
  },
  CashLocationFlowUnsupported: {
    code: 14013,
    status: 422,
    msg: 'cash location does not take this flow',
    when: 'a cash-in at a location that offers cash pickup only (its `flows` lack `cash_in`), or a cash pickup at one that takes cash-ins only (its `flows` lack `cash_out`; GET /cash-locations?flow=cash_out lists pickup locations)',
  },
  InvalidCoordinates: {
    code: 14014,
    status: 400,
    msg: 'invalid coordinates',
    when: 'GET /cash-locations with only one of latitude and longitude, or one that is not a decimal number in range (latitude -90 to 90, longitude -180 to 180)',
  },
  UnknownCashLocationProvider: {
    code: 14015,
    status: 400,
    msg: 'unknown cash location provider',
    when: "GET /cash-locations with a `provider` that is not one of the retail network's providers (the cause lists them)",
  },
  CashInBelowMinimum: {
    code: 14020,
    status: 422,
    msg: 'cash-in below the minimum',
    when: 'an indicated or deposited amount under the $20 transaction minimum',
  },
  CashInAboveMaximum: {
    code: 14021,
    status: 422,
    msg: 'cash-in above the maximum',
    when: "an indicated or deposited amount over the $500 transaction maximum ($1,000 at the large retailer's locations)",
  },
  CashInDailyAmountExceeded: {
    code: 14022,
    status: 422,
    msg: 'daily cash-in amount exceeded',
    when: "the customer's completed cash-ins of the UTC day (project clock) and this one would pass $1,500",
  },
  CashInDailyCountExceeded: {
    code: 14023,
    status: 422,
    msg: 'daily cash-in count exceeded',
    when: 'the customer already has 3 completed cash-ins in the UTC day (project clock)',
  },
  CashInWeeklyAmountExceeded: {
    code: 14024,
    status: 422,
    msg: 'weekly cash-in amount exceeded',
    when: "the customer's completed cash-ins of the ISO week (Monday to Sunday, UTC, project clock) and this one would pass $3,500",
  },
  CashInWeeklyCountExceeded: {
    code: 14025,
    status: 422,
    msg: 'weekly cash-in count exceeded',
    when: 'the customer already has 12 completed cash-ins in the ISO week (UTC, project clock)',
  },
  CashInMonthlyAmountExceeded: {
    code: 14026,
    status: 422,
    msg: 'monthly cash-in amount exceeded',
    when: "the customer's completed cash-ins of the UTC calendar month (project clock) and this one would pass $5,000",
  },
  CashInMonthlyCountExceeded: {
    code: 14027,
    status: 422,
    msg: 'monthly cash-in count exceeded',
    when: 'the customer already has 20 completed cash-ins in the UTC calendar month (project clock)',
  },

  // Cash pickup (14100-14199; spec: rule 8, Limits / Cash pickup (cash-out), States / Transaction). The amount
  // is the cash: the destination usd amount of a cryptoToCash quote. Windows are UTC periods of the project clock.
  CashPickupBelowMinimum: {
    code: 14100,
    status: 422,
    msg: 'cash pickup below the minimum',
    when: 'a cash pickup whose cash amount (the destination usd amount) is under the $20.00 transaction minimum',
  },
  CashPickupAboveMaximum: {
    code: 14101,
    status: 422,
    msg: 'cash pickup above the maximum',
    when: 'a cash pickup whose cash amount is over the $400.00 transaction maximum',
  },
  CashPickupIncrement: {
    code: 14102,
    status: 422,
    msg: 'cash pickup amount is not a multiple of $20.00',
    when: 'a cash pickup whose cash amount is not a whole multiple of $20.00 (with a fixed source amount: the usd amount it converts to)',
  },
  CashPickupDailyLimitExceeded: {
    code: 14103,
    status: 422,
    msg: 'daily cash pickup limit exceeded',
    when: "the customer's cash pickups of the UTC day at any location (accepted ones; a pickup that expired uncollected no longer counts) and this one would pass the daily maximum of this pickup's location: $1,000.00 in California and New Mexico, $2,000.00 in every other state (checked when the quote is created, and again when POST /transactions accepts it)",
  },
  CashPickupMonthlyLimitExceeded: {
    code: 14104,
    status: 422,
    msg: 'monthly cash pickup limit exceeded',
    when: "the customer's cash pickups of the UTC calendar month (accepted ones; a pickup that expired uncollected no longer counts) and this one would pass $60,000.00 (checked when the quote is created, and again when POST /transactions accepts it)",
  },
  CashPickupNotReady: {
    code: 14110,
    status: 422,
    msg: 'cash pickup is not ready for collection',
    when: 'POST /transactions/{id}/simulate/cash-pickup on a transaction that is not a cash pickup waiting for collection (`processing.cashPickupReady`): another corridor, or a pickup already collected or expired',
  },

  // Deposit addresses (15000-15099; spec: Deposit address, States / Deposit address; API-CONTRACT: Deposit addresses; ADR 0030)
  InvalidDepositAddressID: {
    code: 15000,
    status: 400,
    msg: 'invalid deposit_address_id',
    when: 'a deposit address id is malformed',
  },
  DepositAddressNotFound: {
    code: 15001,
    status: 404,
    msg: 'deposit address not found',
    when: 'no such deposit address in this project',
  },
  DepositAddressNotProvisioned: {
    code: 15002,
    status: 422,
    msg: 'deposit address has no on-chain address',
    when: 'a simulated deposit to a deposit address that is `pending` (not provisioned yet: wait for `depositAddress.active`) or `failed` (its provisioning failed; it never takes deposits)',
  },
  DepositAddressTransitionNotAllowed: {
    code: 15003,
    status: 422,
    msg: "not allowed in the deposit address's status",
    when: "a sandbox simulation that does not apply to the address's status (freeze one that is not `active` or `inactiveActionRequired`, unfreeze one that is not `frozen`, close one that is `pending`, `failed` or `closed`), or a PATCH of a `failed` address",
  },

  // Virtual accounts (15100-15199; spec: Virtual account, States / Virtual account; API-CONTRACT: Virtual accounts; ADR 0032)
  InvalidVirtualAccountID: {
    code: 15100,
    status: 400,
    msg: 'invalid virtual_account_id',
    when: 'a virtual account id is malformed',
  },
  VirtualAccountNotFound: {
    code: 15101,
    status: 404,
    msg: 'virtual account not found',
    when: 'no such virtual account in this project',
  },
  VirtualAccountNotProvisioned: {
    code: 15102,
    status: 422,
    msg: 'virtual account has no bank account',
    when: 'a simulated inbound transfer to a virtual account that is `pending` (not provisioned yet: wait for `virtualAccount.active`) or `failed` (it has no bank account that takes deposits)',
  },
  VirtualAccountTransitionNotAllowed: {
    code: 15103,
    status: 422,
    msg: "not allowed in the virtual account's status",
    when: "a sandbox simulation that does not apply to the account's status (freeze one that is not `active`, unfreeze one that is not `frozen`, close one that is not `active` or `frozen`), a DELETE of an account that is `pending` or `failed`, or a PATCH or simulation of one that is `deleting`, `deleted` or `failed`",
  },
  VirtualAccountNotEmpty: {
    code: 15104,
    status: 409,
    msg: 'virtual account still moves money',
    when: 'DELETE of a virtual account with a deposit whose transaction is not finished (processing, awaitingAction, or failed with the money held for a refund); the cause names them. Nothing changes: delete again once they end',
  },
  VirtualAccountCloseUnavailable: {
    code: 15105,
    status: 503,
    msg: 'the bank cannot close the virtual account now',
    when: 'DELETE of a virtual account whose bank cannot close it at the moment: the account is back in the status it had, and the `Retry-After` header says how many seconds to wait before asking again',
  },
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorName = keyof typeof ERROR_CATALOGUE;

/** The spec's error body: {error, code, msg, cause, status?}. */
export interface ErrorBody {
  error: string;
  code: number;
  msg: string;
  cause: string;
  status?: number;
  /** The reason in words: on bearer-token failures (RFC 6750) and on the token endpoint's refusals. */
  error_description?: string;
  /** The request's id, as in its X-Request-Id response header (set where the response is sent). */
  requestId?: string;
}

/**
 * An error as a value: services throw this (never an HTTP exception) and the
 * HTTP edge maps it to the catalogue's status and body.
 */
export class ApiError extends Error {
  constructor(
    readonly errorName: ErrorName,
    readonly causeText?: string,
    readonly headers: Record<string, string> = {},
    /** `error_description`: the reason in words, where `cause` is a fixed token (the token endpoint's `signature`). */
    readonly description?: string,
  ) {
    super(`${errorName}: ${causeText ?? ERROR_CATALOGUE[errorName].msg}`);
  }

  get definition(): ErrorDefinition {
    return ERROR_CATALOGUE[this.errorName];
  }

  toBody(): ErrorBody {
    const d = this.definition;
    return {
      error: this.errorName,
      code: d.code,
      msg: d.msg,
      cause: this.causeText ?? d.msg,
      status: d.status,
      ...(this.description !== undefined ? { error_description: this.description } : {}),
    };
  }
}
