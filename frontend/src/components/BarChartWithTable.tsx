import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { DataTable } from "./DataTable";

export interface Point {
  label: string;
  value: number;
}

/**
 * A bar chart (recharts) of labelled counts, with the same figures in a
 * table for screen readers and for reading exact values. The drawing is
 * hidden from assistive technology and out of the tab order (the table
 * says the same).
 */
export function BarChartWithTable({
  title,
  data,
  valueName,
  labelName,
  height = 240,
}: {
  title: string;
  data: Point[];
  valueName: string;
  labelName: string;
  height?: number;
}) {
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <div aria-hidden="true" data-testid="chart">
        <ResponsiveContainer width="100%" height={height} initialDimension={{ width: 600, height }}>
          <BarChart data={data} accessibilityLayer={false} margin={{ top: 8, right: 8, bottom: 8, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="label" interval="preserveStartEnd" tick={{ fontSize: 12 }} />
            <YAxis allowDecimals={false} width={36} tick={{ fontSize: 12 }} />
            <Tooltip />
            <Bar dataKey="value" name={valueName} fill="#2f5fa7" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </div>
      <details>
        <summary>Show the figures</summary>
        <DataTable
          rows={data}
          rowKey={(p) => p.label}
          columns={[
            { header: labelName, cell: (p) => p.label },
            { header: valueName, cell: (p) => p.value },
          ]}
        />
      </details>
    </figure>
  );
}
