import { createContext, useContext, useEffect, useMemo, useSyncExternalStore, type ReactNode } from "react";
import { useApi } from "../api/ApiContext";
import { unwrap } from "../api/client";
import { indexedDbStore, type QueuedReview, type ReviewStore } from "./queue";
import { ReviewSender, type SenderOptions, type SenderState } from "./sender";

const SenderContext = createContext<ReviewSender | null>(null);

/** How long a rating waits in the queue before it is sent with the time it was made. */
export const clientTimeAfterMs = 60_000;

/**
 * The time a rating was made, when it waited in the queue longer than
 * clientTimeAfterMs (offline, or retried): SubmitReview then schedules the
 * card from that instant (reviewed_at). A rating sent at once goes without
 * it, so that a device whose clock runs ahead is never refused for a time
 * in the future.
 */
export function waitedSince(r: QueuedReview, now: Date): string | undefined {
  return now.getTime() - Date.parse(r.reviewedAt) > clientTimeAfterMs ? r.reviewedAt : undefined;
}

/**
 * Provides the signed-in learner's ReviewSender, sending ratings through
 * SubmitReview and undos through UndoReview (with the undone review's id
 * when known, so that a later review from another device is never undone).
 * It starts by sending what an earlier visit left queued, and again whenever
 * the browser comes back online.
 */
export function ReviewSenderProvider({
  learnerId,
  store,
  options,
  children,
}: {
  learnerId: string;
  store?: ReviewStore;
  options?: SenderOptions;
  children: ReactNode;
}) {
  const api = useApi();
  const sender = useMemo(
    () =>
      new ReviewSender(
        store ?? indexedDbStore(),
        learnerId,
        async (r) => {
          const params = { header: { "Idempotency-Key": r.key } };
          if (r.action === "undo") {
            const body = { card_id: r.cardId, ...(r.reviewId !== undefined && { review_id: r.reviewId }) };
            unwrap(await api.POST("/UndoReview", { params, body }));
            return;
          }
          const at = waitedSince(r, new Date());
          const body = { card_id: r.cardId, rating: r.rating, ...(at && { reviewed_at: at }) };
          return unwrap(await api.POST("/SubmitReview", { params, body })).review_id;
        },
        options,
      ),
    [api, learnerId, store, options],
  );
  useEffect(() => {
    void sender.flush();
    const online = () => void sender.flush();
    window.addEventListener("online", online);
    return () => {
      window.removeEventListener("online", online);
      sender.stop();
    };
  }, [sender]);
  return <SenderContext.Provider value={sender}>{children}</SenderContext.Provider>;
}

export function useReviewSender(): ReviewSender {
  const s = useContext(SenderContext);
  if (!s) throw new Error("useReviewSender outside ReviewSenderProvider");
  return s;
}

/** The sender's state, re-rendering on every change. */
export function useSenderState(): SenderState {
  const s = useReviewSender();
  return useSyncExternalStore(
    (cb) => s.subscribe(cb),
    () => s.current,
  );
}
