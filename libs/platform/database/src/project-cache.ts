// Values kept per project in memory while the database can tell this process of
// every change (NotifiedCache, fed by a trigger on the table that notifies a
// channel with the project id on commit): a project's webhook endpoints, its
// settings in the gateway. A subclass reads with cached(); a process changing a project's rows
// does it through change(): it reads afresh until its own change is heard back,
// and its transaction's run() returns only once every process has dropped its
// copy (the feed acknowledges: ADR 0025).
import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { changeEverywhere, NotifiedCache, NotifiedCacheFeed } from './notified-cache';
import { listenConnectionConfig } from './pg-listener';
import type { UnitOfWork } from './unit-of-work';

export abstract class ProjectCache<V> implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly projects = new NotifiedCache<V>({ maxEntries: 10_000, groupOf: (projectId) => projectId });
  private readonly feed: NotifiedCacheFeed;
  private readonly logger: Logger;

  protected constructor(
    protected readonly uow: UnitOfWork,
    private readonly channel: string,
    name: string,
  ) {
    this.logger = new Logger(name);
    this.feed = new NotifiedCacheFeed(
      listenConnectionConfig(uow.dataSource),
      channel,
      this.projects,
      this.logger,
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

  /**
   * A write of the project's rows: this process reads them afresh until the change is heard back, and once
   * it has committed (the caller's transaction, whose run() waits for this) every process has dropped its copy.
   */
  change<T>(projectId: string, write: () => Promise<T>): Promise<T> {
    return changeEverywhere(
      this.uow,
      { channel: this.channel, cache: this.projects, logger: this.logger },
      projectId,
      write,
    );
  }

  protected async cached(projectId: string, load: () => Promise<V>): Promise<V> {
    const cached = this.projects.lookup(projectId);
    if (cached !== undefined) return cached;
    const mark = this.projects.mark();
    const value = await load();
    // Nothing is remembered of a project that is not there (yet): its creation is not waited for.
    if (value !== undefined) this.projects.remember(projectId, value, mark);
    return value;
  }
}
