import { useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { useApi } from "../../api/ApiContext";
import { unwrap } from "../../api/client";
import { idempotent, useWrite } from "../../api/mutation";
import { meQueries } from "../../api/queries";
import { useAuth } from "../../auth/AuthContext";
import { NameField } from "../../components/NameField";
import { ProblemAlert } from "../../components/ProblemAlert";

/**
 * A newcomer without a class code becomes a learner in no class
 * (CreateLearnerAccount), to study the library's decks on their own; it
 * sends their name, when given, and the browser's time zone (their study
 * day runs in it). Its answer is the new learner's Me, which it puts in
 * Me's cache; onCreated runs after the screens have seen it (Me's
 * observers are told in a task of their own, react-query's notifyManager),
 * so that the screen it opens (the Library) is shown to a learner, not sent
 * back to the welcome by the newcomer's guard.
 */
export function StudyOnMyOwn({ onCreated }: { onCreated: () => void }) {
  const api = useApi();
  const qc = useQueryClient();
  const { user } = useAuth();
  const id = useId();
  const [displayName, setDisplayName] = useState("");
  const create = useWrite({
    mutationFn: async (v: { key: string; displayName: string }) =>
      unwrap(
        await api.POST("/CreateLearnerAccount", {
          params: idempotent(v.key),
          body: { timezone: Intl.DateTimeFormat().resolvedOptions().timeZone, ...(v.displayName && { display_name: v.displayName }) },
        }),
      ),
    onSuccess: (me) => {
      qc.setQueryData(meQueries.of(api, user).queryKey, me);
      setTimeout(onCreated, 0);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.submit({ displayName: displayName.trim() });
  };
  return (
    <form onSubmit={submit} className="card-form" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Study on my own</h2>
      {create.isError && <ProblemAlert error={create.error} context="Your account was not made" fields={{ display_name: "Your name" }} />}
      <NameField id={id} label="Your name" value={displayName} onChange={setDisplayName} />
      <button type="submit" disabled={create.isPending}>
        {create.isPending ? "Making your account…" : "Study on my own"}
      </button>
    </form>
  );
}
