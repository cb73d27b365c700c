// ptc for JavaScript: the sans-IO core (WebAssembly, `src/lib.rs`) driven with the host's
// clock, its async tools and its AbortSignal. One module, for Node >= 20, browsers and Web
// Workers: the .wasm is fetched beside this file, or read from disk in Node.
//
// Invariants: every run owns its envelope and settles with an Outcome (the object
// `ptc run --format json` prints), whatever the script, the tools or the timing; a tool that
// throws or returns something ptc cannot read fails its call with the reason; a call the
// envelope cancels (timeout, denial, the run's end) has its AbortSignal fired.

import initWasm, { initSync, Engine as WasmEngine } from "./pkg/ptc_js.js";

let loaded = null;

/** Loads the WebAssembly module once (also done by `run`, `compile`, `check`, `describe`). */
export function load() {
  if (loaded === null) {
    const url = new URL("./pkg/ptc_js_bg.wasm", import.meta.url);
    const isNode = typeof process !== "undefined" && process.versions?.node !== undefined;
    loaded = isNode
      ? import("node:fs/promises").then(async (fs) => {
          initSync({ module: await fs.readFile(url) });
        })
      : initWasm({ module_or_path: url }).then(() => undefined);
  }
  return loaded;
}

const now = () => performance.now();

/** Lets other tasks run (a fuel slice ended): setImmediate in Node, a message elsewhere
 * (setTimeout would wait at least a millisecond, or four in browsers). */
function yieldToLoop() {
  if (typeof setImmediate === "function") return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

function roster(tools) {
  const byName = new Map();
  const contracts = [];
  for (const tool of tools) {
    if (!tool || typeof tool.name !== "string") throw new TypeError("each tool needs a string name");
    byName.set(tool.name, tool);
    contracts.push({
      name: tool.name,
      description: tool.description ?? "",
      inputSchema: tool.inputSchema ?? { type: "object" },
      standalone: tool.standalone ?? false,
    });
  }
  return { byName, contracts: JSON.stringify(contracts) };
}

/** A roster and budgets built once: compile, check, describe and run many scripts. */
export class Engine {
  #engine;
  #tools;
  #limits;

  constructor(engine, tools, limits) {
    this.#engine = engine;
    this.#tools = tools;
    this.#limits = limits;
  }

  /** Builds an engine for `tools` under `limits` (keys as `ptc run --limit`). */
  static async create(tools, limits = undefined) {
    await load();
    const { byName, contracts } = roster(tools);
    const engine = new WasmEngine(contracts, limits === undefined ? undefined : JSON.stringify(limits));
    return new Engine(engine, byName, limits ?? {});
  }

  /** The ToolCall tool's description, input schema and the tool listing. */
  describe() {
    return JSON.parse(this.#engine.describe());
  }

  /** The static pipeline's diagnostics (empty when the expression compiles). */
  check(expression) {
    return JSON.parse(this.#engine.check(expression));
  }

  /** A sans-IO run: step it yourself (`step`, `allow`, `deny`, `complete`, `fail`, `cancel`). */
  start(expression, { id = crypto.randomUUID(), askPermission = true } = {}) {
    return new Run(this.#engine.start(expression, id, askPermission));
  }

  /** Runs `expression` with the engine's tools; resolves to the Outcome. */
  run(expression, options = {}) {
    return drive(this.#engine, this.#tools, expression, options);
  }
}

/** One sans-IO run: events as plain objects, time in ms since the run began. */
export class Run {
  #run;
  #started = now();

  constructor(run) {
    this.#run = run;
  }

  step() {
    return JSON.parse(this.#run.step(now() - this.#started));
  }

  allow(id) {
    this.#run.allow(id);
  }

  deny(id, reason) {
    this.#run.deny(id, reason);
  }

  complete(id, result) {
    const [, kind, payload] = answerOf(id, result);
    feed(this.#run, now() - this.#started, id, kind, payload);
  }

  fail(id, message) {
    this.#run.fail(now() - this.#started, id, String(message));
  }

  cancel() {
    this.#run.cancel();
  }
}

/** A handler's return value as `[id, kind, payload]` for `feed`: a string is text, plain
 * data structured JSON, `{value|text|error, notes}` the full answer shape. */
function answerOf(id, result) {
  if (typeof result === "string") return [id, "text", result];
  if (result && typeof result === "object" && !Array.isArray(result)) {
    const keys = Object.keys(result);
    const shaped = keys.length > 0 && keys.every((k) => ["value", "text", "error", "notes"].includes(k))
      && ("value" in result || typeof result.text === "string" || typeof result.error === "string");
    if (shaped) return [id, "answer", JSON.stringify(result)];
  }
  return [id, "value", JSON.stringify(result === undefined ? null : result)];
}

/** Hands one answer to the run by the cheapest path its kind allows. */
function feed(run, nowMs, id, kind, payload) {
  switch (kind) {
    case "text":
      return run.complete_text(nowMs, id, payload);
    case "value":
      return run.complete_value(nowMs, id, payload);
    case "answer":
      return run.complete(nowMs, id, payload);
    default:
      return run.fail(nowMs, id, payload);
  }
}

function message(error) {
  try {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  } catch {
    return "the tool threw something that could not be read";
  }
}

/** Fires a call's signal: now when its handler holds one, else when it first asks. */
function abort(holder, reason) {
  if (!holder) return;
  holder.reason = reason;
  holder.controller?.abort(reason);
}

/** A handler's context; the call's AbortController is made when it first reads `signal`. */
class CallContext {
  #holder;

  constructor(id, holder) {
    this.id = id;
    this.#holder = holder;
  }

  get signal() {
    const holder = this.#holder;
    if (holder.controller === null) {
      holder.controller = new AbortController();
      if (holder.reason !== null) holder.controller.abort(holder.reason);
    }
    return holder.controller.signal;
  }
}

/** A handler's value as `[id, kind, payload]`, or the failure to read it. */
function settled(id, value) {
  try {
    return answerOf(id, value);
  } catch (error) {
    return [id, "fail", `returned data ptc cannot read: ${message(error)}`];
  }
}

/** The driver loop: permission, dispatch, cancel, pause, wait — until settled. */
async function drive(engine, tools, expression, options) {
  const { signal, permission, id = crypto.randomUUID() } = options;
  const started = now();
  const elapsed = () => now() - started;
  const run = engine.start(expression, id, typeof permission === "function");
  const running = new Map(); // call id -> { controller (made on demand), reason }
  let wake = null;
  const ended = [];
  const notify = () => {
    if (wake) {
      const w = wake;
      wake = null;
      w();
    }
  };
  const onAbort = () => {
    run.cancel();
    notify();
  };
  if (signal) {
    if (signal.aborted) run.cancel();
    else signal.addEventListener("abort", onAbort, { once: true });
  }
  try {
    for (;;) {
      // Answers that arrived since the last step go in first.
      while (ended.length > 0) {
        const [callId, kind, payload] = ended.shift();
        if (!running.delete(callId)) continue; // cancelled meanwhile: dropped
        try {
          feed(run, elapsed(), callId, kind, payload);
        } catch {
          // Refused (timed out or cancelled meanwhile): the envelope already said so.
        }
      }
      const event = JSON.parse(run.step(elapsed()));
      switch (event.kind) {
        case "settled":
          return event.outcome;
        case "permission":
          for (const call of event.calls) {
            let decision;
            try {
              decision = await permission({ id: call.id, name: call.name, arguments: call.arguments });
            } catch (error) {
              decision = { deny: `the permission hook failed: ${message(error)}` };
            }
            if (decision === true || decision === "allow" || decision === undefined) run.allow(call.id);
            else {
              const reason = typeof decision === "object" && decision?.deny ? String(decision.deny) : "denied by the host's policy";
              run.deny(call.id, reason);
              break;
            }
          }
          break;
        case "dispatch":
          for (const call of event.calls) {
            const holder = { controller: null, reason: null };
            const ctx = new CallContext(call.id, holder);
            let result;
            try {
              result = tools.get(call.name).execute(call.arguments, ctx);
            } catch (error) {
              ended.push([call.id, "fail", message(error)]);
              running.set(call.id, holder);
              continue;
            }
            if (result !== null && typeof result === "object" && typeof result.then === "function") {
              running.set(call.id, holder);
              Promise.resolve(result).then(
                (value) => {
                  ended.push(settled(call.id, value));
                  notify();
                },
                (error) => {
                  ended.push([call.id, "fail", message(error)]);
                  notify();
                },
              );
            } else {
              // Answered at once: fed now, with no turn of the event loop.
              const answer = settled(call.id, result);
              try {
                if (answer[1] === "text" && call.index !== undefined) {
                  run.complete_text_at(elapsed(), call.index, answer[2]);
                } else {
                  feed(run, elapsed(), call.id, answer[1], answer[2]);
                }
              } catch {
                // Refused (the run was cancelled meanwhile): the envelope already said so.
              }
            }
          }
          break;
        case "cancel":
          for (const callId of event.ids) {
            abort(running.get(callId), new Error("ptc cancelled the call"));
            running.delete(callId);
          }
          break;
        case "pause":
          await yieldToLoop();
          break;
        case "waiting": {
          if (ended.length > 0) break;
          let timer;
          await new Promise((resolve) => {
            wake = resolve;
            if (event.ms !== null) timer = setTimeout(notify, Math.max(0, Math.ceil(event.ms)));
          });
          clearTimeout(timer);
          break;
        }
        default:
          break;
      }
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    for (const holder of running.values()) abort(holder, new Error("the run ended"));
  }
}

/** Runs `expression` with `tools` ({name, description, inputSchema, execute(args, ctx)}).
 * Options: `limits` (keys as `ptc run --limit`), `signal` (an AbortSignal that interrupts
 * the run and reaches the handlers), `permission(call)` ("allow", or {deny: reason}),
 * `id` (the envelope id). Resolves to the Outcome; rejects only on a malformed roster or
 * budget. */
export async function run(expression, tools, options = {}) {
  const engine = await Engine.create(tools, options.limits);
  return engine.run(expression, options);
}

/** The static pipeline's diagnostics for `expression` against `tools`. */
export async function check(expression, tools, limits = undefined) {
  return (await Engine.create(tools, limits)).check(expression);
}

/** What the model is told: the ToolCall tool's definition and the listing of `tools`. */
export async function describe(tools) {
  return (await Engine.create(tools)).describe();
}

/** A compiled-for-stepping run (sans-IO): `compile(expression, tools).start()`. */
export async function compile(expression, tools, limits = undefined) {
  const engine = await Engine.create(tools, limits);
  return { start: (options) => engine.start(expression, options) };
}
