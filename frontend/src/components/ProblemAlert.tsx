import { ApiError } from "../api/problem";

/**
 * Shows why a request failed: a function's problem document (its title,
 * detail and each field error), or, when the request never got an answer,
 * that the server could not be reached.
 */
export function ProblemAlert({ error, context }: { error: unknown; context?: string }) {
  const heading = context ? `${context}: ` : "";
  if (error instanceof ApiError) {
    const p = error.problem;
    return (
      <div role="alert" className="alert">
        <p className="alert-title">
          {heading}
          {p.title}
        </p>
        {p.detail && <p>{p.detail}</p>}
        {p.errors && p.errors.length > 0 && (
          <ul aria-label="Field errors">
            {p.errors.map((e) => (
              <li key={e.field}>
                <code>{e.field}</code>: {e.reason}
              </li>
            ))}
          </ul>
        )}
      </div>
    );
  }
  return (
    <div role="alert" className="alert">
      <p className="alert-title">{heading}Lexora could not be reached</p>
      <p>Check your connection; nothing was changed. ({error instanceof Error ? error.message : String(error)})</p>
    </div>
  );
}
