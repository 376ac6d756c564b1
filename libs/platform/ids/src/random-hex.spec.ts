import { randomHex } from './random-hex';

describe('randomHex', () => {
  it('gives as many bytes as asked, in lowercase hex', () => {
    for (const bytes of [1, 8, 20, 32]) expect(randomHex(bytes)).toMatch(new RegExp(`^[0-9a-f]{${2 * bytes}}$`));
  });

  it('never hands the same bytes out twice, across many refills of its pool', () => {
    // 20,000 values of 8 bytes: 160,000 bytes, the pool refilled about forty times; a repeat of 64 random
    // bits among them would mean bytes handed out twice (the chance otherwise is about 1 in 10^11).
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) seen.add(randomHex(8));
    expect(seen.size).toBe(20_000);
  });

  it('spreads its values over every hex digit', () => {
    const counts = new Map<string, number>();
    for (const c of Array.from({ length: 2_000 }, () => randomHex(16)).join(''))
      counts.set(c, (counts.get(c) ?? 0) + 1);
    // 64,000 digits, 4,000 expected of each: a fixed or skewed pool would fail this.
    expect(counts.size).toBe(16);
    for (const n of counts.values()) expect(n).toBeGreaterThan(3_400);
  });

  it('refuses sizes it cannot give', () => {
    for (const bytes of [0, -1, 1.5, 4097]) expect(() => randomHex(bytes)).toThrow(RangeError);
  });
});
