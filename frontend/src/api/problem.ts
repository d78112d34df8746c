import type { components } from "./schema";

/** An RFC 9457 problem document, as every function answers an error. */
export type Problem = components["schemas"]["Problem"];

/**
 * ApiError is a function's answer with a 4xx or 5xx status. It carries the
 * problem document, so that a screen shows its title, detail and field
 * errors instead of a generic message. An answer that is not a problem
 * document (a proxy's HTML page) becomes a problem with the HTTP status.
 */
export class ApiError extends Error {
  readonly problem: Problem;
  readonly status: number;

  constructor(status: number, body: unknown) {
    const problem = isProblem(body)
      ? body
      : { type: "about:blank", title: `The server answered ${status}`, status };
    super(problem.detail ? `${problem.title}: ${problem.detail}` : problem.title);
    this.name = "ApiError";
    this.problem = problem;
    this.status = status;
  }

  /** Whether sending the same request again may succeed (overload, outage). */
  get retryable(): boolean {
    return this.status >= 500 || this.status === 408 || this.status === 429;
  }
}

function isProblem(body: unknown): body is Problem {
  return (
    typeof body === "object" &&
    body !== null &&
    typeof (body as Problem).title === "string" &&
    typeof (body as Problem).status === "number"
  );
}

/** The problem type Me answers (404) for a signed-in identity without a Lexora account. */
export const noAccount = "https://lexora.app/problems/no-account";

/** Whether error is Me's answer for an identity without an account. */
export function isNoAccount(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404 && error.problem.type === noAccount;
}
