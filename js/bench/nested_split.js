// Where one nested call's round trip goes in Node (not a test): N sequential calls of a tool
// that answers at once, through three paths over the same WebAssembly build —
//   raw     the sans-IO Run stepped with no JSON.parse (answers by call index);
//   parse   the same, each event read with JSON.parse, the settled Outcome too;
//   driver  Engine.run, the driver every host uses (handlers, signals, promises).
// Prints the median over ROUNDS of each, in µs per call.
//
//   node js/bench/nested_split.js [N=10000] [ROUNDS=5]
import { Engine, load } from "../index.js";
import { Engine as WasmEngine } from "../pkg/ptc_js.js";

const n = Number(process.argv[2] ?? 10000);
const rounds = Number(process.argv[3] ?? 5);
await load();
const limits = { "tool-calls": n, steps: 100 * n };
const raw = new WasmEngine(JSON.stringify([{ name: "Echo", description: "", inputSchema: { type: "object" }, standalone: false }]), JSON.stringify(limits));
const driven = await Engine.create([{ name: "Echo", execute: () => "ok" }], limits);
const script = `(let ((i 0)) (while (< i ${n}) (Echo) (setq i (1+ i))) i)`;

function stepped(parse) {
  const started = performance.now();
  const run = raw.start(script, "x", false);
  for (let index = 0; ; index++) {
    const event = run.step(performance.now() - started);
    if (event.startsWith('{"kind":"settled"')) {
      if (parse) JSON.parse(event);
      return;
    }
    const at = parse ? JSON.parse(event).calls[0].index : index;
    run.complete_text_at(performance.now() - started, at, "ok");
  }
}

const paths = { raw: () => stepped(false), parse: () => stepped(true), driver: () => driven.run(script) };
const times = { raw: [], parse: [], driver: [] };
for (let r = 0; r <= rounds; r++) {
  for (const [name, path] of Object.entries(paths)) {
    const t = performance.now();
    await path();
    if (r > 0) times[name].push(((performance.now() - t) * 1000) / n); // round 0 warms up
  }
}
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(Object.entries(times).map(([name, xs]) => `${name} ${median(xs).toFixed(2)} µs/call`).join(" | "));
