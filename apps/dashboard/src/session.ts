// Who is signed in. A partner's key pair is exchanged for a bearer token at once and the secret is dropped;
// the token (an hour at most) and the operator's token are kept in this tab's sessionStorage only, so a
// reload keeps the session and closing the tab ends it. Nothing of it ever goes into a URL or a log.
import { useEffect, useState } from 'preact/hooks';

export type Session =
  | { kind: 'partner'; token: string; expiresAt: string; apiKey: string }
  // Signed in through the OpenID provider: who, with which role, and until when the token lasts.
  | { kind: 'operator'; token: string; name?: string; role?: string; expiresAt?: string | null };

const KEY = 'mm.dashboard.session';
let session: Session | undefined = read();
let expiredReason: string | undefined;
const listeners = new Set<() => void>();

function read(): Session | undefined {
  try {
    const stored = sessionStorage.getItem(KEY);
    const parsed = stored ? (JSON.parse(stored) as Session) : undefined;
    if (parsed?.expiresAt && Date.parse(parsed.expiresAt) <= Date.now()) return undefined;
    return parsed;
  } catch {
    return undefined;
  }
}

function changed(): void {
  for (const listener of listeners) listener();
}

export function currentSession(): Session | undefined {
  return session;
}

export function signIn(next: Session): void {
  session = next;
  expiredReason = undefined;
  sessionStorage.setItem(KEY, JSON.stringify(next));
  changed();
}

export function signOut(): void {
  session = undefined;
  sessionStorage.removeItem(KEY);
  changed();
}

/** The API refused the credential (expired or revoked): sign-in again, saying why. */
export function expireSession(reason: string): void {
  expiredReason = `Signed out: ${reason}`;
  signOut();
}

export function useSession(): { session: Session | undefined; expiredReason: string | undefined } {
  const [, setVersion] = useState(0);
  useEffect(() => {
    const listener = () => setVersion((v) => v + 1);
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return { session, expiredReason };
}
