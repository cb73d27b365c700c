// Types of @ptc/engine/adapters/mcp.js.
import type { Tool } from "../index.js";

/** The minimal part of the MCP TypeScript SDK's `Client` the adapter uses. */
export interface McpClient {
  listTools(params?: { cursor?: string }): Promise<{
    tools: { name: string; description?: string; inputSchema?: Record<string, unknown> }[];
    nextCursor?: string;
  }>;
  callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    resultSchema?: unknown,
    options?: { signal?: AbortSignal },
  ): Promise<unknown>;
}

/** The ptc tools of every tool `client` lists; their calls go to `client.callTool`. */
export function mcpTools(client: McpClient): Promise<Tool[]>;

/** An MCP `CallToolResult` as the answer ptc reads. */
export function fromMcp(result: unknown): { error: string } | { value: unknown } | { text: string };
