import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, EventPattern, Payload, type MicroserviceOptions } from '@nestjs/microservices';
import { createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { createEventsTable, EventStore, type RecordedEvent } from '@mm/platform/event-store';
import { EventsNotifyListener, listenConnectionConfig } from './events-notify.listener';
import { PgLogContext, PgLogTransport } from './pg-log.transport';
import { eventually, transportContract } from './transport.contract';

async function logOf(db: TestDatabase, schema: string): Promise<EventStore> {
  const runner = db.dataSource.createQueryRunner();
  await createEventsTable(runner, schema);
  await runner.release();
  return new EventStore(db.uow, schema);
}

// One database for the file: creating one holds a transaction id that, while it runs, hides
// newly committed events from every log reader of the cluster (readAll's commit-safe gate).
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.close());

transportContract('PgLogTransport', async () => {
  const store = await logOf(db, 'contract_log');
  return {
    uow: db.uow,
    append: (streamId, events) => db.uow.run(() => store.append(streamId, 'any', events)),
    createServer: (group) =>
      new PgLogTransport({ uow: db.uow, group, sources: [store], idlePollMs: 100, batchSize: 10 }),
    close: async () => undefined,
  };
});

describe('PgLogTransport beyond the contract', () => {
  let orders: EventStore;
  let payments: EventStore;

  beforeAll(async () => {
    orders = await logOf(db, 'mq_orders');
    payments = await logOf(db, 'mq_payments');
  });

  it('feeds one group from several logs, in version order across event types, with the event and group in @Ctx()', async () => {
    const seen: string[] = [];
    @Controller()
    class OrderProjection {
      @EventPattern('order.placed')
      placed(@Payload() e: RecordedEvent, @Ctx() ctx: PgLogContext) {
        seen.push(`${ctx.getGroup()} ${e.source} ${e.streamId}@${e.streamVersion} ${ctx.getEvent().type}`);
      }

      @EventPattern('order.paid')
      async paid(@Payload() e: RecordedEvent, @Ctx() ctx: PgLogContext) {
        seen.push(`${ctx.getGroup()} ${e.source} ${e.streamId}@${e.streamVersion} ${ctx.getEvent().type}`);
      }
    }
    @Module({ controllers: [OrderProjection] })
    class OrdersModule {}

    const app = await NestFactory.createMicroservice<MicroserviceOptions>(OrdersModule, {
      strategy: new PgLogTransport({ uow: db.uow, group: 'orders-view', sources: [orders, payments], idlePollMs: 100 }),
      logger: false,
      abortOnError: false,
    });
    await app.listen();
    try {
      await orders.append('o-1', 'no_stream', [{ type: 'order.placed', data: {} }]);
      await payments.append('o-1', 'no_stream', [
        { type: 'order.placed', data: {} },
        { type: 'order.paid', data: {} },
      ]);
      await orders.append('o-1', 1, [
        { type: 'order.paid', data: {} },
        { type: 'order.placed', data: {} },
      ]);
      await eventually(() => expect(seen).toHaveLength(5));
      const from = (schema: string) => seen.filter((s) => s.includes(` ${schema} `));
      expect(from('mq_orders')).toEqual([
        'orders-view mq_orders o-1@1 order.placed',
        'orders-view mq_orders o-1@2 order.paid',
        'orders-view mq_orders o-1@3 order.placed',
      ]);
      expect(from('mq_payments')).toEqual([
        'orders-view mq_payments o-1@1 order.placed',
        'orders-view mq_payments o-1@2 order.paid',
      ]);
    } finally {
      await app.close();
    }
  });

  it('is woken by NOTIFY on commit, with the schema, and never by a rolled-back append', async () => {
    const woken: string[] = [];
    const listener = new EventsNotifyListener(
      listenConnectionConfig(db.dataSource),
      ['mq_orders', 'mq_payments'],
      (s) => woken.push(s),
      console,
    );
    await listener.start();
    try {
      await expect(
        db.uow.run(async () => {
          await orders.append('rolled-back', 'no_stream', [{ type: 'order.placed', data: {} }]);
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      await db.uow.run(async () => {
        await payments.append('p-2', 'no_stream', [{ type: 'order.placed', data: {} }]);
        await payments.append('p-3', 'no_stream', [{ type: 'order.placed', data: {} }]);
      });
      // Notifications arrive in commit order, so once the later one is here the earlier would be too.
      await eventually(() => expect(woken).toContain('mq_payments'));
      expect(woken).toEqual(['mq_payments']); // one per transaction and schema: PostgreSQL folds duplicates
    } finally {
      await listener.stop();
    }
  });
});
