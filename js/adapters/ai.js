// Code mode for the Vercel AI SDK (`ai` >= 7): one AI SDK tool, `ToolCall`, whose input is a
// ptc expression composing the AI SDK tools you already have. Give the model the result
// in place of those tools:
//
//   import { codeModeTool } from "@ptc/engine/adapters/ai.js";
//   const ToolCall = await codeModeTool({ weather, search }, { limits: { parallelism: 4 } });
//   await generateText({ model, tools: { ToolCall }, prompt });
//
// Invariants: each nested call's arguments pass the inner tool's own schema (`validate`, as
// the SDK applies it; a failure fails the call), then run its `execute(input, {toolCallId,
// messages, abortSignal, context})` — `toolCallId` is ptc's `ENVELOPE/N` under the outer
// call's id, `messages` and `context` are the outer call's, `abortSignal` fires when ptc
// cancels the call (timeout, denial, the run's end) or the outer call is aborted. A tool
// whose `needsApproval` holds for the input runs only when the `approve` option allows it;
// otherwise the call is denied and the script aborts (`denied`). The tool's result is the
// Outcome (audit included); the model is shown its text (`error-text` unless completed).
// `ai` is a peer dependency: this module imports it, the core does not.

import { asSchema, jsonSchema, tool } from "ai";
import { Engine } from "../index.js";

/** The ptc roster of an AI SDK ToolSet, its calls bound to one outer call's options. */
async function roster(tools, outer) {
  const entries = [];
  for (const [name, inner] of Object.entries(tools)) {
    if (typeof inner?.execute !== "function") throw new TypeError(`the AI SDK tool ${name} has no execute function`);
    const schema = asSchema(inner.inputSchema);
    entries.push({
      name,
      description: typeof inner.description === "string" ? inner.description : "",
      inputSchema: await schema.jsonSchema,
      async execute(args, ctx) {
        // The tool's own schema (zod refinements, transforms) as the SDK would apply it.
        const checked = schema.validate ? await schema.validate(args) : { success: true, value: args };
        if (!checked.success) throw new TypeError(`invalid input for ${name}: ${checked.error?.message ?? checked.error}`);
        let result = inner.execute(checked.value, {
          toolCallId: ctx.id,
          messages: outer.messages ?? [],
          abortSignal: ctx.signal,
          context: outer.context,
        });
        if (result && typeof result[Symbol.asyncIterator] === "function") {
          let last; // a streaming tool: its final output is the result
          for await (const part of result) last = part;
          result = last;
        }
        result = await result;
        // Text stays text; anything else is the value itself, never read as an answer shape.
        return typeof result === "string" ? result : { value: result ?? null };
      },
    });
  }
  return entries;
}

/** ptc's permission hook for the tools that declare `needsApproval`. */
function permission(tools, outer, approve) {
  return async (call) => {
    const inner = tools[call.name];
    const needs = typeof inner.needsApproval === "function"
      ? await inner.needsApproval(call.arguments, { toolCallId: call.id, messages: outer.messages ?? [], context: outer.context })
      : Boolean(inner.needsApproval);
    if (!needs) return "allow";
    if (approve && (await approve({ toolName: call.name, input: call.arguments, toolCallId: call.id, messages: outer.messages ?? [] }))) {
      return "allow";
    }
    return { deny: `${call.name} needs approval and was not approved` };
  };
}

/** An AI SDK tool that runs a ptc expression over `tools` (a ToolSet). Options: `limits`
 * (keys as `ptc run --limit`), `approve({toolName, input, toolCallId, messages})` (true
 * allows a call whose tool needs approval; without it such calls are denied). */
export async function codeModeTool(tools, { limits, approve } = {}) {
  const described = (await Engine.create(await roster(tools, {}), limits)).describe();
  const gated = Object.values(tools).some((t) => t.needsApproval !== undefined && t.needsApproval !== false);
  return tool({
    description: `${described.description}\n\n${described.listing}`,
    inputSchema: jsonSchema(described.input_schema),
    async execute({ expression }, outer) {
      const engine = await Engine.create(await roster(tools, outer), limits);
      return engine.run(expression, {
        id: outer.toolCallId,
        signal: outer.abortSignal,
        permission: gated ? permission(tools, outer, approve) : undefined,
      });
    },
    toModelOutput: ({ output }) => ({
      type: output.outcome === "completed" ? "text" : "error-text",
      value: output.text,
    }),
  });
}
