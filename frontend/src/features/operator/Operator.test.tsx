import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { components, operations } from "../../api/schema";
import { fakeServer, json, renderApp } from "../../test/render";
import { Operator } from "./Operator";

const operator = { id: "00000000-0000-4000-8000-0000000000f0", displayName: "Olu", email: "ops@lexora.test", role: "operator" as const };

const dead = {
  id: 170,
  event_id: "0b6f1c2e-8d4a-4f3b-9c5e-7a1d2e3f4a5b",
  subscriber: "webhook",
  topic: "assignment.created",
  ordering_key: "00000000-0000-4000-8000-000000000001",
  attempts: 1,
  last_error: "status 400 Bad Request",
  dead_at: "2026-03-02T09:00:00Z",
  created_at: "2026-03-02T08:59:00Z",
  blocking: 0,
  endpoints: [],
} satisfies components["schemas"]["DeadDelivery"];

const health = {
  backlog: [],
  dead: [{ subscriber: "webhook", topic: "assignment.created", count: 1 }],
  blocked_keys: 0,
  delivered_per_minute: [0],
} satisfies components["schemas"]["OutboxHealth"];

/** A function's answer with status 200, for the answers that have no schema of their own. */
type Answer<F extends "ReplayDeadLetters" | "SkipDeadLetters"> = operations[F]["responses"][200]["content"]["application/json"];

/** A refusal to replay or skip: the operator may try again. */
const tryAgain = { type: "https://lexora.app/problems/x", title: "Try again", status: 409 } satisfies components["schemas"]["Problem"];

describe("Operator", () => {
  it("a replay confirmed again after a failure keeps its key; an edited reason takes a new one", async () => {
    const answers = [
      json(tryAgain, 409),
      json(tryAgain, 409),
    ];
    const server = fakeServer((req) => {
      if (req.path === "/OutboxHealth") return json(health);
      if (req.path === "/ListDeadLetters") return json({ dead: [dead] } satisfies components["schemas"]["DeadLetters"]);
      return answers.shift() ?? json({ replayed: 1 } satisfies Answer<"ReplayDeadLetters">);
    });
    const user = userEvent.setup();
    renderApp(<Operator />, { user: operator });
    await user.click(await screen.findByRole("checkbox", { name: /Select delivery 170 / }));
    await user.click(screen.getByRole("button", { name: "Replay selected…" }));
    await user.type(screen.getByLabelText(/Reason/), "receiver fixed");
    const confirm = screen.getByRole("button", { name: "Confirm replay" });
    await user.click(confirm);
    expect(await screen.findByRole("alert")).toHaveTextContent("Nothing was changed: Try again");
    await user.click(confirm);
    await waitFor(() => expect(server.seen.filter((s) => s.path === "/ReplayDeadLetters")).toHaveLength(2));
    await user.type(screen.getByLabelText(/Reason/), " at 10:00");
    await user.click(confirm);
    expect(await screen.findByText("1 delivery replayed.")).toBeInTheDocument();

    const replays = server.seen.filter((s) => s.path === "/ReplayDeadLetters");
    expect(replays.map((s) => s.body)).toEqual([
      { ids: [170], reason: "receiver fixed" },
      { ids: [170], reason: "receiver fixed" },
      { ids: [170], reason: "receiver fixed at 10:00" },
    ]);
    const keys = replays.map((s) => s.headers.get("Idempotency-Key"));
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[0]);
  });

  it("asks a reason on one line, moves the focus to it, and sends nothing while it is blank", async () => {
    const server = fakeServer((req) => {
      if (req.path === "/OutboxHealth") return json(health);
      if (req.path === "/ListDeadLetters") return json({ dead: [dead] } satisfies components["schemas"]["DeadLetters"]);
      return json({ skipped: 1 } satisfies Answer<"SkipDeadLetters">);
    });
    const user = userEvent.setup();
    renderApp(<Operator />, { user: operator });
    await user.click(await screen.findByRole("checkbox", { name: /Select delivery 170 / }));
    await user.click(screen.getByRole("button", { name: "Skip selected…" }));
    const reason = screen.getByRole("textbox", { name: /Reason/ });
    expect(reason).toHaveFocus();
    expect(reason.tagName).toBe("INPUT");
    expect(reason).toBeRequired();
    await user.type(reason, "   ");
    await user.click(screen.getByRole("button", { name: "Confirm skip" }));
    expect(await screen.findByText("Give a reason: it is recorded in the audit log.")).toBeInTheDocument();
    expect(server.seen.filter((s) => s.path === "/SkipDeadLetters")).toEqual([]);
    // Enter in the one-line field confirms.
    await user.type(reason, "duplicate event{Enter}");
    expect(await screen.findByText("1 delivery skipped.")).toBeInTheDocument();
    expect(server.seen.find((s) => s.path === "/SkipDeadLetters")!.body).toEqual({ ids: [170], reason: "duplicate event" });
  });

  it("names each dead webhook delivery's endpoint, selects the whole list, and counts the confirmation right", async () => {
    const named = {
      ...dead,
      last_error: "endpoint 5b0f3f5e-7d47-4c1b-9a55-9e3c8b1d2a10: status 404 Not Found",
      endpoints: [
        { id: "5b0f3f5e-7d47-4c1b-9a55-9e3c8b1d2a10", url: "https://school.example/hooks", teacher_name: "Ada Okafor", teacher_email: "ada@lexora.test" },
      ],
    } satisfies components["schemas"]["DeadDelivery"];
    const other = { ...dead, id: 171, subscriber: "email" } satisfies components["schemas"]["DeadDelivery"];
    fakeServer((req) => {
      if (req.path === "/OutboxHealth") return json(health);
      if (req.path === "/ListDeadLetters") return json({ dead: [named, other] } satisfies components["schemas"]["DeadLetters"]);
      return json({ replayed: 2 } satisfies Answer<"ReplayDeadLetters">);
    });
    const user = userEvent.setup();
    renderApp(<Operator />, { user: operator });
    const row = (await screen.findByRole("checkbox", { name: /Select delivery 170 / })).closest("tr")!;
    expect(row).toHaveTextContent("https://school.example/hooks");
    expect(row).toHaveTextContent("Ada Okafor (ada@lexora.test)");

    await user.click(screen.getByRole("checkbox", { name: "Select all 2 dead deliveries listed" }));
    expect(screen.getByRole("checkbox", { name: /Select delivery 170 / })).toBeChecked();
    expect(screen.getByRole("checkbox", { name: /Select delivery 171 / })).toBeChecked();
    await user.click(screen.getByRole("button", { name: "Replay selected…" }));
    expect(screen.getByRole("heading", { name: "Replay 2 dead deliveries?" })).toBeInTheDocument();
    expect(screen.getByText(/^They become pending again/)).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Cancel" }));

    await user.click(screen.getByRole("checkbox", { name: /Select delivery 171 / }));
    expect(screen.getByRole("checkbox", { name: "Select all 2 dead deliveries listed" })).not.toBeChecked();
    expect(screen.getByRole<HTMLInputElement>("checkbox", { name: "Select all 2 dead deliveries listed" }).indeterminate).toBe(true);
    await user.click(screen.getByRole("button", { name: "Replay selected…" }));
    expect(screen.getByRole("heading", { name: "Replay 1 dead delivery?" })).toBeInTheDocument();
    expect(screen.getByText("It becomes pending again with a fresh attempt budget, and the next drain delivers it.")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Cancel" }));
    await user.click(screen.getByRole("checkbox", { name: "Select all 2 dead deliveries listed" }));
    await user.click(screen.getByRole("checkbox", { name: "Select all 2 dead deliveries listed" }));
    expect(screen.getByRole("button", { name: "Replay selected…" })).toBeDisabled();
  });

  it("draws the operators' deliveries per minute and lists the backlog", async () => {
    const perMinute = Array.from({ length: 60 }, (_, i) => (i % 10 === 0 ? 5 : 0));
    fakeServer((req) =>
      req.path === "/OutboxHealth"
        ? json({
            backlog: [{ subscriber: "email", topic: "assignment.created", pending: 4, due: 2, oldest_age_seconds: 125 }],
            dead: [{ subscriber: "webhook", topic: "assignment.created", count: 1 }],
            blocked_keys: 0,
            delivered_per_minute: perMinute,
          } satisfies components["schemas"]["OutboxHealth"])
        : json({ dead: [] } satisfies components["schemas"]["DeadLetters"]),
    );
    const { container } = renderApp(<Operator />, { user: operator });
    expect(await screen.findByText("Deliveries per minute, last hour")).toBeInTheDocument();
    expect(container.querySelectorAll(".recharts-rectangle").length).toBe(6);
    expect(screen.getByRole("cell", { name: "2 min 5 s" })).toBeInTheDocument();
    expect(await screen.findByText("No dead letters.")).toBeInTheDocument();
  });
});
