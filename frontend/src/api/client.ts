import createClient, { type Middleware } from "openapi-fetch";
import type { paths } from "./schema";
import { clockMiddleware } from "./clock";
import { ApiError } from "./problem";

export type { components } from "./schema";

/** Returns the current ID token, or null when signed out. */
export type TokenSource = () => Promise<string | null>;

/**
 * The functions' client, typed from functions/openapi.yaml (schema.d.ts is
 * generated from it by `npm run gen`, and make test fails when it is stale).
 * The functions are served from the client's own origin (`make run`, or
 * Vite's proxy in `npm run dev`), so the base URL is the page's. Every
 * response's Date header measures the server clock's offset from the
 * device's (see clock.ts; a rating's reviewed_at is corrected by it).
 */
export function newApi(token: TokenSource, baseUrl = window.location.origin) {
  const client = createClient<paths>({ baseUrl });
  const auth: Middleware = {
    async onRequest({ request }) {
      const t = await token();
      if (t) request.headers.set("Authorization", `Bearer ${t}`);
      return request;
    },
  };
  // The clock's after auth: its request time is taken once the token is there.
  client.use(auth, clockMiddleware());
  return client;
}

export type Api = ReturnType<typeof newApi>;

/**
 * unwrap returns an openapi-fetch result's data, or throws an ApiError with
 * the problem document. A network failure is thrown by fetch itself (a
 * TypeError) before this is reached.
 */
export function unwrap<T>(r: { data?: T; error?: unknown; response: Response }): T {
  if (!r.response.ok || r.data === undefined) {
    throw new ApiError(r.response.status, r.error);
  }
  return r.data;
}
