import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { useApi } from "../../api/ApiContext";
import { unwrap } from "../../api/client";
import { idempotent, useWrite } from "../../api/mutation";
import { classQueries } from "../../api/queries";
import type { components } from "../../api/schema";
import { DataTable } from "../../components/DataTable";
import { ProblemAlert } from "../../components/ProblemAlert";
import { QueryState } from "../../components/States";

type ClassDeck = components["schemas"]["ClassDeck"];
type Workload = components["schemas"]["DeckWorkload"];
type Curve = components["schemas"]["WorkloadCurve"];

/** The retentions a teacher may choose (SetDeckRetention's range, in steps of 0.01). */
export const minRetention = 0.8;
export const maxRetention = 0.95;

/** r (a probability) as a whole percentage, as the input and the chart show it: 0.85 is 85. */
export function toPercent(r: number): number {
  return Math.round(r * 100);
}

const colours = ["#8a5a00", "#2f7d32", "#2f5fa7", "#9c2f6f", "#333333"];

/** A retention as a percentage ("85 %"). */
export function percent(r: number): string {
  return `${toPercent(r)} %`;
}

/** The chart's rows: one per day, a column per retention ("r0.8": reviews). */
export function chartRows(w: Workload): Record<string, string | number>[] {
  return w.days.map((day, i) => {
    const row: Record<string, string | number> = { day: day.slice(5) };
    for (const c of w.curves) row[`r${c.desired_retention}`] = Number((c.reviews_per_day[i] ?? 0).toFixed(1));
    return row;
  });
}

/**
 * A class deck's desired retention: the recall probability at which its
 * cards come due, which the teacher chooses from 80 % to 95 %, beside the
 * workload each retention asks of the class's learners (GetDeckWorkload:
 * simulated from their own parameters and cards): a line chart of the
 * reviews per learner per day over the next 30 days, and a table of the
 * same figures.
 */
export function DeckRetention({ classId, deck }: { classId: string; deck: ClassDeck }) {
  const api = useApi();
  const qc = useQueryClient();
  const id = useId();
  const workload = useQuery(classQueries.workload(api, classId, deck.deck_id));
  // The input is in percent, as the chart and the table are labelled.
  const [value, setValue] = useState(String(toPercent(deck.desired_retention)));
  const set = useWrite({
    mutationFn: async (v: { key: string; retention: number }) =>
      unwrap(
        await api.POST("/SetDeckRetention", {
          params: idempotent(v.key),
          body: { class_id: classId, deck_id: deck.deck_id, desired_retention: v.retention },
        }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: classQueries.progressOf(classId) }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    set.submit({ retention: Number(value) / 100 });
  };
  return (
    <section aria-labelledby={`${id}-title`} className="retention">
      <h3 id={`${id}-title`}>{deck.deck_title}</h3>
      <form onSubmit={submit} className="row-input">
        <label htmlFor={`${id}-retention`}>Desired retention in % (recall when a card comes due)</label>
        <input
          id={`${id}-retention`}
          type="number"
          min={toPercent(minRetention)}
          max={toPercent(maxRetention)}
          step={1}
          required
          value={value}
          onChange={(e) => {
            setValue(e.target.value);
            set.editing.onChange();
          }}
          onInvalidCapture={set.editing.onInvalidCapture}
        />
        <button type="submit" disabled={set.isPending}>
          {set.isPending ? "Saving…" : "Save"}
        </button>
      </form>
      {set.isError && (
        <ProblemAlert error={set.error} context="The retention was not changed" fields={{ desired_retention: "Desired retention" }} />
      )}
      {set.isSuccess && (
        <p role="status" className="ok-note">
          {set.data.changed
            ? `${deck.deck_title} now aims at ${percent(set.data.desired_retention)}: each card uses it from its next review.`
            : `${deck.deck_title} already aims at ${percent(set.data.desired_retention)}.`}
        </p>
      )}
      <QueryState query={workload} what="the workload">
        {(w) => <WorkloadChart w={w} />}
      </QueryState>
    </section>
  );
}

function WorkloadChart({ w }: { w: Workload }) {
  return (
    <figure className="chart workload">
      <figcaption>
        Expected reviews per learner per day, next {w.days.length} days ({w.learners}{" "}
        {w.learners === 1 ? "learner" : "learners"}, {w.fitted} with their own fitted parameters)
      </figcaption>
      <div className="chart-with-table">
        <div aria-hidden="true" data-testid="chart">
          <ResponsiveContainer width="100%" height={240} initialDimension={{ width: 600, height: 240 }}>
            <LineChart data={chartRows(w)} accessibilityLayer={false} margin={{ top: 8, right: 8, bottom: 8, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="day" interval="preserveStartEnd" tick={{ fontSize: 12 }} />
              <YAxis width={36} tick={{ fontSize: 12 }} />
              <Tooltip />
              <Legend />
              {w.curves.map((c, i) => (
                <Line
                  key={c.desired_retention}
                  dataKey={`r${c.desired_retention}`}
                  name={percent(c.desired_retention)}
                  stroke={colours[i % colours.length]}
                  strokeWidth={c.desired_retention === w.desired_retention ? 3 : 1.5}
                  dot={false}
                  isAnimationActive={false}
                />
              ))}
            </LineChart>
          </ResponsiveContainer>
        </div>
        <DataTable
          rows={w.curves}
          rowKey={(c) => c.desired_retention}
          caption="Reviews per learner per day"
          columns={[
            {
              header: "Retention",
              rowHeader: true,
              cell: (c: Curve) => `${percent(c.desired_retention)}${c.desired_retention === w.desired_retention ? " (now)" : ""}`,
            },
            { header: "Today", cell: (c: Curve) => (c.reviews_per_day[0] ?? 0).toFixed(1) },
            { header: `Mean over ${w.days.length} days`, cell: (c: Curve) => c.mean_per_day.toFixed(1) },
          ]}
        />
      </div>
    </figure>
  );
}
