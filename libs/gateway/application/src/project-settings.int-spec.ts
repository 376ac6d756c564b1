// Read your writes across processes (issue 42 item 3, ADR 0057): once PATCH
// /admin/projects/{id} has been answered, every process decides on the new
// settings, though each keeps them in memory (the gateway port answers from
// there). Two gateways with connections and feeds of their own stand for two
// processes on one database: one changes the project, the other reads it.
import { randomBytes } from 'node:crypto';
import { GatewayReadModels, ProjectSettings, SecretHasher, SigningKeys } from '@mm/gateway/infrastructure';
import { VerifiedTokens } from '@mm/platform/auth';
import { loadConfig, type PlatformConfig } from '@mm/platform/config';
import type { UnitOfWork } from '@mm/platform/database';
import { anotherProcess, createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { GatewayEventStore } from './gateway.event-store';
import { GatewayService } from './gateway.service';
import { ProjectCommands } from './project.commands';

/** One gateway process: its service and the project settings it keeps. */
function gateway(uow: UnitOfWork, config: PlatformConfig) {
  const readModels = new GatewayReadModels(uow);
  const settings = new ProjectSettings(uow, readModels);
  const commands = new ProjectCommands(new GatewayEventStore(uow), readModels, settings, uow, new VerifiedTokens());
  const service = new GatewayService(
    uow,
    commands,
    readModels,
    new SecretHasher(uow, config),
    new SigningKeys(uow, config),
    config,
  );
  return { service, settings };
}

describe('project settings kept in memory by several gateway processes', () => {
  let db: TestDatabase;
  let other: TestDatabase;
  let here: ReturnType<typeof gateway>;
  let there: ReturnType<typeof gateway>;

  beforeAll(async () => {
    db = await createTestDatabase();
    other = await anotherProcess(db);
    const config = loadConfig({
      DATABASE_URL: db.url,
      MM_SIGNING_KEY_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    });
    here = gateway(db.uow, config);
    there = gateway(other.uow, config);
    await here.settings.onApplicationBootstrap();
    await there.settings.onApplicationBootstrap();
  });
  afterAll(async () => {
    await there.settings.onApplicationShutdown();
    await here.settings.onApplicationShutdown();
    await other.close();
    await db.close();
  });

  /** What the other process decides on now (read twice: the second from its memory). */
  const seen = async (projectId: string) => {
    await there.settings.project(projectId);
    const row = (await there.settings.project(projectId))!;
    return { features: row.features, limits: row.limits };
  };

  it('is read as the last answered PATCH left it, in every process, whichever way it changed', async () => {
    // Many rounds: without acknowledgements the other process's notification often arrives after the answer.
    for (let round = 1; round <= 25; round++) {
      const { id: projectId } = await here.service.createProject(`round ${round}`, { cashPickup: true });
      expect(await seen(projectId)).toMatchObject({ features: { cashPickup: true }, limits: {} });

      // Turned off and lowered: what a stale copy would let through.
      await here.service.updateProject(projectId, {
        features: { cashPickup: false },
        limits: { perTransactionMax: '5.00', dailyBankPayoutCap: '100.00' },
      });
      expect({ round, seen: await seen(projectId) }).toEqual({
        round,
        seen: {
          features: expect.objectContaining({ cashPickup: false }),
          limits: { perTransactionMax: '5.00', dailyBankPayoutCap: '100.00' },
        },
      });

      // Turned back on, and a limit cleared.
      await here.service.updateProject(projectId, {
        features: { cashPickup: true },
        limits: { dailyBankPayoutCap: null },
      });
      expect({ round, seen: await seen(projectId) }).toEqual({
        round,
        seen: {
          features: expect.objectContaining({ cashPickup: true }),
          limits: { perTransactionMax: '5.00', dailyBankPayoutCap: null },
        },
      });
    }
  });
});
