import { useId, useRef, useState, type ChangeEvent, type CompositionEvent, type ReactNode } from "react";

/**
 * The number of characters of text as the server counts them: Unicode code
 * points (Go's utf8.RuneCountInString, which the validator's max= tags and
 * pkg/decks' limits use), so "😀" is 1, not the 2 UTF-16 code units that
 * the HTML maxLength attribute counts. An unpaired surrogate counts as 1,
 * as the U+FFFD that the server's JSON decoder makes of it.
 */
export function characters(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A low surrogate after a high one is the second half of one code point.
    if (!(c >= 0xdc00 && c <= 0xdfff && i > 0 && isHigh(text.charCodeAt(i - 1)))) n++;
  }
  return n;
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

const graphemes = typeof Intl !== "undefined" && "Segmenter" in Intl ? new Intl.Segmenter(undefined, { granularity: "grapheme" }) : undefined;

/**
 * The longest start of text with at most budget characters (code points)
 * that ends between two user-perceived characters (grapheme clusters, where
 * Intl.Segmenter is there), so a cut does not leave half an emoji sequence
 * such as 👩‍🏫 (3 code points) with a dangling joiner, which the server refuses.
 */
export function cutTo(text: string, budget: number): string {
  if (budget <= 0) return "";
  if (characters(text) <= budget) return text;
  let out = "";
  let n = 0;
  const parts = graphemes ? Array.from(graphemes.segment(text), (s) => s.segment) : Array.from(text);
  for (const part of parts) {
    const m = characters(part);
    if (n + m > budget) break;
    out += part;
    n += m;
  }
  return out;
}

/**
 * next, a change of prev, with what the change inserted cut so that the
 * result has at most limit characters, as the HTML maxLength attribute cuts
 * an insertion (the text before and after it stays). The change is found as
 * prev's and next's common start and end, neither splitting a surrogate pair.
 * cut is false when next was within limit (or inserted nothing); caret is
 * the offset (UTF-16) just after what was kept of the insertion.
 */
export function limitChange(prev: string, next: string, limit: number): { value: string; cut: boolean; caret: number } {
  if (characters(next) <= limit) return { value: next, cut: false, caret: -1 };
  let start = 0;
  const most = Math.min(prev.length, next.length);
  while (start < most && prev.charCodeAt(start) === next.charCodeAt(start)) start++;
  if (start > 0 && start < next.length && isHigh(next.charCodeAt(start - 1))) start--;
  let end = 0;
  while (end < most - start && prev.charCodeAt(prev.length - 1 - end) === next.charCodeAt(next.length - 1 - end)) end++;
  if (end > 0 && end < next.length - start && isLow(next.charCodeAt(next.length - end))) end--;
  const before = next.slice(0, start);
  const after = next.slice(next.length - end);
  const inserted = next.slice(start, next.length - end);
  if (inserted === "") return { value: next, cut: false, caret: -1 };
  const kept = cutTo(inserted, limit - characters(before) - characters(after));
  return { value: before + kept + after, cut: kept !== inserted, caret: before.length + kept.length };
}

/** n as the client writes counts ("2,000"). */
const count = (n: number) => n.toLocaleString("en-US");

type Field = HTMLInputElement | HTMLTextAreaElement;

/** The props useCharacterLimit puts on its input or textarea. */
export interface LimitedFieldProps {
  value: string;
  onChange: (e: ChangeEvent<Field>) => void;
  onPaste: () => void;
  onCompositionStart: () => void;
  onCompositionEnd: (e: CompositionEvent<Field>) => void;
  onFocus?: () => void;
  onBlur?: () => void;
  "aria-describedby"?: string;
}

/**
 * A text field's limit of characters, counted as the server counts them
 * (code points, see characters), in place of the maxLength attribute, which
 * counts UTF-16 code units and cuts a paste without a word.
 *
 * Spread `field` on the input or textarea (keep its id, label and other
 * props; give its own aria-describedby ids as describedBy, not on the
 * element) and render `note` right under it. An insertion (typing, a paste,
 * a drop) that would take the value past limit is cut at the limit, and
 * the note says so in a polite live region ("The pasted text was cut to 200
 * characters."); from 90 % of the limit the note shows a counter ("183 of
 * 200 characters") that the field's aria-describedby names. With counter
 * "focused" (a table's cells), the note is there only while the field has
 * the focus. While an input method composes, the text is not cut; it is
 * cut when the composition ends.
 */
export function useCharacterLimit({
  value,
  onChange,
  limit,
  describedBy,
  counter = "always",
}: {
  value: string;
  onChange: (value: string) => void;
  /** The most characters the server keeps for this field. */
  limit: number;
  /** The field's own aria-describedby ids, space-separated. */
  describedBy?: string;
  counter?: "always" | "focused";
}): { field: LimitedFieldProps; note: ReactNode } {
  const id = useId();
  const [message, setMessage] = useState("");
  const [focused, setFocused] = useState(false);
  const pasted = useRef(false);
  const composedFrom = useRef<string | null>(null);

  const apply = (element: Field, prev: string, how: string) => {
    const next = element.value;
    const change = limitChange(prev, next, limit);
    if (change.cut) {
      // Put the cut text in the element now, so React finds it as it
      // expects and the caret stays after the insertion, not at the end.
      element.value = change.value;
      try {
        element.setSelectionRange(change.caret, change.caret);
      } catch {
        // An input of type email has no selection to set.
      }
      setMessage(
        how === "insertFromPaste"
          ? `The pasted text was cut to ${count(limit)} characters.`
          : how === "insertFromDrop"
            ? `The dropped text was cut to ${count(limit)} characters.`
            : `The text was cut to ${count(limit)} characters, the most this field keeps.`,
      );
    } else if (characters(change.value) <= limit) {
      setMessage("");
    }
    onChange(change.value);
  };

  const shown = counter === "always" || focused;
  const n = characters(value);
  const near = shown && n * 10 >= limit * 9;
  const counterId = `${id}-count`;
  const field: LimitedFieldProps = {
    value,
    onChange: (e) => {
      const native = e.nativeEvent as Partial<InputEvent>;
      if (native.isComposing || composedFrom.current !== null) {
        onChange(e.target.value);
        return;
      }
      // inputType where the browser gives it; else the paste event just before.
      const how = native.inputType || (pasted.current ? "insertFromPaste" : "");
      pasted.current = false;
      apply(e.target, value, how);
    },
    onPaste: () => {
      pasted.current = true;
    },
    onCompositionStart: () => {
      composedFrom.current = value;
    },
    onCompositionEnd: (e) => {
      const from = composedFrom.current ?? value;
      composedFrom.current = null;
      apply(e.currentTarget, from, "insertCompositionText");
    },
    "aria-describedby": [describedBy, near ? counterId : undefined].filter(Boolean).join(" ") || undefined,
  };
  if (counter === "focused") {
    field.onFocus = () => setFocused(true);
    field.onBlur = () => {
      setFocused(false);
      setMessage("");
    };
  }
  const visible = near || message !== "";
  const note = shown && (
    // Always there (hidden while empty, so it takes no room), so that a
    // screen reader announces the message put in it.
    <div className={visible ? "limit-note muted small" : "visually-hidden"}>
      {near && (
        <span id={counterId}>
          {count(n)} of {count(limit)} characters
        </span>
      )}
      {near && message && " "}
      <span aria-live="polite">{message}</span>
    </div>
  );
  return { field, note };
}
