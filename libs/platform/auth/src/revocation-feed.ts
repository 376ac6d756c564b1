// Feeds VerifiedTokens with API key revocations as they commit: the gateway's
// api_keys table notifies API_KEY_REVOCATIONS_CHANNEL with the key when
// revoked_at is set (a trigger, so no code path can forget it).
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { listenConnectionConfig, PgListener, UnitOfWork } from '@mm/platform/database';
import { VerifiedTokens } from './verified-tokens';

export const API_KEY_REVOCATIONS_CHANNEL = 'mm_api_key_revocations';
const RETRY_MS = 1000;

@Injectable()
export class RevocationFeed implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('auth');
  private readonly listener: PgListener;
  private retry?: NodeJS.Timeout;
  private stopped = false;

  constructor(uow: UnitOfWork, private readonly tokens: VerifiedTokens) {
    this.listener = new PgListener(
      listenConnectionConfig(uow.dataSource),
      [API_KEY_REVOCATIONS_CHANNEL],
      {
        onNotification: (_channel, apiKey) => tokens.revoked(apiKey),
        onLost: () => tokens.setLive(false),
        onResumed: () => tokens.setLive(true),
      },
      this.logger,
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    this.tokens.setLive(false);
    await this.listener.stop();
  }

  private async start(): Promise<void> {
    try {
      await this.listener.start();
      this.tokens.setLive(true);
    } catch (error) {
      // Without the feed every request is verified in full: slower, never wrong.
      if (this.stopped) return;
      this.logger.warn(`revocation feed unavailable (${error instanceof Error ? error.message : String(error)}); verifying every request`);
      this.retry = setTimeout(() => void this.start(), RETRY_MS);
    }
  }
}
