import { serverNow } from "../../../api/clock";
import { ApiError, type Problem } from "../../../api/problem";
import type { FixedRequest, QueuedReview, Rating, ReviewStore } from "./queue";

/** SubmitReview's answer to a rating: its review_id and the card's new due (RFC 3339). */
export interface ReviewAnswer {
  reviewId: number;
  due: string;
}

/**
 * Sends one queued entry (a rating, or an undo: see QueuedReview.action)
 * as its fixed request and resolves with a rating's answer, if known;
 * throws an ApiError for a refusal, anything else for a network failure.
 */
export type SendReview = (r: QueuedReview & { request: FixedRequest }) => Promise<ReviewAnswer | void>;

/** A rating the server acknowledged: its Idempotency-Key, its card and the card's new due (RFC 3339). */
export interface Answered {
  key: string;
  cardId: string;
  due: string;
}

/** What the review screen shows of the queue. */
export interface SenderState {
  /** Ratings made but not yet acknowledged. */
  pending: number;
  /** The cards of those ratings, so that a new session does not show them again. */
  queuedCards: string[];
  /** The browser reports no network. */
  offline: boolean;
  /** Why the last attempt failed, in words, when it will be retried (network, 5xx, 401). */
  retrying: string | null;
  /**
   * Ratings the server refused (4xx): they are not retried. Each is shown
   * until a rating made after it was refused is acknowledged.
   */
  rejected: { review: QueuedReview; problem: Problem }[];
}

export interface SenderOptions {
  /** Waits ms, or less when the network comes back; tests make it instant. */
  pause?: (ms: number) => Promise<void>;
  online?: () => boolean;
  newKey?: () => string;
  /**
   * The clock a rating's reviewed_at is read from when it is made. By
   * default the server's time as this device estimates it (serverNow: the
   * device's clock corrected by the offset the API's responses measured),
   * so that a device clock running fast does not have every rating refused.
   */
  now?: () => Date;
}

/** Backoff between attempts at the same rating: 1 s doubling to 30 s. */
export function backoff(attempt: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.min(attempt, 5));
}

function pauseOrOnline(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      window.removeEventListener("online", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    window.addEventListener("online", done);
  });
}

/**
 * ReviewSender is the client's side of SubmitReview's idempotency: every
 * rating is first written to the store with its own Idempotency-Key, then
 * sent, one at a time in the order they were made, and retried with the
 * same key until the server acknowledges it (2xx: removed) or refuses it
 * (4xx other than 401, 408 and 429: removed and reported). A 401 (the
 * sign-in expired) keeps it queued until a token is accepted again. A network failure or a
 * 5xx keeps it at the head of the queue, so later ratings never overtake
 * it. While the browser is offline nothing is tried; the 'online' event
 * resumes at once. An undo travels the same queue (see undo()). The review
 * screen never waits for any of this.
 *
 * Every attempt under a key is the same request (the functions refuse a key
 * reused with another body): what a request carries besides the card and
 * the rating is fixed once, in the store, before its first attempt
 * (QueuedReview.request). Every rating carries the instant the learner
 * made it (reviewed_at), which decides its study day: made offline, held
 * behind a 5xx or a network failure, or sent at once (a retry of a first
 * attempt that failed is sent under the same key, so the first attempt
 * already carries it). The server counts up to 5 minutes ahead of its
 * clock as now and refuses (400) anything further ahead, so the instant is
 * read from the device's clock corrected by the server clock's offset last
 * measured from the API's Date headers (api/clock.ts's serverNow, the
 * default `now`; offsets under 30 s count as 0): a phone whose clock runs
 * 10 minutes fast still has its ratings accepted, offline too (the offset
 * is kept in localStorage). A rating already queued keeps the instant it
 * was fixed with, whatever is measured later.
 * An undo carries the review id of the rating it undoes when this sender
 * saw that rating acknowledged before the undo's first attempt.
 */
export class ReviewSender {
  private state: SenderState = { pending: 0, queuedCards: [], offline: false, retrying: null, rejected: [] };
  private listeners = new Set<(s: SenderState) => void>();
  private readonly answerListeners = new Set<(a: Answered) => void>();
  private running: Promise<void> | null = null;
  /** Entries sent at least once: they may have reached the server, so they can no longer be withdrawn. */
  private readonly attempted = new Set<number>();
  /** Entries withdrawn by undo(), which the drain must skip if it already read them. */
  private readonly withdrawn = new Set<number>();
  /** Keys of ratings the server refused: an undo of one has nothing to undo. */
  private readonly refused = new Set<string>();
  /** Review ids of the ratings acknowledged, by key: an undo names the review it means. */
  private readonly reviewIds = new Map<string, number>();
  /** The highest seq queued so far: a refusal is shown until an entry queued after it is acknowledged. */
  private newest = 0;
  /** For each refused key (SenderState.rejected), the newest seq when it was refused. */
  private readonly refusedAt = new Map<string, number>();
  private again = false;
  /** The last of the rate() and undo() calls, which the next one waits for. */
  private tail: Promise<unknown> = Promise.resolve();
  private stopped = false;
  /** Ratings passed to rate() that the store does not hold yet. */
  private recording = 0;
  private readonly pause: (ms: number) => Promise<void>;
  private readonly online: () => boolean;
  private readonly newKey: () => string;
  private readonly now: () => Date;

  constructor(
    private readonly store: ReviewStore,
    private readonly learnerId: string,
    private readonly send: SendReview,
    opts: SenderOptions = {},
  ) {
    this.pause = opts.pause ?? pauseOrOnline;
    this.online = opts.online ?? (() => navigator.onLine);
    this.newKey = opts.newKey ?? (() => crypto.randomUUID());
    this.now = opts.now ?? (() => serverNow());
  }

  /** The current state; subscribe for changes. */
  get current(): SenderState {
    return this.state;
  }

  subscribe(listener: (s: SenderState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Calls listener with each rating acknowledged from now on, until the returned function is called. */
  onAnswer(listener: (a: Answered) => void): () => void {
    this.answerListeners.add(listener);
    return () => this.answerListeners.delete(listener);
  }

  /**
   * Runs rate() and undo() one after the other, in the order they were
   * called, so that the queue holds ratings and undos in the order the
   * learner made them (a rating made right after an undo lands behind it).
   */
  private serial<T>(op: () => Promise<T>): Promise<T> {
    const done = this.tail.then(op);
    this.tail = done.catch(() => undefined);
    return done;
  }

  /**
   * Records a rating (durably, before anything is sent) and starts sending.
   * The rating counts as pending from this call, before the store has it,
   * so that the screen never says "saved" of a rating still being recorded.
   */
  rate(cardId: string, lemma: string, rating: Rating): Promise<QueuedReview> {
    this.recording++;
    this.set({ pending: this.state.pending + 1 });
    return this.serial(() => this.record(cardId, lemma, rating)).catch((err: unknown) => {
      this.recording--;
      this.set({ pending: this.state.pending - 1 });
      throw err;
    });
  }

  private async record(cardId: string, lemma: string, rating: Rating): Promise<QueuedReview> {
    const reviewedAt = this.now().toISOString();
    const r = await this.store.add({
      key: this.newKey(),
      learnerId: this.learnerId,
      cardId,
      lemma,
      rating,
      reviewedAt,
      // Fixed at once: whenever it arrives, it counts at the time it was made.
      request: { reviewedAt },
    });
    this.newest = Math.max(this.newest, r.seq!);
    // Now in the store: counted there by the drain, no longer as being recorded.
    this.recording--;
    this.set({ queuedCards: [...this.state.queuedCards, cardId] });
    void this.flush();
    return r;
  }

  /**
   * Undoes a rating (the value rate() resolved with). A rating never sent
   * is withdrawn from the queue: it never reaches the server. One sent at
   * least once (it may have arrived, even if no answer did) is undone by an
   * undo entry queued behind it, sent in order like the ratings and with its
   * own Idempotency-Key, so that it reaches the server after the rating it
   * undoes; it is dropped if the server refuses the rating. The rating may
   * be given as rate()'s promise: the undo is queued after it either way.
   */
  undo(rating: QueuedReview | Promise<QueuedReview>): Promise<"withdrawn" | "queued"> {
    return this.serial(async () => this.takeBack(await rating));
  }

  private async takeBack(r: QueuedReview): Promise<"withdrawn" | "queued"> {
    const seq = r.seq!;
    if (!this.attempted.has(seq)) {
      // Marked before the store is asked, so that a drain that already read
      // the entry skips it (the drain checks the mark and records the
      // attempt together, with no await between).
      this.withdrawn.add(seq);
      if (await this.store.take(seq)) {
        const i = this.state.queuedCards.indexOf(r.cardId);
        this.set({ pending: this.state.pending - 1, queuedCards: this.state.queuedCards.filter((_, j) => j !== i) });
        return "withdrawn";
      }
    }
    const u = await this.store.add({
      action: "undo",
      undoes: r.key,
      key: this.newKey(),
      learnerId: this.learnerId,
      cardId: r.cardId,
      lemma: r.lemma,
      rating: r.rating,
      reviewedAt: this.now().toISOString(),
    });
    this.newest = Math.max(this.newest, u.seq!);
    this.set({ pending: this.state.pending + 1 });
    void this.flush();
    return "queued";
  }

  /** Sends what is queued (also what an earlier page load left); resolves when the queue is empty. */
  flush(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.drain().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Stops sending after the current attempt (sign-out, unmount). */
  stop(): void {
    this.stopped = true;
  }

  private async drain(): Promise<void> {
    let attempt = 0;
    for (;;) {
      this.again = false;
      const queue = await this.store.list(this.learnerId);
      this.newest = Math.max(this.newest, queue.at(-1)?.seq ?? 0);
      this.set({ pending: queue.length + this.recording, queuedCards: queue.map((q) => q.cardId) });
      const head = queue[0];
      if (!head || this.stopped) {
        this.set({ retrying: null });
        if (this.again && !this.stopped) continue;
        return;
      }
      if (!this.online()) {
        this.set({ offline: true });
        await this.pause(backoff(attempt));
        continue;
      }
      this.set({ offline: false });
      if (this.withdrawn.has(head.seq!)) continue;
      if (head.action === "undo" && this.refused.has(head.undoes!)) {
        await this.store.remove(head.seq!);
        continue;
      }
      this.attempted.add(head.seq!);
      try {
        const answer = await this.send(await this.fix(head));
        if (head.action !== "undo" && answer) this.reviewIds.set(head.key, answer.reviewId);
        attempt = 0;
        await this.store.remove(head.seq!);
        this.acknowledged(head.seq!);
        if (head.action !== "undo" && answer) {
          for (const l of this.answerListeners) l({ key: head.key, cardId: head.cardId, due: answer.due });
        }
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) {
          // The sign-in expired: the rating stays queued until a new token
          // (a refreshed Google token, or signing in again) is accepted.
          this.set({ retrying: "sign in again to send it" });
          await this.pause(backoff(attempt++));
          continue;
        }
        if (err instanceof ApiError && !err.retryable) {
          await this.store.remove(head.seq!);
          this.refused.add(head.key);
          this.refusedAt.set(head.key, this.newest);
          this.set({ rejected: [...this.state.rejected, { review: head, problem: err.problem }], retrying: null });
          continue;
        }
        // fetch reports a network failure in the browser's own words ("Failed to fetch").
        this.set({ retrying: err instanceof ApiError ? `Lexora answered: ${err.problem.title}` : "Lexora cannot be reached" });
        await this.pause(backoff(attempt++));
      }
    }
  }

  /**
   * The entry with its request fixed: as stored, or decided now, before its
   * first attempt, and stored before it is sent (see the class comment).
   */
  private async fix(r: QueuedReview): Promise<QueuedReview & { request: FixedRequest }> {
    if (r.request) return { ...r, request: r.request };
    let request: FixedRequest = {};
    if (r.action === "undo") {
      const reviewId = this.reviewIds.get(r.undoes!);
      if (reviewId !== undefined) request = { reviewId };
    } else {
      // Queued by an older build without its request: it was made at reviewedAt.
      request = { reviewedAt: r.reviewedAt };
    }
    await this.store.fix(r.seq!, request);
    return { ...r, request };
  }

  /** The entry seq was acknowledged: refusals from before it was queued are no longer shown. */
  private acknowledged(seq: number): void {
    const rejected = this.state.rejected.filter((x) => (this.refusedAt.get(x.review.key) ?? 0) >= seq);
    this.set({ retrying: null, ...(rejected.length !== this.state.rejected.length && { rejected }) });
  }

  private set(patch: Partial<SenderState>): void {
    this.state = { ...this.state, ...patch };
    for (const l of this.listeners) l(this.state);
  }
}
