// When the delivery worker looks for due deliveries (ADR 0018, ADR 0053): what
// this process queues wakes it in memory (LocalDeliveryQueue), what other
// processes queue and clock advances notify, and polling covers a lost
// notification and what a busy process leaves to the others. One look runs at a
// time; a wake-up during it runs it once more after it.
import type { Logger } from '@nestjs/common';
import { CLOCK_CHANGES_CHANNEL } from '@mm/platform/clock';
import { listenConnectionConfig, PgListener, type UnitOfWork } from '@mm/platform/database';
import { DELIVERIES_CHANNEL } from '@mm/webhooks/infrastructure';

const IDLE_POLL_MS = 250;

export class DeliveryWakeUps {
  private listener?: PgListener;
  private poller?: NodeJS.Timeout;
  private started = false;
  private looking?: Promise<void>;
  private lookAgain = false;

  /** `look`: one look for due deliveries, its failure logged. */
  constructor(
    private readonly look: () => Promise<void>,
    private readonly logger: Logger,
  ) {}

  /** Started and not stopped. */
  get running(): boolean {
    return this.started;
  }

  async start(uow: UnitOfWork): Promise<void> {
    this.started = true;
    this.listener = new PgListener(
      listenConnectionConfig(uow.dataSource),
      [DELIVERIES_CHANNEL, CLOCK_CHANGES_CHANNEL],
      { onNotification: () => this.wake(), onResumed: () => this.wake() },
      this.logger,
    );
    await this.listener.start();
    const poll = () => {
      this.wake();
      if (this.started) this.poller = setTimeout(poll, IDLE_POLL_MS);
    };
    poll();
  }

  /** Nothing wakes the worker from now on; resolves once the look under way, if any, has ended. */
  async stop(): Promise<void> {
    this.started = false;
    clearTimeout(this.poller);
    await this.listener?.stop();
    await this.looking;
  }

  /** Looks for due deliveries now, or once the look under way has ended. */
  wake(): void {
    if (!this.started) return;
    if (this.looking) {
      this.lookAgain = true;
      return;
    }
    this.looking = this.look()
      .catch((error: unknown) => this.logger.error(`claiming deliveries failed: ${String(error)}`))
      .finally(() => {
        this.looking = undefined;
        if (this.lookAgain) {
          this.lookAgain = false;
          this.wake();
        }
      });
  }
}
