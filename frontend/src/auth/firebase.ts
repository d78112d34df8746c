import { firebaseConfig } from "../config";
import type { SessionUser } from "./session";

/**
 * Google Identity Platform sign-in through the Firebase JS SDK, loaded only
 * in a build made with VITE_AUTH=firebase. The SDK keeps the session and
 * refreshes the ID token; the functions verify it (pkg/platform/auth).
 */
async function firebaseAuth() {
  const [{ initializeApp, getApps }, auth] = await Promise.all([import("firebase/app"), import("firebase/auth")]);
  const app = getApps()[0] ?? initializeApp(firebaseConfig);
  return { auth, instance: auth.getAuth(app) };
}

export async function signInWithGoogle(): Promise<void> {
  const { auth, instance } = await firebaseAuth();
  await auth.signInWithPopup(instance, new auth.GoogleAuthProvider());
}

export async function signOutOfGoogle(): Promise<void> {
  const { auth, instance } = await firebaseAuth();
  await auth.signOut(instance);
}

/** Calls onChange with the signed-in user (role unknown) or null; returns the unsubscribe. */
export async function watchGoogleUser(onChange: (u: SessionUser | null) => void): Promise<() => void> {
  const { auth, instance } = await firebaseAuth();
  return auth.onAuthStateChanged(instance, (u) =>
    onChange(u ? { id: u.uid, displayName: u.displayName ?? u.email ?? "", email: u.email ?? "", role: null } : null),
  );
}

/**
 * The current user's ID token (refreshed by the SDK when close to expiry),
 * or null: signed out, or offline with a token that has to be refreshed
 * (auth/network-request-failed). The SDK keeps the user across reloads, so
 * an offline learner stays signed in; a request sent without a token then
 * fails as offline requests do, and the service worker answers a read from
 * its copy (offline/copies.ts). Back online, the next call refreshes it.
 */
export async function googleToken(): Promise<string | null> {
  const { instance } = await firebaseAuth();
  if (!instance.currentUser) return null;
  try {
    return await instance.currentUser.getIdToken();
  } catch (err) {
    if ((err as { code?: unknown }).code === "auth/network-request-failed") return null;
    throw err;
  }
}
