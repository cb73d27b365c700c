"""Adapters that give an agent framework one code-mode tool, ToolCall, over the tools the user
already has in that framework. Each lives in its own module and needs its framework installed
(an optional extra of the `ptc` package):

- `ptc.integrations.pydantic_ai` (`ptc[pydantic-ai]`): `PtcToolset` wraps a Pydantic AI toolset.
- `ptc.integrations.langchain` (`ptc[langchain]`): `tool_call` and `PtcMiddleware`.
- `ptc.integrations.openai_agents` (`ptc[openai-agents]`): `tool_call` over `FunctionTool`s.
- `ptc.integrations.anthropic` (`ptc[anthropic]`): `tool_call` / `async_tool_call` over
  `@beta_tool` functions, for `client.beta.messages.tool_runner`.
- `ptc.integrations.fastmcp` (`ptc[fastmcp]`): `PtcCodeMode`, a FastMCP catalog transform.

What they share (the ToolCall description, approval gating) is in `ptc.integrations._common`.
"""
