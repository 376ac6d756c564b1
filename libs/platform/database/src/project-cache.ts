// Values kept per project in memory while the database can tell this process of
// every change (NotifiedCache, fed by a trigger on the table that notifies a
// channel with the project id on commit): a project's webhook endpoints, its
// limits. A subclass reads with cached(); a process changing a project's rows
// calls changing() first, so it reads afresh until its own change is heard back.
import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { NotifiedCache, NotifiedCacheFeed } from './notified-cache';
import { listenConnectionConfig } from './pg-listener';
import type { UnitOfWork } from './unit-of-work';

export abstract class ProjectCache<V> implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly projects = new NotifiedCache<V>({ maxEntries: 10_000, groupOf: (projectId) => projectId });
  private readonly feed: NotifiedCacheFeed;

  protected constructor(protected readonly uow: UnitOfWork, channel: string, name: string) {
    this.feed = new NotifiedCacheFeed(listenConnectionConfig(uow.dataSource), channel, this.projects, new Logger(name));
  }

  onApplicationBootstrap(): Promise<void> {
    return this.feed.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.feed.stop();
  }

  /** Before this process changes a project's rows: read afresh until the change is heard back. */
  changing(projectId: string): void {
    this.projects.beginChange(projectId);
  }

  protected async cached(projectId: string, load: () => Promise<V>): Promise<V> {
    const cached = this.projects.lookup(projectId);
    if (cached !== undefined) return cached;
    const mark = this.projects.mark();
    const value = await load();
    this.projects.remember(projectId, value, mark);
    return value;
  }
}
