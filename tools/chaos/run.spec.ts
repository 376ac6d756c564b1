// The fault run's summary: Jepsen's form, and anomalies whose details hold money in bigint units printed, not thrown.
import type { Operation } from './history';
import { anomalyLines, detailText, parseArguments, summary, type ChaosResult } from './run';

const operation = (n: number, kind: string, outcome: Operation['outcome']): Operation => ({
  n,
  client: 0,
  kind,
  method: 'POST',
  path: '/x',
  outcome,
  attempts: 1,
  startedAt: 0,
  endedAt: 1,
});

describe('the fault run summary', () => {
  const result: ChaosResult = {
    seed: 7,
    operations: [operation(1, 'transfer', 'ok'), operation(2, 'transfer', 'unknown'), operation(3, 'fund', 'ok')],
    faults: [{ fault: { at: 1000, kind: 'kill', replicas: ['accounts-0'], holdMs: 2000 }, began: 1000, healed: 3000 }],
    anomalies: [
      { kind: 'balance-mismatch', message: 'wal_1 holds 1.00, expected 2.00', detail: { expected: 2n * 10n ** 18n } },
    ],
    counts: {},
    valid: false,
  };

  it('prints operations, faults and anomalies, a detail in bigint units among them, and the verdict last', () => {
    const lines = summary(result).split('\n');
    expect(lines[0]).toBe('operations: 3 (ok 2, unknown 1)');
    expect(lines).toContain('faults: 1 (kill 1)');
    expect(lines).toContain('  balance-mismatch: wal_1 holds 1.00, expected 2.00');
    expect(lines).toContain('    {"expected":"2000000000000000000"}');
    expect(lines[lines.length - 1]).toBe('chaos: invalid, 3 operations, 1 faults, 1 anomalies, seed 7');
  });

  it('puts where the platform was behind and what its replicas last said first in a failure report', () => {
    const output = summary({
      ...result,
      anomalies: [...result.anomalies, { kind: 'read-model-mismatch', message: 'txn_1 was never announced' }],
      behind: [{ kind: 'kafka', reader: 'mm.quoting', source: 'mm.transactions.events', behind: 51 }],
      lastWords: ['quoting-0: {"level":50,"msg":"stalled"}'],
    });
    expect(anomalyLines(`[0:01] chaos: seed 7\n${output}\n`).split('\n')).toEqual([
      '  behind: mm.quoting trails mm.transactions.events by 51',
      '  last said: quoting-0: {"level":50,"msg":"stalled"}',
      'anomalies: 2 (balance-mismatch 1, read-model-mismatch 1)',
      '  balance-mismatch: wal_1 holds 1.00, expected 2.00',
      '    {"expected":"2000000000000000000"}',
      '  read-model-mismatch: txn_1 was never announced',
    ]);
    expect(anomalyLines('chaos: Error: gateway-1 is not running')).toBe('(no summary)');
  });

  it('cuts a long detail and says how long it was', () => {
    expect(detailText({ text: 'x'.repeat(50) }, 20)).toBe('{"text":"xxxxxxxxxxx… (61 characters)');
  });

  it('reads its arguments, and refuses what it does not know', () => {
    expect(parseArguments(['--seconds', '30', '--seed', '5', '--clients', '2'])).toEqual({
      seconds: 30,
      seed: 5,
      clients: 2,
    });
    expect(parseArguments(['--seed', '5', '--rate', '12'])).toEqual({ seconds: 60, seed: 5, clients: 6, rate: 12 });
    expect(parseArguments(['--seed', '5', '--chain', '0'])).toEqual({ seconds: 60, seed: 5, clients: 6, chain: false });
    expect(() => parseArguments(['--chain', '2'])).toThrow(/out of range/);
    expect(() => parseArguments(['--rate', '0'])).toThrow(/out of range/);
    expect(() => parseArguments(['--minutes', '3'])).toThrow(/unknown/);
    expect(() => parseArguments(['--seconds', 'x'])).toThrow(/whole number/);
  });
});
