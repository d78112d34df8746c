import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useApi } from "../../api/ApiContext";
import { scheduleQueries } from "../../api/queries";
import type { components } from "../../api/schema";
import { BarChartWithTable } from "../../components/BarChartWithTable";
import { QueryState } from "../../components/States";
import { locale } from "../../components/when";

type ForecastDay = components["schemas"]["ForecastDay"];

const weekday = new Intl.DateTimeFormat(locale, { weekday: "short", day: "numeric", timeZone: "UTC" });

/** "Mon 3" for a local date YYYY-MM-DD (the learner's own day, so read as UTC). */
export function dayLabel(date: string): string {
  return weekday.format(new Date(`${date}T00:00:00Z`));
}

export function forecastPoints(days: ForecastDay[]) {
  return days.map((d) => ({ label: dayLabel(d.date), value: d.due }));
}

/** Reviews due per day over the next 7 or 30 days. */
export function Schedule() {
  const api = useApi();
  const [days, setDays] = useState<7 | 30>(7);
  const schedule = useQuery(scheduleQueries.forecast(api, days));
  return (
    <section aria-labelledby="schedule-title">
      <h1 id="schedule-title">Schedule</h1>
      <div role="group" aria-label="Forecast range" className="segmented">
        {([7, 30] as const).map((n) => (
          <button key={n} type="button" aria-pressed={days === n} onClick={() => setDays(n)}>
            {n} days
          </button>
        ))}
      </div>
      <QueryState query={schedule} what="the forecast">
        {(s) => {
          const total = s.forecast.reduce((n, d) => n + d.due, 0);
          return (
            <>
              <p>
                <strong>{s.due_count}</strong> {s.due_count === 1 ? "card is" : "cards are"} due now;{" "}
                <strong>{total}</strong> reviews over the next {days} days (today includes those due now).
              </p>
              <BarChartWithTable
                title={`Reviews due per day, next ${days} days`}
                data={forecastPoints(s.forecast)}
                labelName="Day"
                valueName="Reviews due"
              />
            </>
          );
        }}
      </QueryState>
    </section>
  );
}
