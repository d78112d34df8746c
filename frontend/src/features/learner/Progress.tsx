import { toServerTime } from "../../api/clock";
import { Empty, QueryState } from "../../components/States";
import { dueTime, locale } from "../../components/when";
import { pendingNote, useProgress } from "./progress";
import { StartedDecks } from "./StartedDecks";

const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" });
const date = new Intl.DateTimeFormat(locale, { dateStyle: "medium" });

/** A recall probability as a whole percentage ("87 %"). */
export function recallPercent(p: number): string {
  return `${Math.round(p * 100)} %`;
}

/** Achievement codes as a learner reads them. */
export function achievementName(code: string): string {
  return code.replace(/[_-]+/g, " ").replace(/^\w/, (c) => c.toUpperCase());
}

/**
 * Streak, achievements, assignments, the decks started on one's own and
 * feed. All but those decks are projections the drain writes after each
 * review, so they trail a review by a moment: the screen says so and
 * refreshes itself while open.
 */
export function Progress() {
  const progress = useProgress();
  return (
    <section aria-labelledby="progress-title">
      <h1 id="progress-title">Progress</h1>
      <p className="muted">
        Progress is updated in the background a few seconds after each review
        {progress.dataUpdatedAt > 0 && <> (read {dateTime.format(toServerTime(progress.dataUpdatedAt))})</>}.
      </p>
      <QueryState query={progress} what="your progress">
        {(p) => (
          <>
            <section aria-labelledby="streak-title" className="stats">
              <h2 id="streak-title">Streak</h2>
              <p>
                <strong className="big">{p.streak.current}</strong> {p.streak.current === 1 ? "day" : "days"} in a row
                {" · "}longest {p.streak.longest}
                {p.streak.last_day && <> · last studied {date.format(new Date(`${p.streak.last_day}T12:00:00`))}</>}
              </p>
            </section>
            <section aria-labelledby="recall-title" className="stats">
              <h2 id="recall-title">Predicted recall</h2>
              {p.predicted_recall.words === 0 ? (
                <Empty>No learned words yet: a word counts once it has left its learning steps.</Empty>
              ) : (
                <p data-testid="predicted-recall">
                  Of your {p.predicted_recall.words} learned {p.predicted_recall.words === 1 ? "word" : "words"}, you would
                  recall <strong className="big">{recallPercent(p.predicted_recall.today)}</strong> today and{" "}
                  <strong>{recallPercent(p.predicted_recall.in_30_days)}</strong> in 30 days without a review (predicted
                  from your own memory model).
                </p>
              )}
            </section>
            <section aria-labelledby="assignments-title">
              <h2 id="assignments-title">Assignments</h2>
              {p.assignments.length === 0 ? (
                <Empty>No assignments yet: your teacher's decks appear here.</Empty>
              ) : (
                <ul className="assignments">
                  {p.assignments.map((a) => (
                    <li key={a.assignment_id}>
                      <div className="row">
                        <strong>{a.deck}</strong>
                        <span className="muted">
                          {a.completed_at ? `completed ${date.format(new Date(a.completed_at))}` : `due ${dueTime(a.due_at)}`}
                        </span>
                      </div>
                      {a.pending ? (
                        <p className="pace">{pendingNote}</p>
                      ) : (
                        <label>
                          {a.cards_learned} of {a.cards_total} cards learned ({a.cards_seen} seen, {a.reviews} reviews)
                          <progress max={Math.max(a.cards_total, 1)} value={a.cards_learned} />
                        </label>
                      )}
                    </li>
                  ))}
                </ul>
              )}
            </section>
            <section aria-labelledby="own-decks-title">
              <h2 id="own-decks-title">Your own decks</h2>
              <StartedDecks decks={p.started_decks} detail />
            </section>
            <section aria-labelledby="achievements-title">
              <h2 id="achievements-title">Achievements</h2>
              {p.achievements.length === 0 ? (
                <Empty>No achievements yet: they come with your first reviews and streaks.</Empty>
              ) : (
                <ul className="chips">
                  {p.achievements.map((a) => (
                    <li key={a.code}>
                      {achievementName(a.code)} <span className="muted">{date.format(new Date(a.earned_at))}</span>
                    </li>
                  ))}
                </ul>
              )}
            </section>
            <section aria-labelledby="feed-title">
              <h2 id="feed-title">Recent activity</h2>
              {p.feed.length === 0 ? (
                <Empty>Nothing yet.</Empty>
              ) : (
                <ul className="feed">
                  {p.feed.map((f, i) => (
                    <li key={`${f.at}-${i}`}>
                      {f.message} <span className="muted">{dateTime.format(new Date(f.at))}</span>
                    </li>
                  ))}
                </ul>
              )}
            </section>
          </>
        )}
      </QueryState>
    </section>
  );
}
