// The behaviour every event transport owes its handlers, run against each
// adapter by its own *.int-spec.ts: Nest @EventPattern handlers in a real
// microservice, effects written to a real PostgreSQL table and counted there.
import { randomBytes } from 'node:crypto';
import { Controller, Inject, Module, type DynamicModule, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern, Payload, type CustomTransportStrategy, type MicroserviceOptions } from '@nestjs/microservices';
import { UnitOfWork } from '@mm/platform/database';
import type { NewEvent, RecordedEvent } from '@mm/platform/event-store';

export interface TransportHarness {
  uow: UnitOfWork;
  /** Appends to the log the transport delivers from, in a transaction of its own. */
  append(streamId: string, events: NewEvent[]): Promise<RecordedEvent[]>;
  /** A new server of the consumer group, not listening yet. */
  createServer(group: string): CustomTransportStrategy;
  close(): Promise<void>;
}

const PROBE = Symbol('contract probe');

class Probe {
  readonly invocations: RecordedEvent[] = [];
  readonly failed = new Set<string>();
  constructor(
    readonly group: string,
    readonly server: string,
  ) {}
}

interface HappenedData {
  failOnce?: boolean;
  fence?: boolean;
}

@Controller()
class ContractProjection {
  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(PROBE) private readonly probe: Probe,
  ) {}

  @EventPattern('contract.happened')
  async onHappened(@Payload() event: RecordedEvent<'contract.happened', HappenedData>): Promise<void> {
    await this.record(event);
    // Fails after its write: only a delivery that commits with the handler keeps that write out.
    if (event.data.failOnce && !this.probe.failed.has(event.eventId)) {
      this.probe.failed.add(event.eventId);
      throw new Error(`${event.eventId} fails once, after writing its effect`);
    }
  }

  /** A second type on the same streams: order must hold across types, not only within one. */
  @EventPattern('contract.changed')
  async onChanged(@Payload() event: RecordedEvent<'contract.changed'>): Promise<void> {
    await this.record(event);
  }

  private async record(event: RecordedEvent): Promise<void> {
    this.probe.invocations.push(event);
    await this.uow.query(
      `INSERT INTO contract_effects (consumer_group, server, event_id, stream_id, stream_version, payload)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb)`,
      [this.probe.group, this.probe.server, event.eventId, event.streamId, event.streamVersion, JSON.stringify(event)],
    );
  }
}

@Module({})
class ContractModule {
  static with(uow: UnitOfWork, probe: Probe): DynamicModule {
    return {
      module: ContractModule,
      controllers: [ContractProjection],
      providers: [
        { provide: UnitOfWork, useValue: uow },
        { provide: PROBE, useValue: probe },
      ],
    };
  }
}

interface EffectRow {
  event_id: string;
  stream_id: string;
  stream_version: number;
  server: string;
  payload: RecordedEvent;
}

const happened = (data: HappenedData = {}): NewEvent => ({ type: 'contract.happened', data });
const changed = (): NewEvent => ({ type: 'contract.changed', data: {} });
const ids = (events: Array<{ eventId: string }>) => events.map((e) => e.eventId);

/** Re-runs the assertion until it passes; only the deadline is a failure. */
export async function eventually(assertion: () => void | Promise<void>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await assertion();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

export function transportContract(
  name: string,
  createHarness: () => Promise<TransportHarness>,
  test: jest.It = it,
): void {
  describe(`${name}: event transport contract`, () => {
    const TIMEOUT = 120_000;
    const run = randomBytes(4).toString('hex');
    let sequence = 0;
    const unique = (what: string) => `${what}-${run}-${++sequence}`;
    let h: TransportHarness;
    const apps: INestMicroservice[] = [];

    async function start(group: string, server = group): Promise<Probe> {
      const probe = new Probe(group, server);
      const app = await NestFactory.createMicroservice<MicroserviceOptions>(ContractModule.with(h.uow, probe), {
        strategy: h.createServer(group),
        logger: false,
        abortOnError: false,
      });
      apps.push(app);
      await app.listen();
      return probe;
    }

    async function closeServers(): Promise<void> {
      await Promise.all(apps.splice(0).map((app) => app.close()));
    }

    /** The group's committed effects on these streams, in the order they were written; fences left out. */
    function effects(group: string, streams: string[]): Promise<EffectRow[]> {
      return h.uow.query<EffectRow>(
        `SELECT event_id, stream_id, stream_version, server, payload FROM contract_effects
          WHERE consumer_group = $1 AND stream_id = ANY($2) AND NOT (payload->'data' ? 'fence')
          ORDER BY seq`,
        [group, streams],
      );
    }

    /**
     * Appends a fence to each stream and waits until every group handled them all. A stream's
     * events arrive in order, so after its fence nothing earlier of it is still on the way.
     */
    async function settle(groups: string[], streams: string[]): Promise<void> {
      const fences = ids((await Promise.all(streams.map((s) => h.append(s, [happened({ fence: true })])))).flat());
      await eventually(async () => {
        for (const group of groups) {
          const [row] = await h.uow.query<{ n: number }>(
            `SELECT count(DISTINCT event_id)::int AS n FROM contract_effects WHERE consumer_group = $1 AND event_id = ANY($2)`,
            [group, fences],
          );
          expect(`${group}: ${row.n} of ${fences.length} fences`).toBe(
            `${group}: ${fences.length} of ${fences.length} fences`,
          );
        }
      });
    }

    /**
     * Every expected event has the group's effect. On a mismatch the failure
     * names what is missing beside the group's checkpoint and the read horizon,
     * so an intermittent miss explains itself.
     */
    async function expectHandled(group: string, streams: string[], expected: string[]): Promise<EffectRow[]> {
      const rows = await effects(group, streams);
      const seen = new Set(rows.map((r) => r.event_id));
      const missing = expected.filter((id) => !seen.has(id));
      if (missing.length > 0) {
        const checkpoints = await h.uow.query(
          `SELECT source, transaction_id::text AS transaction_id, global_position::text AS global_position FROM platform.subscription_checkpoints WHERE subscription = $1`,
          [group],
        );
        const [horizon] = await h.uow.query<{ xmin: string }>(
          `SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`,
        );
        const handledBy = rows.reduce<Record<string, number>>(
          (acc, r) => ({ ...acc, [r.server]: (acc[r.server] ?? 0) + 1 }),
          {},
        );
        throw new Error(
          `${group}: ${missing.length} of ${expected.length} events have no effect: ${JSON.stringify({ missing, handledBy, checkpoints, horizon: horizon.xmin })}`,
        );
      }
      expect(rows.map((r) => r.event_id).sort()).toEqual([...expected].sort());
      return rows;
    }

    function expectVersionOrder(rows: EffectRow[], streams: string[]): void {
      for (const stream of streams) {
        const versions = rows.filter((r) => r.stream_id === stream).map((r) => r.stream_version);
        expect(versions).toEqual([...versions].sort((a, b) => a - b));
      }
    }

    beforeAll(async () => {
      h = await createHarness();
      await h.uow.query(`
        CREATE TABLE IF NOT EXISTS contract_effects (
          seq            bigserial PRIMARY KEY,
          consumer_group text    NOT NULL,
          server         text    NOT NULL,
          event_id       text    NOT NULL,
          stream_id      text    NOT NULL,
          stream_version integer NOT NULL,
          payload        jsonb   NOT NULL
        )`);
    }, TIMEOUT);
    afterEach(closeServers, TIMEOUT);
    afterAll(async () => {
      await h?.close();
    }, TIMEOUT);

    test(
      'delivers each appended event, whole, to its @EventPattern handler, in version order per stream',
      async () => {
        const group = unique('group');
        const streams = [unique('stream'), unique('stream'), unique('stream')];
        await start(group);
        const appended: RecordedEvent[] = [];
        for (let round = 1; round <= 3; round++) {
          for (const stream of streams) {
            // An event no handler of the group wants is passed over, not a stop.
            appended.push(
              ...(await h.append(stream, [happened(), { type: 'contract.ignored', data: {} }, happened()])),
            );
          }
        }
        await settle([group], streams);

        const handled = appended.filter((e) => e.type === 'contract.happened');
        const rows = await expectHandled(group, streams, ids(handled));
        for (const row of rows) expect(row.payload).toEqual(handled.find((e) => e.eventId === row.event_id));
        expectVersionOrder(rows, streams);
      },
      TIMEOUT,
    );

    test(
      "keeps each stream's order across its event types",
      async () => {
        const group = unique('group');
        const streams = [unique('stream'), unique('stream'), unique('stream'), unique('stream')];
        await start(group);
        const appended: RecordedEvent[] = [];
        for (let round = 0; round < 3; round++) {
          // Streams interleave in the log; within each, the types alternate.
          appended.push(
            ...(await Promise.all(streams.map((s) => h.append(s, [changed(), happened(), changed()])))).flat(),
          );
        }
        await settle([group], streams);

        const rows = await expectHandled(group, streams, ids(appended));
        expectVersionOrder(rows, streams);
        for (const stream of streams) {
          const types = rows.filter((r) => r.stream_id === stream).map((r) => r.payload.type);
          expect(types).toEqual(appended.filter((e) => e.streamId === stream).map((e) => e.type));
        }
      },
      TIMEOUT,
    );

    test(
      "commits a handler's writes with the delivery: a handler that fails once is retried and its effect lands once",
      async () => {
        const group = unique('group');
        const stream = unique('stream');
        const probe = await start(group);
        const [, failing] = await h.append(stream, [happened(), happened({ failOnce: true }), happened()]);
        await settle([group], [stream]);

        expect((await effects(group, [stream])).map((r) => r.stream_version)).toEqual([1, 2, 3]);
        expect(probe.invocations.filter((e) => e.eventId === failing.eventId).length).toBeGreaterThanOrEqual(2);
      },
      TIMEOUT,
    );

    test(
      'does not redeliver what a group handled to the next server of that group',
      async () => {
        const group = unique('group');
        const stream = unique('stream');
        const first = await start(group, 'first');
        await h.append(stream, [happened(), happened()]);
        await settle([group], [stream]);
        await closeServers();

        const [later] = await h.append(stream, [happened()]);
        const second = await start(group, 'second');
        await settle([group], [stream]);

        // This test's stream only: a new group also reads the topic's earlier events, among them other
        // tests' fail-once events, whose offsets the first server may rightly not have committed yet.
        const seenByFirst = new Set(ids(first.invocations.filter((e) => e.streamId === stream)));
        expect(second.invocations.filter((e) => e.streamId === stream && seenByFirst.has(e.eventId))).toEqual([]);
        expect(ids(second.invocations)).toContain(later.eventId);
        const rows = await effects(group, [stream]);
        expect(rows.map((r) => [r.stream_version, r.server])).toEqual([
          [1, 'first'],
          [2, 'first'],
          [4, 'second'],
        ]);
      },
      TIMEOUT,
    );

    test(
      'delivers every event to each consumer group',
      async () => {
        const groups = [unique('group'), unique('group')];
        const streams = [unique('stream'), unique('stream')];
        await Promise.all(groups.map((group) => start(group)));
        const appended = (
          await Promise.all(streams.map((s) => h.append(s, [happened(), happened(), happened()])))
        ).flat();
        await settle(groups, streams);

        for (const group of groups) await expectHandled(group, streams, ids(appended));
      },
      TIMEOUT,
    );

    test(
      'shares a group between two running servers: each event is handled exactly once',
      async () => {
        const group = unique('group');
        const streams = Array.from({ length: 4 }, () => unique('stream'));
        await Promise.all([start(group, 'a'), start(group, 'b')]);
        const appended: RecordedEvent[] = [];
        for (let round = 0; round < 5; round++) {
          appended.push(...(await Promise.all(streams.map((s) => h.append(s, [happened(), happened()])))).flat());
        }
        await settle([group], streams);

        const rows = await expectHandled(group, streams, ids(appended));
        expectVersionOrder(rows, streams);
      },
      TIMEOUT,
    );
  });
}
