import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useLocation, useNavigate } from "react-router";
import { devUserQueries } from "../api/queries";
import { ProblemAlert } from "../components/ProblemAlert";
import { QueryState } from "../components/States";
import { authMode } from "../config";
import { useAuth } from "./AuthContext";
import type { DevIdentity } from "./devSignIn";

const roleLabel = { learner: "Learner", teacher: "Teacher", operator: "Operator" } as const;

/** Sign-in: Google (production builds) or a user of the local database (development). */
export function SignIn() {
  const reason = (useLocation().state as { reason?: string } | null)?.reason;
  return (
    <section aria-labelledby="signin-title" className="narrow">
      <h1 id="signin-title">Sign in to Lexora</h1>
      {reason && (
        <p role="status" className="alert">
          You were signed out: {reason}
        </p>
      )}
      {authMode === "firebase" ? <GoogleSignIn /> : <DevSignIn />}
    </section>
  );
}

/** Where to go once signed in: the page that sent the user here, or home. */
function useAfterSignIn() {
  const navigate = useNavigate();
  const from = (useLocation().state as { from?: string } | null)?.from;
  return () => void navigate(from ?? "/", { replace: true });
}

function GoogleSignIn() {
  const auth = useAuth();
  const done = useAfterSignIn();
  const [error, setError] = useState<unknown>(null);
  return (
    <>
      {error !== null && <ProblemAlert error={error} context="Sign-in failed" />}
      <button
        type="button"
        className="primary"
        onClick={() =>
          void auth.signInWithGoogle().then(
            () => done(),
            (e: unknown) => setError(e),
          )
        }
      >
        Sign in with Google
      </button>
    </>
  );
}

function DevSignIn() {
  const auth = useAuth();
  const done = useAfterSignIn();
  const users = useQuery(devUserQueries.list());
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [email, setEmail] = useState("");
  const signIn = async (who: DevIdentity) => {
    setBusy(true);
    setError(null);
    try {
      await auth.signInAs(who);
      done();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <p className="muted">
        Development sign-in: pick a user of the local database. (Production builds sign in with Google.)
      </p>
      {error !== null && <ProblemAlert error={error} context="Sign-in failed" />}
      <QueryState query={users} what="users">
        {(list) => (
          <ul className="user-list">
            {list.map((u) => (
              <li key={u.id}>
                <button type="button" disabled={busy} onClick={() => void signIn({ userId: u.id })}>
                  <span className="user-name">{u.display_name}</span>
                  {u.role && <span className="badge">{roleLabel[u.role]}</span>}
                  <span className="muted">{u.email}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </QueryState>
      <form
        className="card-form"
        aria-labelledby="newcomer-title"
        onSubmit={(e) => {
          e.preventDefault();
          void signIn({ email: email.trim() });
        }}
      >
        <h2 id="newcomer-title">Someone new</h2>
        <p className="muted">
          Sign in with an email that has no account yet, as a person's first Google sign-in would: a teacher then
          creates their first class.
        </p>
        <label htmlFor="newcomer-email">Email</label>
        <div className="row-input">
          <input
            id="newcomer-email"
            type="email"
            required
            autoComplete="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
          <button type="submit" disabled={busy}>
            Sign in
          </button>
        </div>
      </form>
    </>
  );
}
