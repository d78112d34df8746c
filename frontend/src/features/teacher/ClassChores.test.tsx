import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { components } from "../../api/schema";
import { fakeServer, json, renderApp } from "../../test/render";
import { Classes } from "./Classes";

const teacher = { id: "00000000-0000-4000-8000-00000000000a", displayName: "Ada", email: "ada@lexora.test", role: "teacher" as const };
const sam = "00000000-0000-4000-8000-000000000005";

const cls = {
  id: "00000000-0000-4000-8000-0000000000c1",
  name: "Year 9 English",
  join_code: "DEMO2026",
  created_at: "2026-03-01T09:00:00Z",
  archived_at: null,
  new_cards_per_day: 20,
  members: [{ learner_id: sam, display_name: "sam.r", account_name: "sam.r", email: "sam.r@lexora.test", joined_at: "2026-03-01T10:00:00Z" }],
  decks: [],
} satisfies components["schemas"]["Class"];

const state = (c: components["schemas"]["Class"]) =>
  ({
    id: c.id,
    name: c.name,
    join_code: c.join_code,
    created_at: c.created_at,
    archived_at: c.archived_at,
  }) satisfies components["schemas"]["ClassState"];

/** The Classes screen on a server holding one class, which the chores change; each request is seen. */
function serve(initial: components["schemas"]["Class"]) {
  let c = initial;
  const server = fakeServer((req) => {
    const body = req.body as Record<string, unknown>;
    switch (req.path) {
      case "/ListClasses":
        return json({ classes: [c] } satisfies components["schemas"]["ClassList"]);
      case "/ListDecks":
        return json({ decks: [] } satisfies components["schemas"]["DeckList"]);
      case "/SetLearnerName": {
        const m = { ...c.members[0]!, display_name: (body.display_name as string | undefined) ?? c.members[0]!.account_name };
        c = { ...c, members: [m] };
        return json(m satisfies components["schemas"]["ClassMember"]);
      }
      case "/RemoveLearner":
        c = { ...c, members: [] };
        return json({ class_id: c.id, learner_id: sam, assignments: [] } satisfies components["schemas"]["LearnerRemoval"]);
      case "/UpdateClass":
        c = {
          ...c,
          ...(typeof body.name === "string" && { name: body.name }),
          ...(typeof body.archived === "boolean" && { archived_at: body.archived ? "2026-03-02T09:00:00Z" : null }),
        };
        return json(state(c));
      case "/NewJoinCode":
        c = { ...c, join_code: "K7QX2MPA" };
        return json(state(c));
    }
    return json({ type: "https://lexora.app/problems/x", title: "Unexpected", status: 500 }, 500);
  });
  renderApp(<Classes />, { user: teacher });
  return server;
}

const bodies = (server: ReturnType<typeof fakeServer>, path: string) => server.seen.filter((s) => s.path === path).map((s) => s.body);

describe("Class chores", () => {
  it("names a learner added without a name as the class sees them, showing the account's name beside it", async () => {
    const server = serve(cls);
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: "Rename sam.r" }));
    const field = screen.getByLabelText(/Name in this class/);
    await user.clear(field);
    await user.type(field, "Sam Rivera");
    await user.click(screen.getByRole("button", { name: "Save name" }));
    expect(await screen.findByText("Sam Rivera")).toBeInTheDocument();
    expect(screen.getByText("(account: sam.r)")).toBeInTheDocument();
    expect(bodies(server, "/SetLearnerName")).toEqual([{ class_id: cls.id, learner_id: sam, display_name: "Sam Rivera" }]);
  });

  it("keeps a learner's name of 200 characters with emoji, as SetLearnerName counts them, and says when a paste went past it", async () => {
    const server = serve(cls);
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: "Rename sam.r" }));
    const field = screen.getByLabelText(/Name in this class/);
    await user.clear(field);
    // 204 runes; the validator's max=200 keeps "Sam " and 196 foxes (396 UTF-16 units: maxLength={200} kept 98).
    await user.paste("Sam " + "🦊".repeat(200));
    const kept = "Sam " + "🦊".repeat(196);
    expect(field).toHaveValue(kept);
    expect(field).toHaveAccessibleDescription("200 of 200 characters");
    expect(screen.getByText("The pasted text was cut to 200 characters.")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Save name" }));
    await waitFor(() => expect(bodies(server, "/SetLearnerName")).toEqual([{ class_id: cls.id, learner_id: sam, display_name: kept }]));
  });

  it("removes a learner only once confirmed, saying what they keep", async () => {
    const server = serve(cls);
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: "Remove sam.r" }));
    const confirm = screen.getByRole("group", { name: "Confirm removing sam.r" });
    expect(confirm).toHaveTextContent("their cards and review history stay theirs");
    expect(bodies(server, "/RemoveLearner")).toEqual([]);
    await user.click(within(confirm).getByRole("button", { name: "Remove" }));
    expect(await screen.findByText("Nobody has joined yet.")).toBeInTheDocument();
    expect(bodies(server, "/RemoveLearner")).toEqual([{ class_id: cls.id, learner_id: sam }]);
  });

  it("renames a class, gives it a new join code once confirmed, and archives it: then nobody can join or be assigned", async () => {
    const server = serve(cls);
    const user = userEvent.setup();
    await user.click(await screen.findByText("Class settings"));
    const name = screen.getByLabelText("Name of this class");
    expect(screen.getByRole("button", { name: "Rename" })).toBeDisabled();
    await user.clear(name);
    await user.type(name, "Year 9 English, spring");
    await user.click(screen.getByRole("button", { name: "Rename" }));
    expect(await screen.findByRole("heading", { name: "Year 9 English, spring" })).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "New join code…" }));
    expect(screen.getByRole("group", { name: "Confirm a new join code" })).toHaveTextContent("The code DEMO2026 stops working at once");
    await user.click(screen.getByRole("button", { name: "Give a new code" }));
    expect(await screen.findByText(/New join code K7QX2MPA: the old one no longer works/)).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId("join-code")).toHaveTextContent("K7QX2MPA"));

    expect(screen.getByRole("heading", { name: /Add a learner/ })).toBeInTheDocument();
    // Archiving asks first, saying what it does; Cancel changes nothing.
    await user.click(screen.getByRole("button", { name: "Archive this class…" }));
    expect(screen.getByRole("group", { name: "Confirm archiving" })).toHaveTextContent(
      "Archive Year 9 English, spring? Nobody can join it and no deck can be assigned to it; its learners keep studying their assignments and you keep its progress.",
    );
    await user.click(screen.getByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("group", { name: "Confirm archiving" })).not.toBeInTheDocument();
    expect(bodies(server, "/UpdateClass")).toHaveLength(1);
    await user.click(screen.getByRole("button", { name: "Archive this class…" }));
    await user.click(screen.getByRole("button", { name: "Archive" }));
    expect(await screen.findByText("archived")).toBeInTheDocument();
    expect(screen.queryByRole("heading", { name: /Add a learner/ })).not.toBeInTheDocument();
    expect(screen.queryByRole("heading", { name: /Assign a deck/ })).not.toBeInTheDocument();
    expect(screen.getByText(/has no join code to renew/)).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Take out of the archive" }));
    expect(await screen.findByRole("heading", { name: /Add a learner/ })).toBeInTheDocument();

    expect(bodies(server, "/UpdateClass")).toEqual([
      { class_id: cls.id, name: "Year 9 English, spring" },
      { class_id: cls.id, archived: true },
      { class_id: cls.id, archived: false },
    ]);
    expect(bodies(server, "/NewJoinCode")).toEqual([{ class_id: cls.id }]);
  });
});
