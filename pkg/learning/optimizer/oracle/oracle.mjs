// The fsrs-rs oracle for pkg/learning/optimizer (a test tool, not the product).
//
// Reads one JSON request per line on stdin and answers one JSON line on
// stdout, in order:
//   {"op":"fit","items":[[[rating,deltaT],...],...],"pollMs":<optional, default 500>}
//     -> {"params":[21 numbers],"ms":<computeParameters wall time>,"cpuMs":<the process's CPU time meanwhile>}
//   {"op":"evaluate","params":[21 numbers],"items":[...]}
//     -> {"logLoss":..,"rmseBins":..}
// An item is a card's reviews up to its label, as optimizer.Item. A failure
// answers {"error":"..."}. fsrs-rs 6.5 through @open-spaced-repetition/binding 0.5.0:
// computeParameters(items, {enableShortTerm: true}) and
// new FSRSBinding(params).evaluate(items).
import { createInterface } from "node:readline";
import { computeParameters, FSRSBinding, FSRSBindingItem, FSRSBindingReview } from "@open-spaced-repetition/binding";

function toItems(items) {
  return items.map((reviews) => new FSRSBindingItem(reviews.map(([rating, deltaT]) => new FSRSBindingReview(rating, deltaT))));
}

async function answer(req) {
  switch (req.op) {
    case "fit": {
      const items = toItems(req.items);
      const start = process.hrtime.bigint();
      const cpu0 = process.cpuUsage();
      const params = await computeParameters(items, { enableShortTerm: true, timeout: req.pollMs ?? 500 });
      const cpu = process.cpuUsage(cpu0);
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      return { params, ms, cpuMs: (cpu.user + cpu.system) / 1000 };
    }
    case "evaluate": {
      const { logLoss, rmseBins } = new FSRSBinding(req.params).evaluate(toItems(req.items));
      return { logLoss, rmseBins };
    }
    default:
      throw new Error(`unknown op ${req.op}`);
  }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line.trim() === "") continue;
  let out;
  try {
    out = await answer(JSON.parse(line));
  } catch (err) {
    out = { error: String(err && err.message ? err.message : err) };
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
