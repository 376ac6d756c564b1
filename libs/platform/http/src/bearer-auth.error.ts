// Failed bearer-token requests (spec: Authentication, item 4): RFC 6750-style
// `error` and `error_description`, and a matching WWW-Authenticate header.
export type BearerErrorCode = 'invalid_token' | 'invalid_request' | 'temporarily_unavailable';

export class BearerAuthError extends Error {
  constructor(
    readonly errorCode: BearerErrorCode,
    readonly description: string,
  ) {
    super(`${errorCode}: ${description}`);
  }

  get status(): number {
    return this.errorCode === 'temporarily_unavailable' ? 503 : 401;
  }

  get wwwAuthenticate(): string {
    return `Bearer error="${this.errorCode}", error_description="${this.description}"`;
  }
}

export const BEARER_ERRORS = {
  expired: () => new BearerAuthError('invalid_token', 'token expired'),
  missing: () => new BearerAuthError('invalid_request', 'missing authorization token'),
  badSignature: () => new BearerAuthError('invalid_token', 'invalid token signature'),
  missingClaims: () => new BearerAuthError('invalid_token', 'missing required project claims'),
  invalid: () => new BearerAuthError('invalid_token', 'invalid token'),
  keysetUnavailable: () => new BearerAuthError('temporarily_unavailable', 'signing keyset unavailable'),
};
