import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { components } from "../../api/schema";
import { doubleClick, fakeServer, gate, json, renderApp } from "../../test/render";
import { Webhooks } from "./Webhooks";

const teacher = { id: "00000000-0000-4000-8000-00000000000a", displayName: "Ada", email: "ada@lexora.test", role: "teacher" as const };

const endpoint = {
  id: "5b0f3f5e-7d47-4c1b-9a55-9e3c8b1d2a10",
  url: "https://school.example/hooks",
  topics: ["assignment.completed"],
  created_at: "2026-03-02T09:00:00Z",
  disabled_at: null,
  disabled_reason: null,
  previous_secret_expires_at: null,
} satisfies components["schemas"]["WebhookEndpoint"];

/** Opens the screen as the teacher with no endpoint yet and fills its form: url, and the event whose label matches topic. */
async function fillForm(url: string, topic: RegExp) {
  const user = userEvent.setup();
  renderApp(<Webhooks />, { user: teacher });
  expect(await screen.findByText("No endpoints yet.")).toBeInTheDocument();
  await user.type(screen.getByLabelText(/Endpoint URL/), url);
  await user.click(screen.getByRole("checkbox", { name: topic }));
  return user;
}

describe("Webhooks", () => {
  it("shows a failing endpoint as failing, with its last delivery, last error, failures in a row and what to do", async () => {
    const failing = {
      ...endpoint,
      health: {
        state: "failing",
        last_delivery_at: "2026-03-02T11:00:00Z",
        last_accepted_at: "2026-03-02T09:30:00Z",
        last_error: "status 404 Not Found",
        last_error_at: "2026-03-02T11:00:00Z",
        last_error_retried: false,
        failures_in_row: 3,
        action: "Its receiver rejected the last 3 deliveries with status 404 Not Found: check the URL and the receiver.",
      },
    } satisfies components["schemas"]["WebhookEndpoint"];
    const gone = {
      ...endpoint,
      id: "5b0f3f5e-7d47-4c1b-9a55-9e3c8b1d2a11",
      url: "https://school.example/gone",
      disabled_at: "2026-03-02T10:00:00Z",
      disabled_reason: "the receiver answered 410 Gone",
      health: { ...failing.health, state: "disabled", failures_in_row: 1, action: "It receives nothing. Fix the receiver, then enable it." },
    } satisfies components["schemas"]["WebhookEndpoint"];
    fakeServer(() => json({ endpoints: [failing, gone] } satisfies components["schemas"]["WebhookEndpointList"]));
    renderApp(<Webhooks />, { user: teacher });
    const [first, second] = await screen.findAllByTestId("health");
    const row = first!.closest("li")!;
    expect(row).toHaveTextContent("Failing");
    expect(row).not.toHaveTextContent("Active");
    expect(first).toHaveTextContent(/Last delivery: .*2026/);
    expect(first).toHaveTextContent("last error status 404 Not Found");
    expect(first).toHaveTextContent("3 deliveries failed in a row");
    expect(first).toHaveTextContent("What to do: Its receiver rejected the last 3 deliveries");
    expect(second!.closest("li")).toHaveTextContent("Disabled");
    expect(second).toHaveTextContent("1 delivery failed in a row");
    expect(second).toHaveTextContent("What to do: It receives nothing.");
  });

  it("shows an endpoint whose receiver is down (503, no answer) as failing, with the attempts in a row and that Lexora retries", async () => {
    const down = {
      ...endpoint,
      health: {
        state: "failing",
        last_delivery_at: "2026-03-02T11:00:00Z",
        last_accepted_at: null,
        last_error: "status 503 Service Unavailable",
        last_error_at: "2026-03-02T11:00:00Z",
        last_error_retried: true,
        failures_in_row: 4,
        action:
          "Its receiver failed the last 4 attempts (latest: status 503 Service Unavailable). Lexora retries with backoff; check that the receiver is up and answers within the time allowed.",
      },
    } satisfies components["schemas"]["WebhookEndpoint"];
    fakeServer(() => json({ endpoints: [down] } satisfies components["schemas"]["WebhookEndpointList"]));
    renderApp(<Webhooks />, { user: teacher });
    const health = await screen.findByTestId("health");
    expect(health.closest("li")).toHaveTextContent("Failing");
    expect(health.closest("li")).not.toHaveTextContent("Nothing sent yet");
    expect(health).toHaveTextContent("last error status 503 Service Unavailable (retried)");
    expect(health).toHaveTextContent("4 attempts failed in a row");
    expect(health).toHaveTextContent("What to do: Its receiver failed the last 4 attempts");
    expect(health).toHaveTextContent("Lexora retries with backoff; check that the receiver is up");
  });

  it("says which addresses the endpoint field takes: https, and http on a local stack", async () => {
    fakeServer(() => json({ endpoints: [] } satisfies components["schemas"]["WebhookEndpointList"]));
    renderApp(<Webhooks />, { user: teacher });
    const field = await screen.findByLabelText("Endpoint URL");
    expect(field).toHaveAccessibleDescription("An https:// address. A local stack (make run) also takes http://.");
  });

  it("keeps the URL within the server's 2,000 characters: a longer paste is cut and said so, and the cut URL is sent", async () => {
    const server = fakeServer((req) =>
      req.path === "/ListWebhookEndpoints"
        ? json({ endpoints: [] } satisfies components["schemas"]["WebhookEndpointList"])
        : json({ type: "https://lexora.app/problems/validation-failed", title: "Invalid request", status: 400 }, 400),
    );
    const user = userEvent.setup();
    renderApp(<Webhooks />, { user: teacher });
    expect(await screen.findByText("No endpoints yet.")).toBeInTheDocument();
    const field = screen.getByLabelText("Endpoint URL");
    const long = "https://school.example/" + "p".repeat(2100);
    await user.click(field);
    await user.paste(long);
    expect(field).toHaveValue(long.slice(0, 2000));
    expect(screen.getByText("The pasted text was cut to 2,000 characters.")).toBeInTheDocument();
    expect(field).toHaveAccessibleDescription("An https:// address. A local stack (make run) also takes http://. 2,000 of 2,000 characters");
    await user.click(screen.getByRole("checkbox", { name: /A deck was assigned/ }));
    await user.click(screen.getByRole("button", { name: "Register" }));
    await waitFor(() => expect(server.seen.some((s) => s.path === "/RegisterWebhookEndpoint")).toBe(true));
    expect(server.seen.find((s) => s.path === "/RegisterWebhookEndpoint")?.body).toMatchObject({ url: long.slice(0, 2000) });
  });

  it("shows a refusal's title and field errors, and changes nothing", async () => {
    const server = fakeServer((req) =>
      req.path === "/ListWebhookEndpoints"
        ? json({ endpoints: [] } satisfies components["schemas"]["WebhookEndpointList"])
        : json(
            {
              type: "https://lexora.app/problems/validation-failed",
              title: "Invalid request",
              status: 400,
              errors: [{ field: "url", reason: "must be https" }],
            },
            400,
          ),
    );
    const user = await fillForm("http://insecure.example/hook", /A deck was assigned/);
    await user.click(screen.getByRole("button", { name: "Register" }));

    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("Not registered: Invalid request");
    expect(screen.getByRole("list", { name: "Field errors" })).toHaveTextContent("URL: must be https");
    expect(server.seen.filter((s) => s.path === "/RegisterWebhookEndpoint")).toHaveLength(1);
    expect(screen.getByText("No endpoints yet.")).toBeInTheDocument();
  });

  it("shows the secret once after registering, then lists the endpoint without it", async () => {
    let registered = false;
    const server = fakeServer((req) => {
      if (req.path === "/ListWebhookEndpoints") return json({ endpoints: registered ? [endpoint] : [] } satisfies components["schemas"]["WebhookEndpointList"]);
      registered = true;
      return json({ ...endpoint, secret: "whsec_c2VjcmV0" } satisfies components["schemas"]["WebhookEndpoint"], 201);
    });
    const user = await fillForm(endpoint.url, /A learner completed/);
    await user.click(screen.getByRole("button", { name: "Register" }));

    expect(await screen.findByTestId("secret")).toHaveTextContent("whsec_c2VjcmV0");
    expect(await screen.findByText(endpoint.url, { selector: "code.url" })).toBeInTheDocument();
    const reg = server.seen.find((s) => s.path === "/RegisterWebhookEndpoint")!;
    expect(reg.body).toEqual({ url: endpoint.url, topics: ["assignment.completed"] });
    expect(reg.headers.get("Idempotency-Key")).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Done" }));
    await waitFor(() => expect(screen.queryByTestId("secret")).not.toBeInTheDocument());
  });

  it("says that an endpoint with no topics gets all events", async () => {
    fakeServer(() => json({ endpoints: [{ ...endpoint, topics: [] }] } satisfies components["schemas"]["WebhookEndpointList"]));
    renderApp(<Webhooks />, { user: teacher });
    expect(await screen.findByText(/^all events · registered/)).toBeInTheDocument();
  });

  it("moves the focus into the delete confirmation, onto Cancel", async () => {
    fakeServer(() => json({ endpoints: [endpoint] } satisfies components["schemas"]["WebhookEndpointList"]));
    const user = userEvent.setup();
    renderApp(<Webhooks />, { user: teacher });
    await user.click(await screen.findByRole("button", { name: "Delete" }));
    expect(screen.getByRole("button", { name: "Cancel" })).toHaveFocus();
  });

  it("a double click registers one endpoint", async () => {
    const first = gate();
    const server = fakeServer(async (req) => {
      if (req.path === "/ListWebhookEndpoints") return json({ endpoints: [] } satisfies components["schemas"]["WebhookEndpointList"]);
      await first.wait();
      return json({ ...endpoint, secret: "whsec_c2VjcmV0" } satisfies components["schemas"]["WebhookEndpoint"], 201);
    });
    await fillForm(endpoint.url, /A learner completed/);
    doubleClick(screen.getByRole("button", { name: "Register" }));
    first.open();
    expect(await screen.findByTestId("secret")).toHaveTextContent("whsec_c2VjcmV0");
    expect(server.seen.filter((s) => s.path === "/RegisterWebhookEndpoint")).toHaveLength(1);
  });

  it("a double click on Rotate rotates once, and Rotate waits until the new secret is put away", async () => {
    let n = 0;
    const first = gate();
    const server = fakeServer(async (req) => {
      if (req.path === "/ListWebhookEndpoints") return json({ endpoints: [endpoint] } satisfies components["schemas"]["WebhookEndpointList"]);
      await first.wait();
      return json({ ...endpoint, secret: `whsec_${++n}` } satisfies components["schemas"]["WebhookEndpoint"]);
    });
    const user = userEvent.setup();
    renderApp(<Webhooks />, { user: teacher });
    const rotate = await screen.findByRole("button", { name: "Rotate secret" });
    doubleClick(rotate);
    first.open();
    expect(await screen.findByTestId("secret")).toHaveTextContent("whsec_1");
    expect(rotate).toBeDisabled();
    await user.click(screen.getByRole("button", { name: "Done" }));
    await waitFor(() => expect(rotate).toBeEnabled());
    await user.click(rotate);
    expect(await screen.findByTestId("secret")).toHaveTextContent("whsec_2");

    const rotations = server.seen.filter((s) => s.path === "/RotateWebhookSecret");
    expect(rotations).toHaveLength(2);
    expect(rotations[1]!.headers.get("Idempotency-Key")).not.toBe(rotations[0]!.headers.get("Idempotency-Key"));
  });

  it("starts with no event ticked and sends nothing until one is", async () => {
    const server = fakeServer((req) =>
      req.path === "/ListWebhookEndpoints"
        ? json({ endpoints: [] } satisfies components["schemas"]["WebhookEndpointList"])
        : json({ ...endpoint, secret: "whsec_c2VjcmV0" } satisfies components["schemas"]["WebhookEndpoint"], 201),
    );
    const user = userEvent.setup();
    renderApp(<Webhooks />, { user: teacher });
    await screen.findByText("No endpoints yet.");
    for (const box of screen.getAllByRole("checkbox")) expect(box).not.toBeChecked();
    await user.type(screen.getByLabelText(/Endpoint URL/), endpoint.url);
    await user.click(screen.getByRole("button", { name: "Register" }));

    expect(await screen.findByRole("alert")).toHaveTextContent("Choose at least one event");
    expect(server.seen.filter((s) => s.path === "/RegisterWebhookEndpoint")).toHaveLength(0);
    await user.click(screen.getByRole("checkbox", { name: /A deck was assigned/ }));
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Register" }));
    expect(await screen.findByTestId("secret")).toBeInTheDocument();
    const reg = server.seen.filter((s) => s.path === "/RegisterWebhookEndpoint");
    expect(reg.map((s) => s.body)).toEqual([{ url: endpoint.url, topics: ["assignment.created"] }]);
  });

  it("forgets a refusal once the form is edited, also when the browser then blocks the submit", async () => {
    const server = fakeServer((req) =>
      req.path === "/ListWebhookEndpoints"
        ? json({ endpoints: [] } satisfies components["schemas"]["WebhookEndpointList"])
        : json(
            {
              type: "https://lexora.app/problems/webhook-url-taken",
              title: "Endpoint already registered",
              status: 409,
            } satisfies components["schemas"]["Problem"],
            409,
          ),
    );
    const user = await fillForm(endpoint.url, /A deck was assigned/);
    const url = screen.getByLabelText(/Endpoint URL/);
    await user.click(screen.getByRole("button", { name: "Register" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Not registered: Endpoint already registered");

    await user.clear(url); // required: the browser refuses the next submit
    await user.click(screen.getByRole("button", { name: "Register" }));
    expect(url).toBeInvalid();
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
    expect(server.seen.filter((s) => s.path === "/RegisterWebhookEndpoint")).toHaveLength(1);
  });

  it("a second click on Yes, delete while the list is still being fetched sends no second delete", async () => {
    let deleted = false;
    const refetch = gate();
    const server = fakeServer(async (req) => {
      if (req.path === "/DeleteWebhookEndpoint") {
        if (deleted) return json({ type: "https://lexora.app/problems/not-found", title: "Not found", status: 404 } satisfies components["schemas"]["Problem"], 404);
        deleted = true;
        return json({ ...endpoint, disabled_at: "2026-03-02T10:00:00Z" } satisfies components["schemas"]["WebhookEndpoint"]);
      }
      if (deleted) await refetch.wait();
      return json({ endpoints: deleted ? [] : [endpoint] } satisfies components["schemas"]["WebhookEndpointList"]);
    });
    const user = userEvent.setup();
    renderApp(<Webhooks />, { user: teacher });
    await user.click(await screen.findByRole("button", { name: "Delete" }));
    const yes = screen.getByRole("button", { name: "Yes, delete" });
    doubleClick(yes);
    await waitFor(() => expect(server.seen.filter((s) => s.path === "/ListWebhookEndpoints")).toHaveLength(2));
    await user.click(yes); // the delete is answered, the list not yet
    expect(yes).toBeDisabled();
    refetch.open();
    expect(await screen.findByText("No endpoints yet.")).toBeInTheDocument();
    expect(server.seen.filter((s) => s.path === "/DeleteWebhookEndpoint")).toHaveLength(1);
  });
});
