// Types of @ptc/engine (index.js).

/** A tool the script may call: the shape MCP and the AI SDK use. */
export interface Tool {
  name: string;
  description?: string;
  /** JSON Schema of the argument object. */
  inputSchema?: Record<string, unknown>;
  /** Whether the tool may only be the whole expression. */
  standalone?: boolean;
  /** Runs one call: the validated arguments and the call's context. A string is a text
   * result; `{error}` a tool failure; `{text}` / `{value}` as given; anything else is
   * structured JSON. A throw fails the call with the error's text. */
  execute(args: Record<string, unknown>, ctx: CallContext): unknown | Promise<unknown>;
}

export interface CallContext {
  /** `ENVELOPE/N`. */
  id: string;
  /** Fires when ptc cancels the call (timeout, denial, the run's end or interruption). */
  signal: AbortSignal;
}

export interface PendingCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export type Decision = "allow" | true | { deny: string };

export interface RunOptions {
  /** Budgets keyed as `ptc run --limit` (`steps`, `seconds`, `tool-calls`, `parallelism`, ...). */
  limits?: Record<string, number | string | null>;
  /** Interrupts the run (settles `interrupted`) and reaches every handler. */
  signal?: AbortSignal;
  /** Asked before each nested call; a denial aborts the script (`denied`). */
  permission?(call: PendingCall): Decision | Promise<Decision>;
  /** The envelope id (default: a random UUID). */
  id?: string;
}

export interface AuditCall {
  id: string;
  order: number;
  tool: string;
  status: "queued" | "running" | "success" | "error" | "denied" | "cancelled" | "interrupted";
  args?: Record<string, unknown> | null;
  batch?: number;
  preview?: string;
  notes?: string[];
}

/** How a run settled: the object `ptc run --format json` prints. */
export interface Outcome {
  id: string;
  outcome: "completed" | "script-error" | "denied" | "interrupted" | "tool-error";
  text: string;
  value: unknown;
  error: { kind: string; message: string } | null;
  direct: string | null;
  calls: AuditCall[];
  notes: string[];
  stats: { fuel_used: number; tool_calls: number; elapsed_ms: number };
}

export interface Diagnostic {
  code: string;
  kind: string;
  message: string;
  span: { start: number; end: number };
}

export type Event =
  | { kind: "permission" | "dispatch"; calls: (PendingCall & { batch: number | null; position: number; index?: number })[] }
  | { kind: "cancel"; ids: string[] }
  | { kind: "pause" }
  | { kind: "waiting"; ms: number | null }
  | { kind: "settled"; outcome: Outcome };

/** A sans-IO run: step it and answer its events yourself. */
export class Run {
  step(): Event;
  allow(id: string): void;
  deny(id: string, reason: string): void;
  complete(id: string, result: unknown): void;
  fail(id: string, message: string): void;
  cancel(): void;
}

export class Engine {
  static create(tools: Tool[], limits?: RunOptions["limits"]): Promise<Engine>;
  describe(): { name: string; description: string; input_schema: unknown; listing: string };
  check(expression: string): Diagnostic[];
  start(expression: string, options?: { id?: string; askPermission?: boolean }): Run;
  run(expression: string, options?: Omit<RunOptions, "limits">): Promise<Outcome>;
}

export function load(): Promise<void>;
export function run(expression: string, tools: Tool[], options?: RunOptions): Promise<Outcome>;
export function check(expression: string, tools: Tool[], limits?: RunOptions["limits"]): Promise<Diagnostic[]>;
export function describe(tools: Tool[]): Promise<{ name: string; description: string; input_schema: unknown; listing: string }>;
export function compile(
  expression: string,
  tools: Tool[],
  limits?: RunOptions["limits"],
): Promise<{ start(options?: { id?: string; askPermission?: boolean }): Run }>;
