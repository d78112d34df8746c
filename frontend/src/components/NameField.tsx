import { useCharacterLimit } from "./CharacterLimit";

/**
 * The name a newcomer gives with their first request (CreateClass,
 * EnrollLearner by code): a labelled input of at most 200 characters.
 * `id` prefixes the input's id; `label` says who will see the name.
 */
export function NameField({
  id,
  label,
  value,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
}) {
  const limit = useCharacterLimit({ value, onChange, limit: 200 });
  return (
    <>
      <label htmlFor={`${id}-you`}>{label}</label>
      <input id={`${id}-you`} autoComplete="name" {...limit.field} />
      {limit.note}
    </>
  );
}
