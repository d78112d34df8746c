import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { keepOffset } from "../../api/clock";
import type { components } from "../../api/schema";
import { dueTime } from "../../components/when";
import { doubleClick, fakeServer, gate, json, renderApp } from "../../test/render";
import { dayAfter } from "./assign";
import { Classes } from "./Classes";
import { teacher, teacherMe } from "../../test/teacher";

const mia = "00000000-0000-4000-8000-000000000001";
const noah = "00000000-0000-4000-8000-000000000002";

const cls = {
  id: "00000000-0000-4000-8000-0000000000c1",
  name: "Year 9 English",
  join_code: "DEMO2026",
  new_cards_per_day: 20,
  created_at: "2026-03-01T09:00:00Z",
  archived_at: null,
  members: [
    { learner_id: mia, display_name: "Mia Laurent", account_name: "Mia Laurent", email: "mia@lexora.test", joined_at: "2026-03-01T10:00:00Z" },
    { learner_id: noah, display_name: "Noah Brooks", account_name: "Noah Brooks", email: "noah@lexora.test", joined_at: "2026-03-02T10:00:00Z" },
  ],
  decks: [] as components["schemas"]["ClassDeck"][],
} satisfies components["schemas"]["Class"];

const decks = [
  { id: "d0000000-0000-4000-8000-000000000001", title: "Everyday nouns", description: "", words: 25, level: 1, library: true, started: false },
  { id: "d0000000-0000-4000-8000-000000000002", title: "Rare verbs", description: "", words: 30, level: 5, library: true, started: false },
  { id: "d0000000-0000-4000-8000-000000000003", title: "My trip words", description: "", words: 12, level: null, library: false, started: false },
] satisfies components["schemas"]["Deck"][];

const me = teacherMe;

/** CreateAssignment's answer: each learner of learners assigned, each of already not. */
const answer = (assigned: string[], already: string[] = []) => ({
  class_id: cls.id,
  deck_id: decks[1]!.id,
  due_at: "2026-04-01T14:59:59Z",
  status: assigned.length > 0 ? "assigned" : "already_assigned",
  learners: [
    ...assigned.map((learner) => ({
      learner_id: learner,
      status: "assigned" as const,
      assignment: {
        id: crypto.randomUUID(),
        class_id: cls.id,
        deck_id: decks[1]!.id,
        learner_id: learner,
        teacher_id: teacher.id,
        due_at: "2026-04-01T14:59:59Z",
        cards: 30,
        new_cards: 30,
        completed_at: null,
      },
    })),
    ...already.map((learner) => ({ learner_id: learner, status: "already_assigned" as const, assignment: null })),
  ],
}) satisfies components["schemas"]["ClassAssignment"];

/** An instant as the assign form shows it: in the teacher's zone (Me), named. */
const inTokyo = (iso: string) => dueTime(iso, me.timezone);

const problem = (status: number, title: string, extra: Partial<components["schemas"]["Problem"]> = {}) =>
  json({ type: "https://lexora.app/problems/x", title, status, ...extra } satisfies components["schemas"]["Problem"], status);

describe("Classes", () => {
  it("lists each class with its join code and members, and says when there is none", async () => {
    const none = { ...cls, id: "c2", name: "Empty", join_code: null, members: [] } satisfies components["schemas"]["Class"];
    fakeServer((req) =>
      req.path === "/ListClasses"
        ? json({ classes: [cls, none] } satisfies components["schemas"]["ClassList"])
        : json({ decks } satisfies components["schemas"]["DeckList"]),
    );
    renderApp(<Classes />, { user: teacher });
    const card = (await screen.findByRole("heading", { name: "Year 9 English" }, { timeout: 5000 })).closest("li")!;
    expect(within(card).getByTestId("join-code")).toHaveTextContent("DEMO2026");
    expect(within(card).getByText("2 learners")).toBeInTheDocument();
    expect(within(card).getByText("Mia Laurent")).toBeInTheDocument();
    expect(within(card).getByRole("link", { name: "Progress of Year 9 English" })).toHaveAttribute(
      "href",
      `/teacher/classes/${cls.id}`,
    );
    const empty = screen.getByRole("heading", { name: "Empty" }).closest("li")!;
    expect(within(empty).getByText("Nobody has joined yet.")).toBeInTheDocument();
    expect(within(empty).getByText(/learners who join before the due date get the class's decks/)).toBeInTheDocument();
    expect(await within(empty).findByRole("button", { name: "Assign to the class" })).toBeInTheDocument();
  });

  it("assigns a deck to a class nobody has joined yet: the class keeps it for those who join", async () => {
    const empty = { ...cls, id: "c2", name: "Empty", members: [] } satisfies components["schemas"]["Class"];
    const server = fakeServer((req) => {
      if (req.path === "/Me") return json(me);
      if (req.path === "/ListClasses") return json({ classes: [empty] } satisfies components["schemas"]["ClassList"]);
      if (req.path === "/ListDecks") return json({ decks } satisfies components["schemas"]["DeckList"]);
      return json({ ...answer([]), class_id: empty.id, status: "assigned", learners: [] } satisfies components["schemas"]["ClassAssignment"], 201);
    });
    const user = userEvent.setup();
    renderApp(<Classes />, { user: teacher });
    await user.selectOptions(await screen.findByLabelText("Deck"), "Rare verbs (30 words)");
    await waitFor(() => expect(screen.getByRole("button", { name: "Assign to the class" })).toBeEnabled());
    await user.click(screen.getByRole("button", { name: "Assign to the class" }));
    expect(await screen.findByRole("status")).toHaveTextContent(`Rare verbs assigned to the class, due ${inTokyo(answer([]).due_at)}: learners who join get it.`);
    expect(server.seen.filter((s) => s.path === "/CreateAssignment").map((s) => (s.body as { class_id: string }).class_id)).toEqual([empty.id]);
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
  });

  it("lists the decks a class has, with their due dates, and marks them in the deck picker", async () => {
    const future = new Date(Date.now() + 5 * 86_400_000).toISOString();
    const past = new Date(Date.now() - 2 * 86_400_000).toISOString();
    const empty = {
      ...cls,
      id: "c2",
      name: "Empty",
      members: [],
      decks: [
        { deck_id: decks[0]!.id, deck_title: "Everyday nouns", due_at: past, assigned_at: "2026-03-01T09:00:00Z", desired_retention: 0.9 },
        { deck_id: decks[1]!.id, deck_title: "Rare verbs", due_at: future, assigned_at: "2026-03-01T09:00:00Z", desired_retention: 0.9 },
      ],
    } satisfies components["schemas"]["Class"];
    fakeServer((req) =>
      req.path === "/ListClasses"
        ? json({ classes: [cls, empty] } satisfies components["schemas"]["ClassList"])
        : json({ decks } satisfies components["schemas"]["DeckList"]),
    );
    renderApp(<Classes />, { user: teacher });
    const card = (await screen.findByRole("heading", { name: "Empty" }, { timeout: 5000 })).closest("li")!;
    const list = within(card).getByRole("list", { name: "Decks of Empty" });
    // No Me answered: the browser's zone, named.
    const day = (iso: string) => dueTime(iso);
    expect(within(list).getAllByRole("listitem").map((li) => li.textContent)).toEqual([
      `Everyday nouns was due ${day(past)}`,
      `Rare verbs due ${day(future)}`,
    ]);
    const picker = await within(card).findByLabelText("Deck");
    const option = (name: RegExp) => within(picker).getByRole("option", { name });
    expect(option(/^Rare verbs/)).toBeDisabled();
    expect(option(/^Rare verbs/)).toHaveTextContent(`Rare verbs (30 words) · assigned, due ${day(future)}`);
    expect(option(/^Everyday nouns/)).toBeEnabled();
    expect(option(/^Everyday nouns/)).toHaveTextContent(`Everyday nouns (25 words) · was due ${day(past)}: assign again to renew`);
    expect(option(/^My trip words/)).toHaveTextContent(/^My trip words \(12 words\)$/);
    const full = screen.getByRole("heading", { name: "Year 9 English" }).closest("li")!;
    expect(within(full).getByText("No decks assigned yet.")).toBeInTheDocument();
    expect(within(await within(full).findByLabelText("Deck")).getByRole("option", { name: /^Rare verbs/ })).toBeEnabled();
  });

  it("on a device a day fast, says a deck due in 12 h is due, and offers due days from the server's today", async () => {
    const server = Date.parse("2026-03-02T09:00:00.000Z");
    const device = server + 86_400_000;
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(device);
      keepOffset({ offsetMs: server - device, serverAt: server, deviceAt: device });
      const soon = new Date(server + 12 * 3_600_000).toISOString();
      const one = {
        ...cls,
        decks: [{ deck_id: decks[1]!.id, deck_title: "Rare verbs", due_at: soon, assigned_at: "2026-03-01T09:00:00Z", desired_retention: 0.9 }],
      } satisfies components["schemas"]["Class"];
      fakeServer((req) =>
        req.path === "/ListClasses"
          ? json({ classes: [one] } satisfies components["schemas"]["ClassList"])
          : json({ decks } satisfies components["schemas"]["DeckList"]),
      );
      renderApp(<Classes />, { user: teacher });
      const card = (await screen.findByRole("heading", { name: "Year 9 English" }, { timeout: 5000 })).closest("li")!;
      const list = within(card).getByRole("list", { name: "Decks of Year 9 English" });
      expect(within(list).getByRole("listitem")).toHaveTextContent(`Rare verbs due ${dueTime(soon)}`);
      expect(await within(card).findByLabelText("Due by the end of")).toHaveAttribute("min", dayAfter(new Date(server), 0));
    } finally {
      vi.useRealTimers();
    }
  });

  it("lists the members by name whatever their case, as the server's order may not", async () => {
    const named = (id: string, name: string) => ({ learner_id: id, display_name: name, account_name: name, email: `${id}@lexora.test`, joined_at: "2026-03-01T10:00:00Z" });
    const mixed = {
      ...cls,
      members: [named("l1", "Bea Stone"), named("l2", "Zoe Hart"), named("l3", "ada lovelace"), named("l4", "émile Roux")],
    } satisfies components["schemas"]["Class"];
    fakeServer((req) =>
      req.path === "/ListClasses"
        ? json({ classes: [mixed] } satisfies components["schemas"]["ClassList"])
        : json({ decks } satisfies components["schemas"]["DeckList"]),
    );
    renderApp(<Classes />, { user: teacher });
    const card = (await screen.findByRole("heading", { name: "Year 9 English" }, { timeout: 5000 })).closest("li")!;
    const members = within(card).getAllByRole("listitem").filter((li) => li.closest("ul")?.className === "members" && !li.closest("ul")?.getAttribute("aria-label"));
    expect(members.map((li) => li.textContent?.split(" ").slice(0, 2).join(" "))).toEqual(["ada lovelace", "Bea Stone", "émile Roux", "Zoe Hart"]);
  });

  it("shows the empty state when the teacher has no class", async () => {
    fakeServer(() => json({ classes: [] } satisfies components["schemas"]["ClassList"]));
    renderApp(<Classes />, { user: teacher });
    expect(await screen.findByText(/No classes yet/)).toBeInTheDocument();
  });

  it("says which due date stays when the class already has the deck", async () => {
    fakeServer((req) => {
      if (req.path === "/Me") return json(me);
      if (req.path === "/ListClasses") return json({ classes: [cls] } satisfies components["schemas"]["ClassList"]);
      if (req.path === "/ListDecks") return json({ decks } satisfies components["schemas"]["DeckList"]);
      // The server keeps the class's date (20 March, end of day in Tokyo), not the one asked for.
      return json({ ...answer([], [mia, noah]), due_at: "2026-03-20T14:59:59Z" } satisfies components["schemas"]["ClassAssignment"], 200);
    });
    const user = userEvent.setup();
    renderApp(<Classes />, { user: teacher });
    await user.selectOptions(await screen.findByLabelText("Deck"), "Rare verbs (30 words)");
    await waitFor(() => expect(screen.getByRole("button", { name: "Assign to 2 learners" })).toBeEnabled());
    await user.click(screen.getByRole("button", { name: "Assign to 2 learners" }));
    // The time and its zone: the end of 20 March in Tokyo, said so.
    expect(await screen.findByRole("status")).toHaveTextContent(/The class already has Rare verbs, due Mar 20(, 2026)?, 11:59\sPM Japan Time: that due date stays/);
  });

  it("assigns a library deck to the class in one request, due at the end of the chosen day in the teacher's zone", async () => {
    const server = fakeServer((req) => {
      if (req.path === "/Me") return json(me);
      if (req.path === "/ListClasses") return json({ classes: [cls] } satisfies components["schemas"]["ClassList"]);
      if (req.path === "/ListDecks") return json({ decks } satisfies components["schemas"]["DeckList"]);
      return json(answer([mia], [noah]), 201);
    });
    const user = userEvent.setup();
    renderApp(<Classes />, { user: teacher });
    const deck = await screen.findByLabelText("Deck");
    expect(within(deck).getByRole("group", { name: /Level 5/ })).toHaveTextContent("Rare verbs (30 words)");
    expect(within(deck).getByRole("group", { name: "Your decks" })).toHaveTextContent("My trip words (12 words)");
    await user.selectOptions(deck, "Rare verbs (30 words)");
    expect(screen.getByTestId("deck-detail")).toHaveTextContent("Level 5: words 801 and beyond · 30 words");
    const due = screen.getByLabelText("Due by the end of");
    await user.clear(due);
    const day = dayAfter(new Date(), 30, me.timezone);
    await user.type(due, day);
    await waitFor(() => expect(screen.getByRole("button", { name: "Assign to 2 learners" })).toBeEnabled());
    await user.click(screen.getByRole("button", { name: "Assign to 2 learners" }));

    expect(await screen.findByRole("status")).toHaveTextContent(
      `Rare verbs assigned to Mia Laurent, due ${inTokyo(answer([]).due_at)}. Noah Brooks already had it.`,
    );
    const sent = server.seen.filter((s) => s.path === "/CreateAssignment");
    expect(sent.map((s) => s.body)).toEqual([{ class_id: cls.id, deck_id: decks[1]!.id, due_at: `${day}T14:59:59.000Z` }]);
    expect(sent[0]!.headers.get("Idempotency-Key")).toBeTruthy();
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
  });

  // At 11:30 UTC on 1 March it is already 2 March at UTC+14 and still 28
  // February at UTC-12: whatever the browser's zone, one of the two
  // teachers' days is not the browser's.
  it.each([
    ["Pacific/Kiritimati", "2026-03-02", "2026-03-09", "2027-03-02", "2026-03-09T09:59:59.000Z"],
    ["Etc/GMT+12", "2026-02-28", "2026-03-07", "2027-02-28", "2026-03-08T11:59:59.000Z"],
  ])("offers the days of the teacher's zone (%s), not the browser's", async (timezone, today, week, year, dueAt) => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-03-01T11:30:00Z"));
    try {
      const server = fakeServer((req) => {
        if (req.path === "/Me") return json({ ...me, timezone });
        if (req.path === "/ListClasses") return json({ classes: [cls] } satisfies components["schemas"]["ClassList"]);
        if (req.path === "/ListDecks") return json({ decks } satisfies components["schemas"]["DeckList"]);
        return json(answer([mia, noah]), 201);
      });
      renderApp(<Classes />, { user: teacher });
      const user = userEvent.setup();
      await user.selectOptions(await screen.findByLabelText("Deck"), "Rare verbs (30 words)");
      const due = screen.getByLabelText("Due by the end of");
      await waitFor(() => expect(due).toHaveAttribute("min", today));
      expect(due).toHaveAttribute("max", year);
      expect(due).toHaveValue(week);
      await user.click(screen.getByRole("button", { name: "Assign to 2 learners" }));
      await screen.findByRole("status");
      expect(server.seen.filter((s) => s.path === "/CreateAssignment").map((s) => (s.body as { due_at: string }).due_at)).toEqual([dueAt]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("retries a failed assignment with the same key; a refusal shows with its field errors", async () => {
    let failures = 1;
    const server = fakeServer((req) => {
      if (req.path === "/Me") return json(me);
      if (req.path === "/ListClasses") return json({ classes: [cls] } satisfies components["schemas"]["ClassList"]);
      if (req.path === "/ListDecks") return json({ decks } satisfies components["schemas"]["DeckList"]);
      if (failures-- > 0) return problem(503, "Service unavailable");
      if ((req.body as { deck_id: string }).deck_id === decks[0]!.id)
        return problem(400, "Invalid request", { errors: [{ field: "due_at", reason: "must be in the future" }] });
      return json(answer([mia, noah]), 201);
    });
    const user = userEvent.setup();
    renderApp(<Classes />, { user: teacher });
    await user.selectOptions(await screen.findByLabelText("Deck"), "Rare verbs (30 words)");
    await user.click(screen.getByRole("button", { name: "Assign to 2 learners" }));
    expect(await screen.findByRole("status", {}, { timeout: 3000 })).toHaveTextContent(
      `Rare verbs assigned to Mia Laurent, Noah Brooks, due ${inTokyo(answer([]).due_at)}.`,
    );
    const sent = server.seen.filter((s) => s.path === "/CreateAssignment");
    expect(sent).toHaveLength(2);
    expect(sent[0]!.headers.get("Idempotency-Key")).toBe(sent[1]!.headers.get("Idempotency-Key"));

    await user.selectOptions(screen.getByLabelText("Deck"), "Everyday nouns (25 words)");
    await user.click(screen.getByRole("button", { name: "Assign to 2 learners" }));
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("Not assigned: Invalid request");
    expect(within(alert).getByRole("list", { name: "Field errors" })).toHaveTextContent("Due date: must be in the future");
  });

  it("creates a class and shows its join code; a refusal shows its title and field errors", async () => {
    let created = false;
    const server = fakeServer((req) => {
      if (req.path === "/ListClasses") return json({ classes: created ? [{ ...cls, name: "Evening B", members: [] }] : [] } satisfies components["schemas"]["ClassList"]);
      if (req.path === "/ListDecks") return json({ decks } satisfies components["schemas"]["DeckList"]); // the new class's assign form
      if ((req.body as { name: string }).name === "x".repeat(3)) {
        return problem(400, "Invalid request", { errors: [{ field: "name", reason: "must be one line" }] });
      }
      created = true;
      return json({ ...cls, name: "Evening B", join_code: "K7QX2M", members: [] } satisfies components["schemas"]["Class"], 201);
    });
    const user = userEvent.setup();
    renderApp(<Classes />, { user: teacher });
    await screen.findByText(/No classes yet/);
    const name = screen.getByLabelText("Class name");
    await user.type(name, "xxx");
    await user.click(screen.getByRole("button", { name: "Create class" }));
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("No class created: Invalid request");
    expect(within(alert).getByRole("list", { name: "Field errors" })).toHaveTextContent("Class name: must be one line");
    expect(screen.getByText(/No classes yet/)).toBeInTheDocument();

    await user.clear(name);
    await user.type(name, "Evening B");
    await user.click(screen.getByRole("button", { name: "Create class" }));
    expect(await screen.findByRole("status")).toHaveTextContent("Evening B created; its join code is K7QX2M.");
    await screen.findByRole("heading", { name: "Evening B" });
    const creates = server.seen.filter((s) => s.path === "/CreateClass");
    expect(creates).toHaveLength(2);
    expect(creates[1]!.headers.get("Idempotency-Key")).toBeTruthy();
    expect(creates[1]!.headers.get("Idempotency-Key")).not.toBe(creates[0]!.headers.get("Idempotency-Key"));
    await waitFor(() => expect(screen.queryByRole("alert")).not.toBeInTheDocument());
  });

  it("a double click creates one class; the same form sent again after a failure keeps its key, a success or an edit takes a new one", async () => {
    const answers = [problem(409, "Try again"), null, problem(409, "Try again"), null];
    const first = gate();
    const server = fakeServer(async (req) => {
      if (req.path === "/ListClasses") return json({ classes: [] } satisfies components["schemas"]["ClassList"]);
      await first.wait();
      const name = (req.body as { name: string }).name;
      return answers.shift() ?? json({ ...cls, name, join_code: "K7QX2M", members: [] } satisfies components["schemas"]["Class"], 201);
    });
    const user = userEvent.setup();
    renderApp(<Classes />, { user: teacher });
    await screen.findByText(/No classes yet/);
    const name = screen.getByLabelText("Class name");
    const button = screen.getByRole("button", { name: "Create class" });
    const creates = () => server.seen.filter((s) => s.path === "/CreateClass");

    await user.type(name, "Evening B");
    doubleClick(button);
    first.open();
    expect(await screen.findByRole("alert")).toHaveTextContent("No class created: Try again");
    expect(creates()).toHaveLength(1);
    // The same form again: the same intent, the same key.
    await user.click(button);
    expect(await screen.findByRole("status")).toHaveTextContent("Evening B created");
    // After a success: a new class, a new key.
    await user.type(name, "Evening B");
    await user.click(button);
    expect(await screen.findByRole("alert")).toHaveTextContent("No class created: Try again");
    // An edit: a new key.
    await user.type(name, "2");
    await user.click(button);
    expect(await screen.findByRole("status")).toHaveTextContent("Evening B2 created");

    const keys = creates().map((s) => s.headers.get("Idempotency-Key"));
    expect(creates().map((s) => (s.body as { name: string }).name)).toEqual(["Evening B", "Evening B", "Evening B", "Evening B2"]);
    expect(keys[1]).toBe(keys[0]);
    expect(new Set(keys).size).toBe(3);
  });

  it("adds a learner by email with one key per intent; a refusal shows its field errors, an existing account is invited", async () => {
    let added = false;
    const server = fakeServer((req) => {
      if (req.path === "/Me") return json(me);
      if (req.path === "/ListClasses") {
        const zoe = { learner_id: "00000000-0000-4000-8000-000000000003", display_name: "Zoe Park", account_name: "Zoe Park", email: "zoe@lexora.test", joined_at: "2026-03-03T10:00:00Z" };
        return json({ classes: [{ ...cls, members: added ? [...cls.members, zoe] : cls.members }] } satisfies components["schemas"]["ClassList"]);
      }
      if (req.path === "/ListDecks") return json({ decks } satisfies components["schemas"]["DeckList"]);
      const body = req.body as { email: string };
      if (body.email === "bad@lexora.test")
        return problem(400, "Invalid request", { errors: [{ field: "display_name", reason: "must be one line of visible text" }] });
      if (body.email === "sam@elsewhere.test") return json({ class_id: cls.id, email: body.email, status: "invited" } satisfies components["schemas"]["Invitation"], 202);
      added = true;
      return json(
        { class_id: cls.id, class_name: cls.name, learner_id: "00000000-0000-4000-8000-000000000003", assignments: [] } satisfies components["schemas"]["Enrollment"],
        201,
      );
    });
    const user = userEvent.setup();
    renderApp(<Classes />, { user: teacher });
    const form = (await screen.findByRole("heading", { name: "Add a learner to Year 9 English" })).closest("form")!;
    const email = within(form).getByLabelText("Learner's email");
    const name = within(form).getByLabelText(/Learner's name/);
    const button = within(form).getByRole("button", { name: "Add learner" });

    await user.type(email, "bad@lexora.test");
    await user.type(name, "Bad");
    await user.click(button);
    const alert = await within(form).findByRole("alert");
    expect(alert).toHaveTextContent("bad@lexora.test was not added: Invalid request");
    expect(within(alert).getByRole("list", { name: "Field errors" })).toHaveTextContent("Learner's name: must be one line of visible text");
    await user.click(button);
    await waitFor(() => expect(server.seen.filter((s) => s.path === "/EnrollLearner")).toHaveLength(2));

    await user.clear(email);
    await user.clear(name);
    await user.type(email, " zoe@lexora.test ");
    await user.type(name, "Zoe Park");
    await user.click(button);
    expect(await within(form).findByRole("status")).toHaveTextContent("zoe@lexora.test added to Year 9 English: they sign in with that email.");
    expect(await screen.findByText("Zoe Park")).toBeInTheDocument();
    expect(screen.getByText("3 learners")).toBeInTheDocument();
    expect(email).toHaveValue("");

    await user.type(email, "sam@elsewhere.test");
    await user.click(button);
    expect(await within(form).findByRole("status")).toHaveTextContent("sam@elsewhere.test already has a Lexora account, so they are invited");

    const adds = server.seen.filter((s) => s.path === "/EnrollLearner");
    expect(adds.map((s) => s.body)).toEqual([
      { class_id: cls.id, email: "bad@lexora.test", display_name: "Bad" },
      { class_id: cls.id, email: "bad@lexora.test", display_name: "Bad" },
      { class_id: cls.id, email: "zoe@lexora.test", display_name: "Zoe Park" },
      { class_id: cls.id, email: "sam@elsewhere.test" },
    ]);
    const keys = adds.map((s) => s.headers.get("Idempotency-Key"));
    expect(keys[1]).toBe(keys[0]);
    expect(new Set(keys).size).toBe(3);
  });

  it("a double click on Assign sends one request; sent again after a refusal, it keeps the key", async () => {
    let refuse = true;
    const first = gate();
    const server = fakeServer(async (req) => {
      if (req.path === "/Me") return json(me);
      if (req.path === "/ListClasses") return json({ classes: [cls] } satisfies components["schemas"]["ClassList"]);
      if (req.path === "/ListDecks") return json({ decks } satisfies components["schemas"]["DeckList"]);
      await first.wait();
      if (refuse) {
        refuse = false;
        return problem(403, "Not now");
      }
      return json(answer([mia, noah]), 201);
    });
    const user = userEvent.setup();
    renderApp(<Classes />, { user: teacher });
    await user.selectOptions(await screen.findByLabelText("Deck"), "Rare verbs (30 words)");
    await waitFor(() => expect(screen.getByRole("button", { name: "Assign to 2 learners" })).toBeEnabled());
    doubleClick(screen.getByRole("button", { name: "Assign to 2 learners" }));
    first.open();
    expect(await screen.findByRole("alert")).toHaveTextContent("Not assigned: Not now");
    const sent = () => server.seen.filter((s) => s.path === "/CreateAssignment");
    expect(sent()).toHaveLength(1);
    await user.click(screen.getByRole("button", { name: "Assign to 2 learners" }));
    expect(await screen.findByRole("status")).toHaveTextContent(`Rare verbs assigned to Mia Laurent, Noah Brooks, due ${inTokyo(answer([]).due_at)}.`);
    const keys = sent().map((s) => s.headers.get("Idempotency-Key"));
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });
});
