// Read your writes across processes (issue 24, ADR 0025), in a service that
// learns of API keys from the gateway's events: once the apiKey.revoked event
// has been handled, no process of the service accepts a token of the key,
// though each remembers tokens it has verified (VerifiedTokens). Two sets of
// objects with connections and feeds of their own stand for two processes on
// one database: one handles the event, the other authenticates.
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { sign } from 'jsonwebtoken';
import { loadConfig } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';
import { newId } from '@mm/platform/ids';
import { anotherProcess, createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { BearerAuthenticator } from './api-auth.guard';
import { ApiKeyDirectory, ApiKeyEventsController, PlatformApiKeys1700000000300 } from './api-key-directory';
import { RevocationFeed } from './revocation-feed';
import { TOKEN_ALGORITHM, TOKEN_AUDIENCE, TOKEN_ISSUER } from './token-claims';
import { TokenVerifier } from './token-verifier';
import { VerifiedTokens } from './verified-tokens';

/** The gateway's signing key, as the services' keyset would give it. */
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const keyset = { publicKey: async (kid: string) => (kid === 'sig_test' ? publicKey : undefined) };

describe("API key revocations heard by several processes of a service that projects the gateway's key events", () => {
  let db: TestDatabase;
  let other: TestDatabase;
  const config = loadConfig({ MM_SIGNING_KEY_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}` });
  const serviceProcess = (uow: UnitOfWork) => {
    const tokens = new VerifiedTokens();
    const authenticator = new BearerAuthenticator(new TokenVerifier(keyset, new ApiKeyDirectory(uow), config), tokens);
    return {
      tokens,
      feed: new RevocationFeed(uow, tokens),
      events: new ApiKeyEventsController(uow, tokens),
      authenticate: (token: string) => authenticator.authenticate(`Bearer ${token}`),
    };
  };
  let here: ReturnType<typeof serviceProcess>;
  let there: ReturnType<typeof serviceProcess>;

  beforeAll(async () => {
    db = await createTestDatabase();
    const runner = db.dataSource.createQueryRunner();
    await new PlatformApiKeys1700000000300().up(runner);
    await runner.release();
    other = await anotherProcess(db);
    here = serviceProcess(db.uow);
    there = serviceProcess(other.uow);
    await here.feed.onApplicationBootstrap();
    await there.feed.onApplicationBootstrap();
  });
  afterAll(async () => {
    await there.feed.onApplicationShutdown();
    await here.feed.onApplicationShutdown();
    await other.close();
    await db.close();
  });

  it("refuses the key's tokens in every process as soon as the revocation event has been handled", async () => {
    const projectId = newId('project');
    // Many rounds: without acknowledgements the other process's notification often arrives after the handler returns.
    for (let round = 1; round <= 25; round++) {
      const apiKey = `sk_sdbx_round${round}`;
      // The handlers run in the transaction the transport gives them (with the processed-event row or checkpoint).
      await db.uow.run(() =>
        here.events.onCreated({
          data: { apiKey, projectId, mode: 'sdbx', secretHash: 'not used here', createdAt: new Date().toISOString() },
        }),
      );
      const token = sign({ projectId, mode: 'sdbx' }, privateKey, {
        algorithm: TOKEN_ALGORITHM,
        keyid: 'sig_test',
        issuer: TOKEN_ISSUER,
        audience: TOKEN_AUDIENCE,
        subject: apiKey,
        jwtid: randomUUID(),
        expiresIn: 600,
      });
      // The other process has verified the token and remembers it.
      expect(await there.authenticate(token)).toEqual({ kind: 'partner', projectId, apiKey, scopes: null });
      expect(there.tokens.lookup(VerifiedTokens.keyOf(token))).toEqual({
        kind: 'partner',
        projectId,
        apiKey,
        scopes: null,
      });

      await db.uow.run(() =>
        here.events.onRevoked({ data: { apiKey, projectId, revokedAt: new Date().toISOString() } }),
      );
      const after = await there.authenticate(token).then(
        () => 'accepted',
        (error: { message?: string }) => `refused: ${error.message}`,
      );
      expect({ round, after }).toEqual({ round, after: expect.stringMatching(/^refused/) });
    }
  });
});
