// A service running alone (distributed mode) takes partner requests through the
// gateway, which checks each bearer token against its own API keys and hears a
// revocation at once (VerifiedTokens, acknowledged: ADR 0025), and may also be
// reached directly. Its own record of the keys (platform.api_keys, from the
// gateway's events) lags a revocation by the event's delivery, so for a request
// that did not come through the gateway it asks the gateway, at the request,
// whether the token's key is still active (ADR 0057): a revoked key's token is
// refused on the next request either way, and a gateway that cannot be reached
// refuses it too (ServiceUnavailable), never lets it through.
//
// The gateway marks what it forwarded after checking the token: a header
// holding an HMAC of the token under the internal credential, which services
// and the gateway share and partners never see. Only the gateway can make it,
// and it vouches only for the token it was made for.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { GatewayPort } from '@mm/contracts';
import { internalToken, PlatformConfig } from '@mm/platform/config';
import { BEARER_ERRORS, type Caller } from '@mm/platform/http';

/** The header the gateway adds to a partner request whose bearer token it has checked. */
export const GATEWAY_CHECKED_HEADER = 'x-mm-gateway-checked';

/** The header's value for a token: base64url HMAC-SHA256 under the internal credential. */
export function gatewayCheckOf(secret: string, token: string): string {
  return createHmac('sha256', secret).update(token).digest('base64url');
}

/** In a service running alone: the gateway's word on a token's API key, for a request the gateway did not check. */
@Injectable()
export class DirectRequestKeyCheck {
  private readonly secret: string;

  constructor(
    private readonly gateway: GatewayPort,
    config: PlatformConfig,
  ) {
    this.secret = internalToken(config);
  }

  /** Whether the gateway forwarded the request carrying this token, having checked it. */
  checkedByGateway(token: string, header: string | string[] | undefined): boolean {
    if (typeof header !== 'string') return false;
    const expected = Buffer.from(gatewayCheckOf(this.secret, token));
    const given = Buffer.from(header);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** Refuses the caller's token, as a revoked key's, unless the gateway says its key is active now. */
  async requireActive(caller: Caller): Promise<void> {
    if (!(await this.gateway.apiKeyActive(caller.apiKey ?? '', caller.projectId ?? ''))) throw BEARER_ERRORS.invalid();
  }
}
