import { useMemo, useState } from 'preact/hooks';
import type { TargetedSubmitEvent } from 'preact';
import {
  clientFor,
  describe,
  forgetKey,
  isUnauthorized,
  SessionContext,
  storedKey,
  storeKey,
  type Session,
} from './api.ts';
import { useRoute } from './router.ts';
import { Alert, Link, NotFound } from './ui.tsx';
import { SpacesView } from './views/spaces.tsx';
import { SpaceView } from './views/space.tsx';
import { ProfileView } from './views/profile.tsx';

export function App() {
  const [key, setKey] = useState<string | null>(storedKey);
  const [signInError, setSignInError] = useState<string | null>(null);
  const session = useMemo<Session | null>(
    () =>
      key
        ? {
            client: clientFor(key),
            signOut(reason) {
              forgetKey();
              setSignInError(reason ?? null);
              setKey(null);
            },
          }
        : null,
    [key],
  );
  if (!session) {
    return (
      <SignIn
        error={signInError}
        onSignedIn={(k) => {
          storeKey(k);
          setSignInError(null);
          setKey(k);
        }}
      />
    );
  }
  return (
    <SessionContext.Provider value={session}>
      <Shell />
    </SessionContext.Provider>
  );
}

/** Checks the key with one call before keeping it, so a wrong key is told at once. */
function SignIn(props: { error: string | null; onSignedIn(key: string): void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(props.error);
  const [busy, setBusy] = useState(false);
  const submit = async (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const candidate = key.trim();
    if (!candidate) return setError('Enter an API key.');
    setBusy(true);
    setError(null);
    try {
      await clientFor(candidate).call('listSpaces', { limit: 1 });
      props.onSignedIn(candidate);
    } catch (thrown) {
      setError(
        isUnauthorized(thrown)
          ? 'Sign-in failed: that API key was not accepted. Check it (it starts with sg_) and that it is not revoked.'
          : `Sign-in failed: ${describe(thrown)}`,
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <h1>StrataGate console</h1>
      <p>
        See what your agents remember, and why. Sign in with an API key: it is kept for this tab
        only, and every view shows only that key's tenant.
      </p>
      <form onSubmit={submit} aria-describedby={error ? 'signin-error' : undefined}>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="apiKey"
          type="password"
          autoComplete="off"
          placeholder="sg_…"
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
          required
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <Alert id="signin-error" message={error} />
      <p class="muted">
        No key yet? <code>npm start</code> prints one on first run;{' '}
        <code>stratagate keys create</code> makes more. The API reference is at{' '}
        <a href="/docs">/docs</a>.
      </p>
    </main>
  );
}

function Shell() {
  const route = useRoute();
  return (
    <>
      <header class="top">
        <Link href="/" class="brand">
          StrataGate
        </Link>
        <nav aria-label="Main">
          <Link href="/">Spaces</Link>
          <Link href="/profiles">Profiles</Link>
          <a href="/docs">API reference</a>
        </nav>
        <SignOut />
      </header>
      <main id="main">{routeTo(route)}</main>
    </>
  );
}

function SignOut() {
  return (
    <SessionContext.Consumer>
      {(session) => (
        <button type="button" class="secondary" onClick={() => session?.signOut()}>
          Sign out
        </button>
      )}
    </SessionContext.Consumer>
  );
}

function routeTo(route: string[]) {
  const [first, id, ...rest] = route;
  if (!first) return <SpacesView />;
  if (first === 'spaces' && id) return <SpaceView spaceId={id} rest={rest} />;
  if (first === 'profiles') return <ProfileView profileId={id ?? null} />;
  return <NotFound what="This page" />;
}
