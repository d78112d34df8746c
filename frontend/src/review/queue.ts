import { openDB, type DBSchema, type IDBPDatabase } from "idb";

/** A rating: 1 Again, 2 Hard, 3 Good, 4 Easy. */
export type Rating = 1 | 2 | 3 | 4;

/**
 * A rating the learner gave, kept until the server acknowledged it. The key
 * is its Idempotency-Key, fixed when the rating is made, so that every
 * retry of it is the same request and it is recorded once however often it
 * is sent. reviewedAt is when the learner rated (sent once SubmitReview
 * accepts a client time: see docs/architecture.md).
 */
export interface QueuedReview {
  /** Position in the queue (IndexedDB key, increasing). */
  seq?: number;
  key: string;
  learnerId: string;
  cardId: string;
  lemma: string;
  rating: Rating;
  reviewedAt: string;
}

/** Where queued ratings wait, in the order they were made. */
export interface ReviewStore {
  add(r: QueuedReview): Promise<QueuedReview>;
  /** The queued ratings of a learner, oldest first. */
  list(learnerId: string): Promise<QueuedReview[]>;
  remove(seq: number): Promise<void>;
}

interface Schema extends DBSchema {
  reviews: { key: number; value: QueuedReview; indexes: { learner: [string, number] } };
}

/**
 * The IndexedDB store: ratings survive a reload, a closed tab and a network
 * outage; they leave it only when acknowledged or refused by the server.
 */
export function indexedDbStore(name = "lexora"): ReviewStore {
  let db: Promise<IDBPDatabase<Schema>> | undefined;
  const open = () =>
    (db ??= openDB<Schema>(name, 1, {
      upgrade(d) {
        const s = d.createObjectStore("reviews", { keyPath: "seq", autoIncrement: true });
        s.createIndex("learner", ["learnerId", "seq"]);
      },
    }));
  return {
    async add(r) {
      const seq = await (await open()).add("reviews", r);
      return { ...r, seq };
    },
    async list(learnerId) {
      const range = IDBKeyRange.bound([learnerId, 0], [learnerId, Number.MAX_SAFE_INTEGER]);
      return (await open()).getAllFromIndex("reviews", "learner", range);
    },
    async remove(seq) {
      await (await open()).delete("reviews", seq);
    },
  };
}
