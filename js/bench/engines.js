// ptc's WebAssembly engine beside QuickJS (quickjs-emscripten, also WebAssembly) and Node's
// own V8, in one run (not a test): the pure workloads of workloads.json, written once as ptc
// and once as JavaScript, and an agent script making three async tool calls in parallel.
// Each figure is the median of ROUNDS runs after a warm-up run; results are checked against
// each other.
//
//   npm install --prefix /tmp/ptc-bench quickjs-emscripten@0.32.0   # dev only, not in CI
//   PTC_JS_BENCH_MODULES=/tmp/ptc-bench/node_modules node js/bench/engines.js [ROUNDS=5]
//
// QuickJS runs each script in a fresh context of one runtime (the isolation a host would
// want per model turn); "QuickJS, warm context" reuses one. ptc reuses one Engine (the
// roster) and starts a fresh run each time, as `Engine.run` does.

import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Engine } from "../index.js";

const rounds = Number(process.argv[2] ?? 5);
const file = JSON.parse(await readFile(new URL("./workloads.json", import.meta.url), "utf8"));
const modules = process.env.PTC_JS_BENCH_MODULES;
if (!modules) throw new Error("set PTC_JS_BENCH_MODULES to a node_modules holding quickjs-emscripten");
const { getQuickJS } = createRequire(join(modules, "x.js"))("quickjs-emscripten");
const QuickJS = await getQuickJS();

/** The median of `rounds` timed runs after one untimed run (V8 tiers WebAssembly up from
 * Liftoff to TurboFan as functions get hot; the first run measures the baseline compiler). */
async function median(fn) {
  const times = [];
  let result = await fn();
  for (let r = 0; r < rounds; r++) {
    const t = performance.now();
    result = await fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(rounds / 2)], result };
}

const TEMPS = { Oslo: 11, Rome: 24, Paris: 14 };
const weather = { name: "Weather", async execute({ city }) { return { city, temp: TEMPS[city] }; } };

/** Runs `js` (a function body) in QuickJS; `Weather` is a host function returning a promise
 * the host settles on its own event loop, as a real async tool would. */
async function quickjs(js, context = null) {
  const vm = context ?? QuickJS.newContext();
  try {
    const pending = [];
    const fn = vm.newFunction("Weather", (argHandle) => {
      const { city } = vm.dump(argHandle);
      const deferred = vm.newPromise();
      pending.push(Promise.resolve().then(() => {
        const value = vm.newString(JSON.stringify({ city, temp: TEMPS[city] }));
        const parsed = vm.unwrapResult(vm.evalCode(`(s) => JSON.parse(s)`));
        const object = vm.unwrapResult(vm.callFunction(parsed, vm.undefined, value));
        deferred.resolve(object);
        [value, parsed, object].forEach((h) => h.dispose());
      }));
      return deferred.handle;
    });
    vm.setProp(vm.global, "Weather", fn);
    fn.dispose();
    const handle = vm.unwrapResult(vm.evalCode(`(async () => { ${js} })()`));
    const promise = vm.resolvePromise(handle);
    handle.dispose();
    while (pending.length > 0) {
      await pending.shift();
      vm.runtime.executePendingJobs();
    }
    vm.runtime.executePendingJobs();
    const settled = vm.unwrapResult(await promise);
    const result = vm.dump(settled);
    settled.dispose();
    return result;
  } finally {
    if (context === null) vm.dispose();
  }
}

const engine = await Engine.create([weather], file.limits);
const warm = QuickJS.newContext();
const rows = [];
for (const w of [...file.workloads, file.agent]) {
  const ptc = await median(() => engine.run(w.ptc));
  if (ptc.result.text !== w.expect) throw new Error(`${w.name}: ptc gave ${ptc.result.text}`);
  const expected = JSON.stringify(ptc.result.value);
  const qjs = await median(() => quickjs(w.js));
  const qjsWarm = await median(() => quickjs(w.js, warm));
  const v8 = await median(() => new (Object.getPrototypeOf(async () => {}).constructor)("Weather", w.js)((a) => weather.execute(a)));
  for (const [who, got] of [["QuickJS", qjs.result], ["QuickJS warm", qjsWarm.result], ["V8", v8.result]]) {
    if (JSON.stringify(got) !== expected) throw new Error(`${w.name}: ${who} gave ${JSON.stringify(got)}, ptc ${expected}`);
  }
  rows.push([w.name, ptc.ms, qjs.ms, qjsWarm.ms, v8.ms]);
}
warm.dispose();
console.log(`median of ${rounds} runs, ms | ptc (wasm) | QuickJS (wasm, fresh context) | QuickJS (warm context) | Node V8`);
for (const [name, ...ms] of rows) console.log(`${name} | ${ms.map((m) => m.toFixed(m < 1 ? 3 : 1)).join(" | ")}`);
