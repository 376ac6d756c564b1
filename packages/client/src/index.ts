// @meridian/money-movement: the typed client of the Money-movement API.
export { API_VERSION, CONTRACT_LABEL, MoneyMovement, type MoneyMovementOptions, type WriteOptions } from './client';
export { ApiError, WebhookVerificationError, type ErrorBody, type WebhookVerificationReason } from './errors';
export { canonicalJson, deriveIdempotencyKey } from './idempotency';
export { CursorList } from './pagination';
export type { Fetch } from './transport';
export { waitFor, type WaitForOptions } from './wait-for';
export { DEFAULT_TOLERANCE_SECONDS, eventTypeOf, verifyWebhook, type VerifyOptions } from './webhooks';
export type * from './types';
