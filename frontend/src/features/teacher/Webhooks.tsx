import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { useApi } from "../../api/ApiContext";
import { unwrap } from "../../api/client";
import { idempotent, useWrite } from "../../api/mutation";
import { webhookQueries } from "../../api/queries";
import type { components } from "../../api/schema";
import { useCharacterLimit } from "../../components/CharacterLimit";
import { ProblemAlert } from "../../components/ProblemAlert";
import { Empty, QueryState } from "../../components/States";
import { locale } from "../../components/when";

type Endpoint = components["schemas"]["WebhookEndpoint"];
type Health = components["schemas"]["WebhookHealth"];
type Topic = components["schemas"]["WebhookTopic"];

/** A label for each topic an endpoint may receive: a Record, so that a topic the document adds fails the type check until it has one. */
const topicLabels: Record<Topic, string> = {
  "learner.enrolled": "A learner joined a class",
  "assignment.created": "A deck was assigned",
  "assignment.completed": "A learner completed an assignment",
  "learner.removed": "A learner was removed from a class",
  "class.updated": "A class was renamed, archived or given a new join code",
  "deck.retention_changed": "A class deck's desired retention changed",
  "learner.parameters_changed": "A learner's memory model was fitted to their reviews",
  "deck.created": "A deck was created or copied",
  "deck.entries_changed": "Words of a deck were added, changed or removed",
};

export const topics = (Object.keys(topicLabels) as Topic[]).map((value) => ({ value, label: topicLabels[value] }));

/** The endpoint's state as a badge: what its deliveries say (health), not only whether it is enabled. */
function HealthBadge({ ep }: { ep: Endpoint }) {
  const state = ep.health?.state ?? (ep.disabled_at ? "disabled" : "unused");
  const badges: Record<Health["state"], { label: string; kind: string }> = {
    disabled: { label: "Disabled", kind: "warn" },
    failing: { label: "Failing", kind: "warn" },
    healthy: { label: "Active", kind: "ok" },
    unused: { label: "Nothing sent yet", kind: "" },
  };
  const b = badges[state];
  return <span className={`badge ${b.kind}`}>{b.label}</span>;
}

/** "1 delivery", "3 deliveries", "100 or more deliveries" (the count stops at 100). */
export function deliveries(n: number): string {
  return counted(n, "delivery", "deliveries");
}

/** "1 attempt", "3 attempts", "100 or more attempts" (the count stops at 100). */
export function attempts(n: number): string {
  return counted(n, "attempt", "attempts");
}

function counted(n: number, one: string, many: string): string {
  if (n >= 100) return `${n} or more ${many}`;
  return `${n} ${n === 1 ? one : many}`;
}

/** An endpoint's health: its last delivery, last error, failures in a row, and the action to take. */
function HealthView({ h }: { h: Health }) {
  return (
    <div className={`health health-${h.state}`} data-testid="health">
      <p className="small">
        Last delivery: {h.last_delivery_at ? dateTime.format(new Date(h.last_delivery_at)) : "none yet"}
        {h.last_accepted_at && ` · last accepted ${dateTime.format(new Date(h.last_accepted_at))}`}
        {h.last_error &&
          h.last_error_at &&
          ` · last error ${h.last_error}${h.last_error_retried ? " (retried)" : ""} at ${dateTime.format(new Date(h.last_error_at))}`}
        {h.failures_in_row > 0 &&
          ` · ${h.last_error_retried ? attempts(h.failures_in_row) : deliveries(h.failures_in_row)} failed in a row`}
      </p>
      {h.action && (
        <p>
          <strong>What to do:</strong> {h.action}
        </p>
      )}
    </div>
  );
}

/** A signing secret to show once, and the endpoint it is for. */
interface Secret {
  id: string;
  url: string;
  secret: string;
}

const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" });

/** A teacher's webhook endpoints: register, see the secret once, rotate, re-enable, delete. */
export function Webhooks() {
  const api = useApi();
  const endpoints = useQuery(webhookQueries.list(api));
  const [secret, setSecret] = useState<Secret | null>(null);
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      <p className="muted">
        Lexora posts signed events (Standard Webhooks) to your endpoints. Each endpoint's signing secret is shown
        once, when it is registered or rotated.
      </p>
      {secret && (
        <div className="secret" role="status">
          <p>
            Signing secret for <code>{secret.url}</code>. Copy it now: it is not shown again.
          </p>
          <p>
            <code data-testid="secret">{secret.secret}</code>{" "}
            <button type="button" onClick={() => void navigator.clipboard?.writeText(secret.secret)}>
              Copy
            </button>{" "}
            <button type="button" onClick={() => setSecret(null)}>
              Done
            </button>
          </p>
        </div>
      )}
      <Register onSecret={setSecret} />
      <h2>Your endpoints</h2>
      <QueryState query={endpoints} what="your endpoints">
        {(list) =>
          list.length === 0 ? (
            <Empty>No endpoints yet.</Empty>
          ) : (
            <ul className="endpoints">
              {list.map((ep) => (
                <EndpointRow key={ep.id} ep={ep} onSecret={setSecret} secretShown={secret?.id === ep.id} />
              ))}
            </ul>
          )
        }
      </QueryState>
    </section>
  );
}

function Register({ onSecret }: { onSecret: (s: Secret) => void }) {
  const api = useApi();
  const qc = useQueryClient();
  const id = useId();
  const [url, setUrl] = useState("");
  // RegisterWebhookEndpoint refuses a URL of more than 2,000 characters
  // (validate max=2000; pkg/webhooks.CheckURL).
  const urlLimit = useCharacterLimit({ value: url, onChange: setUrl, limit: 2000, describedBy: `${id}-url-hint` });
  const [chosen, setChosen] = useState<Topic[]>([]);
  const [noTopic, setNoTopic] = useState(false);
  const register = useWrite({
    mutationFn: async (v: { key: string; url: string; topics: Topic[] }) =>
      unwrap(
        await api.POST("/RegisterWebhookEndpoint", {
          params: idempotent(v.key),
          body: { url: v.url, topics: v.topics },
        }),
      ),
    onSuccess: (ep) => {
      onSecret({ id: ep.id, url: ep.url, secret: ep.secret ?? "" });
      setUrl("");
      void qc.invalidateQueries({ queryKey: webhookQueries.all });
    },
  });
  // An endpoint gets the events it names: none ticked is a question to
  // the teacher, not every event.
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setNoTopic(chosen.length === 0);
    if (chosen.length > 0) register.submit({ url: url.trim(), topics: chosen });
  };
  return (
    <form onSubmit={submit} {...register.editing} className="card-form" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Register an endpoint</h2>
      {register.isError && <ProblemAlert error={register.error} context="Not registered" />}
      <label htmlFor={`${id}-url`}>Endpoint URL</label>
      <p className="muted" id={`${id}-url-hint`}>
        An https:// address. A local stack (<code>make run</code>) also takes http://.
      </p>
      <input
        id={`${id}-url`}
        type="url"
        required
        placeholder="https://school.example/lexora"
        {...urlLimit.field}
      />
      {urlLimit.note}
      <fieldset aria-describedby={noTopic ? `${id}-topics-error` : undefined}>
        <legend>Events</legend>
        {topics.map((t) => (
          <label key={t.value} className="check">
            <input
              type="checkbox"
              checked={chosen.includes(t.value)}
              onChange={(e) => {
                setNoTopic(false);
                setChosen((c) => (e.target.checked ? [...c, t.value] : c.filter((x) => x !== t.value)));
              }}
            />
            {t.label} <code>{t.value}</code>
          </label>
        ))}
        {noTopic && (
          <p id={`${id}-topics-error`} role="alert" className="field-error">
            Choose at least one event to send to this endpoint.
          </p>
        )}
      </fieldset>
      <button type="submit" className="primary" disabled={register.isPending}>
        {register.isPending ? "Registering…" : "Register"}
      </button>
    </form>
  );
}

/**
 * An endpoint with its actions. Rotate waits while the secret it made is
 * still shown (secretShown): rotating again then would end the secret
 * before it (still signing for the overlap) at once.
 */
function EndpointRow({ ep, onSecret, secretShown }: { ep: Endpoint; onSecret: (s: Secret) => void; secretShown: boolean }) {
  const api = useApi();
  const qc = useQueryClient();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const cancelDelete = useRef<HTMLButtonElement>(null);
  // The confirmation replaces the Delete button: the focus goes to its safe choice.
  useEffect(() => {
    if (confirmDelete) cancelDelete.current?.focus();
  }, [confirmDelete]);
  const [revoke, setRevoke] = useState(false);
  const done = () => void qc.invalidateQueries({ queryKey: webhookQueries.all });
  const rotate = useWrite({
    mutationFn: async (v: { key: string; revoke: boolean }) =>
      unwrap(await api.POST("/RotateWebhookSecret", { params: idempotent(v.key), body: { id: ep.id, revoke_previous: v.revoke } })),
    onSuccess: (r) => {
      onSecret({ id: r.id, url: r.url, secret: r.secret ?? "" });
      done();
    },
  });
  const enable = useWrite({
    mutationFn: async ({ key }: { key: string }) =>
      unwrap(await api.POST("/EnableWebhookEndpoint", { params: idempotent(key), body: { id: ep.id } })),
    onSuccess: done,
  });
  const remove = useWrite({
    mutationFn: async ({ key }: { key: string }) =>
      unwrap(await api.POST("/DeleteWebhookEndpoint", { params: idempotent(key), body: { id: ep.id } })),
    onSuccess: done,
  });
  const failed = rotate.error ?? enable.error ?? remove.error;
  return (
    <li className="endpoint">
      <p>
        <code className="url">{ep.url}</code> <HealthBadge ep={ep} />
      </p>
      {ep.health && <HealthView h={ep.health} />}
      <p className="muted">
        {ep.topics.length === 0 ? "all events" : ep.topics.join(", ")} · registered {dateTime.format(new Date(ep.created_at))}
        {ep.previous_secret_expires_at &&
          ` · the previous secret also signs until ${dateTime.format(new Date(ep.previous_secret_expires_at))}`}
      </p>
      {ep.disabled_at && (
        <p>
          Disabled {dateTime.format(new Date(ep.disabled_at))}
          {ep.disabled_reason && `: ${ep.disabled_reason}`}
        </p>
      )}
      {failed != null && <ProblemAlert error={failed} context="The endpoint was not changed" />}
      <div className="actions">
        <label className="check">
          <input type="checkbox" checked={revoke} onChange={(e) => setRevoke(e.target.checked)} />
          Stop the old secret at once
        </label>
        <button type="button" onClick={() => rotate.submit({ revoke })} disabled={rotate.isPending || secretShown}>
          Rotate secret
        </button>
        {secretShown && <span className="muted small">Copy the new secret and press Done before rotating again.</span>}
        {ep.disabled_at && (
          <button type="button" onClick={() => enable.submit({})} disabled={enable.isPending}>
            Re-enable
          </button>
        )}
        {confirmDelete ? (
          <span role="group" aria-label={`Delete ${ep.url}?`}>
            Delete this endpoint? No more events will be sent to it.{" "}
            <button type="button" className="danger" onClick={() => remove.submit({})} disabled={remove.isPending || remove.isSuccess}>
              {remove.isSuccess ? "Deleted" : remove.isPending ? "Deleting…" : "Yes, delete"}
            </button>{" "}
            <button type="button" ref={cancelDelete} onClick={() => setConfirmDelete(false)}>
              Cancel
            </button>
          </span>
        ) : (
          <button type="button" className="danger" onClick={() => setConfirmDelete(true)}>
            Delete
          </button>
        )}
      </div>
    </li>
  );
}
