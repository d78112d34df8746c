import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { useApi } from "../../api/ApiContext";
import { toServerTime } from "../../api/clock";
import { classQueries } from "../../api/queries";
import type { components } from "../../api/schema";
import { DataTable, type Column } from "../../components/DataTable";
import { DownloadButton } from "../../components/Download";
import { byName } from "../../components/names";
import { Empty, QueryState } from "../../components/States";
import { useMe } from "../../auth/me";
import { dueTime, locale, zonePlace } from "../../components/when";
import { DeckRetention } from "./DeckRetention";

type Grid = components["schemas"]["ClassProgress"];
type Row = components["schemas"]["ClassProgressRow"];
type Cell = components["schemas"]["ClassProgressCell"];
type HardWord = components["schemas"]["HardWord"];

const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "medium" });
const date = new Intl.DateTimeFormat(locale, { dateStyle: "medium" });
const studyDay = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" });

/** How often the grid is read again while it is open (ms). */
export const refreshEvery = 5000;

/** The grid's columns: each deck assigned to the class or to anyone in it, earliest due first (then by title). */
export function deckColumns(g: Grid): { deckId: string; title: string; due: string }[] {
  const cols = new Map<string, { deckId: string; title: string; due: string }>();
  for (const d of g.decks) cols.set(d.deck_id, { deckId: d.deck_id, title: d.deck_title, due: d.due_at });
  for (const row of g.learners)
    for (const a of row.assignments) {
      const c = cols.get(a.deck_id);
      if (!c || a.due_at < c.due) cols.set(a.deck_id, { deckId: a.deck_id, title: a.deck_title, due: a.due_at });
    }
  return [...cols.values()].sort((a, b) => Date.parse(a.due) - Date.parse(b.due) || a.title.localeCompare(b.title));
}

/**
 * A class's learner × assignment grid (cards learned, due now, last
 * activity) and its hardest words. The counts are the progress projection,
 * which the drain updates a moment after each review: the screen says when
 * it last changed and reads it again every few seconds.
 */
export function ClassProgress() {
  const { classId = "" } = useParams();
  const api = useApi();
  const grid = useQuery({ ...classQueries.progress(api, classId), refetchInterval: refreshEvery });
  return (
    <section aria-labelledby="class-progress-title">
      <p>
        <Link to="/teacher/classes">← All classes</Link>
      </p>
      <h1 id="class-progress-title">{grid.data ? `${grid.data.name}: progress` : "Class progress"}</h1>
      <QueryState query={grid} what="the class's progress">
        {(g) => (
          <>
            <Freshness g={g} readAt={grid.dataUpdatedAt} />
            <p className="actions">
              <DownloadButton
                label="Export for a gradebook (CSV)"
                name={`${g.name} progress.csv`}
                read={() => api.GET("/ExportClassProgress", { params: { query: { class_id: classId } }, parseAs: "blob" })}
              />
            </p>
            <h2>Learners and assignments</h2>
            <ProgressGrid g={g} />
            <h2>Hardest words</h2>
            <HardestWords words={g.hardest_words} />
            <h2>Desired retention and workload</h2>
            {g.decks.length === 0 ? (
              <Empty>Assign a deck to the class to choose the retention it aims for.</Empty>
            ) : (
              g.decks.map((d) => <DeckRetention key={d.deck_id} classId={g.class_id} deck={d} />)
            )}
          </>
        )}
      </QueryState>
    </section>
  );
}

/**
 * When the projection last changed (progress_updated_at, the server's
 * clock) and when the grid was read: readAt is react-query's dataUpdatedAt
 * (the device's clock, epoch ms), shown on the server's clock (toServerTime)
 * so that a device an hour fast does not show the data an hour old.
 */
function Freshness({ g, readAt }: { g: Grid; readAt: number }) {
  return (
    <p className="muted" data-testid="freshness">
      Cards learned and last activity are updated asynchronously, a few seconds after each review, so they can trail
      the latest reviews; cards due are counted live. Progress last updated{" "}
      <strong>{g.progress_updated_at ? dateTime.format(new Date(g.progress_updated_at)) : "never (nothing counted yet)"}</strong>
      ; read {dateTime.format(toServerTime(readAt))}, and again every {refreshEvery / 1000} s.
    </p>
  );
}

/**
 * The grid, its due dates in the teacher's own zone (Me), as the assign
 * form on Classes writes them, so that both screens give the same day.
 */
function ProgressGrid({ g }: { g: Grid }) {
  const zone = useMe().data?.timezone;
  if (g.learners.length === 0)
    return (
      <>
        <Empty>Nobody has joined this class yet: share its join code.</Empty>
        {g.decks.length > 0 && (
          <>
            <p>Learners who join get the class's decks:</p>
            <ul data-testid="class-decks">
              {g.decks.map((d) => (
                <li key={d.deck_id}>
                  {d.deck_title} <span className="muted small">due {dueTime(d.due_at, zone)}</span>
                </li>
              ))}
            </ul>
          </>
        )}
      </>
    );
  const cols = deckColumns(g);
  if (cols.length === 0) return <Empty>No decks assigned to this class yet.</Empty>;
  const columns: Column<Row>[] = [
    { header: "Learner", rowHeader: true, cell: (row) => row.display_name },
    ...cols.map((c) => ({
      header: `${c.title} (due ${dueTime(c.due, zone)})`,
      key: c.deckId,
      cell: (row: Row) => {
        const a = row.assignments.find((x) => x.deck_id === c.deckId);
        return a ? <GridCell a={a} timezone={row.timezone} zone={zone} /> : <span className="muted">not assigned</span>;
      },
    })),
  ];
  return (
    <DataTable
      label="Progress by learner and assignment"
      className="grid"
      caption="Each learner's progress in each assigned deck"
      captionClassName="visually-hidden"
      rows={[...g.learners].sort((a, b) => byName(a.display_name, b.display_name))}
      rowKey={(row) => row.learner_id}
      columns={columns}
    />
  );
}

/**
 * One learner's assignment. Its last study day is the learner's (a day in their zone, timezone, as
 * their streaks count it), which the cell says by the zone's place, since the teacher's day may be
 * another; its due date is in the teacher's zone (zone; undefined: the browser's).
 */
function GridCell({ a, timezone, zone }: { a: Cell; timezone: string; zone?: string }) {
  const p = a.progress;
  return (
    <div className="cell">
      {p ? (
        <span>
          <strong>{p.cards_learned}</strong> of {p.cards_total} learned
        </span>
      ) : (
        <span className="muted">not counted yet</span>
      )}
      <span>{a.cards_due} due now</span>
      <span className="muted small">
        {p?.last_study_day
          ? `last studied ${studyDay.format(new Date(`${p.last_study_day}T00:00:00Z`))} (the learner's day, in ${zonePlace(timezone)})`
          : p && p.cards_seen > 0
            ? "studied before it was assigned"
            : "not started"}
      </span>
      <span className="small">
        {a.completed_at ? (
          <span className="badge ok">completed {date.format(new Date(a.completed_at))}</span>
        ) : (
          `due ${dueTime(a.due_at, zone)}`
        )}
      </span>
    </div>
  );
}

function HardestWords({ words }: { words: HardWord[] }) {
  if (words.length === 0)
    return <Empty>No lapses yet: words your learners forget after learning them appear here.</Empty>;
  return <DataTable label="Hardest words" rows={words} rowKey={(w) => w.lexeme_id} columns={hardWordColumns} />;
}

const hardWordColumns: Column<HardWord>[] = [
  { header: "Word", lang: "en", cell: (w) => w.lemma },
  { header: "Part of speech", cell: (w) => w.part_of_speech },
  { header: "Lapses", cell: (w) => w.lapses },
  { header: "Learners", cell: (w) => w.learners },
  { header: "Suspended as leeches", cell: (w) => w.leeches },
];
