import { useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { useApi } from "../../api/ApiContext";
import { unwrap } from "../../api/client";
import { idempotent, useWrite } from "../../api/mutation";
import { classQueries } from "../../api/queries";
import type { components } from "../../api/schema";
import { useCharacterLimit } from "../../components/CharacterLimit";
import { ProblemAlert } from "../../components/ProblemAlert";

type Class = components["schemas"]["Class"];
type Member = components["schemas"]["ClassMember"];

/** Invalidates what a chore on class classId changes: the class list and the class's progress grid. */
function useInvalidateClass(classId: string) {
  const qc = useQueryClient();
  return () => {
    void qc.invalidateQueries({ queryKey: classQueries.all });
    void qc.invalidateQueries({ queryKey: classQueries.progressOf(classId) });
  };
}

/**
 * A class's own chores (UpdateClass, NewJoinCode): rename it, put it in the archive (once confirmed) or
 * take it out, and give it a new join code (once confirmed), which stops the old one at once. An archived class keeps its learners, their
 * assignments and its progress; it takes no new learners or decks.
 */
export function ClassSettings({ c }: { c: Class }) {
  const api = useApi();
  const id = useId();
  const invalidate = useInvalidateClass(c.id);
  const [name, setName] = useState(c.name);
  const nameLimit = useCharacterLimit({ value: name, onChange: setName, limit: 200 });
  const [confirmCode, setConfirmCode] = useState(false);
  const [confirmArchive, setConfirmArchive] = useState(false);
  const update = useWrite({
    mutationFn: async (v: { key: string; name?: string; archived?: boolean }) =>
      unwrap(
        await api.POST("/UpdateClass", {
          params: idempotent(v.key),
          body: { class_id: c.id, ...(v.name !== undefined && { name: v.name }), ...(v.archived !== undefined && { archived: v.archived }) },
        }),
      ),
    onSuccess: () => {
      setConfirmArchive(false);
      invalidate();
    },
  });
  const newCode = useWrite({
    mutationFn: async (v: { key: string }) => unwrap(await api.POST("/NewJoinCode", { params: idempotent(v.key), body: { class_id: c.id } })),
    onSuccess: () => {
      setConfirmCode(false);
      invalidate();
    },
  });
  const rename = (e: FormEvent) => {
    e.preventDefault();
    if (name.trim() !== "" && name.trim() !== c.name) update.submit({ name: name.trim() });
  };
  const archived = c.archived_at !== null;
  return (
    <details className="class-settings">
      <summary>Class settings</summary>
      {update.isError && <ProblemAlert error={update.error} context="The class was not changed" fields={{ name: "Name of this class" }} />}
      {newCode.isError && <ProblemAlert error={newCode.error} context="The join code was not changed" />}
      {newCode.isSuccess && (
        <p role="status" className="ok-note">
          New join code {newCode.data.join_code}: the old one no longer works. Send the new one to learners who have not joined yet.
        </p>
      )}
      <form onSubmit={rename} aria-labelledby={`${id}-rename`} {...update.editing}>
        <h3 id={`${id}-rename`}>Rename</h3>
        <label htmlFor={`${id}-name`}>Name of this class</label>
        <div className="row-input">
          <input id={`${id}-name`} required autoComplete="off" {...nameLimit.field} />
          <button type="submit" disabled={update.isPending || name.trim() === "" || name.trim() === c.name}>
            Rename
          </button>
        </div>
        {nameLimit.note}
      </form>
      <h3>Join code</h3>
      {archived ? (
        <p className="muted">An archived class takes no new learners, so it has no join code to renew.</p>
      ) : confirmCode ? (
        <div className="confirm" role="group" aria-label="Confirm a new join code">
          <p>The code {c.join_code ?? ""} stops working at once; learners already in the class stay. Give the class a new code?</p>
          <div className="actions">
            <button type="button" className="primary" disabled={newCode.isPending} onClick={() => newCode.submit({})}>
              Give a new code
            </button>
            <button type="button" onClick={() => setConfirmCode(false)}>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <button type="button" onClick={() => setConfirmCode(true)}>
          New join code…
        </button>
      )}
      <h3>Archive</h3>
      <p className="muted">
        {archived
          ? "Archived: its learners keep studying their assignments and you keep its progress, but nobody can join and no deck can be assigned."
          : "Archive a class at the end of a term: its learners keep their assignments and progress; nobody can join and no deck can be assigned."}
      </p>
      {archived ? (
        <button type="button" disabled={update.isPending} onClick={() => update.submit({ archived: false })}>
          Take out of the archive
        </button>
      ) : confirmArchive ? (
        <div className="confirm" role="group" aria-label="Confirm archiving">
          <p>
            Archive {c.name}? Nobody can join it and no deck can be assigned to it; its learners keep studying their assignments and you
            keep its progress. You can take it out of the archive later.
          </p>
          <div className="actions">
            <button type="button" className="primary" disabled={update.isPending} onClick={() => update.submit({ archived: true })}>
              Archive
            </button>
            <button type="button" onClick={() => setConfirmArchive(false)}>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <button type="button" onClick={() => setConfirmArchive(true)}>
          Archive this class…
        </button>
      )}
    </details>
  );
}

/**
 * A member's chores (SetLearnerName, RemoveLearner): the name the class shows for them (the account's own
 * stays), and taking them out of the class, which deletes the class's assignments to them and their
 * progress while the learner keeps their cards and review history.
 */
export function MemberActions({ c, m }: { c: Class; m: Member }) {
  const api = useApi();
  const id = useId();
  const invalidate = useInvalidateClass(c.id);
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [name, setName] = useState(m.display_name);
  const nameLimit = useCharacterLimit({ value: name, onChange: setName, limit: 200 });
  const setLearnerName = useWrite({
    mutationFn: async (v: { key: string; name: string }) =>
      unwrap(
        await api.POST("/SetLearnerName", {
          params: idempotent(v.key),
          body: { class_id: c.id, learner_id: m.learner_id, ...(v.name !== "" && { display_name: v.name }) },
        }),
      ),
    onSuccess: () => {
      setEditing(false);
      invalidate();
    },
  });
  const remove = useWrite({
    mutationFn: async (v: { key: string }) =>
      unwrap(await api.POST("/RemoveLearner", { params: idempotent(v.key), body: { class_id: c.id, learner_id: m.learner_id } })),
    onSuccess: invalidate,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setLearnerName.submit({ name: name.trim() });
  };
  return (
    <>
      {m.display_name !== m.account_name && <span className="muted small"> (account: {m.account_name})</span>}{" "}
      {editing ? (
        <form onSubmit={submit} className="inline-form" aria-label={`Rename ${m.display_name}`} {...setLearnerName.editing}>
          {setLearnerName.isError && (
            <ProblemAlert error={setLearnerName.error} context="The name was not changed" fields={{ display_name: "Name in this class" }} />
          )}
          <label htmlFor={`${id}-name`}>Name in this class (empty: {m.account_name})</label>
          <input id={`${id}-name`} autoComplete="off" {...nameLimit.field} />
          <button type="submit" className="primary" disabled={setLearnerName.isPending}>
            Save name
          </button>
          <button type="button" onClick={() => setEditing(false)}>
            Cancel
          </button>
          {nameLimit.note}
        </form>
      ) : (
        <button type="button" className="link" aria-label={`Rename ${m.display_name}`} onClick={() => setEditing(true)}>
          Rename
        </button>
      )}{" "}
      {confirming ? (
        // A block, not an inline span: an inline box's border and padding wrap with its lines and overlap the text on a phone.
        <div className="confirm" role="group" aria-label={`Confirm removing ${m.display_name}`}>
          {remove.isError && <ProblemAlert error={remove.error} context={`${m.display_name} was not removed`} />}
          <p>
            Remove {m.display_name} from {c.name}? The class's assignments to them and their progress go; their cards and review history
            stay theirs.
          </p>
          <div className="actions">
            <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.submit({})}>
              Remove
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <button type="button" className="link" aria-label={`Remove ${m.display_name}`} onClick={() => setConfirming(true)}>
          Remove…
        </button>
      )}
    </>
  );
}
