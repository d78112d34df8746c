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

/** The current user's ID token (refreshed by the SDK when close to expiry), or null. */
export async function googleToken(): Promise<string | null> {
  const { instance } = await firebaseAuth();
  return instance.currentUser ? instance.currentUser.getIdToken() : null;
}
