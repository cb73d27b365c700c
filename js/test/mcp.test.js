// The MCP adapter against the real TypeScript SDK client and the reference server
// `@modelcontextprotocol/server-everything` over stdio. .ci/js.sh installs both (pinned) and
// names their node_modules in PTC_JS_MCP_MODULES.

import assert from "node:assert/strict";
import { join } from "node:path";
import test from "node:test";
import { pathToFileURL } from "node:url";
import { mcpTools } from "../adapters/mcp.js";
import { run } from "../index.js";

const modules = process.env.PTC_JS_MCP_MODULES;

test("code mode over an MCP client's tools", { skip: modules === undefined && "PTC_JS_MCP_MODULES is not set (.ci/js.sh sets it)" }, async () => {
  const sdk = (path) => import(pathToFileURL(join(modules, "@modelcontextprotocol/sdk/dist/esm", path)).href);
  const { Client } = await sdk("client/index.js");
  const { StdioClientTransport } = await sdk("client/stdio.js");
  const client = new Client({ name: "ptc-js-test", version: "1" });
  await client.connect(new StdioClientTransport({ command: join(modules, ".bin/mcp-server-everything") }));
  try {
    const tools = await mcpTools(client);
    const names = tools.map((t) => t.name);
    assert.ok(names.includes("echo"), names.join(" "));
    const outcome = await run('(list (echo :message "hi") (echo :message "there"))', tools);
    assert.equal(outcome.outcome, "completed", outcome.text);
    assert.equal(outcome.calls.length, 2);
    assert.match(outcome.text, /hi/);
    assert.match(outcome.text, /there/);
    const refused = await run("(echo :mesage 1)", tools);
    assert.equal(refused.outcome, "script-error");
  } finally {
    await client.close();
  }
});
