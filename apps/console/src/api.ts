import { createContext } from 'preact';
import { useCallback, useContext, useEffect, useRef, useState } from 'preact/hooks';
import {
  NotFoundError,
  StrataGate,
  StrataGateError,
  UnauthorizedError,
  type OperationOutput,
} from '@stratagate/client';

export type { OperationOutput };

/** Kept for this browser tab only: closing the tab signs out. */
const KEY_ITEM = 'stratagate.console.apiKey';

export const storedKey = (): string | null => sessionStorage.getItem(KEY_ITEM);
export const storeKey = (key: string) => sessionStorage.setItem(KEY_ITEM, key);
export const forgetKey = () => sessionStorage.removeItem(KEY_ITEM);

/**
 * The SDK on this page's own origin: the console reads exactly what agents read. A call the
 * server did not carry out (503 while the read model catches up) is sent twice more.
 */
export const clientFor = (apiKey: string) =>
  new StrataGate({ baseUrl: window.location.origin, apiKey, retries: 2 });

export interface Session {
  client: StrataGate;
  /** Called when the API refuses the key: back to sign-in with this message. */
  signOut(reason?: string): void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload(): void;
}

/**
 * Runs `load` when `deps` change (and every `pollMs` when given), keeping the last answer while
 * the next one loads. A refused key signs out instead of showing an error on every view.
 */
export function useLoad<T>(
  load: (client: StrataGate) => Promise<T>,
  deps: unknown[],
  pollMs?: number,
): Loaded<T> {
  const { client, signOut } = useSession();
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({
    loading: true,
  });
  const [tick, setTick] = useState(0);
  const latest = useRef(load);
  latest.current = load;
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    latest.current(client).then(
      (data) => live && setState({ data, loading: false }),
      (error: unknown) => {
        if (!live) return;
        if (error instanceof UnauthorizedError) signOut(describe(error));
        setState((s) => ({ data: s.data, error, loading: false }));
      },
    );
    return () => {
      live = false;
    };
  }, [...deps, tick, client]);
  useEffect(() => {
    if (!pollMs) return;
    const timer = window.setInterval(() => setTick((n) => n + 1), pollMs);
    return () => window.clearInterval(timer);
  }, [pollMs]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** An action's error, as a sentence a user can act on. */
export function describe(error: unknown): string {
  if (error instanceof UnauthorizedError) {
    return 'That API key was not accepted. Check it (it starts with sg_) and that it is not revoked.';
  }
  if (error instanceof NotFoundError) return `Not found: ${error.message}`;
  if (error instanceof StrataGateError) return `${error.message} (${error.code})`;
  return error instanceof Error ? error.message : String(error);
}

export const isNotFound = (error: unknown) => error instanceof NotFoundError;
export const isUnauthorized = (error: unknown) => error instanceof UnauthorizedError;
