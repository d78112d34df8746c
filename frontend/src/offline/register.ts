/**
 * Registers the service worker that vite-plugin-pwa generates into the
 * production build (dist/sw.js, Workbox: see frontend/vite.config.ts). It
 * precaches the app shell (index.html and every hashed file of the build),
 * answers every client route with that index.html, and keeps the last
 * answer of GetSchedule and Me for offline use (offline/copies.ts).
 *
 * A new build's sw.js has a new precache manifest: the browser installs it
 * at the next visit (it fetches sw.js past the HTTP cache, and the server
 * and the bucket send it with Cache-Control: no-cache), it takes over at
 * once (skipWaiting, clientsClaim) and deletes the old build's precache. The
 * page open at that moment keeps running the code it loaded: it is not
 * reloaded under the learner, and the next load is the new build.
 *
 * Nothing happens without service worker support, in a development server
 * (`npm run dev`: no sw.js) or when registration fails (the app works
 * online as before; the reason goes to the console).
 */
export function registerServiceWorker(url = "/sw.js"): void {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register(url, { scope: "/" }).catch((err: unknown) => {
    console.warn("Lexora works online only: the service worker was not registered", err);
  });
}
