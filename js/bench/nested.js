// One nested call's round trip through the WebAssembly engine in Node: N sequential calls
// of a tool that answers at once, against the same loop without the call (not a test).
//
//   node js/bench/nested.js [N=10000] [ROUNDS=5]
import { Engine } from "../index.js";

const n = Number(process.argv[2] ?? 10000);
const rounds = Number(process.argv[3] ?? 5);
const echo = { name: "Echo", execute: () => "ok" };
const engine = await Engine.create([echo], { "tool-calls": n, steps: 100 * n });
const withCalls = `(let ((i 0)) (while (< i ${n}) (Echo) (setq i (1+ i))) i)`;
const without = `(let ((i 0)) (while (< i ${n}) (setq i (1+ i))) i)`;
let best = [Infinity, Infinity];
for (let r = 0; r < rounds; r++) {
  for (const [k, script] of [withCalls, without].entries()) {
    const t = performance.now();
    const outcome = await engine.run(script);
    if (outcome.outcome !== "completed") throw new Error(outcome.text);
    best[k] = Math.min(best[k], performance.now() - t);
  }
}
console.log(`${n} sequential nested calls, best of ${rounds}: with ${best[0].toFixed(1)} ms, without ${best[1].toFixed(1)} ms`);
console.log(`nested call round trip: ${(((best[0] - best[1]) * 1000) / n).toFixed(2)} µs/call`);
