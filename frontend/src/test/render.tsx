import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { fireEvent, render } from "@testing-library/react";
import { useState, type ReactElement, type ReactNode } from "react";
import { MemoryRouter } from "react-router";
import { vi } from "vitest";
import { ApiProvider } from "../api/ApiContext";
import { AuthValue, type Auth } from "../auth/AuthContext";
import type { SessionUser } from "../auth/session";
import { indexedDbStore, type ReviewStore } from "../features/learner/review/queue";
import type { SenderOptions } from "../features/learner/review/sender";
import { ReviewSenderProvider } from "../features/learner/review/SenderContext";

/** A request the fake server received: method, function path, headers, JSON body. */
export interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body: unknown;
}

/**
 * A fake of the functions: handler answers each request (a Response, or
 * throws for a network failure); every request is recorded in `seen`.
 */
export function fakeServer(handler: (req: Seen) => Response | Promise<Response>) {
  const seen: Seen[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = input instanceof Request ? input : new Request(new URL(String(input), "http://localhost"), init);
    const url = new URL(req.url);
    const text = req.method === "GET" ? "" : await req.text();
    const s: Seen = {
      method: req.method,
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: text ? JSON.parse(text) : undefined,
    };
    seen.push(s);
    return handler(s);
  });
  vi.stubGlobal("fetch", fetch);
  return { seen, fetch };
}

/**
 * A gate a fake server's answer can wait on, so that a test acts while a
 * request is in flight (a second click): wait() resolves once open() is called.
 */
export function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { wait: () => opened, open: () => open() };
}

/**
 * Two clicks in a row, the second before the page re-renders: a quick
 * double click, which reaches a button before its disabled state does.
 */
export function doubleClick(element: Element) {
  fireEvent.click(element);
  fireEvent.click(element);
}

export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": status >= 400 ? "application/problem+json" : "application/json" },
  });
}

export const learner: SessionUser = {
  id: "00000000-0000-4000-8000-000000000001",
  displayName: "Mia",
  email: "mia@lexora.test",
  role: "learner",
};

let dbCount = 0;

/** A fresh IndexedDB (fake-indexeddb) store per test. */
export function freshStore(): ReviewStore {
  return indexedDbStore(`lexora-test-${++dbCount}-${Math.random()}`);
}

/** A test's sign-in: user, signed in from the start or (signedOut) once signInAs is called. */
function TestAuth({ user, signedOut, children }: { user: SessionUser; signedOut: boolean; children: ReactNode }) {
  const [current, setCurrent] = useState(signedOut ? null : user);
  const auth: Auth = {
    user: current,
    ready: true,
    token: async () => "test-token",
    signInAs: async () => setCurrent(user),
    signInWithGoogle: async () => setCurrent(user),
    signOut: async () => setCurrent(null),
  };
  return <AuthValue value={auth}>{children}</AuthValue>;
}

/**
 * Renders ui as the signed-in user at path, with a rating sender on store;
 * signedOut: signed out until the sign-in screen signs in (as user).
 */
export function renderApp(
  ui: ReactElement,
  {
    user = learner,
    store = freshStore(),
    sender,
    path = "/",
    signedOut = false,
  }: { user?: SessionUser; store?: ReviewStore; sender?: SenderOptions; path?: string; signedOut?: boolean } = {},
) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  const result = render(
    <QueryClientProvider client={queryClient}>
      <TestAuth user={user} signedOut={signedOut}>
        <ApiProvider>
          <MemoryRouter initialEntries={[path]}>
            <ReviewSenderProvider learnerId={user.id} store={store} options={sender}>
              {ui}
            </ReviewSenderProvider>
          </MemoryRouter>
        </ApiProvider>
      </TestAuth>
    </QueryClientProvider>,
  );
  return { ...result, store, queryClient };
}
