import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { authMode } from "../config";
import { devSignIn, type DevIdentity } from "./devSignIn";
import { forgetUserCopies } from "../offline/copies";
import { googleToken, signInWithGoogle, signOutOfGoogle, watchGoogleUser } from "./firebase";
import { loadSession, saveSession, type SessionUser } from "./session";

/** What the app knows of the sign-in. */
export interface Auth {
  /** The signed-in user, or null. */
  user: SessionUser | null;
  /** False until a stored or provider session has been looked at. */
  ready: boolean;
  /** The current ID token, or null when signed out (or the token expired). */
  token: () => Promise<string | null>;
  /** Development sign-in as a user of the local database, or as an email (a newcomer without an account). */
  signInAs: (who: DevIdentity) => Promise<void>;
  /** Google sign-in (builds with VITE_AUTH=firebase). */
  signInWithGoogle: () => Promise<void>;
  /** Signs out and deletes the service worker's copies of the user's answers (offline/copies.ts). */
  signOut: () => Promise<void>;
}

const AuthContext = createContext<Auth | null>(null);

export function useAuth(): Auth {
  const a = useContext(AuthContext);
  if (!a) throw new Error("useAuth outside AuthProvider");
  return a;
}

/** Provides a fixed Auth; tests and the providers below use it. */
export function AuthValue({ value, children }: { value: Auth; children: ReactNode }) {
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

/** The development sign-in: a token minted by the local server, kept in localStorage. */
function DevAuthProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState(() => loadSession());
  const signOut = useCallback(async () => {
    saveSession(null);
    await forgetUserCopies();
    setSession(null);
  }, []);
  const value = useMemo<Auth>(
    () => ({
      user: session?.user ?? null,
      ready: true,
      token: async () => {
        const s = loadSession();
        return s ? s.token : null;
      },
      signInAs: async (who) => {
        const s = await devSignIn(who);
        saveSession(s);
        setSession(s);
      },
      signInWithGoogle: () => Promise.reject(new Error("this build signs in with the development sign-in")),
      signOut,
    }),
    [session, signOut],
  );
  return <AuthValue value={value}>{children}</AuthValue>;
}

/** Google Identity Platform through Firebase; the SDK keeps the session. */
function FirebaseAuthProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<SessionUser | null>(null);
  const [ready, setReady] = useState(false);
  useEffect(() => {
    let stop: (() => void) | undefined;
    let cancelled = false;
    void watchGoogleUser((u) => {
      setUser(u);
      setReady(true);
    }).then((unsubscribe) => (cancelled ? unsubscribe() : (stop = unsubscribe)));
    return () => {
      cancelled = true;
      stop?.();
    };
  }, []);
  const value = useMemo<Auth>(
    () => ({
      user,
      ready,
      token: googleToken,
      signInAs: () => Promise.reject(new Error("the development sign-in exists only locally")),
      signInWithGoogle,
      signOut: async () => {
        await signOutOfGoogle();
        await forgetUserCopies();
      },
    }),
    [user, ready],
  );
  return <AuthValue value={value}>{children}</AuthValue>;
}

/** The sign-in chosen at build time (config.authMode). */
export function AuthProvider({ children }: { children: ReactNode }) {
  return authMode === "firebase" ? (
    <FirebaseAuthProvider>{children}</FirebaseAuthProvider>
  ) : (
    <DevAuthProvider>{children}</DevAuthProvider>
  );
}
