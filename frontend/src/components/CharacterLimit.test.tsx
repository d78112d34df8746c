import { fireEvent, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it } from "vitest";
import { characters, cutTo, limitChange, useCharacterLimit } from "./CharacterLimit";

/** A labelled field of limit characters, as the screens use the hook. */
function Field({ limit, initial = "", textarea = false, counter }: { limit: number; initial?: string; textarea?: boolean; counter?: "focused" }) {
  const [value, setValue] = useState(initial);
  const { field, note } = useCharacterLimit({ value, onChange: setValue, limit, describedBy: "hint", counter });
  return (
    <>
      <p id="hint">A hint.</p>
      <label htmlFor="f">Meaning</label>
      {textarea ? <textarea id="f" {...field} /> : <input id="f" {...field} />}
      {note}
      <button type="button">Elsewhere</button>
    </>
  );
}

/** The field's polite live region (the note's cut notice). */
const liveRegion = () => document.querySelector('[aria-live="polite"]');

describe("characters", () => {
  it("counts code points, as the server's utf8.RuneCountInString does, not UTF-16 units", () => {
    expect(characters("abc")).toBe(3);
    expect(characters("😀")).toBe(1);
    expect("😀".length).toBe(2);
    expect(characters("👩‍🏫")).toBe(3); // woman, ZWJ, school
    expect(characters("e\u0301")).toBe(2); // e + combining acute: two runes
    expect(characters("\ud83d")).toBe(1); // an unpaired surrogate: U+FFFD on the server
  });

  it("cuts between user-perceived characters, never inside an emoji sequence", () => {
    expect(cutTo("ab👩‍🏫", 4)).toBe("ab");
    expect(cutTo("ab👩‍🏫", 5)).toBe("ab👩‍🏫");
    expect(cutTo("😀😀😀", 2)).toBe("😀😀");
  });

  it("cuts what a change inserted, keeping the text before and after it", () => {
    expect(limitChange("abcd", "abXYZcd", 6)).toEqual({ value: "abXYcd", cut: true, caret: 4 });
    expect(limitChange("ab", "abc", 3)).toEqual({ value: "abc", cut: false, caret: -1 });
    // The common start does not end inside a surrogate pair (😀 and 😁 share their first unit).
    expect(limitChange("a😀", "a😁😁", 2).value).toBe("a😁");
  });
});

describe("useCharacterLimit", () => {
  it("shows no counter below 90 % of the limit and a counter the field names from 90 %", async () => {
    const user = userEvent.setup();
    render(<Field limit={20} initial={"a".repeat(17)} />);
    const input = screen.getByLabelText("Meaning");
    expect(screen.queryByText(/of 20 characters/)).toBeNull();
    expect(input).toHaveAttribute("aria-describedby", "hint");
    await user.type(input, "b");
    expect(screen.getByText("18 of 20 characters")).toBeVisible();
    expect(input).toHaveAccessibleDescription("A hint. 18 of 20 characters");
    expect(input).not.toHaveAttribute("maxlength");
  });

  it("says in a polite live region that a paste was cut at the limit", async () => {
    const user = userEvent.setup();
    render(<Field limit={200} textarea />);
    const area = screen.getByLabelText("Meaning");
    expect(liveRegion()).toHaveTextContent("");
    await user.click(area);
    await user.paste("x".repeat(250));
    expect(area).toHaveValue("x".repeat(200));
    expect(liveRegion()).toHaveTextContent("The pasted text was cut to 200 characters.");
    expect(screen.getByText("200 of 200 characters")).toBeVisible();
    // Typing past the limit is said too; a change within it clears the notice.
    await user.type(area, "y");
    expect(area).toHaveValue("x".repeat(200));
    expect(liveRegion()).toHaveTextContent("The text was cut to 200 characters, the most this field keeps.");
    await user.type(area, "{Backspace}");
    expect(liveRegion()).toHaveTextContent("");
  });

  it("keeps the text after a paste in the middle and cuts only the pasted text", async () => {
    const user = userEvent.setup();
    render(<Field limit={10} initial="abcdef" />);
    const input = screen.getByLabelText<HTMLInputElement>("Meaning");
    await user.click(input);
    input.setSelectionRange(3, 3);
    await user.paste("123456");
    expect(input).toHaveValue("abc1234def");
    expect(input.selectionStart).toBe(7);
  });

  it("counts emoji as the server does: 200 emoji fit a limit of 200", async () => {
    const user = userEvent.setup();
    render(<Field limit={200} />);
    const input = screen.getByLabelText("Meaning");
    await user.click(input);
    await user.paste("😀".repeat(200));
    expect(input).toHaveValue("😀".repeat(200)); // maxLength={200} keeps 100 of them
    expect(liveRegion()).toHaveTextContent("");
    expect(screen.getByText("200 of 200 characters")).toBeVisible();
    await user.paste("😀");
    expect(input).toHaveValue("😀".repeat(200));
    expect(liveRegion()).toHaveTextContent("The pasted text was cut to 200 characters.");
  });

  it("does not cut while an input method composes, and cuts when it ends", () => {
    render(<Field limit={5} initial="abcd" />);
    const input = screen.getByLabelText("Meaning");
    fireEvent.compositionStart(input);
    fireEvent.change(input, { target: { value: "abcdにほ" } });
    expect(input).toHaveValue("abcdにほ");
    fireEvent.compositionEnd(input);
    expect(input).toHaveValue("abcdに");
    expect(liveRegion()).toHaveTextContent("The text was cut to 5 characters");
  });

  it("with counter focused, shows the counter only while the field has the focus", async () => {
    const user = userEvent.setup();
    render(<Field limit={10} initial="abcdefghi" counter="focused" />);
    const input = screen.getByLabelText("Meaning");
    expect(screen.queryByText("9 of 10 characters")).toBeNull();
    await user.click(input);
    expect(screen.getByText("9 of 10 characters")).toBeVisible();
    await user.paste("123");
    expect(liveRegion()).toHaveTextContent("The pasted text was cut to 10 characters.");
    await user.click(screen.getByRole("button", { name: "Elsewhere" }));
    expect(screen.queryByText(/of 10 characters/)).toBeNull();
    expect(input).toHaveAttribute("aria-describedby", "hint");
  });
});
