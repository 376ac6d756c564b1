import { boundText } from './error-body.filter';
import {
  jsonTextProblem,
  MAX_JSON_DEPTH,
  MAX_JSON_OBJECT_KEYS,
  MAX_JSON_VALUES,
  unstorableText,
} from './request-input';
import { summariseProblems } from './validation.pipe';

describe('JSON text checks', () => {
  it.each([
    ['{"a":1,"b":[1,{"c":"x"}],"d":{"e":null}}'],
    ['"plain"'],
    ['{"a":"\\u00e9\\ud83d\\ude00 \\"quoted\\" \\\\"}'],
    ['{"a":{},"b":[],"c":[[]]}'],
    ['{"x":{"a":1},"y":{"a":1}}'],
    [`${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`],
    [JSON.stringify(Object.fromEntries(Array.from({ length: MAX_JSON_OBJECT_KEYS }, (_, i) => [`k${i}`, i])))],
    [JSON.stringify(Array.from({ length: MAX_JSON_VALUES - 1 }, () => 'a,b'))],
  ])('accepts valid JSON #%#', (text) => {
    expect(jsonTextProblem(text)).toBeUndefined();
  });

  it.each([
    [`deeper than ${MAX_JSON_DEPTH} levels`, `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`],
    ['deeper than', `${'{"a":'.repeat(1300)}1${'}'.repeat(1300)}`],
    [
      `body: an object with more than ${MAX_JSON_OBJECT_KEYS} keys`,
      JSON.stringify(Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, i]))),
    ],
    [`more than ${MAX_JSON_VALUES} values`, JSON.stringify({ a: Array.from({ length: MAX_JSON_VALUES }, () => 0) })],
    ['amount: duplicate key', '{"amount":"1.00","amount":"999999"}'],
    ['limits.a: duplicate key', '{"limits":{"a":1,"b":2,"\\u0061":3}}'],
    ['apiKey: must not contain NUL', '{"apiKey":"sk_sdbx_\\u0000","apiSecret":"x"}'],
    ['list[2].name: must not contain an unpaired UTF-16 surrogate', '{"list":[1,"ok",{"name":"\\ud800"}]}'],
    ['a: must not contain an unpaired', '{"a":"\\udc00\\ud800"}'],
    ['the key must not contain NUL', '{"\\u0000":1}'],
    ['[0]: must not contain NUL', '["\\u0000"]'],
    ['body: must not contain an unpaired', '"\\ud800"'],
  ])('refuses: %s', (problem, text) => {
    expect(jsonTextProblem(text)).toContain(problem);
  });

  it('accepts surrogate pairs and refuses NUL in plain text', () => {
    expect(unstorableText('😀')).toBeUndefined();
    expect(unstorableText('a\u0000b')).toMatch(/NUL/);
  });
});

describe('bounded error causes', () => {
  it('lists the first problems and counts the rest', () => {
    const problems = Array.from({ length: 60_000 }, (_, i) => `k${i}: unknown field`);
    const summary = summariseProblems(problems);
    expect(summary.length).toBeLessThan(400);
    expect(summary).toMatch(/^k0: unknown field; k1: unknown field; .*; and \d+ more$/);
  });

  it('cuts any text to the bound without splitting a surrogate pair', () => {
    expect(boundText('x'.repeat(10), 20)).toBe('x'.repeat(10));
    const cut = boundText(`${'x'.repeat(9)}😀${'y'.repeat(50)}`, 10);
    expect(cut).toBe(`${'x'.repeat(9)}… (52 more characters)`);
  });
});
