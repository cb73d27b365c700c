// Code mode over an MCP client's tools (the official TypeScript SDK's `Client`): every tool
// the client lists becomes a ptc tool whose calls go to `client.callTool`, in-process. Pass
// the result to `run`/`Engine.create` as the roster.
//
//   import { mcpTools } from "@ptc/engine/adapters/mcp.js";
//   const outcome = await run(expression, await mcpTools(client));
//
// Invariants: a tool's result maps as ptc's MCP gateway maps it (spec/reference/mcp.md):
// `isError` → the tool's failure with its text; `structuredContent` → that value; else the
// joined text blocks. The call's AbortSignal is handed to the SDK, so a timed-out or
// cancelled call is cancelled upstream (`notifications/cancelled`).

/** The ptc tools of every tool `client` lists (all pages). */
export async function mcpTools(client) {
  const listed = [];
  let cursor;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    listed.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return listed.map((tool) => ({
    name: tool.name,
    description: tool.description ?? "",
    inputSchema: tool.inputSchema ?? { type: "object" },
    async execute(args, ctx) {
      const result = await client.callTool({ name: tool.name, arguments: args }, undefined, {
        signal: ctx.signal,
      });
      return fromMcp(result);
    },
  }));
}

/** An MCP `CallToolResult` as the answer ptc reads. */
export function fromMcp(result) {
  const text = (result.content ?? [])
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("");
  if (result.isError) return { error: text || "the tool reported an error" };
  if (result.structuredContent !== undefined) return { value: result.structuredContent };
  return { text };
}
