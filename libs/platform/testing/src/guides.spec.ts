// The guides' format and matching rules, as docs/guides/README.md states them
// to readers: what the guide test runs is what a reader is told.
import { mismatches, parseGuide, substitute } from './guides';

const fence = (lang: string, text: string) => `\`\`\`${lang}\n${text}\n\`\`\`\n`;

describe('the guides format', () => {
  describe('parseGuide', () => {
    it('reads each request with the response after it, its name and whether to poll, in document order', () => {
      const guide = parseGuide(
        [
          '# A guide',
          'Prose.',
          fence(
            'http',
            '# @name customer\nPOST {{api}}/customers\nAuthorization: Bearer {{auth.accessToken}}\nContent-Type: application/json\n\n{"type": "individual"}',
          ),
          fence('http', 'HTTP/1.1 201 Created\n\n{"id": "cst_…"}'),
          fence('json', '{"an": "illustration"}'),
          fence('http', '# @poll\n# a comment for the reader\nGET {{api}}/customers/{{customer.id}}'),
          fence('http', 'HTTP/1.1 200 OK\nCache-Control: no-store'),
        ].join('\n'),
      );
      expect(guide.title).toBe('A guide');
      expect(guide.steps).toEqual([
        {
          kind: 'exchange',
          request: {
            kind: 'request',
            line: 3,
            name: 'customer',
            poll: false,
            method: 'POST',
            url: '{{api}}/customers',
            headers: [
              ['Authorization', 'Bearer {{auth.accessToken}}'],
              ['Content-Type', 'application/json'],
            ],
            body: '{"type": "individual"}',
          },
          response: { kind: 'response', line: 12, status: 201, headers: [], body: '{"id": "cst_…"}' },
        },
        {
          kind: 'exchange',
          request: {
            kind: 'request',
            line: 22,
            name: undefined,
            poll: true,
            method: 'GET',
            url: '{{api}}/customers/{{customer.id}}',
            headers: [],
            body: undefined,
          },
          response: {
            kind: 'response',
            line: 28,
            status: 200,
            headers: [['Cache-Control', 'no-store']],
            body: undefined,
          },
        },
      ]);
    });

    it('reads files to save by the name their first line gives, and commands, marking those that keep running', () => {
      const guide = parseGuide(
        [
          fence('js', "// receiver.cjs\nconsole.log('hi');"),
          fence('sh', '# keeps running: use another terminal\nnode receiver.cjs'),
          fence('sh', 'ls'),
        ].join('\n'),
      );
      expect(guide.steps).toEqual([
        { kind: 'file', line: 1, fileName: 'receiver.cjs', code: "// receiver.cjs\nconsole.log('hi');\n" },
        {
          kind: 'shell',
          line: 6,
          code: '# keeps running: use another terminal\nnode receiver.cjs',
          keepsRunning: true,
        },
        { kind: 'shell', line: 11, code: 'ls', keepsRunning: false },
      ]);
    });

    it.each([
      ['a request with no response after it', fence('http', 'GET {{api}}/x')],
      [
        'a request followed by something else than its response',
        fence('http', 'GET {{api}}/x') + fence('sh', 'ls') + fence('http', 'HTTP/1.1 200 OK'),
      ],
      ['a response with no request', fence('http', 'HTTP/1.1 200 OK')],
      ['an unknown directive', fence('http', '# @wait 5s\nGET {{api}}/x') + fence('http', 'HTTP/1.1 200 OK')],
      [
        'a line that is neither a request nor a status line',
        fence('http', 'fetch the customer') + fence('http', 'HTTP/1.1 200 OK'),
      ],
      ['a code block that does not name its file', fence('js', "console.log('hi');")],
    ])('refuses %s, naming the line', (_what, markdown) => {
      expect(() => parseGuide(markdown, 'guide.md')).toThrow(/^guide\.md:\d+: /);
    });
  });

  describe('substitute', () => {
    const bindings = {
      api: 'http://127.0.0.1:4321/v0.13',
      customer: { id: 'cst_1', endorsements: [{ name: 'usd', status: 'active' }] },
      none: null,
    };

    it('fills in names, paths into earlier answers (array elements by index) and a fresh UUID per {{$uuid}}', () => {
      expect(substitute('{{api}}/customers/{{customer.id}} {{customer.endorsements.0.status}}', bindings)).toBe(
        'http://127.0.0.1:4321/v0.13/customers/cst_1 active',
      );
      const [a, b] = substitute('{{$uuid}} {{$uuid}}', bindings).split(' ');
      expect(a).toMatch(/^[0-9a-f-]{36}$/);
      expect(a).not.toBe(b);
    });

    it('refuses a name not bound yet, a path that does not exist, and an object or null where a value goes', () => {
      expect(() => substitute('{{quote.id}}', bindings)).toThrow('no value named quote yet');
      expect(() => substitute('{{customer.name}}', bindings)).toThrow('no name in it');
      expect(() => substitute('{{customer}}', bindings)).toThrow('not a single value');
      expect(() => substitute('{{none}}', bindings)).toThrow('not a single value');
    });
  });

  describe('mismatches: an answer matches what the guide shows', () => {
    const actual = {
      id: 'cst_01h455vb4pex5vsknk084sn02q',
      status: 'active',
      email: null,
      amount: '100.00',
      legs: [
        { kind: 'payout', status: 'settled' },
        { kind: 'refund', status: 'settled' },
      ],
      createdAt: '2026-01-01T00:00:00.000Z',
    };

    it('when every field shown matches; fields not shown are not checked', () => {
      expect(mismatches({ status: 'active' }, actual)).toEqual([]);
      expect(mismatches({ status: 'failed' }, actual)).toEqual(['body.status: expected "failed", got "active"']);
      expect(mismatches({ subStatus: null }, actual)).toEqual(['body.subStatus: missing']);
      expect(mismatches({ email: null }, actual)).toEqual([]);
      expect(mismatches({ amount: 100 }, actual)).toEqual(['body.amount: expected 100, got "100.00"']);
    });

    it('"…" stands for any value but null, and a string ending in … for any string that starts with the rest', () => {
      expect(mismatches({ createdAt: '…', id: 'cst_…' }, actual)).toEqual([]);
      expect(mismatches({ email: '…' }, actual)).toEqual(['body.email: expected a value, got null']);
      expect(mismatches({ id: 'txn_…' }, actual)).toEqual([
        'body.id: expected a string starting "txn_", got "cst_01h455vb4pex5vsknk084sn02q"',
      ]);
    });

    it('arrays match element by element, all of them unless the last element shown is "…"', () => {
      expect(mismatches({ legs: [{ kind: 'payout' }, { kind: 'refund' }] }, actual)).toEqual([]);
      expect(mismatches({ legs: [{ kind: 'payout' }] }, actual)).toEqual([
        expect.stringContaining('body.legs: expected 1 elements, got 2'),
      ]);
      expect(mismatches({ legs: [{ kind: 'payout' }, '…'] }, actual)).toEqual([]);
      expect(mismatches({ legs: [{ kind: 'refund' }, '…'] }, actual)).toEqual([
        'body.legs[0].kind: expected "refund", got "payout"',
      ]);
      expect(mismatches({ legs: [{}, {}, '…'] }, actual)).toEqual([]);
      expect(mismatches({ legs: [{}, {}, {}, '…'] }, actual)).toEqual([expect.stringContaining('at least 3 elements')]);
    });
  });
});
