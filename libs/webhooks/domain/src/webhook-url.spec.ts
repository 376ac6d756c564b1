// Issue 17 item 4: a webhook url is stored as deliveries call it, and in
// production never reaches a non-public address whatever its spelling.
import fc from 'fast-check';
import { isNonPublicAddress, normaliseWebhookUrl } from './webhook-url';

const sandbox = { production: false };
const production = { production: true };
const problemOf = (url: string, options = sandbox) => {
  const result = normaliseWebhookUrl(url, options);
  return 'problem' in result ? result.problem : undefined;
};
const urlOf = (url: string, options = sandbox) => {
  const result = normaliseWebhookUrl(url, options);
  if ('problem' in result) throw new Error(`${JSON.stringify(url)} refused: ${result.problem}`);
  return result.url;
};

/** Private, loopback, link-local, shared and unspecified IPv4 addresses. */
const nonPublicIPv4 = fc.oneof(
  fc.tuple(fc.constant(10), fc.nat(255), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(127), fc.nat(255), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(169), fc.constant(254), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(192), fc.constant(168), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(100), fc.integer({ min: 64, max: 127 }), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(0), fc.nat(255), fc.nat(255), fc.nat(255)),
);
const hex = (a: number, b: number) => ((a << 8) | b).toString(16);
/** Every IPv6 spelling that carries an IPv4 address. */
const embeddings = ([a, b, c, d]: number[]): string[] => [
  `::ffff:${a}.${b}.${c}.${d}`,
  `::ffff:${hex(a, b)}:${hex(c, d)}`,
  `::FFFF:${hex(a, b).toUpperCase()}:${hex(c, d).toUpperCase()}`,
  `0:0:0:0:0:ffff:${a}.${b}.${c}.${d}`,
  `0000:0000:0000:0000:0000:ffff:${hex(a, b).padStart(4, '0')}:${hex(c, d).padStart(4, '0')}`,
  `::ffff:0:${a}.${b}.${c}.${d}`,
  `::${a}.${b}.${c}.${d}`,
  `64:ff9b::${a}.${b}.${c}.${d}`,
  `64:ff9b::${hex(a, b)}:${hex(c, d)}`,
  `2002:${hex(a, b)}:${hex(c, d)}::`,
  `2002:${hex(a, b)}:${hex(c, d)}:1:2:3:4:5`,
];

describe('webhook url', () => {
  describe('refuses what URL parsing would silently change into another url', () => {
    it.each([
      ['http://127.0.0.1:4399/a\r\nX: 1', /control character/],
      ['https://exam\tple.com/x', /control character/],
      ['https://example.com/x\n', /control character/],
      ['https://example.com/\u007fx', /control character/],
      ['https://example.com/\u0085x', /control character/],
      [' https://example.com/x', /whitespace/],
      ['https://example.com/x ', /whitespace/],
      ['https://example.com/a b', /whitespace/],
      ['https://example.com/\u00a0x', /whitespace/],
      ['https://example.com/\u2028x', /whitespace/],
      ['https://exa\u200bmple.com/x', /invisible/],
      ['https://exa\u00admple.com/x', /invisible/],
      ['https://example.com/\u202ex', /invisible/],
      ['http://127.0.0.1:4399\\@example.com/x', /backslash/],
      ['https://example.com/a\\b', /backslash/],
      ['http:127.0.0.1/a', /scheme/],
      ['https:/example.com/x', /scheme/],
      ['https:///example.com/x', /scheme/],
      ['https:\\\\example.com/x', /backslash/],
      ['https://example.com:0/x', /port/],
      ['http://127.0.0.1:00/x', /port/],
    ])('%j', (url, problem) => {
      expect(problemOf(url)).toMatch(problem);
    });

    it.each([
      ['ftp://example.com/x', /http or https/],
      ['example.com/x', /absolute/],
      ['https://user:pass@example.com/x', /credentials/],
      ['https://user@example.com/x', /credentials/],
      ['https://example.com/x#frag', /fragment/],
      ['https://example.com:65536/x', /absolute/],
      [`https://example.com/${'%41'.repeat(600)}`, undefined],
      [`https://example.com/${'ü'.repeat(400)}`, /2048/],
    ])('%j', (url, problem) => {
      if (problem) expect(problemOf(url)).toMatch(problem);
      else expect(problemOf(url)).toBeUndefined();
    });
  });

  it.each([
    ['HTTPS://Example.COM/Hooks', 'https://example.com/Hooks'],
    ['https://example.com:443/x', 'https://example.com/x'],
    ['http://example.com:80', 'http://example.com/'],
    ['https://example.com:08443/a/./b/../c?q=1', 'https://example.com:8443/a/c?q=1'],
    ['https://bücher.example/x', 'https://xn--bcher-kva.example/x'],
    ['https://example.com/ü?q=ü', 'https://example.com/%C3%BC?q=%C3%BC'],
    ['http://0x7f.1:4399/x', 'http://127.0.0.1:4399/x'],
    ['http://[0:0:0:0:0:0:0:1]:4399/x', 'http://[::1]:4399/x'],
    ['https://example.com./x', 'https://example.com./x'],
  ])('normalises %j to %j', (url, normalised) => {
    expect(urlOf(url)).toBe(normalised);
  });

  it('answers a url that is its own normal form, which deliveries call unchanged', () => {
    fc.assert(
      fc.property(fc.webUrl({ validSchemes: ['http', 'https'], withQueryParameters: true }), (raw) => {
        const result = normaliseWebhookUrl(raw, sandbox);
        if ('problem' in result) return;
        expect(new URL(result.url).href).toBe(result.url);
        expect(urlOf(result.url)).toBe(result.url);
        expect(result.url).not.toMatch(/[\s\\\p{Cc}\p{Cf}]/u);
      }),
    );
  });

  it('refuses any url with a control character, whitespace or a backslash anywhere', () => {
    const bad = fc.constantFrom(
      '\r',
      '\n',
      '\t',
      '\u0000',
      '\u007f',
      ' ',
      '\u00a0',
      '\u3000',
      '\\',
      '\u200b',
      '\ufeff',
    );
    fc.assert(
      fc.property(fc.webUrl({ validSchemes: ['http', 'https'] }), bad, fc.nat(), (url, character, at) => {
        const i = at % (url.length + 1);
        expect(problemOf(url.slice(0, i) + character + url.slice(i))).toBeDefined();
      }),
    );
  });

  describe('in production', () => {
    it.each([
      'http://localhost/x',
      'http://localhost./x',
      'http://LOCALHOST./x',
      'http://api.localhost/x',
      'http://api.localhost./x',
      'http://localhost../x',
      'http://127.0.0.1:8080/x',
      'http://2130706433/x',
      'http://0x7f.1/x',
      'http://10.1.2.3/x',
      'http://172.16.0.1/x',
      'http://192.168.1.1/x',
      'http://169.254.169.254/latest/meta-data',
      'http://100.64.0.1/x',
      'http://0.0.0.0/x',
      'http://255.255.255.255/x',
      'http://224.0.0.1/x',
      'http://[::]/x',
      'http://[::1]/x',
      'http://[fe80::1]/x',
      'http://[fd00::1]/x',
      'http://[fec0::1]/x',
      'http://[ff02::1]/x',
      'http://[2001:db8::1]/x',
      'http://[64:ff9b:1::a00:1]/x',
      'http://[64:ff9b:1::5db8:d822]/x',
      'http://[2001:0:a00:1::1]/x',
      'http://[2001:0:5db8:d822:0:0:f5ff:fffe]/x',
    ])('refuses %s', (url) => {
      expect(problemOf(url, production)).toMatch(/loopback, link-local or private/);
      expect(problemOf(url, sandbox)).toBeUndefined();
    });

    it('refuses every IPv6 spelling that carries a non-public IPv4 address', () => {
      fc.assert(
        fc.property(nonPublicIPv4, (octets) => {
          for (const address of embeddings(octets)) {
            expect([address, isNonPublicAddress(address)]).toEqual([address, true]);
            expect([address, problemOf(`https://[${address}]/x`, production)]).toEqual([
              address,
              expect.stringMatching(/private/),
            ]);
          }
        }),
      );
    });

    it.each([
      ['https://93.184.216.34/hooks', 'https://93.184.216.34/hooks'],
      ['https://example.com/hooks', 'https://example.com/hooks'],
      ['https://Example.com./hooks', 'https://example.com./hooks'],
      ['https://localhost.example.com/hooks', 'https://localhost.example.com/hooks'],
      ['https://[2606:4700:4700:0:0:0:0:1111]/hooks', 'https://[2606:4700:4700::1111]/hooks'],
      ['https://[::ffff:93.184.216.34]/hooks', 'https://[::ffff:5db8:d822]/hooks'],
      ['https://[64:ff9b::93.184.216.34]/hooks', 'https://[64:ff9b::5db8:d822]/hooks'],
      ['https://[2002:5db8:d822::1]/hooks', 'https://[2002:5db8:d822::1]/hooks'],
    ])('accepts the public %s as %s', (url, normalised) => {
      expect(urlOf(url, production)).toBe(normalised);
    });
  });

  it('knows public addresses from the rest', () => {
    for (const a of [
      '8.8.8.8',
      '1.1.1.1',
      '93.184.216.34',
      '2606:4700::1111',
      '2a00:1450:4001:82b::200e',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2002:808:808::1',
    ]) {
      expect([a, isNonPublicAddress(a)]).toEqual([a, false]);
    }
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '::',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:10.0.0.1',
      '::ffff:a00:1',
      '64:ff9b::a00:1',
      '2002:a00:1::',
      '::a00:1',
      'not an address',
    ]) {
      expect([a, isNonPublicAddress(a)]).toEqual([a, true]);
    }
  });
});
