#!/usr/bin/env node
// A ptc host in Node with nothing but the standard library: it starts `ptc serve`, runs
// ToolCall scripts over JSON-RPC (spec/reference/protocol.md), and answers the engine's
// `tool/call` requests from async handlers, in whatever order they finish.
//
//     node examples/serve_client.mjs [PATH_TO_PTC]
//
// Copy `PtcServer` into your host: `await server.run(expression, tools, handlers)` resolves
// to exactly the object `ptc run --format json` prints.

import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import assert from "node:assert/strict";

export class PtcServer {
  constructor(ptc = "ptc") {
    this.child = spawn(ptc, ["serve"], { stdio: ["pipe", "pipe", "inherit"] });
    this.nextId = 0;
    this.waiting = new Map(); // our request id -> {resolve, reject}
    this.handlers = new Map(); // run request id -> {tool name: async handler}
    this.calls = new Map(); // engine's tool/call id -> AbortController
    this.exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
    const lines = createInterface({ input: this.child.stdout, crlfDelay: Infinity });
    lines.on("line", (line) => this.receive(JSON.parse(line)));
  }

  send(frame) {
    this.child.stdin.write(JSON.stringify(frame) + "\n");
  }

  request(method, params) {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.send({ jsonrpc: "2.0", id, method, params });
    });
  }

  async initialize() {
    const init = await this.request("initialize", { protocolVersion: "2026-12-01" });
    assert.equal(init.engine.name, "ptc");
    return init;
  }

  // Runs `expression` with `tools` (MCP Tool objects); `handlers[name](arguments, signal)`
  // is awaited for each nested call and returns a JSON value or a CallToolResult.
  async run(expression, tools, handlers, limits) {
    const id = ++this.nextId;
    this.handlers.set(id, handlers);
    try {
      return await new Promise((resolve, reject) => {
        this.waiting.set(id, { resolve, reject });
        this.send({ jsonrpc: "2.0", id, method: "run", params: { expression, tools, limits } });
      });
    } finally {
      this.handlers.delete(id);
    }
  }

  async answer(callId, handler, args) {
    const abort = new AbortController();
    this.calls.set(callId, abort);
    try {
      const result = await handler(args, abort.signal);
      if (!abort.signal.aborted) this.send({ jsonrpc: "2.0", id: callId, result });
    } catch (error) {
      // The host failed: a JSON-RPC error answer (unless the engine cancelled the call).
      if (!abort.signal.aborted) {
        this.send({ jsonrpc: "2.0", id: callId, error: { code: -32000, message: error.message } });
      }
    } finally {
      this.calls.delete(callId);
    }
  }

  receive(frame) {
    if (frame.method === "tool/call") {
      const { run, name, arguments: args } = frame.params;
      this.answer(frame.id, this.handlers.get(run)[name], args);
    } else if (frame.method === "notifications/cancelled") {
      this.calls.get(frame.params.requestId)?.abort();
    } else if (this.waiting.has(frame.id)) {
      const { resolve, reject } = this.waiting.get(frame.id);
      this.waiting.delete(frame.id);
      if (frame.error) reject(new Error(frame.error.message));
      else resolve(frame.result);
    }
  }

  // EOF: the engine cancels what is left and exits 0.
  close() {
    this.child.stdin.end();
    return this.exited;
  }
}

const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(new Error("cancelled"));
    });
  });

const WEATHER = {
  name: "Weather",
  description: "Gives the weather for a city.",
  inputSchema: {
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
  },
};
const TEMPS = { Oslo: 11, Rome: 24, Lima: 19 };

async function weather({ city }) {
  // Oslo answers last, so answers arrive out of order.
  await sleep(city === "Oslo" ? 50 : 0);
  return { city, temp: TEMPS[city] };
}

async function main() {
  const server = new PtcServer(process.argv[2] ?? "ptc");
  await server.initialize();
  const script = `(let ((reports (parallel (Weather :city "Oslo") (Weather :city "Rome")
                                           (Weather :city "Lima"))))
                    (mapcar (lambda (r) (plist-get r :temp)) reports))`;
  const hang = { name: "Hang", description: "Never answers.", inputSchema: { type: "object" } };
  const denyTool = { ...WEATHER, name: "Forecast" };
  // Three runs at once on one connection: a batch, a cancelled call, a denial.
  const [batch, timed, denied] = await Promise.all([
    server.run(script, [WEATHER], { Weather: weather }),
    server.run("(list (Hang) 1)", [hang], { Hang: (_, signal) => sleep(3_600_000, signal) }, {
      "tool-timeout-ms": 200,
    }),
    server.run('(Forecast :city "Rome")', [denyTool], {
      Forecast: async () => ({ denied: "forecasts are not allowed here" }),
    }),
  ]);
  assert.equal(batch.outcome, "completed", JSON.stringify(batch));
  assert.deepEqual(batch.value, [11, 24, 19]);
  assert.deepEqual(
    batch.calls.map((c) => [c.status, c.batch]),
    [["success", 1], ["success", 1], ["success", 1]],
  );
  assert.equal(timed.text, '((:error "Error: Hang timed out after 200 ms") 1)');
  assert.equal(denied.outcome, "denied");
  assert.equal(denied.calls[0].status, "denied");
  assert.equal(await server.close(), 0);
  console.log(`serve_client.mjs: ok: ${batch.text} | ${timed.text} | ${denied.outcome}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
