// End-to-end: Lexora as an installed web app on a phone that loses its
// network. The browser reaches the stack through a proxy of this file, which
// the test cuts: offline is then offline for the page and for the service
// worker alike (Playwright's setOffline alone does not reach a service
// worker's own requests, microsoft/playwright#2311), and every request that
// still tried the network is counted.
import assert from "node:assert/strict";
import { createServer, request } from "node:http";
import { after, before, describe, it } from "node:test";
import { check, phone, section, startStackAndBrowser } from "./browser.mjs";

const mia = "00000000-0000-4000-8000-000000000001";

let stack;
let browser;
let proxy;

/**
 * An HTTP proxy in front of the stack. While cut, it destroys every
 * connection it gets (the browser sees a network failure, as on a train in
 * a tunnel) and records the path asked for.
 */
async function startProxy(target) {
  const to = new URL(target);
  const state = { cut: false, refused: [], sockets: new Set() };
  const server = createServer((req, res) => {
    if (state.cut) {
      state.refused.push(`${req.method} ${req.url}`);
      req.socket.destroy();
      return;
    }
    const out = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on("error", () => res.destroy());
    req.pipe(out);
  });
  server.on("connection", (socket) => {
    state.sockets.add(socket);
    socket.once("close", () => state.sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    state,
    /** Cuts the network: open connections (keep-alive) too. */
    cut() {
      state.cut = true;
      for (const s of state.sockets) s.destroy();
    },
    restore() {
      state.cut = false;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const reviews = () => stack.sql(`SELECT count(*) || ' ' || count(DISTINCT card_id) FROM review_log WHERE learner_id = '${mia}'`);

describe("Lexora opens without a network", { timeout: 600_000 }, () => {
  before(async () => {
    ({ stack, browser } = await startStackAndBrowser());
    proxy = await startProxy(stack.baseURL);
  });
  after(async () => {
    await browser?.close();
    await proxy?.close();
    await stack?.stop();
  });

  it("a learner who loaded it once reloads it offline, reviews five cards, and each arrives once back online", async () => {
    const context = await browser.newContext({ viewport: phone, hasTouch: true, isMobile: true });
    const page = await context.newPage();
    await page.goto(`${proxy.url}/`);

    // Installable: a manifest with its icons, and a service worker that controls the page.
    const cdp = await context.newCDPSession(page);
    await page.waitForFunction(() => navigator.serviceWorker?.controller !== null, null, { timeout: 60_000 });
    const { installabilityErrors } = await cdp.send("Page.getInstallabilityErrors");
    // "in-incognito" is the test's browser context (Playwright's are incognito), not the app.
    assert.deepEqual(
      installabilityErrors.filter((e) => e.errorId !== "in-incognito"),
      [],
      "chromium finds nothing that keeps the app from being installed",
    );
    const manifest = await page.evaluate(async () => (await fetch(document.querySelector('link[rel="manifest"]').href)).json());
    assert.equal(manifest.display, "standalone");
    assert.deepEqual(
      manifest.icons.map((i) => i.sizes),
      ["192x192", "512x512", "512x512", "any"],
      "icons for the home screen and the splash screen, one maskable",
    );

    await page.getByRole("heading", { name: "Sign in to Lexora" }).waitFor();
    await page.getByRole("button", { name: /Mia Laurent/ }).click();
    await page.getByRole("heading", { name: "Today", level: 1 }).waitFor();
    await section(page, "Review").click();
    await page.getByText("Card 1 of").waitFor();
    assert.equal(reviews(), "0 0");

    // The train enters the tunnel; the learner opens Lexora again.
    proxy.cut();
    await context.setOffline(true);
    await page.reload();
    await page.getByRole("heading", { name: "Review", level: 1 }).waitFor();
    // The reloaded page reports navigator.onLine true in an offline context (as a page created in one does,
    // microsoft/playwright#42174); the emulation set again reaches it, as a phone's airplane mode would.
    await context.setOffline(false);
    await context.setOffline(true);
    assert.equal(await page.evaluate(() => navigator.onLine), false);
    const seen = [];
    for (let i = 1; i <= 5; i++) {
      await page.getByText(`Card ${i} of`).waitFor();
      seen.push(await page.locator("#card-lemma").textContent());
      await page.getByRole("button", { name: /Show answer/ }).click();
      await page.getByText("Definition").waitFor();
      await page.getByRole("button", { name: /^Good/ }).click();
    }
    await page.getByText(/You are offline: 5 ratings wait/).waitFor();
    await page.getByText("Card 6 of").waitFor();
    assert.equal(new Set(seen).size, 5, "five different cards");
    await check(page, "offline-review").then(({ violations, overflow }) => {
      assert.deepEqual(violations, [], "serious or critical axe-core violations");
      assert.deepEqual(overflow, [], "wider than a phone's screen");
    });
    assert.equal(reviews(), "0 0", "nothing reached the server while offline");
    // With the proxy cut, the shell and the cards can only have come from the service worker's caches.
    assert.ok(!proxy.state.refused.some((r) => r.startsWith("GET /review")), "the app shell did not ask the network");

    // Out of the tunnel: the queue sends each rating once.
    proxy.restore();
    await context.setOffline(false);
    await page.getByTestId("queue-status").getByText("All ratings saved.").waitFor({ timeout: 60_000 });
    assert.equal(reviews(), "5 5", "five reviews, one per card");
    await page.reload();
    await page.getByTestId("queue-status").getByText("All ratings saved.").waitFor();
    assert.equal(reviews(), "5 5", "a reload sends nothing again");

    // A sign-out leaves no copy of Mia's answers for whoever signs in next.
    const userCaches = () => page.evaluate(async () => (await caches.keys()).filter((k) => !k.startsWith("workbox-precache")));
    assert.deepEqual((await userCaches()).sort(), ["lexora-me", "lexora-schedule"]);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in to Lexora" }).waitFor();
    assert.deepEqual(await userCaches(), [], "the copies of the schedule and Me are deleted");
    await context.close();
  });
});
