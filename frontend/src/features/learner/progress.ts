import { useQuery } from "@tanstack/react-query";
import { useRef } from "react";
import { useApi } from "../../api/ApiContext";
import { progressQueries } from "../../api/queries";

/** How often Today reads GetProgress while no assignment is pending (ms). */
export const progressEvery = 10_000;

/** The first read again after an assignment is seen pending (ms). */
const firstRetry = 1_000;

/**
 * The wait before the next read of GetProgress, in milliseconds, when
 * pendingSince is when a read first found an assignment pending (its
 * figures not yet counted by the drain) and now is the current time (both
 * epoch ms), or pendingSince is null when none is: exponential backoff
 * while pending (each wait as long as the time pending so far: 1, 1, 2,
 * 4, 8 s), capped at progressEvery, which it is otherwise. Locally the
 * drain counts an assignment within seconds, in production within a
 * minute (it runs once a minute).
 */
export function progressInterval(pendingSince: number | null, now: number): number {
  if (pendingSince === null) return progressEvery;
  return Math.min(progressEvery, Math.max(firstRetry, now - pendingSince));
}

/**
 * GetProgress, read every progressEvery ms and, while an assignment is
 * pending, sooner with backoff (progressInterval), so the screen updates
 * by itself once the drain has counted a new assignment.
 */
export function useProgress() {
  const api = useApi();
  // When a read first found an assignment pending (null: none is).
  const pendingSince = useRef<number | null>(null);
  return useQuery({
    ...progressQueries.mine(api),
    refetchInterval: (query) => {
      const { data, dataUpdatedAt } = query.state;
      pendingSince.current = data?.assignments.some((a) => a.pending) ? (pendingSince.current ?? dataUpdatedAt) : null;
      return progressInterval(pendingSince.current, Date.now());
    },
  });
}

/** What a pending assignment shows instead of its figures (none yet, not "0 of 0: done"). */
export const pendingNote = "Preparing this deck: its words are being counted (within a minute). You can review its cards now.";
