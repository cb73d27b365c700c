// The official TypeScript SDK client (@modelcontextprotocol/sdk) against `ptc mcp --http`
// with authentication, run by mcp/e2e/http_auth.py (issue 42):
//
//   NODE_PATH=NODE_MODULES node mcp/e2e/http_auth_ts.cjs URL TOKEN|- EXPRESSION EXPECTED_JSON
//
// With a token: initializes, lists the tools, runs one ToolCall and checks that its
// structuredContent.value is EXPECTED_JSON. With `-`: checks that connecting is refused.
// Exits 0 when the check holds, 1 otherwise (the reason on stderr).
"use strict";
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");

async function main() {
  const [url, token, expression, expected] = process.argv.slice(2);
  const headers = token === "-" ? {} : { Authorization: `Bearer ${token}` };
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: "ptc-e2e-ts", version: "1.0.0" });
  if (token === "-") {
    try {
      await client.connect(transport);
    } catch (error) {
      console.error(`refused as expected: ${error.message}`);
      return 0;
    }
    console.error("connected without a token");
    return 1;
  }
  await client.connect(transport);
  const tools = (await client.listTools()).tools.map((t) => t.name);
  if (JSON.stringify(tools) !== JSON.stringify(["ToolCall", "ToolSearch"])) {
    console.error(`tools: ${JSON.stringify(tools)}`);
    return 1;
  }
  const result = await client.callTool({ name: "ToolCall", arguments: { expression } });
  await client.close();
  const value = JSON.stringify(result.structuredContent && result.structuredContent.value);
  if (result.isError || value !== JSON.stringify(JSON.parse(expected))) {
    console.error(`result: ${JSON.stringify(result)}`);
    return 1;
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error && error.stack ? error.stack : String(error));
    process.exit(1);
  },
);
