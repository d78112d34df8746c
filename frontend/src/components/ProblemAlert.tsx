import { ApiError } from "../api/problem";

/** The words the forms use for the functions' JSON fields, in a refusal's field errors. */
const fieldNames: Record<string, string> = {
  "(body)": "The request",
  "(query)": "The query",
  card_id: "Card",
  deck_id: "Deck",
  display_name: "Name",
  due_at: "Due date",
  email: "Email",
  ids: "Deliveries",
  join_code: "Join code",
  learner_id: "Learner",
  reason: "Reason",
  reviewed_at: "Time of the review",
  timezone: "Time zone",
  topics: "Events",
  url: "URL",
};

/**
 * A field error's field as a reader knows it: a form's own word (names,
 * which the screen gives), a known field's, or a snake_case JSON name as
 * words ("some_field": "Some field"); a header's name is kept as it is.
 */
export function fieldName(field: string, names: Record<string, string> = {}): string {
  const known = names[field] ?? fieldNames[field];
  if (known) return known;
  if (!/^[a-z][a-z0-9_]*$/.test(field)) return field;
  const words = field.replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * Shows why a request failed: a function's problem document (its title,
 * detail and each field error, named as the form names it: fields maps a
 * JSON name to the form's label), or, when the request never got an
 * answer (a network failure, which fetch reports in the browser's own
 * words), that Lexora could not be reached. A detail that a field error
 * says too (an import's refusal of the whole list) is shown once, beside
 * the field.
 */
export function ProblemAlert({ error, context, fields }: { error: unknown; context?: string; fields?: Record<string, string> }) {
  const heading = context ? `${context}: ` : "";
  if (error instanceof ApiError) {
    const p = error.problem;
    return (
      <div role="alert" className="alert">
        <p className="alert-title">
          {heading}
          {p.title}
        </p>
        {p.detail && !p.errors?.some((e) => e.reason === p.detail) && <p>{p.detail}</p>}
        {p.errors && p.errors.length > 0 && (
          <ul aria-label="Field errors">
            {p.errors.map((e) => (
              <li key={e.field}>
                {fieldName(e.field, fields)}: {e.reason}
              </li>
            ))}
          </ul>
        )}
      </div>
    );
  }
  return (
    <div role="alert" className="alert">
      <p className="alert-title">{heading}Lexora could not be reached</p>
      <p>
        Check your connection and try again.
        {!(error instanceof TypeError) && error instanceof Error && ` (${error.message})`}
      </p>
    </div>
  );
}
