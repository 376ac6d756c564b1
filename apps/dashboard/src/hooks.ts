// Data for a view: read when it opens, again when the live version changes (live.ts), keeping what is on
// screen while it reads again; its loading and error states are the view's to show (ui.tsx's Loaded).
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiProblem } from './api';
import { refreshAll, useLiveVersion } from './live';

export interface Resource<T> {
  data?: T;
  error?: ApiProblem;
  loading: boolean;
  reload(): void;
}

/**
 * live: read again when an event arrives (the default). pollMs: also read again this often, for what changes
 * without an event of its own (a webhook delivery's attempts, the operator's queue).
 */
export function useResource<T>(
  load: () => Promise<T>,
  deps: unknown[],
  { live = true, pollMs }: { live?: boolean; pollMs?: number } = {},
): Resource<T> {
  const liveVersion = useLiveVersion();
  const [own, setOwn] = useState(0);
  useEffect(() => {
    if (!pollMs) return;
    const timer = setInterval(() => document.visibilityState !== 'hidden' && setOwn((n) => n + 1), pollMs);
    return () => clearInterval(timer);
  }, [pollMs]);
  const [state, setState] = useState<{ data?: T; error?: ApiProblem; loading: boolean; key: string }>({
    loading: true,
    key: '',
  });
  const key = JSON.stringify(deps);
  const latest = useRef(0);
  useEffect(() => {
    const request = ++latest.current;
    // Another resource (new deps) starts blank; the same one keeps its data while it reads again.
    setState((s) => (s.key === key ? { ...s, loading: true } : { loading: true, key }));
    load().then(
      (data) => request === latest.current && setState({ data, loading: false, key }),
      (error: unknown) =>
        request === latest.current &&
        setState((s) => ({ data: s.key === key ? s.data : undefined, error: toProblem(error), loading: false, key })),
    );
  }, [key, own, live ? liveVersion : 0]);
  const reload = useCallback(() => setOwn((n) => n + 1), []);
  return {
    data: state.key === key ? state.data : undefined,
    error: state.key === key ? state.error : undefined,
    loading: state.loading || state.key !== key,
    reload,
  };
}

export function toProblem(error: unknown): ApiProblem {
  return error instanceof ApiProblem
    ? error
    : new ApiProblem(0, 'Error', 0, error instanceof Error ? error.message : String(error));
}

/** An action a button runs: busy while it runs, its refusal kept to show, and every view read again after. */
export function useAction<A extends unknown[], R>(
  run: (...args: A) => Promise<R>,
): { busy: boolean; error?: ApiProblem; result?: R; act(...args: A): Promise<R | undefined>; clear(): void } {
  const [state, setState] = useState<{ busy: boolean; error?: ApiProblem; result?: R }>({ busy: false });
  const act = async (...args: A) => {
    setState({ busy: true });
    try {
      const result = await run(...args);
      setState({ busy: false, result });
      refreshAll();
      return result;
    } catch (error) {
      setState({ busy: false, error: toProblem(error) });
      return undefined;
    }
  };
  return { ...state, act, clear: () => setState({ busy: false }) };
}

/** The page's place: the part of the URL after #, which holds ids and filters, never a credential. */
export function useRoute(): string[] {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const listener = () => setHash(location.hash);
    addEventListener('hashchange', listener);
    return () => removeEventListener('hashchange', listener);
  }, []);
  return hash.replace(/^#\/?/, '').split('?')[0].split('/').filter(Boolean).map(decodeURIComponent);
}

export function routeQuery(): URLSearchParams {
  return new URLSearchParams(location.hash.split('?')[1] ?? '');
}

export function navigate(path: string): void {
  location.hash = path;
}

/** Goes to a list's route with the filters a form holds, blank ones left out (the address holds only filters). */
export function navigateWithFilters(path: string, filters: Record<string, string>): void {
  const params = new URLSearchParams(
    Object.entries(filters)
      .map(([name, value]) => [name, value.trim()])
      .filter(([, value]) => value),
  );
  navigate(`${path}${params.size ? `?${params}` : ''}`);
}
