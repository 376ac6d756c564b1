import { createHash, timingSafeEqual } from 'node:crypto';

/** Whether two secrets are equal, compared by digest so that neither length nor content leaks through timing. */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}
