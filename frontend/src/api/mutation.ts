import { useMutation } from "@tanstack/react-query";
import { useCallback, useRef } from "react";
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

/** A new Idempotency-Key. */
export function newKey(): string {
  return crypto.randomUUID();
}

/**
 * idempotent is a write's openapi-fetch params: key in its Idempotency-Key
 * header (the functions answer a retry with the same key and body with the
 * first answer).
 */
export function idempotent(key: string) {
  return { header: { "Idempotency-Key": key } };
}

/**
 * useWrite is a screen's write as one user intent (a form sent, a button
 * pressed), on react-query's useMutation with retryWrite. submit(v) sends
 * v with its intent's Idempotency-Key (mutationFn gets v with it as key):
 *
 * - while a submit is pending, another is ignored: a double click's second
 *   click comes before the disabled button is rendered;
 * - the same v sent again after a failure (a refusal, a timeout, a network
 *   failure) is the same intent and keeps its key, so that a request that
 *   was applied but whose answer was lost is answered, not applied again;
 * - another v (the form was edited) or any v after a success is a new
 *   intent with a new key.
 *
 * done(result) says whether a success ends the intent (by default it
 * does); a write that reports part of its work as failed says not, and a
 * submit of the same v then keeps the key.
 *
 * editing is the props of the write's form: a change to any of its fields,
 * or a submit the browser refuses (HTML constraint validation, which sends
 * nothing and so never reaches submit), forgets a shown refusal, which
 * spoke of the input before; a success's answer stays.
 */
export function useWrite<V extends { key: string }, R>(options: {
  mutationFn: (v: V) => Promise<R>;
  onSuccess?: (result: R, v: V) => unknown;
  done?: (result: R) => boolean;
}) {
  const pending = useRef(false);
  const intent = useRef<{ of: string; key: string } | null>(null);
  const mutation = useMutation({
    mutationFn: options.mutationFn,
    retry: retryWrite,
    onSuccess: async (result, v) => {
      if (options.done?.(result) ?? true) intent.current = null;
      await options.onSuccess?.(result, v);
    },
    onSettled: () => {
      pending.current = false;
    },
  });
  const { mutate, reset, isError } = mutation;
  const forget = useCallback(() => {
    if (isError) reset();
  }, [isError, reset]);
  const submit = useCallback(
    (v: Omit<V, "key">) => {
      if (pending.current) return;
      pending.current = true;
      const of = JSON.stringify(v);
      if (intent.current?.of !== of) intent.current = { of, key: newKey() };
      mutate({ ...v, key: intent.current.key } as V);
    },
    [mutate],
  );
  return { ...mutation, submit, editing: { onChange: forget, onInvalidCapture: forget } };
}
