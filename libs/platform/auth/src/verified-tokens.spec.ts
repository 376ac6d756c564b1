import { VerifiedTokens } from './verified-tokens';

describe('VerifiedTokens', () => {
  let now = 1_000_000;
  const clock = () => now;
  const caller = (apiKey: string) => ({ kind: 'partner' as const, projectId: 'prj_x', apiKey });
  const key = VerifiedTokens.keyOf('header.payload.signature');
  let tokens: VerifiedTokens;

  beforeEach(() => {
    now = 1_000_000;
    tokens = new VerifiedTokens(clock);
    tokens.setLive(true);
  });

  it('remembers a verified token until it expires', () => {
    tokens.remember(key, caller('sk_a'), tokens.mark(), now + 30_000);
    expect(tokens.lookup(key)).toEqual(caller('sk_a'));
    now += 30_000;
    expect(tokens.lookup(key)).toBeUndefined();
  });

  it('re-verifies a token at least once a minute, however long it lives', () => {
    tokens.remember(key, caller('sk_a'), tokens.mark(), now + 3_600_000);
    now += 60_000;
    expect(tokens.lookup(key)).toBeUndefined();
  });

  it('keys by the hash of the token, never the token', () => {
    expect(key).not.toContain('payload');
    expect(VerifiedTokens.keyOf('header.payload.signatur3')).not.toBe(key);
  });

  it('forgets the tokens of a revoked key', () => {
    const other = VerifiedTokens.keyOf('other');
    tokens.remember(key, caller('sk_a'), tokens.mark(), now + 30_000);
    tokens.remember(other, caller('sk_b'), tokens.mark(), now + 30_000);
    tokens.changed('sk_a');
    expect(tokens.lookup(key)).toBeUndefined();
    expect(tokens.lookup(other)).toEqual(caller('sk_b'));
  });

  it('does not remember a verification that was running when a revocation was heard', () => {
    const mark = tokens.mark();
    tokens.changed('sk_a');
    tokens.remember(key, caller('sk_a'), mark, now + 30_000);
    expect(tokens.lookup(key)).toBeUndefined();
  });

  it('while this process revokes a key, neither answers nor remembers its tokens until the revocation is heard', () => {
    tokens.remember(key, caller('sk_a'), tokens.mark(), now + 30_000);
    tokens.beginChange('sk_a');
    expect(tokens.lookup(key)).toBeUndefined();
    tokens.remember(key, caller('sk_a'), tokens.mark(), now + 30_000);
    expect(tokens.lookup(key)).toBeUndefined();
    tokens.changed('sk_a');
    tokens.remember(key, caller('sk_a'), tokens.mark(), now + 30_000);
    expect(tokens.lookup(key)).toEqual(caller('sk_a'));
  });

  it('trusts nothing while revocations may be missed, and starts empty when they are heard again', () => {
    tokens.remember(key, caller('sk_a'), tokens.mark(), now + 30_000);
    tokens.setLive(false);
    expect(tokens.lookup(key)).toBeUndefined();
    tokens.remember(key, caller('sk_a'), tokens.mark(), now + 30_000);
    tokens.setLive(true);
    expect(tokens.lookup(key)).toBeUndefined();
  });

  it('stays bounded, dropping the oldest entry first', () => {
    for (let i = 0; i < 10_001; i++)
      tokens.remember(VerifiedTokens.keyOf(`t${i}`), caller('sk_a'), tokens.mark(), now + 30_000);
    expect(tokens.lookup(VerifiedTokens.keyOf('t0'))).toBeUndefined();
    expect(tokens.lookup(VerifiedTokens.keyOf('t10000'))).toEqual(caller('sk_a'));
  });
});
