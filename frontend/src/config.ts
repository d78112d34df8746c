/**
 * Build-time configuration (Vite's VITE_* variables, fixed when the bundle
 * is built):
 *
 * - VITE_AUTH: "dev" (default) signs in through the local server's
 *   development sign-in (/dev/token, only with AUTH_DEV=true); "firebase"
 *   signs in with Google Identity Platform, configured by
 *   VITE_FIREBASE_API_KEY, VITE_FIREBASE_AUTH_DOMAIN and
 *   VITE_FIREBASE_PROJECT_ID (the functions' AUTH_PROJECT).
 */
export type AuthMode = "dev" | "firebase";

export const authMode: AuthMode = import.meta.env.VITE_AUTH === "firebase" ? "firebase" : "dev";

export const firebaseConfig = {
  apiKey: import.meta.env.VITE_FIREBASE_API_KEY as string | undefined,
  authDomain: import.meta.env.VITE_FIREBASE_AUTH_DOMAIN as string | undefined,
  projectId: import.meta.env.VITE_FIREBASE_PROJECT_ID as string | undefined,
};
