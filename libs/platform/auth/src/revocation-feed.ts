// Tells VerifiedTokens of API key revocations as they commit: the gateway's
// api_keys table notifies API_KEY_REVOCATIONS_CHANNEL with the key when
// revoked_at is set (a trigger, so no code path can forget it). The feed
// acknowledges: a revocation (revokeEverywhere) returns once every process has
// dropped the key's tokens, so the next request, to whichever process, is
// checked against the revoked key (ADR 0025).
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { changeEverywhere, listenConnectionConfig, NotifiedCacheFeed, UnitOfWork } from '@mm/platform/database';
import { VerifiedTokens } from './verified-tokens';

export const API_KEY_REVOCATIONS_CHANNEL = 'mm_api_key_revocations';

const logger = new Logger('auth');

@Injectable()
export class RevocationFeed implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly feed: NotifiedCacheFeed;

  constructor(uow: UnitOfWork, tokens: VerifiedTokens) {
    this.feed = new NotifiedCacheFeed(
      listenConnectionConfig(uow.dataSource),
      API_KEY_REVOCATIONS_CHANNEL,
      tokens,
      logger,
      1000,
      true,
    );
  }

  onApplicationBootstrap(): Promise<void> {
    return this.feed.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.feed.stop();
  }
}

/**
 * The write that revokes an API key (its row's revoked_at): until it commits and is heard back this process
 * checks the key's tokens in full, and once it has committed (the caller's transaction, whose run() waits
 * for this) no process answers from a token verified before.
 */
export function revokeEverywhere<T>(
  uow: UnitOfWork,
  tokens: VerifiedTokens,
  apiKey: string,
  write: () => Promise<T>,
): Promise<T> {
  return changeEverywhere(uow, { channel: API_KEY_REVOCATIONS_CHANNEL, cache: tokens, logger }, apiKey, write);
}
