import { useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { useApi } from "../../api/ApiContext";
import { unwrap } from "../../api/client";
import { idempotent, useWrite } from "../../api/mutation";
import { classQueries, meQueries } from "../../api/queries";
import { useCharacterLimit } from "../../components/CharacterLimit";
import { NameField } from "../../components/NameField";
import { ProblemAlert } from "../../components/ProblemAlert";

/**
 * Creates a class (CreateClass). For a newcomer (an identity without an
 * account) it is their first class, which makes them a teacher: the form
 * then also asks their name, and sends their browser's time zone.
 */
export function CreateClass({ newcomer = false, onCreated }: { newcomer?: boolean; onCreated?: () => void }) {
  const api = useApi();
  const qc = useQueryClient();
  const id = useId();
  const [name, setName] = useState("");
  const nameLimit = useCharacterLimit({ value: name, onChange: setName, limit: 200 });
  const [displayName, setDisplayName] = useState("");
  const create = useWrite({
    mutationFn: async (v: { key: string; name: string; displayName: string }) =>
      unwrap(
        await api.POST("/CreateClass", {
          params: idempotent(v.key),
          body: {
            name: v.name,
            timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
            ...(v.displayName && { display_name: v.displayName }),
          },
        }),
      ),
    onSuccess: async () => {
      setName("");
      void qc.invalidateQueries({ queryKey: classQueries.all });
      // A newcomer is a teacher now: Me says so before the screens change.
      if (newcomer) await qc.invalidateQueries({ queryKey: meQueries.all });
      onCreated?.();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.submit({ name: name.trim(), displayName: displayName.trim() });
  };
  return (
    <form onSubmit={submit} {...create.editing} className="card-form" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{newcomer ? "Create your first class" : "Create a class"}</h2>
      {create.isError && (
        <ProblemAlert error={create.error} context="No class created" fields={{ name: "Class name", display_name: "Your name" }} />
      )}
      {create.isSuccess && (
        <p role="status" className="ok-note">
          {create.data.name} created; its join code is <code>{create.data.join_code}</code>.
        </p>
      )}
      {newcomer && <NameField id={id} label="Your name, as your learners will see it" value={displayName} onChange={setDisplayName} />}
      <label htmlFor={`${id}-name`}>Class name</label>
      <div className="row-input">
        <input
          id={`${id}-name`}
          required
          placeholder="Year 9 English, Tuesday group"
          {...nameLimit.field}
        />
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? "Creating…" : "Create class"}
        </button>
      </div>
      {nameLimit.note}
    </form>
  );
}
