// The JavaScript package against its WebAssembly build: results, parallel batches, timeouts,
// cancellation, permission, errors, the sans-IO loop, and hostile scripts and tool results —
// each ends in a typed outcome and the instance keeps working (`node --test js/test/`).

import assert from "node:assert/strict";
import test from "node:test";
import { Engine, check, compile, describe, run } from "../index.js";

const weather = {
  name: "Weather",
  description: "Gives the weather.",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  async execute({ city }) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { city, temp: city === "Rome" ? 24 : 11 };
  },
};

const SCRIPT = '(mapcar (lambda (r) (plist-get r :temp)) (parallel (Weather :city "Oslo") (Weather :city "Rome")))';

test("a composed script completes with its audit", async () => {
  const outcome = await run(SCRIPT, [weather], { id: "toolu_1" });
  assert.equal(outcome.outcome, "completed");
  assert.equal(outcome.text, "(11 24)");
  assert.deepEqual(outcome.value, [11, 24]);
  assert.deepEqual(outcome.calls.map((c) => c.id), ["toolu_1/1", "toolu_1/2"]);
  assert.deepEqual(outcome.calls.map((c) => c.status), ["success", "success"]);
  assert.equal(outcome.calls[0].batch, 1);
});

test("a parallel batch runs its handlers concurrently", async () => {
  let active = 0;
  let peak = 0;
  const slow = {
    name: "Slow",
    async execute() {
      active += 1;
      peak = Math.max(peak, active);
      await new Promise((resolve) => setTimeout(resolve, 50));
      active -= 1;
      return "ok";
    },
  };
  const started = performance.now();
  const outcome = await run("(parallel (Slow) (Slow) (Slow) (Slow))", [slow], { limits: { parallelism: 4 } });
  assert.equal(outcome.outcome, "completed", outcome.text);
  assert.equal(peak, 4);
  assert.ok(performance.now() - started < 180, "the four calls overlapped");
});

test("a call past its timeout is an error value and its signal fires", async () => {
  let aborted = false;
  const hang = {
    name: "Hang",
    execute(_args, ctx) {
      return new Promise((resolve) => {
        ctx.signal.addEventListener("abort", () => {
          aborted = true;
          resolve("late");
        });
      });
    },
  };
  const outcome = await run("(Hang)", [hang], { limits: { "tool-timeout-ms": 50 } });
  assert.equal(outcome.calls[0].status, "error");
  assert.match(outcome.text, /timed out after 50 ms/);
  assert.ok(aborted);
});

test("an AbortSignal interrupts the run and reaches the handler", async () => {
  let seen = false;
  const wait = {
    name: "Wait",
    execute(_args, ctx) {
      return new Promise((resolve) => ctx.signal.addEventListener("abort", () => {
        seen = true;
        resolve(null);
      }));
    },
  };
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 30);
  const outcome = await run("(Wait)", [wait], { signal: controller.signal });
  assert.equal(outcome.outcome, "interrupted");
  assert.ok(seen);
});

test("a denial aborts the script", async () => {
  const outcome = await run(SCRIPT, [weather], {
    permission: (call) => (call.arguments.city === "Rome" ? { deny: "no Rome today" } : "allow"),
  });
  assert.equal(outcome.outcome, "denied");
  assert.match(outcome.error.message, /no Rome today/);
});

test("a throwing tool and unreadable data are error values, not crashes", async () => {
  const tools = [
    { name: "Boom", execute() { throw new Error("kaput"); } },
    { name: "Odd", execute() { return { value: 1n }; } },
  ];
  const outcome = await run("(list (Boom) (Odd))", tools);
  assert.equal(outcome.outcome, "completed", outcome.text);
  assert.deepEqual(outcome.calls.map((c) => c.status), ["error", "error"]);
  assert.match(outcome.text, /kaput/);
  assert.match(outcome.text, /cannot read/);
});

test("compile errors, check and describe", async () => {
  const outcome = await run("(frobnicate 1)", [weather]);
  assert.equal(outcome.outcome, "script-error");
  assert.equal(outcome.error.kind, "preflight");
  const diagnostics = await check("(Weather :town 1)", [weather]);
  assert.ok(diagnostics.length > 0 && diagnostics[0].code.startsWith("E0"));
  const described = await describe([weather]);
  assert.equal(described.name, "ToolCall");
  assert.match(described.listing, /Weather/);
  await assert.rejects(Engine.create([{ name: "two words", execute() {} }]), /legal tool name/);
});

test("the sans-IO loop: step, allow, complete", async () => {
  const compiled = await compile('(plist-get (Weather :city "Rome") :temp)', [weather]);
  const stepper = compiled.start({ id: "s" });
  let event = stepper.step();
  assert.equal(event.kind, "permission");
  stepper.allow(event.calls[0].id);
  event = stepper.step();
  assert.equal(event.kind, "dispatch");
  stepper.complete(event.calls[0].id, { temp: 30 });
  event = stepper.step();
  assert.equal(event.kind, "settled");
  assert.equal(event.outcome.text, "30");
  assert.throws(() => stepper.complete("s/1", { temp: 1 }), /settled|not awaiting|no call/);
});

test("hostile scripts and results end in typed outcomes and the instance stays usable", async () => {
  const engine = await Engine.create([
    { name: "Deep", execute() { let v = 1; for (let i = 0; i < 1000; i++) v = [v]; return v; } },
    { name: "Huge", execute() { return "x".repeat(40 << 20); } },
  ]);
  const cases = [
    ["(".repeat(100000) + ")".repeat(100000), "script-error"],
    ["(while t)", "script-error"],
    ['(string-match "\\\\(a*\\\\)*b" (make-string 30 ?a))', null],
    ["(Deep)", "tool-error"],
    ["(length (Deep))", "completed"],
    ["(length (Huge))", null],
    ["(let ((l nil)) (dotimes (i 10000000) (push i l)) (length l))", "script-error"],
  ];
  for (const [script, expected] of cases) {
    const outcome = await engine.run(script);
    assert.ok(["completed", "script-error", "tool-error"].includes(outcome.outcome), `${script.slice(0, 40)}: ${outcome.text}`);
    if (expected) assert.equal(outcome.outcome, expected, `${script.slice(0, 40)}: ${outcome.text.slice(0, 200)}`);
    const after = await engine.run("(+ 1 2)");
    assert.equal(after.text, "3", "the instance still works");
  }
});
