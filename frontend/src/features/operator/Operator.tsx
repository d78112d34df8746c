import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { useApi } from "../../api/ApiContext";
import { unwrap } from "../../api/client";
import { idempotent, useWrite } from "../../api/mutation";
import { outboxQueries } from "../../api/queries";
import type { components } from "../../api/schema";
import { BarChartWithTable } from "../../components/BarChartWithTable";
import { useCharacterLimit } from "../../components/CharacterLimit";
import { DataTable, type Column } from "../../components/DataTable";
import { ProblemAlert } from "../../components/ProblemAlert";
import { Empty, QueryState } from "../../components/States";
import { locale } from "../../components/when";

type Health = components["schemas"]["OutboxHealth"];
type DeadDelivery = components["schemas"]["DeadDelivery"];
type Backlog = components["schemas"]["TopicBacklog"];

const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: "short", timeStyle: "medium" });

/** "4 min 2 s" for an age in seconds. */
export function age(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** Deliveries per minute, oldest first, labelled by minutes ago ("-59" to "now"). */
export function ratePoints(perMinute: number[]) {
  return perMinute.map((n, i) => ({ label: i === perMinute.length - 1 ? "now" : `-${perMinute.length - 1 - i}`, value: n }));
}

/** The on-call engineer's view: outbox health and dead letters with replay and skip. */
export function Operator() {
  const api = useApi();
  const health = useQuery({ ...outboxQueries.health(api), refetchInterval: 5000 });
  return (
    <section aria-labelledby="operator-title">
      <h1 id="operator-title">Outbox</h1>
      <QueryState query={health} what="the outbox's health">
        {(h) => <HealthView h={h} />}
      </QueryState>
      <DeadLetters />
    </section>
  );
}

const backlogColumns: Column<Backlog>[] = [
  { header: "Subscriber", cell: (b) => b.subscriber },
  { header: "Topic", cell: (b) => b.topic },
  { header: "Pending", cell: (b) => b.pending },
  { header: "Due now", cell: (b) => b.due },
  { header: "Oldest due", cell: (b) => age(b.oldest_age_seconds) },
];

function HealthView({ h }: { h: Health }) {
  const dead = h.dead.reduce((n, d) => n + d.count, 0);
  return (
    <>
      <p>
        <strong>{dead}</strong> dead {dead === 1 ? "delivery" : "deliveries"} · <strong>{h.blocked_keys}</strong> ordered{" "}
        {h.blocked_keys === 1 ? "key" : "keys"} held back by a dead head
      </p>
      <h2>Backlog by subscriber</h2>
      {h.backlog.length === 0 ? (
        <Empty>Nothing waiting: every event has been delivered.</Empty>
      ) : (
        <DataTable
          label="Backlog by subscriber"
          rows={h.backlog}
          rowKey={(b) => `${b.subscriber} ${b.topic}`}
          columns={backlogColumns}
        />
      )}
      <BarChartWithTable
        title="Deliveries per minute, last hour"
        data={ratePoints(h.delivered_per_minute)}
        labelName="Minutes ago"
        valueName="Deliveries"
        height={180}
      />
    </>
  );
}

type Action = "replay" | "skip";

function DeadLetters() {
  const api = useApi();
  const qc = useQueryClient();
  const dead = useQuery(outboxQueries.deadLetters(api, 100));
  const [selected, setSelected] = useState<number[]>([]);
  const [action, setAction] = useState<Action | null>(null);
  const [result, setResult] = useState<string | null>(null);
  return (
    <section aria-labelledby="dead-title">
      <h2 id="dead-title">Dead letters</h2>
      {result && (
        <p role="status" className="ok-note">
          {result}
        </p>
      )}
      <QueryState query={dead} what="dead letters">
        {(list) =>
          list.length === 0 ? (
            <Empty>No dead letters.</Empty>
          ) : (
            <>
              <DeadTable list={list} selected={selected} onSelect={setSelected} />
              {action ? (
                <Confirm
                  action={action}
                  ids={selected}
                  onCancel={() => setAction(null)}
                  onDone={(n) => {
                    setResult(`${n} ${n === 1 ? "delivery" : "deliveries"} ${action === "replay" ? "replayed" : "skipped"}.`);
                    setAction(null);
                    setSelected([]);
                    void qc.invalidateQueries({ queryKey: outboxQueries.all });
                  }}
                />
              ) : (
                <div className="actions">
                  <button type="button" disabled={selected.length === 0} onClick={() => setAction("replay")}>
                    Replay selected…
                  </button>
                  <button type="button" className="danger" disabled={selected.length === 0} onClick={() => setAction("skip")}>
                    Skip selected…
                  </button>
                </div>
              )}
            </>
          )
        }
      </QueryState>
      <button type="button" onClick={() => void dead.refetch()}>
        Refresh dead letters
      </button>
    </section>
  );
}

function DeadTable({
  list,
  selected,
  onSelect,
}: {
  list: DeadDelivery[];
  selected: number[];
  onSelect: (ids: number[]) => void;
}) {
  const toggle = (id: number, on: boolean) => onSelect(on ? [...selected, id] : selected.filter((x) => x !== id));
  const all = list.length > 0 && list.every((d) => selected.includes(d.id));
  const some = !all && list.some((d) => selected.includes(d.id));
  const columns: Column<DeadDelivery>[] = [
    {
      header: (
        <input
          type="checkbox"
          aria-label={`Select all ${list.length} dead ${list.length === 1 ? "delivery" : "deliveries"} listed`}
          checked={all}
          ref={(el) => {
            if (el) el.indeterminate = some;
          }}
          onChange={(e) => onSelect(e.target.checked ? list.map((d) => d.id) : [])}
        />
      ),
      cell: (d) => (
        <input
          type="checkbox"
          aria-label={`Select delivery ${d.id} (${d.subscriber}, ${d.topic})`}
          checked={selected.includes(d.id)}
          onChange={(e) => toggle(d.id, e.target.checked)}
        />
      ),
    },
    { header: "Subscriber", cell: (d) => d.subscriber },
    { header: "Topic", cell: (d) => d.topic },
    { header: "Endpoint", cell: (d) => <Endpoints d={d} /> },
    { header: "Attempts", cell: (d) => d.attempts },
    {
      header: "Last error",
      className: "error-text",
      cell: (d) => (
        <>
          {d.last_error}
          {d.blocking > 0 && <span className="badge warn">holds back {d.blocking}</span>}
        </>
      ),
    },
    { header: "Dead since", cell: (d) => dateTime.format(new Date(d.dead_at)) },
  ];
  return (
    <DataTable
      label="Dead letters"
      caption="Most recent first; select deliveries to replay or skip."
      captionClassName="muted"
      rows={list}
      rowKey={(d) => d.id}
      columns={columns}
    />
  );
}

/** The webhook endpoints a dead delivery's error names: URL and teacher; "—" for another subscriber's. */
function Endpoints({ d }: { d: DeadDelivery }) {
  if (d.endpoints.length === 0) return <span className="muted">—</span>;
  return (
    <ul className="plain">
      {d.endpoints.map((e) => (
        <li key={e.id}>
          <code className="url">{e.url}</code>{" "}
          <span className="muted small">
            {e.teacher_name} ({e.teacher_email})
          </span>
        </li>
      ))}
    </ul>
  );
}

/**
 * The confirmation of a replay or skip: what will happen, and the reason
 * recorded in the audit table: required, one line (the functions refuse a
 * blank reason or a line break). The focus moves to the reason when it
 * opens. One Idempotency-Key per intent (useWrite), so a retried
 * confirmation is applied once.
 */
function Confirm({
  action,
  ids,
  onCancel,
  onDone,
}: {
  action: Action;
  ids: number[];
  onCancel: () => void;
  onDone: (n: number) => void;
}) {
  const api = useApi();
  const id = useId();
  const [reason, setReason] = useState("");
  const [blank, setBlank] = useState(false);
  const reasonInput = useRef<HTMLInputElement>(null);
  const reasonLimit = useCharacterLimit({ value: reason, onChange: setReason, limit: 1000, describedBy: blank ? `${id}-blank` : undefined });
  useEffect(() => reasonInput.current?.focus(), []);
  const apply = useWrite({
    mutationFn: async (v: { key: string; ids: number[]; reason: string }) => {
      const params = idempotent(v.key);
      const body = { ids: v.ids, reason: v.reason };
      return action === "replay"
        ? unwrap(await api.POST("/ReplayDeadLetters", { params, body })).replayed
        : unwrap(await api.POST("/SkipDeadLetters", { params, body })).skipped;
    },
    onSuccess: onDone,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setBlank(reason.trim() === "");
    if (reason.trim() !== "") apply.submit({ ids, reason: reason.trim() });
  };
  const n = ids.length;
  const what = `${n} dead ${n === 1 ? "delivery" : "deliveries"}`;
  return (
    <form onSubmit={submit} {...apply.editing} className="confirm" role="group" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{action === "replay" ? `Replay ${what}?` : `Skip ${what}?`}</h3>
      <p>
        {action === "replay"
          ? n === 1
            ? "It becomes pending again with a fresh attempt budget, and the next drain delivers it."
            : "They become pending again with a fresh attempt budget, and the next drain delivers them."
          : n === 1
            ? "It is marked resolved without being delivered: the subscriber never sees this event."
            : "They are marked resolved without being delivered: the subscriber never sees these events."}
      </p>
      {apply.isError && <ProblemAlert error={apply.error} context="Nothing was changed" />}
      <label htmlFor={`${id}-reason`}>Reason (recorded in the audit log)</label>
      <input
        id={`${id}-reason`}
        ref={reasonInput}
        required
        autoComplete="off"
        aria-invalid={blank}
        {...reasonLimit.field}
      />
      {reasonLimit.note}
      {blank && (
        <p id={`${id}-blank`} className="field-error">
          Give a reason: it is recorded in the audit log.
        </p>
      )}
      <div className="actions">
        <button type="submit" className={action === "skip" ? "danger" : "primary"} disabled={apply.isPending}>
          {action === "replay" ? "Confirm replay" : "Confirm skip"}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
