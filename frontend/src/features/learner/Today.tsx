import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { useApi } from "../../api/ApiContext";
import { serverNow, toServerTime } from "../../api/clock";
import { scheduleQueries } from "../../api/queries";
import type { components } from "../../api/schema";
import { Empty, QueryState } from "../../components/States";
import { dueTime, locale } from "../../components/when";
import { JoinClass } from "./JoinClass";
import { pace } from "./pace";
import { pendingNote, useProgress } from "./progress";
import { StartedDecks } from "./StartedDecks";

type AssignmentProgress = components["schemas"]["AssignmentProgress"];

const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" });

/** How many due cards Today reads: it shows the counts only, which cover all. */
const dueLimit = 1;

/**
 * The learner's day: cards due now and how many new cards are left of
 * their daily limit (GetSchedule's new_count, at most new_cards_left), the
 * streak, each assignment with its due date, progress and the pace it
 * needs, and the decks the learner started on their own with theirs. The schedule is read as committed; streak and assignment progress
 * are projections, and the screen says when they were read.
 */
export function Today() {
  const api = useApi();
  const schedule = useQuery(scheduleQueries.today(api, dueLimit));
  const progress = useProgress();
  return (
    <section aria-labelledby="today-title">
      <h1 id="today-title">Today</h1>
      <QueryState query={schedule} what="your schedule">
        {(s) => (
            <div className="tiles">
              <p className="tile">
                <strong className="big">{s.due_count}</strong> {s.due_count === 1 ? "card" : "cards"} due now
              </p>
              <p className="tile">
                <strong className="big">{s.new_count}</strong> new {s.new_count === 1 ? "card" : "cards"} left today
                <span className="muted">
                  {" "}
                  ({s.new_cards_today} of {s.new_cards_per_day} a day studied)
                </span>
              </p>
              {progress.data && (
                <p className="tile">
                  <strong className="big">{progress.data.streak.current}</strong>{" "}
                  {progress.data.streak.current === 1 ? "day" : "days"} in a row
                  <span className="muted"> (longest {progress.data.streak.longest})</span>
                </p>
              )}
            </div>
        )}
      </QueryState>
      <p className="actions">
        <Link className="button primary" to="/review">
          Start reviewing
        </Link>
        <Link to="/schedule">See the forecast</Link>
      </p>
      <h2>Assignments</h2>
      <p className="muted">
        Progress is updated in the background a few seconds after each review
        {progress.dataUpdatedAt > 0 && <> (read {dateTime.format(toServerTime(progress.dataUpdatedAt))})</>}.
      </p>
      <QueryState query={progress} what="your assignments">
        {(p) => (
          <>
            <Assignments list={p.assignments} />
            <h2>Your own decks</h2>
            <StartedDecks decks={p.started_decks} />
          </>
        )}
      </QueryState>
      <JoinClass />
    </section>
  );
}

function Assignments({ list }: { list: AssignmentProgress[] }) {
  const open = [...list].sort((a, b) => Number(a.completed_at !== null) - Number(b.completed_at !== null) || a.due_at.localeCompare(b.due_at));
  if (open.length === 0) return <Empty>No assignments yet: your teacher's decks appear here.</Empty>;
  // The due dates are the server's instants: the pace counts from its time.
  const now = serverNow();
  return (
    <ul className="assignments">
      {open.map((a) => (
        <li key={a.assignment_id}>
          <div className="row">
            <strong>{a.deck}</strong>
            <span className="muted">due {dueTime(a.due_at)}</span>
          </div>
          {a.pending ? (
            <p className="pace">{pendingNote}</p>
          ) : (
            <>
              <label>
                {a.cards_learned} of {a.cards_total} cards learned
                <progress max={Math.max(a.cards_total, 1)} value={a.cards_learned} />
              </label>
              <p className="pace">{pace(a, now).hint}</p>
            </>
          )}
        </li>
      ))}
    </ul>
  );
}
