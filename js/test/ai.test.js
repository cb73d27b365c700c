// The AI SDK adapter against the real `ai` package: the SDK's own mock model
// (MockLanguageModelV4 from `ai/test`) drives `generateText` through a turn where the model
// calls ToolCall once with a script composing two AI SDK tools (zod schemas), then answers
// with text having read the tool result. .ci/js.sh installs `ai` and `zod`, pinned.

import assert from "node:assert/strict";
import test from "node:test";

const required = process.env.PTC_JS_REQUIRE_ALL !== undefined; // set by .ci/js.sh
const loaded = await Promise.all([import("ai"), import("ai/test"), import("zod"), import("../adapters/ai.js")]).catch(() => null);
const skip = !required && loaded === null && "`ai` and `zod` are not installed (.ci/js.sh installs them)";

const SCRIPT = '(let ((w (Weather :city "Oslo"))) (list (plist-get w :temp) (Packing :temp (plist-get w :temp))))';
const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** One generateText turn: the model calls ToolCall with SCRIPT, then repeats the result. */
async function turn(options) {
  const [{ generateText, stepCountIs, tool }, { MockLanguageModelV4 }, { z }, { codeModeTool }] = loaded;
  const seen = [];
  const weather = tool({
    description: "Current weather of a city.",
    inputSchema: z.object({ city: z.string() }),
    async execute({ city }, { toolCallId, messages, abortSignal }) {
      seen.push({ tool: "Weather", toolCallId, messages, abortSignal });
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { city, temp: 7 };
    },
  });
  const packing = tool({
    description: "What to pack for a temperature.",
    inputSchema: z.object({ temp: z.number() }),
    needsApproval: async ({ temp }) => temp < 10,
    async execute({ temp }, { toolCallId }) {
      seen.push({ tool: "Packing", toolCallId });
      return temp < 10 ? "a coat" : "a shirt";
    },
  });
  const ToolCall = await codeModeTool({ Weather: weather, Packing: packing }, options);
  let step = 0;
  const model = new MockLanguageModelV4({
    async doGenerate({ prompt }) {
      step += 1;
      if (step === 1) {
        return {
          content: [{ type: "tool-call", toolCallId: "call-1", toolName: "ToolCall", input: JSON.stringify({ expression: SCRIPT }) }],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: [],
        };
      }
      const result = prompt.at(-1).content.find((part) => part.type === "tool-result");
      return {
        content: [{ type: "text", text: `saw ${result.output.type}: ${result.output.value}` }],
        finishReason: { unified: "stop", raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
  const answer = await generateText({ model, tools: { ToolCall }, prompt: "Pack for Oslo?", stopWhen: stepCountIs(4) });
  return { answer, seen, ToolCall };
}

test("generateText: one ToolCall composes two AI SDK tools, then the model answers", { skip }, async () => {
  const approvals = [];
  const { answer, seen, ToolCall } = await turn({ approve: (request) => approvals.push(request) > 0 });
  assert.match(ToolCall.description, /Weather/);
  assert.equal(answer.text, "saw text: (7 \"a coat\")");
  const outcome = answer.steps[0].toolResults[0].output;
  assert.equal(outcome.outcome, "completed");
  assert.deepEqual(outcome.calls.map((c) => [c.id, c.tool, c.status]), [["call-1/1", "Weather", "success"], ["call-1/2", "Packing", "success"]]);
  assert.deepEqual(seen.map((s) => [s.tool, s.toolCallId]), [["Weather", "call-1/1"], ["Packing", "call-1/2"]]);
  assert.ok(seen[0].abortSignal instanceof AbortSignal);
  assert.equal(seen[0].messages[0].content, "Pack for Oslo?");
  assert.deepEqual(approvals.map((a) => [a.toolName, a.input, a.toolCallId]), [["Packing", { temp: 7 }, "call-1/2"]]);
});

test("a tool that needs approval is denied without an approve callback", { skip }, async () => {
  const { answer, seen } = await turn({});
  const outcome = answer.steps[0].toolResults[0].output;
  assert.equal(outcome.outcome, "denied");
  assert.match(outcome.error.message, /Packing needs approval/);
  assert.deepEqual(seen.map((s) => s.tool), ["Weather"]);
  assert.match(answer.text, /^saw error-text: .*Packing needs approval/s);
});

test("the inner tool's own schema is applied: a refinement JSON Schema cannot say fails the nested call", { skip }, async () => {
  const [{ tool }, , { z }, { codeModeTool }] = loaded;
  const calls = [];
  const echo = tool({ inputSchema: z.object({ word: z.string().refine((w) => !w.includes("x"), "no x, please") }), execute: ({ word }) => calls.push(word) && word.toUpperCase() });
  const ToolCall = await codeModeTool({ Echo: echo });
  const outcome = await ToolCall.execute({ expression: '(list (Echo :word "hey") (Echo :word "box"))' }, { toolCallId: "t", messages: [] });
  assert.equal(outcome.outcome, "completed", outcome.text);
  assert.deepEqual(outcome.calls.map((c) => c.status), ["success", "error"]);
  assert.match(outcome.text, /^\("HEY" \(:error ".*invalid input for Echo.*no x, please/s);
  assert.deepEqual(calls, ["hey"]);
});
