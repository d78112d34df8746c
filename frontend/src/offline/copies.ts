/**
 * The service worker's copies of one user's answers (frontend/vite.config.ts
 * names these caches in its runtimeCaching): the last answer of each
 * GetSchedule read (one entry per query string, so the review session's,
 * Today's and the forecast's) and of Me, kept so that a learner who loaded
 * Lexora once can open it offline. They are the signed-in user's data: a
 * sign-out deletes them (forgetUserCopies) before the next user signs in.
 */
export const userCaches = {
  schedule: "lexora-schedule",
  me: "lexora-me",
} as const;

/**
 * Deletes the caches of userCaches (Cache Storage, shared by the pages and
 * the service worker). Resolves when they are gone, or at once where the
 * browser has no Cache Storage (jsdom, a page that is not a secure context).
 * The app shell's precache holds no user data and stays. The rating queue
 * (IndexedDB) stays too: its entries name their learner, are sent only with
 * that learner's token, and leave it once acknowledged.
 */
export async function forgetUserCopies(): Promise<void> {
  if (typeof caches === "undefined") return;
  await Promise.all(Object.values(userCaches).map((name) => caches.delete(name)));
}
