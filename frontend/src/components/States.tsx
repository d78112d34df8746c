import type { ReactNode } from "react";
import type { UseQueryResult } from "@tanstack/react-query";
import { ProblemAlert } from "./ProblemAlert";

export function Loading({ what }: { what: string }) {
  return (
    <p role="status" className="muted">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

/**
 * Renders a query's loading and error states, and children with its data
 * once it has some.
 */
export function QueryState<T>({
  query,
  what,
  children,
}: {
  query: UseQueryResult<T>;
  what: string;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading what={what} />;
  if (query.isError)
    return (
      <>
        <ProblemAlert error={query.error} context={`Could not load ${what}`} />
        <button type="button" onClick={() => void query.refetch()}>
          Try again
        </button>
      </>
    );
  return <>{children(query.data)}</>;
}
