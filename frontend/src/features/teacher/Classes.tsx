import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { Link } from "react-router";
import { useApi } from "../../api/ApiContext";
import { serverNow, toServerTime } from "../../api/clock";
import { unwrap } from "../../api/client";
import { idempotent, useWrite } from "../../api/mutation";
import { classQueries, deckQueries } from "../../api/queries";
import type { components } from "../../api/schema";
import { useMe } from "../../auth/me";
import { deckGroups, levelName } from "../../components/decks";
import { byName } from "../../components/names";
import { useCharacterLimit } from "../../components/CharacterLimit";
import { ProblemAlert } from "../../components/ProblemAlert";
import { Empty, QueryState } from "../../components/States";
import { dueTime, locale } from "../../components/when";
import { assignToClass, dayAfter, endOfDay, type AssignOutcome } from "./assign";
import { ClassSettings, MemberActions } from "./ClassChores";
import { CreateClass } from "./CreateClass";
import { NewCardsPerDay } from "./NewCardsPerDay";

type Class = components["schemas"]["Class"];
type Deck = components["schemas"]["Deck"];

const date = new Intl.DateTimeFormat(locale, { dateStyle: "medium" });

/**
 * A teacher's classes: each with its join code, members and decks (with due dates), a form to add
 * a learner by email, a form to assign a deck to its learners with a due date, and a link to its
 * progress grid; and a form to create a class (a signed-in user without an
 * account becomes a teacher this way).
 */
export function Classes() {
  const api = useApi();
  const classes = useQuery(classQueries.list(api));
  return (
    <section aria-labelledby="classes-title">
      <h1 id="classes-title">Classes</h1>
      <p className="muted">
        Learners join a class with its join code (on their Today screen), or you add them by email. A deck you assign goes to every learner in
        the class; learners who join later get the class's decks that are not yet due.
      </p>
      <QueryState query={classes} what="your classes">
        {(list) =>
          list.length === 0 ? (
            <Empty>No classes yet: create your first one below and share its join code with your learners.</Empty>
          ) : (
            <ul className="classes">
              {list.map((c) => (
                <ClassCard key={c.id} c={c} readAt={toServerTime(classes.dataUpdatedAt).getTime()} />
              ))}
            </ul>
          )
        }
      </QueryState>
      <CreateClass />
    </section>
  );
}

/**
 * A class with its forms. readAt is when the class list was read, on the
 * server's clock (toServerTime of dataUpdatedAt, epoch ms): a deck is
 * shown as past due, and may be assigned again, when its due date had
 * passed then.
 */
function ClassCard({ c, readAt }: { c: Class; readAt: number }) {
  const id = useId();
  return (
    <li className="class-card" aria-labelledby={`${id}-name`}>
      <div className="row">
        <h2 id={`${id}-name`}>
          {c.name}
          {c.archived_at !== null && <span className="badge warn">archived</span>}
        </h2>
        <Link to={`/teacher/classes/${c.id}`} aria-label={`Progress of ${c.name}`}>
          Progress
        </Link>
      </div>
      <p>
        Join code:{" "}
        {c.join_code ? (
          <code className="join-code" data-testid="join-code">
            {c.join_code}
          </code>
        ) : (
          <span className="muted">none (this class was made before join codes)</span>
        )}
      </p>
      <h3>
        {c.members.length} {c.members.length === 1 ? "learner" : "learners"}
      </h3>
      {c.members.length === 0 ? (
        <p className="muted">Nobody has joined yet.</p>
      ) : (
        <ul className="members">
          {[...c.members]
            .sort((a, b) => byName(a.display_name, b.display_name))
            .map((m) => (
              <li key={m.learner_id}>
                {m.display_name} <span className="muted small">{m.email} · joined {date.format(new Date(m.joined_at))}</span>
                <MemberActions c={c} m={m} />
              </li>
            ))}
        </ul>
      )}
      <ClassDecks c={c} readAt={readAt} />
      {c.archived_at === null ? (
        <>
          <AddLearner c={c} />
          <AssignDeck c={c} readAt={readAt} />
          <NewCardsPerDay c={c} />
        </>
      ) : (
        <p className="muted">This class is archived: nobody can join it and no deck can be assigned. Take it out of the archive in its settings.</p>
      )}
      <ClassSettings c={c} />
    </li>
  );
}

/**
 * The decks assigned to the class (learners who join before a deck is due
 * get it), each with its due time, zone named, in the teacher's zone (Me).
 */
function ClassDecks({ c, readAt }: { c: Class; readAt: number }) {
  const zone = useMe().data?.timezone;
  return (
    <>
      <h3>
        {c.decks.length} {c.decks.length === 1 ? "deck" : "decks"}
      </h3>
      {c.decks.length === 0 ? (
        <p className="muted">No decks assigned yet.</p>
      ) : (
        <ul className="members" aria-label={`Decks of ${c.name}`}>
          {c.decks.map((d) => (
            <li key={d.deck_id}>
              {d.deck_title}{" "}
              <span className="muted small">
                {Date.parse(d.due_at) <= readAt ? "was due" : "due"} {dueTime(d.due_at, zone)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/**
 * What the deck picker adds to a deck the class has (its due time in
 * timeZone, named): assigning it again changes nothing until it is due,
 * then renews it.
 */
function hasDeck(c: Class, deckId: string, now: number, timeZone: string | undefined): { note: string; disabled: boolean } | undefined {
  const d = c.decks.find((x) => x.deck_id === deckId);
  if (!d) return undefined;
  const day = dueTime(d.due_at, timeZone);
  return Date.parse(d.due_at) > now
    ? { note: ` · assigned, due ${day}`, disabled: true }
    : { note: ` · was due ${day}: assign again to renew`, disabled: false };
}

/**
 * Adds a learner to the class by email (EnrollLearner): a new email gets a
 * learner account (named as given, or by the email's local part), who
 * signs in with that email; an email of an account outside the teacher's
 * classes is invited instead (emailed the join code; nothing is shared
 * until they join).
 */
function AddLearner({ c }: { c: Class }) {
  const api = useApi();
  const qc = useQueryClient();
  const id = useId();
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const emailLimit = useCharacterLimit({ value: email, onChange: setEmail, limit: 254 });
  const nameLimit = useCharacterLimit({ value: name, onChange: setName, limit: 200 });
  const add = useWrite({
    mutationFn: async (v: { key: string; email: string; name: string }) =>
      unwrap(
        await api.POST("/EnrollLearner", {
          params: idempotent(v.key),
          body: { class_id: c.id, email: v.email, ...(v.name && { display_name: v.name }) },
        }),
      ),
    onSuccess: () => {
      setEmail("");
      setName("");
      void qc.invalidateQueries({ queryKey: classQueries.all });
      void qc.invalidateQueries({ queryKey: classQueries.progressOf(c.id) });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.submit({ email: email.trim(), name: name.trim() });
  };
  return (
    <form onSubmit={submit} className="assign" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Add a learner to {c.name}</h3>
      {add.isError && (
        <ProblemAlert
          error={add.error}
          context={`${add.variables?.email ?? "The learner"} was not added`}
          fields={{ email: "Learner's email", display_name: "Learner's name" }}
        />
      )}
      {add.isSuccess && (
        <p role="status" className="ok-note">
          {"assignments" in add.data
            ? `${add.variables.email} added to ${add.data.class_name}: they sign in with that email.`
            : `${add.data.email} already has a Lexora account, so they are invited: they join with this class's code, which Lexora emails them.`}
        </p>
      )}
      <label htmlFor={`${id}-email`}>Learner's email</label>
      <input
        id={`${id}-email`}
        type="email"
        required
        autoComplete="off"
        {...emailLimit.field}
      />
      {emailLimit.note}
      <label htmlFor={`${id}-name`}>Learner's name (if they are new to Lexora)</label>
      <div className="row-input">
        <input id={`${id}-name`} autoComplete="off" {...nameLimit.field} />
        <button type="submit" disabled={add.isPending}>
          {add.isPending ? "Adding…" : "Add learner"}
        </button>
      </div>
      {nameLimit.note}
    </form>
  );
}

function AssignDeck({ c, readAt }: { c: Class; readAt: number }) {
  const api = useApi();
  const qc = useQueryClient();
  const id = useId();
  const decks = useQuery(deckQueries.list(api));
  const [deckId, setDeckId] = useState("");
  const me = useMe();
  // Calendar days in the teacher's zone, as endOfDay reads them; the
  // default (a week on) until the teacher picks one.
  const zone = me.data?.timezone;
  const [picked, setDue] = useState<string | null>(null);
  const due = picked ?? dayAfter(serverNow(), 7, zone);
  // One intent, one request: the server assigns to every learner of the
  // class in one transaction, and a retry keeps the intent's key.
  const assign = useWrite({
    mutationFn: (v: { deckId: string; dueAt: string; key: string }) =>
      assignToClass(
        api,
        { classId: c.id, ...v },
        new Map(c.members.map((m) => [m.learner_id, m.display_name])),
      ),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: classQueries.all });
      void qc.invalidateQueries({ queryKey: classQueries.progressOf(c.id) });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    assign.submit({ deckId, dueAt: endOfDay(due, zone) });
  };
  const deck = decks.data?.find((d) => d.id === assign.variables?.deckId);
  return (
    <form onSubmit={submit} className="assign" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Assign a deck to {c.name}</h3>
      {assign.isError && <ProblemAlert error={assign.error} context="Not assigned" />}
      {assign.isSuccess && <Outcome outcome={assign.data} deck={deck?.title ?? "The deck"} zone={zone} />}
      <>
        {c.members.length === 0 && (
          <p className="muted">Nobody has joined yet: learners who join before the due date get the class's decks.</p>
        )}
        <QueryState query={decks} what="the library">
          {(list) => (
            <>
              <label htmlFor={`${id}-deck`}>Deck</label>
              <select id={`${id}-deck`} required value={deckId} onChange={(e) => setDeckId(e.target.value)}>
                <option value="">Choose a deck…</option>
                {deckGroups(list).map((g) => (
                  <optgroup key={g.label} label={g.label}>
                    {g.decks.map((d) => {
                      const has = hasDeck(c, d.id, readAt, zone);
                      return (
                        <option key={d.id} value={d.id} disabled={has?.disabled}>
                          {d.title} ({d.words} words){has?.note}
                        </option>
                      );
                    })}
                  </optgroup>
                ))}
              </select>
              <DeckDetail deck={list.find((d) => d.id === deckId)} />
              <label htmlFor={`${id}-due`}>Due by the end of</label>
              <input
                id={`${id}-due`}
                type="date"
                required
                min={dayAfter(serverNow(), 0, zone)}
                max={dayAfter(serverNow(), 365, zone)}
                value={due}
                onChange={(e) => setDue(e.target.value)}
              />
              <button type="submit" className="primary" disabled={assign.isPending || me.isLoading}>
                {assign.isPending
                  ? "Assigning…"
                  : c.members.length === 0
                    ? "Assign to the class"
                    : `Assign to ${c.members.length} ${c.members.length === 1 ? "learner" : "learners"}`}
              </button>
            </>
          )}
        </QueryState>
      </>
    </form>
  );
}

/** The chosen deck's level, size and description, under the select (which shows only its title), and a link to its words. */
function DeckDetail({ deck }: { deck: Deck | undefined }) {
  if (!deck) return null;
  const level = deck.level === null ? "your own deck" : (levelName[deck.level] ?? `Level ${deck.level}`);
  return (
    <p className="muted small" data-testid="deck-detail">
      {level} · {deck.words} words{deck.description && ` · ${deck.description}`} ·{" "}
      <Link to={`/teacher/decks/${deck.id}`}>See the words of {deck.title}</Link>
    </p>
  );
}

/** What assigning did, with the due time in zone (the teacher's), named. */
function Outcome({ outcome, deck, zone }: { outcome: AssignOutcome; deck: string; zone: string | undefined }) {
  const names = (list: string[]) => [...list].sort(byName).join(", ");
  const due = dueTime(outcome.dueAt, zone);
  return (
    <p role="status" className="ok-note">
      {outcome.assigned.length === 0 && outcome.toClass && `${deck} assigned to the class, due ${due}: learners who join get it.`}
      {outcome.assigned.length === 0 &&
        !outcome.toClass &&
        `The class already has ${deck}, due ${due}: that due date stays (it changes once it has passed).`}
      {outcome.assigned.length > 0 && `${deck} assigned to ${names(outcome.assigned)}, due ${due}.`}
      {outcome.already.length > 0 && ` ${names(outcome.already)} already had it.`}
    </p>
  );
}
