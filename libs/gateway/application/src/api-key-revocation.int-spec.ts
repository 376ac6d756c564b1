// Read your writes across processes (issue 24, ADR 0025): once DELETE
// /admin/api-keys/{key} has been answered, no process accepts a token of the
// key, though each remembers tokens it has verified (VerifiedTokens). Two
// gateways with connections and feeds of their own stand for two processes on
// one database: one revokes, the other authenticates.
import { randomBytes } from 'node:crypto';
import { GatewayReadModels, ProjectSettings, SecretHasher, SigningKeys } from '@mm/gateway/infrastructure';
import { BearerAuthenticator, RevocationFeed, TokenVerifier, VerifiedTokens } from '@mm/platform/auth';
import { loadConfig, type PlatformConfig } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';
import { anotherProcess, createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { GatewayEventStore } from './gateway.event-store';
import { GatewayService } from './gateway.service';
import { ProjectCommands } from './project.commands';

/** One gateway process: its service, its remembered tokens and their feed, and how it authenticates a bearer token. */
function gateway(uow: UnitOfWork, config: PlatformConfig) {
  const tokens = new VerifiedTokens();
  const keys = new SigningKeys(uow, config);
  const readModels = new GatewayReadModels(uow);
  const commands = new ProjectCommands(
    new GatewayEventStore(uow),
    readModels,
    new ProjectSettings(uow, readModels),
    uow,
    tokens,
  );
  const service = new GatewayService(uow, commands, readModels, new SecretHasher(uow, config), keys, config);
  const authenticator = new BearerAuthenticator(new TokenVerifier(keys, service, config), tokens);
  return {
    service,
    tokens,
    feed: new RevocationFeed(uow, tokens),
    authenticate: (token: string) => authenticator.authenticate(`Bearer ${token}`),
  };
}

describe('API key revocations heard by several gateway processes', () => {
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
    await here.feed.onApplicationBootstrap();
    await there.feed.onApplicationBootstrap();
  });
  afterAll(async () => {
    await there.feed.onApplicationShutdown();
    await here.feed.onApplicationShutdown();
    await other.close();
    await db.close();
  });

  it("refuses the key's tokens in every process as soon as the revocation is answered", async () => {
    const { id: projectId } = await here.service.createProject('revoked everywhere');
    // Many rounds: without acknowledgements the other process's notification often arrives after the answer.
    for (let round = 1; round <= 25; round++) {
      const { apiKey, apiSecret } = await here.service.createApiKey(projectId);
      const { accessToken } = await here.service.issueToken(apiKey, apiSecret);
      // The other process has verified the token and remembers it.
      expect(await there.authenticate(accessToken)).toEqual({ kind: 'partner', projectId, apiKey });
      expect(there.tokens.lookup(VerifiedTokens.keyOf(accessToken))).toEqual({ kind: 'partner', projectId, apiKey });

      await here.service.revokeApiKey(apiKey);
      const after = await there.authenticate(accessToken).then(
        () => 'accepted',
        (error: { message?: string }) => `refused: ${error.message}`,
      );
      expect({ round, after }).toEqual({ round, after: expect.stringMatching(/^refused/) });
    }
  });
});
