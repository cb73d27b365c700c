// Types of @ptc/engine/adapters/ai.js: code mode for the Vercel AI SDK (`ai` >= 7).
import type { ModelMessage, Tool, ToolSet } from "ai";
import type { Outcome, RunOptions } from "../index.js";

export interface ApprovalRequest {
  toolName: string;
  input: Record<string, unknown>;
  /** ptc's `ENVELOPE/N`: the outer tool call's id, then the nested call's number. */
  toolCallId: string;
  messages: ModelMessage[];
}

export interface CodeModeOptions {
  /** Budgets keyed as `ptc run --limit`. */
  limits?: RunOptions["limits"];
  /** Decides a nested call to a tool whose `needsApproval` holds; without it they are denied. */
  approve?(request: ApprovalRequest): boolean | Promise<boolean>;
}

/** One AI SDK tool (`{expression}` in, the Outcome out; the model sees its text) whose
 * script calls the tools of `tools` through their own `execute`. */
export function codeModeTool(tools: ToolSet, options?: CodeModeOptions): Promise<Tool<{ expression: string }, Outcome>>;
