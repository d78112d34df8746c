import type { ReactNode } from "react";
import { TableWrap } from "./TableWrap";

/** One column of a DataTable: its header and, for each row, its cell. */
export interface Column<T> {
  /** The column header (a `th scope="col"`). */
  header: ReactNode;
  /** The cell of a row. */
  cell: (row: T) => ReactNode;
  /** React key of the column, for columns made from data (default its position). */
  key?: string;
  /** The cell is the row's header (a `th scope="row"`), as a grid's first column. */
  rowHeader?: boolean;
  /** The cells' class. */
  className?: string;
  /** The cells' language, for words of another language than the page's. */
  lang?: string;
}

/**
 * A table of rows with a header row of column headers (`th scope="col"`)
 * and an optional caption. With a label it stands in a TableWrap (the
 * label names the scrollable region), for tables wider than a phone.
 */
export function DataTable<T>({
  rows,
  rowKey,
  columns,
  label,
  caption,
  captionClassName,
  className,
}: {
  rows: readonly T[];
  rowKey: (row: T) => string | number;
  columns: readonly Column<T>[];
  label?: string;
  caption?: ReactNode;
  captionClassName?: string;
  className?: string;
}) {
  const table = (
    <table className={className}>
      {caption && <caption className={captionClassName}>{caption}</caption>}
      <thead>
        <tr>
          {columns.map((c, i) => (
            <th key={c.key ?? i} scope="col">
              {c.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)}>
            {columns.map((c, i) => {
              const Cell = c.rowHeader ? "th" : "td";
              return (
                <Cell key={c.key ?? i} scope={c.rowHeader ? "row" : undefined} className={c.className} lang={c.lang}>
                  {c.cell(row)}
                </Cell>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
  return label ? <TableWrap label={label}>{table}</TableWrap> : table;
}
