import { useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { useApi } from "../api/ApiContext";
import { unwrap } from "../api/client";
import { useWrite } from "../api/mutation";
import { ApiError } from "../api/problem";
import { ProblemAlert } from "../components/ProblemAlert";

/**
 * A learner joins a class with the join code their teacher gave them
 * (EnrollLearner); the class's assignments become theirs at once.
 */
export function JoinClass() {
  const api = useApi();
  const qc = useQueryClient();
  const id = useId();
  const [code, setCode] = useState("");
  const join = useWrite({
    mutationFn: async (v: { key: string; code: string }) =>
      unwrap(await api.POST("/EnrollLearner", { params: { header: { "Idempotency-Key": v.key } }, body: { join_code: v.code } })),
    onSuccess: () => {
      setCode("");
      void qc.invalidateQueries({ queryKey: ["schedule"] });
      void qc.invalidateQueries({ queryKey: ["progress"] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    join.submit({ code: code.trim() });
  };
  const n = join.data && "assignments" in join.data ? join.data.assignments.length : 0;
  return (
    <form onSubmit={submit} className="card-form" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Join a class</h2>
      {join.isError &&
        (join.error instanceof ApiError && join.error.status === 404 ? (
          <p role="alert" className="alert">
            You did not join: no class has the join code {join.variables?.code}. Check it with your teacher.
          </p>
        ) : (
          <ProblemAlert error={join.error} context="You did not join" />
        ))}
      {join.isSuccess && (
        <p role="status" className="ok-note">
          You joined the class{n > 0 && `: ${n} ${n === 1 ? "deck" : "decks"} assigned to you`}.
        </p>
      )}
      <label htmlFor={`${id}-code`}>Join code from your teacher</label>
      <div className="row-input">
        <input
          id={`${id}-code`}
          required
          minLength={4}
          maxLength={12}
          autoCapitalize="characters"
          autoComplete="off"
          spellCheck={false}
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
        <button type="submit" disabled={join.isPending}>
          {join.isPending ? "Joining…" : "Join"}
        </button>
      </div>
    </form>
  );
}
