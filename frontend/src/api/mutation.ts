import { ApiError } from "./problem";

/**
 * retryWrite is the retry policy of the screens' writes (react-query's
 * `retry`): a write carries one Idempotency-Key for all its attempts, so it
 * is safe to retry after a network failure or a 5xx, up to 3 times; a
 * refusal (4xx) is shown, not retried.
 */
export function retryWrite(failures: number, error: unknown): boolean {
  if (error instanceof ApiError && !error.retryable) return false;
  return failures < 3;
}

/** A new Idempotency-Key, one per user action. */
export function newKey(): string {
  return crypto.randomUUID();
}
