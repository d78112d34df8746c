import { useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { useApi } from "../../api/ApiContext";
import { unwrap } from "../../api/client";
import { idempotent, useWrite } from "../../api/mutation";
import { ApiError } from "../../api/problem";
import { meQueries, progressQueries, scheduleQueries } from "../../api/queries";
import { useCharacterLimit } from "../../components/CharacterLimit";
import { NameField } from "../../components/NameField";
import { ProblemAlert } from "../../components/ProblemAlert";

/**
 * The join code typed, made as EnrollLearner takes it (ASCII letters and
 * digits, any case: the server uppercases it). NFKC first makes the
 * full-width forms that a Japanese, Chinese or Korean keyboard types
 * ("ＤＥＭＯ２０２６", "－", U+3000) the ASCII ones ("DEMO2026", "-", " "),
 * which the server's alphanum check would refuse as "must be letters and
 * digits only". Then white space and dashes go: a code read aloud or copied
 * is often typed in groups ("dbtp 4kr2", "DBTP-4KR2", "DBTP–4KR2" with the
 * en dash a word processor makes of a hyphen).
 */
function joinCode(typed: string): string {
  return typed.normalize("NFKC").replace(/[\s\p{Pd}]+/gu, "");
}

/**
 * A learner joins a class with the join code their teacher gave them
 * (EnrollLearner); the class's assignments become theirs at once. For a
 * newcomer (an identity without an account) it is their first class, which
 * makes them a learner: the form then also asks their name, and sends their
 * browser's time zone; onJoined runs once Me knows the new learner.
 */
export function JoinClass({ newcomer = false, onJoined }: { newcomer?: boolean; onJoined?: () => void }) {
  const api = useApi();
  const qc = useQueryClient();
  const id = useId();
  const [code, setCode] = useState("");
  const [displayName, setDisplayName] = useState("");
  const codeLimit = useCharacterLimit({ value: code, onChange: setCode, limit: 12 });
  const join = useWrite({
    mutationFn: async (v: { key: string; code: string; displayName: string }) =>
      unwrap(
        await api.POST("/EnrollLearner", {
          params: idempotent(v.key),
          body: {
            join_code: v.code,
            ...(newcomer && { timezone: Intl.DateTimeFormat().resolvedOptions().timeZone }),
            ...(v.displayName && { display_name: v.displayName }),
          },
        }),
      ),
    onSuccess: async () => {
      setCode("");
      void qc.invalidateQueries({ queryKey: scheduleQueries.all });
      void qc.invalidateQueries({ queryKey: progressQueries.all });
      // A newcomer is a learner now: Me says so before the screens change.
      if (newcomer) await qc.invalidateQueries({ queryKey: meQueries.all });
      onJoined?.();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    join.submit({ code: joinCode(code), displayName: displayName.trim() });
  };
  const joined = join.data && "assignments" in join.data ? join.data : undefined;
  const n = joined?.assignments.length ?? 0;
  return (
    <form onSubmit={submit} className="card-form" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{newcomer ? "Join your class" : "Join a class"}</h2>
      {join.isError &&
        (join.error instanceof ApiError && join.error.status === 404 ? (
          <p role="alert" className="alert">
            You did not join: no class has the join code {join.variables?.code}. Check it with your teacher.
          </p>
        ) : (
          <ProblemAlert error={join.error} context="You did not join" fields={{ display_name: "Your name" }} />
        ))}
      {joined && (
        <p role="status" className="ok-note">
          You joined {joined.class_name}
          {n > 0 && `: ${n} ${n === 1 ? "deck" : "decks"} assigned to you`}.
        </p>
      )}
      {newcomer && <NameField id={id} label="Your name, as your teacher will see it" value={displayName} onChange={setDisplayName} />}
      <label htmlFor={`${id}-code`}>Join code from your teacher</label>
      <div className="row-input">
        <input
          id={`${id}-code`}
          required
          minLength={4}
          autoCapitalize="characters"
          autoComplete="off"
          spellCheck={false}
          {...codeLimit.field}
        />
        <button type="submit" className={newcomer ? "primary" : undefined} disabled={join.isPending}>
          {join.isPending ? "Joining…" : "Join"}
        </button>
      </div>
      {codeLimit.note}
    </form>
  );
}
