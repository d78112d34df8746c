import { openDB, type DBSchema, type IDBPDatabase } from "idb";

/** A rating: 1 Again, 2 Hard, 3 Good, 4 Easy. */
export type Rating = 1 | 2 | 3 | 4;

/**
 * A rating the learner gave, or the undo of one, kept until the server
 * acknowledged it. The key is its Idempotency-Key, fixed when it is made,
 * so that every retry of it is the same request and it is recorded once
 * however often it is sent. reviewedAt is when the learner acted (RFC 3339,
 * on the server's clock as the device estimates it: see ReviewSender): a
 * rating sends it as SubmitReview's reviewed_at (see request), so that it
 * counts for the study day it was made on however late it arrives.
 */
export interface QueuedReview {
  /** Position in the queue (IndexedDB key, increasing). */
  seq?: number;
  /** "undo" undoes the rating whose key is `undoes`; absent or "rate" is a rating. */
  action?: "rate" | "undo";
  /** For an undo: the Idempotency-Key of the rating it undoes. */
  undoes?: string;
  key: string;
  learnerId: string;
  cardId: string;
  lemma: string;
  rating: Rating;
  reviewedAt: string;
  /**
   * The request's own fields, fixed once, before the entry is first sent
   * (a rating's when it is made) and kept with it, so that every
   * attempt under its key is the very same request, after a reload too
   * (the functions refuse a key reused with another body: 422). Absent
   * until then. See ReviewSender.
   */
  request?: FixedRequest;
}

/**
 * What a queued entry sends besides its card and rating: a rating's
 * reviewed_at (absent only in an undo's), an
 * undo's review_id (absent: the undo names only the card).
 */
export interface FixedRequest {
  reviewedAt?: string;
  reviewId?: number;
}

/** Where queued ratings wait, in the order they were made. */
export interface ReviewStore {
  add(r: QueuedReview): Promise<QueuedReview>;
  /** The queued ratings of a learner, oldest first. */
  list(learnerId: string): Promise<QueuedReview[]>;
  remove(seq: number): Promise<void>;
  /** Stores an entry's request (QueuedReview.request), before it is first sent. */
  fix(seq: number, request: FixedRequest): Promise<void>;
  /** Removes the entry if it is still queued; whether it was. */
  take(seq: number): Promise<boolean>;
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
    async fix(seq, request) {
      const tx = (await open()).transaction("reviews", "readwrite");
      const r = await tx.store.get(seq);
      if (r) await tx.store.put({ ...r, request });
      await tx.done;
    },
    async take(seq) {
      const tx = (await open()).transaction("reviews", "readwrite");
      const found = (await tx.store.getKey(seq)) !== undefined;
      if (found) await tx.store.delete(seq);
      await tx.done;
      return found;
    },
  };
}
