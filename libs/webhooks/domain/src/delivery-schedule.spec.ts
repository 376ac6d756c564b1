// Spec: Events / Delivery and verification 3 and 4; States/Webhook.
import { isDelivered, MAX_ATTEMPTS, retryDelaySecs, shouldSuspend, SUSPEND_AFTER_SECS } from './delivery-schedule';

describe('the delivery schedule', () => {
  it('waits 0s, 5s, 10s, 30s, 1m, 10m, 1h, 6h, 1d, 2d by attempts so far, then gives up after 10', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(retryDelaySecs)).toEqual([
      0, 5, 10, 30, 60, 600, 3600, 21_600, 86_400, 172_800,
    ]);
    expect(MAX_ATTEMPTS).toBe(10);
    expect(retryDelaySecs(10)).toBeUndefined();
    // The whole schedule spans about three days, so the tenth failure is past the suspension mark.
    const total = [1, 2, 3, 4, 5, 6, 7, 8, 9].reduce((sum, n) => sum + retryDelaySecs(n)!, 0);
    expect(total).toBeGreaterThan(SUSPEND_AFTER_SECS);
    expect(total / 86_400).toBeLessThan(3.5);
  });

  it('treats only a 2xx as delivered: 410 and 3xx are failures like 500', () => {
    expect([200, 201, 204, 299].map(isDelivered)).toEqual([true, true, true, true]);
    expect([undefined, 199, 301, 304, 400, 410, 500].map(isDelivered)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('suspends after three days of continuous failure, not before', () => {
    const since = new Date('2026-01-01T00:00:00Z');
    expect(shouldSuspend(since, new Date(since.getTime() + SUSPEND_AFTER_SECS * 1000 - 1))).toBe(false);
    expect(shouldSuspend(since, new Date(since.getTime() + SUSPEND_AFTER_SECS * 1000))).toBe(true);
  });
});
