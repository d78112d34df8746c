import type { components } from "../api/schema";

/** A workload whose curve at retention i has means[i] reviews every day of 30. */
export function workload(classId: string, deck: string, now: number, means: number[]): components["schemas"]["DeckWorkload"] {
  const retentions = [0.8, 0.85, 0.9, 0.95];
  return {
    class_id: classId,
    deck_id: deck,
    desired_retention: now,
    learners: 3,
    cards: 75,
    fitted: 1,
    days: Array.from({ length: 30 }, (_, i) => new Date(Date.UTC(2026, 2, 3 + i)).toISOString().slice(0, 10)),
    curves: retentions.map((r, i) => ({
      desired_retention: r,
      reviews_per_day: Array.from({ length: 30 }, () => means[i]!),
      mean_per_day: means[i]!,
    })),
  };
}
