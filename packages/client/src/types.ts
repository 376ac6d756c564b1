// Names for the generated types: an operation's body, query, result and list
// item, by its path and method, and the resources partners meet most, so that
// nothing here restates a shape the OpenAPI document already gives.
import type { components, paths, webhooks } from './generated/openapi';

export type { components, paths, webhooks };

/** Every schema of the document, by name (`Schemas['CustomerResponse']`). */
export type Schemas = components['schemas'];

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';
export type ApiPath = keyof paths;
type Operation<P extends ApiPath, M extends HttpMethod> = NonNullable<paths[P][M]>;

/** The JSON body an operation takes. */
export type RequestBody<P extends ApiPath, M extends HttpMethod> =
  Operation<P, M> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

/** The query parameters an operation takes. */
export type QueryParams<P extends ApiPath, M extends HttpMethod> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

type SuccessStatus = 200 | 201 | 202 | 204;
type Content<R> = R extends { content: { 'application/json': infer B } } ? B : undefined;

/** What an operation answers on success (undefined for a 204). */
export type ResponseBody<P extends ApiPath, M extends HttpMethod> =
  Operation<P, M> extends { responses: infer R }
    ? { [S in keyof R]: S extends SuccessStatus ? Content<R[S]> : never }[keyof R]
    : never;

/** One page of a cursor list: `{data, hasMore, nextCursor}`, newest first unless the list says otherwise. */
export interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** The item of a cursor list operation. */
export type ListItem<P extends ApiPath> = ResponseBody<P, 'get'> extends { data: Array<infer I> } ? I : never;

/** The query of a cursor list, less the cursor, which the iteration keeps itself. */
export type ListQuery<P extends ApiPath> = Omit<QueryParams<P, 'get'>, 'cursor'> & { cursor?: string };

export type Customer = Schemas['CustomerResponse'];
export type Wallet = Schemas['WalletResponse'];
export type Quote = Schemas['QuoteResponse'];
export type Transaction = Schemas['TransactionResponse'];
export type ExternalAccount = Schemas['ExternalAccountResponse'];
export type Counterparty = Schemas['CounterpartyResponse'];
export type WebhookEndpoint = Schemas['WebhookResponse'];
export type WebhookEndpointWithKey = Schemas['WebhookWithKeyResponse'];
export type WebhookDelivery = Schemas['WebhookDeliveryResponse'];
export type CashIn = Schemas['CashInResponse'];
export type CashLocation = Schemas['CashLocationResponse'];
export type DepositAddress = Schemas['DepositAddressResponse'];
export type VirtualAccount = Schemas['VirtualAccountResponse'];
/** A partner event as GET /events lists it: the envelope as delivered, with its evt_ id. */
export type PartnerEvent = Schemas['PartnerEventResponse'];

/** The name of every event a webhook endpoint can receive. */
export type WebhookEventType = keyof webhooks;

/** The envelope of one event as it is posted to an endpoint. */
export type WebhookEventOf<E extends WebhookEventType> =
  NonNullable<webhooks[E]['post']> extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;

/** Any envelope an endpoint can receive: narrow it on `event` (or `eventType` for the `*.statusChanged` events). */
export type WebhookEvent = { [E in WebhookEventType]: WebhookEventOf<E> }[WebhookEventType];
