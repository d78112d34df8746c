// The real local stack for the end-to-end tests: bin/devstack (mailpit,
// migrate, seed, the functions server with the built client and the
// development sign-in, drain and prune on a schedule) on free ports and a
// database of its own, which it drops when it stops.
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const adminURL = process.env.LEXORA_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable";

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function psql(url, sql) {
  return execFileSync("psql", ["-XAtq", "-v", "ON_ERROR_STOP=1", url, "-c", sql], { encoding: "utf8" }).trim();
}

/**
 * Starts the stack and resolves once devstack prints "ready". The result
 * has the client's base URL, sql() to query the stack's database, and
 * stop().
 */
export async function startStack() {
  const db = `lexora_e2e_${randomBytes(6).toString("hex")}`;
  psql(adminURL, `CREATE DATABASE ${db}`);
  const url = new URL(adminURL);
  url.pathname = `/${db}`;
  const databaseURL = url.toString();
  const [port, smtp, ui] = await Promise.all([freePort(), freePort(), freePort()]);
  const child = spawn(
    join(root, "bin", "devstack"),
    ["-bin", join(root, "bin"), "-web", join(root, "frontend", "dist"), "-port", String(port),
      "-smtp", `127.0.0.1:${smtp}`, "-mailpit-ui", `127.0.0.1:${ui}`, "-mailpit-db", "",
      "-database-url", databaseURL, "-drain-every", "1s"],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
  );
  const log = [];
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`devstack not ready in 120 s:\n${log.join("")}`)), 120_000);
    const onData = (chunk) => {
      log.push(chunk.toString());
      if (log.join("").includes("press Ctrl-C to stop")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`devstack exited (${code}) before it was ready:\n${log.join("")}`));
    });
  });
  return {
    baseURL: `http://127.0.0.1:${port}`,
    mailpitURL: `http://127.0.0.1:${ui}`,
    log,
    /** Runs one SQL statement on the stack's database; the unaligned result. */
    sql: (statement) => psql(databaseURL, statement),
    /**
     * Keeps what explains a failed test in dir: name.devstack.log (the
     * server's, the drains' and devstack's lines so far: a drain run is
     * shown when it claimed work, warned or failed) and name.outbox.txt (the
     * deliveries left in the outbox, dead, retrying or leased (a running
     * one's available_at is its lease's end), with their events' topics, and the progress projection).
     */
    keep(dir, name) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${name}.devstack.log`), log.join(""));
      const tables = [
        ["outbox deliveries left (a delivered one leaves the table)", `SELECT d.id, d.subscriber, e.topic, d.state, d.attempts,
          d.available_at, d.lease_token IS NOT NULL AS leased, d.created_at, d.last_error
          FROM outbox_deliveries d JOIN outbox_events e ON e.id = d.event_id ORDER BY d.id`],
        ["events", "SELECT id, topic, ordering_key, created_at FROM outbox_events ORDER BY id"],
        ["progress projection", "SELECT * FROM assignment_progress ORDER BY updated_at"],
      ];
      const out = tables.map(([title, q]) => {
        try {
          return `# ${title}\n${execFileSync("psql", ["-X", "-v", "ON_ERROR_STOP=1", databaseURL, "-c", q], { encoding: "utf8" })}`;
        } catch (err) {
          return `# ${title}\n${err}\n`;
        }
      });
      writeFileSync(join(dir, `${name}.outbox.txt`), out.join("\n"));
    },
    async stop() {
      child.kill("SIGTERM");
      await exited;
      psql(adminURL, `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
    },
  };
}

/**
 * Resolves with get()'s first truthy result, checking every 100 ms for at
 * most seconds (the drain runs every second; a projection or a delivery is
 * a database change a test can only observe by looking).
 */
export async function until(get, seconds = 30) {
  for (let i = 0; i < seconds * 10; i++) {
    const v = get();
    if (v) return v;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`condition not met in ${seconds} s: ${get}`);
}
