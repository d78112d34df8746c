import type { ReactNode } from "react";

/**
 * A wide table's box: on a phone the table scrolls sideways inside it, not
 * the page. The box is focusable and named, so that a keyboard can scroll
 * it too (axe-core's scrollable-region-focusable).
 */
export function TableWrap({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-wrap" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
