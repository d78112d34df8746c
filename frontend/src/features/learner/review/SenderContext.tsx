import { createContext, useContext, useEffect, useMemo, useSyncExternalStore, type ReactNode } from "react";
import { useApi } from "../../../api/ApiContext";
import { unwrap } from "../../../api/client";
import { idempotent } from "../../../api/mutation";
import { indexedDbStore, type ReviewStore } from "./queue";
import { ReviewSender, type SenderOptions, type SenderState } from "./sender";

const SenderContext = createContext<ReviewSender | null>(null);

/**
 * Provides the signed-in learner's ReviewSender, sending ratings through
 * SubmitReview and undos through UndoReview, each as the request the sender
 * fixed for it (a rating's reviewed_at; an undo's review id, when known, so
 * that a later review from another device is never undone).
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
          const params = idempotent(r.key);
          const { reviewId, reviewedAt } = r.request;
          if (r.action === "undo") {
            const body = { card_id: r.cardId, ...(reviewId !== undefined && { review_id: reviewId }) };
            unwrap(await api.POST("/UndoReview", { params, body }));
            return;
          }
          const body = { card_id: r.cardId, rating: r.rating, ...(reviewedAt && { reviewed_at: reviewedAt }) };
          const answer = unwrap(await api.POST("/SubmitReview", { params, body }));
          return { reviewId: answer.review_id, due: answer.card.due };
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
