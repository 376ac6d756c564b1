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
      const { row, apiSecret } = await here.service.createApiKey(projectId);
      const apiKey = row.api_key;
      const { accessToken } = await here.service.issueToken(apiKey, apiSecret);
      // The other process has verified the token and remembers it.
      const caller = { kind: 'partner', projectId, apiKey, scopes: null };
      expect(await there.authenticate(accessToken)).toEqual(caller);
      expect(there.tokens.lookup(VerifiedTokens.keyOf(accessToken))).toEqual(caller);

      await here.service.revokeApiKey(apiKey);
      const after = await there.authenticate(accessToken).then(
        () => 'accepted',
        (error: { message?: string }) => `refused: ${error.message}`,
      );
      expect({ round, after }).toEqual({ round, after: expect.stringMatching(/^refused/) });
    }
  });

  it("refuses a rolled key's tokens in every process once its expiry has passed, and at once for 0 s", async () => {
    const { id: projectId } = await here.service.createProject('rolled everywhere');
    const outcome = (token: string) =>
      there.authenticate(token).then(
        () => 'accepted',
        (error: { message?: string }) => `refused: ${error.message}`,
      );
    for (let round = 1; round <= 10; round++) {
      const { row, apiSecret } = await here.service.createApiKey(projectId, { scopes: ['customers:read'] });
      const { accessToken } = await here.service.issueToken(row.api_key, apiSecret);
      // Verified and remembered by the other process, with the key's scopes.
      expect(await there.authenticate(accessToken)).toMatchObject({ scopes: ['customers:read'] });

      await here.service.rollApiKey(row.api_key, 0);
      expect({ round, after: await outcome(accessToken) }).toEqual({ round, after: expect.stringMatching(/^refused/) });
    }
    const { row, apiSecret } = await here.service.createApiKey(projectId);
    const { accessToken } = await here.service.issueToken(row.api_key, apiSecret);
    expect(await outcome(accessToken)).toBe('accepted');
    const { rolled, row: successor, apiSecret: newSecret } = await here.service.rollApiKey(row.api_key, 2);
    const expiresAt = new Date(rolled.expires_at!).getTime();
    // Still working before its expiry, in the other process too; a new token of it lasts no longer than the key.
    expect(await outcome(accessToken)).toBe('accepted');
    const second = await here.service.issueToken(row.api_key, apiSecret);
    expect(new Date(second.expiresAt).getTime()).toBeLessThanOrEqual(expiresAt);
    // Past the expiry the key's tokens are refused, the one remembered before the roll included.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 1));
    expect(await outcome(accessToken)).toMatch(/^refused/);
    expect(await outcome(second.accessToken)).toMatch(/^refused/);
    await expect(here.service.issueToken(row.api_key, apiSecret)).rejects.toMatchObject({
      description: expect.stringMatching(/expired/),
    });
    // Its successor works.
    const next = await here.service.issueToken(successor.api_key, newSecret);
    expect(await outcome(next.accessToken)).toBe('accepted');
  });
});
