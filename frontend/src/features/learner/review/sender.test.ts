// @vitest-environment node
import { describe, expect, it, vi } from "vitest";
import { keepOffset } from "../../../api/clock";
import { ApiError } from "../../../api/problem";
import { freshStore } from "../../../test/render";
import type { QueuedReview, Rating, ReviewStore } from "./queue";
import { ReviewSender, type SendReview } from "./sender";
import { memoryLocalStorage } from "../../../test/storage";

const learnerId = "learner-1";
const instant = () => Promise.resolve();
// A pause that lets the event loop turn, while the test decides when the
// network is back.
const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

// recording is a sender on store (a fresh one, by default) whose attempts
// are kept in sent, in order, and then answered by answer (a success, by
// default); online says whether the network is up (always, by default),
// pause is its wait between attempts and now its clock (the real one, by
// default).
function recording({
  store = freshStore(),
  online = () => true,
  pause = instant,
  answer = async () => undefined,
  now,
}: {
  store?: ReviewStore;
  online?: () => boolean;
  pause?: () => Promise<void>;
  answer?: SendReview;
  now?: () => Date;
} = {}) {
  const sent: QueuedReview[] = [];
  const sender = new ReviewSender(store, learnerId, (r) => (sent.push(r), answer(r)), { pause, online, now });
  return { store, sent, sender };
}

// queueOffline is an earlier page load of learner that rates cardId while
// offline, so that store keeps the rating, and then ends.
async function queueOffline(store: ReviewStore, learner: string, cardId: string, rating: Rating) {
  const before = new ReviewSender(store, learner, () => Promise.reject(new TypeError("offline")), { pause: instant, online: () => false });
  void before.rate(cardId, "cat", rating);
  await new Promise((resolve) => setTimeout(resolve, 5));
  before.stop();
}

describe("ReviewSender", () => {
  it("retries a rating with the same Idempotency-Key until it is acknowledged", async () => {
    const failures: Error[] = [
      new TypeError("Failed to fetch"),
      new ApiError(503, { type: "https://lexora.app/problems/unavailable", title: "Service unavailable", status: 503 }),
      new TypeError("Failed to fetch"),
    ];
    const {
      store,
      sent: attempts,
      sender,
    } = recording({
      answer: async () => {
        const f = failures.shift();
        if (f) throw f;
      },
    });
    await sender.rate("card-a", "cat", 3);
    await sender.flush();

    expect(attempts).toHaveLength(4);
    const keys = new Set(attempts.map((a) => a.key));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(await store.list(learnerId)).toEqual([]);
    expect(sender.current.pending).toBe(0);
  });

  it("counts a rating as pending from the moment it is made, before the store holds it", async () => {
    const store = freshStore();
    let stored!: () => void;
    const held = new Promise<void>((resolve) => (stored = resolve));
    const slow = { ...store, add: async (r: QueuedReview) => (await held, store.add(r)) };
    const { sent, sender } = recording({ store: slow });

    const rated = sender.rate("card-a", "cat", 3);
    expect(sender.current.pending).toBe(1);
    await tick();
    expect(sender.current.pending).toBe(1);

    stored();
    await rated;
    await sender.flush();
    expect(sent.map((r) => r.cardId)).toEqual(["card-a"]);
    expect(sender.current.pending).toBe(0);
  });

  it("stops counting a rating the store refused", async () => {
    const store = freshStore();
    const broken = { ...store, add: () => Promise.reject(new Error("quota exceeded")) };
    const { sender } = recording({ store: broken });

    await expect(sender.rate("card-a", "cat", 3)).rejects.toThrow("quota exceeded");
    expect(sender.current.pending).toBe(0);
  });

  it("keeps ratings made offline and sends them in order, each once, when back online", async () => {
    // While offline the sender waits; the test brings the network back.
    let online = false;
    const { store, sent, sender } = recording({ online: () => online, pause: tick });
    await sender.rate("card-a", "cat", 1);
    await sender.rate("card-b", "run", 3);
    await sender.rate("card-c", "red", 4);
    await new Promise((resolve) => setTimeout(resolve, 5));

    expect(sent).toEqual([]);
    expect(sender.current.offline).toBe(true);
    expect((await store.list(learnerId)).map((r) => r.cardId)).toEqual(["card-a", "card-b", "card-c"]);

    online = true;
    await sender.flush();
    expect(sent.map((r) => [r.cardId, r.rating])).toEqual([
      ["card-a", 1],
      ["card-b", 3],
      ["card-c", 4],
    ]);
    expect(new Set(sent.map((r) => r.key)).size).toBe(3);
    expect(await store.list(learnerId)).toEqual([]);
    expect(sender.current).toMatchObject({ pending: 0, offline: false, queuedCards: [] });
  });

  it("sends what an earlier page load queued, before anything newer", async () => {
    const store = freshStore();
    await queueOffline(store, learnerId, "card-old", 2);

    const { sent, sender: after } = recording({ store });
    await after.rate("card-new", "run", 3);
    await after.flush();
    expect(sent.map((r) => r.cardId)).toEqual(["card-old", "card-new"]);
  });

  it("reports a refused rating and goes on with the next, without retrying it", async () => {
    const { store, sent, sender } = recording({
      answer: async (r) => {
        if (r.cardId === "card-gone")
          throw new ApiError(404, { type: "https://lexora.app/problems/not-found", title: "Not found", status: 404, detail: "card not found" });
      },
    });
    await sender.rate("card-gone", "cat", 3);
    await sender.rate("card-b", "run", 3);
    await sender.flush();
    expect(sent.map((r) => r.cardId)).toEqual(["card-gone", "card-b"]);
    expect(sender.current.rejected).toHaveLength(1);
    expect(sender.current.rejected[0]!.problem.title).toBe("Not found");
    expect(await store.list(learnerId)).toEqual([]);
  });

  it("keeps a rating queued while the sign-in has expired", async () => {
    let expired = 2;
    const acknowledged: string[] = [];
    const { sender } = recording({
      answer: async (r) => {
        if (expired-- > 0) throw new ApiError(401, { type: "https://lexora.app/problems/unauthenticated", title: "Unauthenticated", status: 401 });
        acknowledged.push(r.key);
      },
    });
    const r = await sender.rate("card-a", "cat", 3);
    await sender.flush();
    expect(acknowledged).toEqual([r.key]);
    expect(sender.current.rejected).toEqual([]);
  });

  it("sends only the signed-in learner's ratings", async () => {
    const store = freshStore();
    await queueOffline(store, "learner-2", "card-x", 3);
    const { sent, sender: mine } = recording({ store });
    await mine.rate("card-a", "run", 3);
    await mine.flush();
    expect(sent.map((r) => r.cardId)).toEqual(["card-a"]);
    expect((await store.list("learner-2")).map((r) => r.cardId)).toEqual(["card-x"]);
  });

  it("withdraws a rating that was never sent: it never reaches the server", async () => {
    let online = false;
    const { store, sent, sender } = recording({ online: () => online, pause: tick });
    await sender.rate("card-a", "cat", 3);
    const b = await sender.rate("card-b", "run", 1);
    expect(await sender.undo(b)).toBe("withdrawn");
    expect(sender.current).toMatchObject({ pending: 1, queuedCards: ["card-a"] });

    online = true;
    await sender.flush();
    expect(sent.map((r) => [r.action ?? "rate", r.cardId])).toEqual([["rate", "card-a"]]);
    expect(await store.list(learnerId)).toEqual([]);
  });

  it("undoes a rating already sent with an undo sent after it, with its own key", async () => {
    const { sent, sender } = recording();
    const a = await sender.rate("card-a", "cat", 3);
    await sender.flush();
    expect(await sender.undo(a)).toBe("queued");
    await sender.flush();
    expect(sent).toHaveLength(2);
    expect(sent[1]).toMatchObject({ action: "undo", undoes: a.key, cardId: "card-a" });
    expect(sent[1]!.key).not.toBe(a.key);
    expect(sender.current.pending).toBe(0);
  });

  it("queues a rating made right after an undo behind that undo", async () => {
    const { sent, sender } = recording();
    const first = sender.rate("card-a", "cat", 3);
    await first;
    await sender.flush();
    // The review screen undoes with rate()'s promise and the learner rates
    // the card again at once, without waiting for the undo.
    void sender.undo(first);
    await sender.rate("card-a", "cat", 1);
    await sender.flush();
    expect(sent.map((r) => [r.action ?? "rate", r.rating])).toEqual([
      ["rate", 3],
      ["undo", 3],
      ["rate", 1],
    ]);
  });

  it("gives an undo the review id of the rating it undoes", async () => {
    let next = 41;
    const { sent, sender } = recording({
      answer: async (r) => (r.action === "undo" ? undefined : { reviewId: ++next, due: "2026-03-05T09:00:00Z" }),
    });
    await sender.rate("card-a", "cat", 3);
    const b = await sender.rate("card-b", "run", 4);
    await sender.flush();
    await sender.undo(b);
    await sender.flush();
    expect(sent.map((r) => [r.action ?? "rate", r.cardId, r.request?.reviewId])).toEqual([
      ["rate", "card-a", undefined],
      ["rate", "card-b", undefined],
      ["undo", "card-b", 43],
    ]);
  });

  it("undoes a rating whose answer was lost on the server, not by withdrawing it", async () => {
    let lose = true;
    const { sent, sender } = recording({
      answer: async () => {
        // The first attempt reaches the server, but its answer is lost.
        if (lose) {
          lose = false;
          throw new TypeError("Failed to fetch");
        }
      },
      // The retry waits until the undo is made.
      pause: () => new Promise((resolve) => setTimeout(resolve, 10)),
    });
    const a = await sender.rate("card-a", "cat", 3);
    // Once its first attempt was made, the rating may be on the server: it can no longer be withdrawn.
    await vi.waitFor(() => expect(sent.length).toBeGreaterThan(0), { interval: 1 });
    expect(await sender.undo(a)).toBe("queued");
    await sender.flush();
    expect(sent.map((r) => r.action ?? "rate")).toEqual(["rate", "rate", "undo"]);
  });

  it("drops the undo of a rating the server refused", async () => {
    let online = false;
    const { store, sent, sender } = recording({
      answer: async (r) => {
        if (r.cardId === "card-gone") throw new ApiError(404, { type: "https://lexora.app/problems/not-found", title: "Not found", status: 404 });
      },
      online: () => online,
      pause: tick,
    });
    const a = await sender.rate("card-gone", "cat", 3);
    online = true;
    await sender.flush();
    online = false;
    expect(await sender.undo(a)).toBe("queued");
    online = true;
    await sender.flush();
    expect(sent.map((r) => r.action ?? "rate")).toEqual(["rate"]);
    expect(await store.list(learnerId)).toEqual([]);
  });

  it("fixes a rating's request when it is made: its retries carry the same reviewed_at, also after a reload", async () => {
    const store = freshStore();
    let clock = Date.parse("2026-03-02T09:00:00Z");
    const now = () => new Date(clock);
    const sent: QueuedReview[] = [];
    const before: ReviewSender = new ReviewSender(
      store,
      learnerId,
      async (r) => {
        // The third attempt fails too, and the page is then reloaded.
        if (sent.push(r) === 3) before.stop();
        throw new TypeError("Failed to fetch");
      },
      // Each retry waits a minute; the rating still carries the time it was made.
      { pause: async () => void (clock += 60_000), online: () => true, now },
    );
    await before.rate("card-a", "cat", 3);
    await before.flush();
    expect(sent).toHaveLength(3);

    clock += 3_600_000;
    const after = new ReviewSender(store, learnerId, async (r) => void sent.push(r), { pause: instant, online: () => true, now });
    await after.flush();
    expect(new Set(sent.map((r) => r.key)).size).toBe(1);
    expect(sent.map((r) => r.request)).toEqual(sent.map(() => ({ reviewedAt: "2026-03-02T09:00:00.000Z" })));
  });

  it("fixes a rating's reviewed_at on the server's clock: a device 10 minutes fast, and its retries keep it", async () => {
    memoryLocalStorage();
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.parse("2026-03-02T09:10:00Z"));
      keepOffset({ offsetMs: -600_000, serverAt: Date.parse("2026-03-02T09:00:00Z"), deviceAt: Date.parse("2026-03-02T09:10:00Z") });
      let down = 2;
      // No now: the sender's own clock.
      const { sent, sender } = recording({
        answer: async () => {
          if (down-- > 0) throw new TypeError("Failed to fetch");
        },
        pause: async () => {
          // Between attempts the device's clock is set right and a new offset measured.
          vi.setSystemTime(Date.parse("2026-03-02T09:01:00Z"));
          keepOffset({ offsetMs: 0, serverAt: Date.parse("2026-03-02T09:01:00Z"), deviceAt: Date.parse("2026-03-02T09:01:00Z") });
        },
      });
      await sender.rate("card-a", "cat", 3);
      await sender.flush();
      expect(sent).toHaveLength(3);
      expect(sent.map((r) => r.request)).toEqual(sent.map(() => ({ reviewedAt: "2026-03-02T09:00:00.000Z" })));

      await sender.rate("card-b", "dog", 3);
      await sender.flush();
      expect(sent.at(-1)!.request).toEqual({ reviewedAt: "2026-03-02T09:01:00.000Z" });
    } finally {
      vi.useRealTimers();
      vi.unstubAllGlobals();
    }
  });

  it("stamps a rating with the device's clock once it was set right offline after a reload: the 3-day-fast offset is stale", async () => {
    const kept = memoryLocalStorage();
    const day = 86_400_000;
    const measuredAt = Date.parse("2026-03-05T09:00:00Z");
    // An earlier page measured the device 3 days fast.
    kept.set("lexora.clock", JSON.stringify({ offsetMs: -3 * day, serverAt: measuredAt - 3 * day, deviceAt: measuredAt }));
    // Offline, the device's clock is set right, and the page reloaded: its monotonic clock agrees with the wall clock.
    const now = Date.parse("2026-03-02T09:30:00Z");
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.spyOn(performance, "now").mockReturnValue(now - performance.timeOrigin);
    try {
      vi.setSystemTime(now);
      const { sent, sender } = recording();
      await sender.rate("card-a", "cat", 3);
      await sender.flush();
      expect(sent.map((r) => r.request)).toEqual([{ reviewedAt: "2026-03-02T09:30:00.000Z" }]);
    } finally {
      vi.useRealTimers();
      vi.unstubAllGlobals();
    }
  });

  it("sends a rating made offline with the time it was made, even when it goes out within the minute", async () => {
    let online = false;
    const { sent, sender } = recording({ online: () => online, pause: tick, now: () => new Date("2026-03-02T09:00:00Z") });
    await sender.rate("card-a", "cat", 3);
    online = true;
    await sender.flush();
    expect(sent.map((r) => r.request)).toEqual([{ reviewedAt: "2026-03-02T09:00:00.000Z" }]);
  });

  it("sends a rating held while the server is down with the time it was made, not the time it arrives", async () => {
    let clock = Date.parse("2026-03-02T23:59:50Z");
    let down = 2;
    const { sent, sender } = recording({
      answer: async () => {
        if (down-- > 0) throw new ApiError(503, { type: "https://lexora.app/problems/unavailable", title: "Service unavailable", status: 503 });
      },
      pause: async () => void (clock += 15_000),
      now: () => new Date(clock),
    });
    await sender.rate("card-a", "cat", 3);
    await sender.flush();
    expect(sent).toHaveLength(3);
    expect(sent.map((r) => r.request)).toEqual(sent.map(() => ({ reviewedAt: "2026-03-02T23:59:50.000Z" })));
  });

  it("sends a rating an older build queued without its request with the time it was made", async () => {
    const store = freshStore();
    await store.add({ key: "k-old", learnerId, cardId: "card-a", lemma: "cat", rating: 3, reviewedAt: "2026-03-02T09:00:00.000Z" });
    const { sent, sender } = recording({ store, now: () => new Date("2026-03-02T09:00:30Z") });
    await sender.flush();
    expect(sent.map((r) => r.request)).toEqual([{ reviewedAt: "2026-03-02T09:00:00.000Z" }]);
  });

  it("sends every rating held behind a failing one with the time it was made", async () => {
    let clock = Date.parse("2026-03-02T09:00:00Z");
    let down = 3;
    const { sent, sender } = recording({
      answer: async () => {
        if (down-- > 0) throw new TypeError("Failed to fetch");
      },
      pause: async () => void (clock += 30_000),
      now: () => new Date(clock),
    });
    void sender.rate("card-a", "cat", 3);
    await sender.rate("card-b", "run", 4);
    await sender.flush();
    const at = { reviewedAt: "2026-03-02T09:00:00.000Z" };
    expect(sent.map((r) => [r.cardId, r.request])).toEqual([
      ["card-a", at],
      ["card-a", at],
      ["card-a", at],
      ["card-a", at],
      ["card-b", at],
    ]);
  });

  it("keeps the review id an undo was first sent with after a reload, when the sender no longer knows it", async () => {
    const store = freshStore();
    const sent: QueuedReview[] = [];
    let lose = true;
    const before: ReviewSender = new ReviewSender(
      store,
      learnerId,
      async (r) => {
        sent.push(r);
        if (r.action !== "undo") return { reviewId: 42, due: "2026-03-05T09:00:00Z" };
        // The undo's first answer is lost; the page is then reloaded.
        if (lose) {
          lose = false;
          before.stop();
          throw new TypeError("Failed to fetch");
        }
      },
      { pause: instant, online: () => true },
    );
    const a = await before.rate("card-a", "cat", 3);
    await before.flush();
    await before.undo(a);
    await before.flush();

    const after = new ReviewSender(store, learnerId, async (r) => void sent.push(r), { pause: instant, online: () => true });
    await after.flush();
    expect(sent.map((r) => [r.action ?? "rate", r.request])).toEqual([
      ["rate", { reviewedAt: a.reviewedAt }],
      ["undo", { reviewId: 42 }],
      ["undo", { reviewId: 42 }],
    ]);
  });

  it("shows a refusal until a rating made after it is acknowledged", async () => {
    const { sender } = recording({
      answer: async (r) => {
        if (r.cardId === "card-gone") throw new ApiError(404, { type: "https://lexora.app/problems/not-found", title: "Not found", status: 404 });
      },
    });
    await sender.rate("card-gone", "cat", 3);
    // Queued before the refusal was known: its success does not hide it.
    await sender.rate("card-b", "run", 3);
    await sender.flush();
    expect(sender.current.rejected.map((x) => x.review.cardId)).toEqual(["card-gone"]);
    await sender.rate("card-c", "red", 3);
    await sender.flush();
    expect(sender.current.rejected).toEqual([]);
    expect(sender.current.pending).toBe(0);
  });
});

describe("ReviewSender's retry message", () => {
  it("says in words why a rating waits, not the browser's error", async () => {
    const store = freshStore();
    const failures: Error[] = [
      new TypeError("Failed to fetch"),
      new ApiError(503, { type: "https://lexora.app/problems/unavailable", title: "Service unavailable", status: 503 }),
    ];
    const seen: (string | null)[] = [];
    const sender: ReviewSender = new ReviewSender(
      store,
      learnerId,
      async () => {
        const f = failures.shift();
        if (f) throw f;
      },
      { pause: async () => void seen.push(sender.current.retrying), online: () => true },
    );
    await sender.rate("card-a", "cat", 3);
    await sender.flush();
    expect(seen).toEqual(["Lexora cannot be reached", "Lexora answered: Service unavailable"]);
  });
});
