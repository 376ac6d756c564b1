import { inlineParameters } from './inline-parameters';

describe('inlineParameters', () => {
  it('writes each parameter as the literal pg would bind', () => {
    expect(inlineParameters('SELECT $1, $2::jsonb, $3, $4', ["it's", JSON.stringify({ a: 'b\\c' }), null, 42])).toBe(
      `SELECT 'it''s',  E'{"a":"b\\\\\\\\c"}'::jsonb, NULL, '42'`,
    );
  });

  it('leaves $n inside quoted strings, quoted identifiers and comments alone', () => {
    expect(inlineParameters(`SELECT '$1' AS "$2", $1 -- $2\n, $2`, ['a', 'b'])).toBe(`SELECT '$1' AS "$2", 'a' -- $2\n, 'b'`);
    expect(inlineParameters(`SELECT 'it''s $1', $1`, ['x'])).toBe(`SELECT 'it''s $1', 'x'`);
  });

  it('reuses a parameter named twice, and $10 is not $1 followed by 0', () => {
    const params = Array.from({ length: 10 }, (_, i) => `v${i + 1}`);
    expect(inlineParameters('SELECT $1, $10, $1', params)).toBe(`SELECT 'v1', 'v10', 'v1'`);
  });

  it('writes arrays, dates and buffers as pg prepares them', () => {
    expect(inlineParameters('SELECT $1::text[]', [['a', 'b"c']])).toBe(`SELECT  E'{"a","b\\\\"c"}'::text[]`);
    expect(inlineParameters('SELECT $1::bytea', [Buffer.from([1, 255])])).toBe(`SELECT '\\x01ff'::bytea`);
    expect(inlineParameters('SELECT $1', [true])).toBe(`SELECT 'true'`);
  });

  it('refuses a NUL byte as PostgreSQL refuses it in a bound parameter, instead of ending the query there', () => {
    expect(() => inlineParameters('SELECT $1', ['a\0b'])).toThrow(expect.objectContaining({ code: '22021' }));
  });

  it('refuses a statement naming a parameter it was not given, and drops a trailing semicolon', () => {
    expect(() => inlineParameters('SELECT $2', ['a'])).toThrow(/\$2/);
    expect(inlineParameters('SELECT $1;  ', ['a'])).toBe(`SELECT 'a'`);
  });
});
