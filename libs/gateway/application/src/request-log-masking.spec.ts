import {
  loggedBody,
  loggedText,
  maskLongNumbers,
  MAX_LOGGED_BODY_BYTES,
  MAX_LOGGED_DEPTH,
} from './request-log-masking';

describe('what a request log entry keeps of a body', () => {
  it('replaces the fields that carry secrets and account, card or tax numbers, at any depth', () => {
    expect(
      loggedBody({
        type: 'bankUs',
        bankUs: { accountNumber: '000123456789', routingNumber: '021000021', bankName: 'Chase' },
        card: { cardNumber: '4242424242424242', cvc: '123' },
        webhooks: [{ url: 'https://example.com/hooks', secret: 'whsec_abc' }],
        apiSecret: 'sk_live',
      }),
    ).toEqual({
      type: 'bankUs',
      bankUs: { accountNumber: '[redacted]', routingNumber: '021000021', bankName: 'Chase' },
      card: { cardNumber: '[redacted]', cvc: '[redacted]' },
      webhooks: [{ url: 'https://example.com/hooks', secret: '[redacted]' }],
      apiSecret: '[redacted]',
    });
  });

  it('cuts a card or account number that no field names to its last four digits', () => {
    expect(loggedBody({ metadata: { note: 'card 4242 4242 4242 4242, acct 000123456789' } })).toEqual({
      metadata: { note: 'card ••••4242, acct ••••6789' },
    });
    expect(maskLongNumbers('4000-0566-5566-5556')).toBe('••••5556');
    expect(loggedBody({ number: 4242424242424242 })).toEqual({ number: '••••4242' });
  });

  it('leaves ids, amounts, dates and short numbers as they are', () => {
    const body = {
      id: 'txn_01m900000000000000000000ff',
      amount: '1234567.89',
      createdAt: '2026-12-07T08:00:00.000Z',
      routingNumber: '021000021',
      count: 12345678901,
    };
    expect(loggedBody(body)).toEqual(body);
  });

  it('keeps no body as null, and a body too long as a note of its size', () => {
    expect(loggedBody(undefined)).toBeNull();
    const long = loggedBody({ label: 'x'.repeat(MAX_LOGGED_BODY_BYTES) });
    expect(long).toMatch(/^\(not kept: \d+ bytes, over the 32768 kept\)$/);
  });

  it('keeps a text that is not JSON as text, masked and cut short', () => {
    expect(loggedText('{"accountNumber": "000123456789"')).toBe('{"accountNumber": "••••6789"');
    expect(loggedText('{"cardNumber":"4242424242424242"}')).toEqual({ cardNumber: '[redacted]' });
    expect(loggedText('')).toBeNull();
    expect(loggedText('y'.repeat(3000))).toMatch(/^y{2048}… \(3000 bytes\)$/);
  });
});

describe('what PostgreSQL cannot store', () => {
  it('becomes U+FFFD: a NUL character and half a surrogate pair, in values, keys and text that is not JSON', () => {
    expect(loggedBody({ firstName: 'a\u0000b', ['k\ud800']: ['\udc00x', 'ok 😀'] })).toEqual({
      firstName: 'a\uFFFDb',
      ['k\uFFFD']: ['\uFFFDx', 'ok 😀'],
    });
    expect(loggedText('{"note":"\\u0000 and \\udfff"}')).toEqual({ note: '\uFFFD and \uFFFD' });
    expect(loggedText('not json \u0000')).toBe('not json \uFFFD');
  });
});

describe('a body nested deeper than an entry follows', () => {
  const note = `(not kept: nested deeper than ${MAX_LOGGED_DEPTH} levels)`;
  const nested = (depth: number, leaf: unknown): unknown => {
    let value = leaf;
    for (let i = 0; i < depth; i++) value = i % 2 ? { a: value } : [value];
    return value;
  };
  /** The one leaf of a body nested as above, and how deep it lies. */
  const leaf = (body: unknown): { depth: number; value: unknown } => {
    let value = body;
    let depth = 0;
    for (; value !== null && typeof value === 'object'; depth++)
      value = Array.isArray(value) ? value[0] : (value as { a: unknown }).a;
    return { depth, value };
  };

  it('is kept down to its last followed level, and below it as a note', () => {
    expect(leaf(loggedBody(nested(MAX_LOGGED_DEPTH + 5, 'leaf')))).toEqual({ depth: MAX_LOGGED_DEPTH, value: note });
    expect(loggedBody(nested(MAX_LOGGED_DEPTH, 'leaf'))).toEqual(nested(MAX_LOGGED_DEPTH, 'leaf'));
  });

  it('is logged without overflowing the stack however deep it goes, sent as text or parsed', () => {
    const text = '['.repeat(16_000) + ']'.repeat(16_000);
    expect(leaf(loggedText(text))).toEqual({ depth: MAX_LOGGED_DEPTH, value: note });
    expect(leaf(loggedBody(JSON.parse(text)))).toEqual({ depth: MAX_LOGGED_DEPTH, value: note });
    expect(leaf(loggedBody(nested(200_000, 1)))).toEqual({ depth: MAX_LOGGED_DEPTH, value: note });
  });
});
