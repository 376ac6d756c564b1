// Tells VerifiedTokens of API key revocations as they commit: the gateway's
// api_keys table notifies API_KEY_REVOCATIONS_CHANNEL with the key when
// revoked_at is set (a trigger, so no code path can forget it).
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { listenConnectionConfig, NotifiedCacheFeed, UnitOfWork } from '@mm/platform/database';
import { VerifiedTokens } from './verified-tokens';

export const API_KEY_REVOCATIONS_CHANNEL = 'mm_api_key_revocations';

@Injectable()
export class RevocationFeed implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly feed: NotifiedCacheFeed;

  constructor(uow: UnitOfWork, tokens: VerifiedTokens) {
    this.feed = new NotifiedCacheFeed(listenConnectionConfig(uow.dataSource), API_KEY_REVOCATIONS_CHANNEL, tokens, new Logger('auth'));
  }

  onApplicationBootstrap(): Promise<void> {
    return this.feed.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.feed.stop();
  }
}
