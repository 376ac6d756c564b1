// The nemesis's schedule: a seed replays the same faults, and no fault takes a whole service away by killing it.
import { FAULT_KINDS, planFaults, type NemesisPlanOptions } from './nemesis';

const replicas = ['gateway-0', 'gateway-1', 'accounts-0', 'accounts-1', 'webhooks-0', 'webhooks-1'];
const options = (seed: number, durationMs = 60_000): NemesisPlanOptions => ({ seed, durationMs, replicas });

describe('the nemesis plan', () => {
  it('is the same for the same seed, and another for another seed', () => {
    expect(planFaults(options(7))).toEqual(planFaults(options(7)));
    expect(planFaults(options(7))).not.toEqual(planFaults(options(8)));
  });

  it('holds one fault at a time, each healed before the run ends', () => {
    for (const seed of [1, 2, 3, 42, 2024]) {
      const plan = planFaults(options(seed));
      expect(plan.length).toBeGreaterThan(3);
      plan.forEach((fault, i) => {
        expect(fault.at + fault.holdMs).toBeLessThanOrEqual(60_000);
        if (i > 0) expect(fault.at).toBeGreaterThan(plan[i - 1].at + plan[i - 1].holdMs);
      });
    }
  });

  it('kills one replica at a time, and partitions a service or one replica of it', () => {
    const plan = Array.from({ length: 30 }, (_, seed) => planFaults(options(seed, 600_000))).flat();
    for (const fault of plan) {
      if (fault.kind === 'kill') expect(fault.replicas).toHaveLength(1);
      const services = new Set(fault.replicas.map((r) => r.replace(/-\d+$/, '')));
      expect(services.size).toBeLessThanOrEqual(1);
      if (fault.kind.startsWith('restart-')) expect(fault.replicas).toEqual([]);
      else expect(fault.replicas.length).toBeGreaterThan(0);
    }
    // Every kind comes up in a long enough run.
    expect(new Set(plan.map((f) => f.kind))).toEqual(new Set(FAULT_KINDS));
  });

  it('leaves out the kinds it is told to', () => {
    const plan = planFaults({ ...options(5, 600_000), without: ['restart-kafka', 'kill'] });
    expect(plan.some((f) => f.kind === 'restart-kafka' || f.kind === 'kill')).toBe(false);
  });
});
