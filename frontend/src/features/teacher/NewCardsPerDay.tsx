import { useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { useApi } from "../../api/ApiContext";
import { unwrap } from "../../api/client";
import { idempotent, useWrite } from "../../api/mutation";
import { classQueries } from "../../api/queries";
import type { components } from "../../api/schema";
import { ProblemAlert } from "../../components/ProblemAlert";

type Class = components["schemas"]["Class"];

/**
 * The class's daily limit of new cards (SetNewCardsPerDay): how many words
 * never reviewed each learner is served per study day, 0 (reviews only) to
 * 9999. A learner in several classes has the largest of their classes'.
 */
export function NewCardsPerDay({ c }: { c: Class }) {
  const api = useApi();
  const qc = useQueryClient();
  const id = useId();
  const [value, setValue] = useState(String(c.new_cards_per_day));
  const set = useWrite({
    mutationFn: async (v: { key: string; perDay: number }) =>
      unwrap(await api.POST("/SetNewCardsPerDay", { params: idempotent(v.key), body: { class_id: c.id, new_cards_per_day: v.perDay } })),
    onSuccess: () => void qc.invalidateQueries({ queryKey: classQueries.all }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    set.submit({ perDay: Number(value) });
  };
  return (
    <form onSubmit={submit} className="assign" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>New cards a day</h3>
      {set.isError && <ProblemAlert error={set.error} context="The limit was not changed" fields={{ new_cards_per_day: "New cards a day" }} />}
      {set.isSuccess && (
        <p role="status" className="ok-note">
          Each learner of {c.name} now gets up to {set.data.new_cards_per_day} new cards a day.
        </p>
      )}
      <label htmlFor={`${id}-limit`}>New cards a day for each learner (0 for reviews only)</label>
      <div className="row-input">
        <input
          id={`${id}-limit`}
          type="number"
          required
          min={0}
          max={9999}
          step={1}
          inputMode="numeric"
          aria-describedby={`${id}-several`}
          value={value}
          onChange={(e) => setValue(e.target.value)}
        />
        <button type="submit" disabled={set.isPending}>
          {set.isPending ? "Saving…" : "Save limit"}
        </button>
      </div>
      <p id={`${id}-several`} className="muted">
        A learner in several classes gets the largest of their classes' limits.
      </p>
    </form>
  );
}
