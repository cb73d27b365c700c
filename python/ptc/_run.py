"""Running a ToolCall from Python: the sans-IO `Program`/`Run` pair and the two drivers over
it, `run` (synchronous handlers on a bounded thread pool) and `run_async` (async handlers
gathered under a semaphore).

Both drivers own nothing of the envelope's semantics: every decision — argument validation,
ids, batches and their order, denial and cancellation, the audit, the outcome — is the
runtime's, reached through the native `Run`. A driver only runs handlers and answers.

Invariants:
- Every synchronous handler runs on a worker thread, never on the driver's: the driver
  always waits with the envelope's deadline, so `seconds` and `tool_timeout_ms` bound a
  call however its handler behaves. The workers are daemon threads (`_DaemonPool`): a
  handler abandoned after its timeout, a Ctrl-C or a cancelled task never holds up the
  interpreter's exit (nor `asyncio.run`'s, which waits for its default executor).
- A handler's answer the native side cannot read (out-of-range numbers, nesting past its
  limit, lone surrogates) is fed as that call's failure (`_feed`), so the guest gets the
  error value and no call is left running; nothing of it escapes as an exception.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import inspect
import json
import queue
import threading
import time
from typing import (
    Any,
    Awaitable,
    Callable,
    Dict,
    Iterable,
    List,
    Mapping,
    Optional,
    Sequence,
    Set,
    Tuple,
    Union,
)

from . import _ptc
from ._outcome import Call, Calls, CompileError, Diagnostic, Outcome, Settled
from ._tools import Tool, ToolResult, encode_failure, encode_result, safe_text

Tools = Iterable[Tool]
Limits = Mapping[str, Union[int, float, str, None]]
#: A permission policy: gets the call, answers None/True (allow), False or a reason (deny).
Policy = Callable[[Call], Union[None, bool, str, Awaitable[Union[None, bool, str]]]]

_DEFAULTS: Dict[str, Any] = _ptc.default_limits()
#: The longest the synchronous driver blocks at once while it waits for handlers.
_WAIT_SLICE = 0.1


def _roster(tools: Tools) -> Dict[str, Tool]:
    roster: Dict[str, Tool] = {}
    for item in tools:
        if not isinstance(item, Tool):
            raise TypeError(f"not a ptc.Tool: {item!r} (decorate it with @ptc.tool)")
        if item.name in roster:
            raise ValueError(f"tool `{item.name}` is registered twice")
        roster[item.name] = item
    return roster


def _tools_json(roster: Mapping[str, Tool]) -> str:
    return json.dumps([t.contract() for t in roster.values()])


def _limits_json(limits: Optional[Limits]) -> Optional[str]:
    return None if limits is None else json.dumps(dict(limits))


def _parallelism(limits: Optional[Limits]) -> int:
    value = (limits or {}).get("parallelism")
    if value is None:
        value = _DEFAULTS.get("parallelism", 4)
    return max(1, int(value))


def _answers(encoded: Mapping[str, str]) -> str:
    return "{" + ",".join(json.dumps(k) + ":" + v for k, v in encoded.items()) + "}"


def _feed(native: Any, answers: Mapping[str, str], late_ok: bool) -> None:
    """Feeds each answer; one the native side cannot read becomes that call's failure.
    With `late_ok`, an answer refused because its call was cancelled or timed out
    meanwhile (the envelope already said so in a cancel event) is dropped."""
    for id, encoded in answers.items():
        try:
            native.answer(_answers({id: encoded}))
        except _ptc.SessionError:
            if not late_ok:
                raise
        except (ValueError, TypeError) as error:
            why = safe_text(error)
            failure = json.dumps({"failure": f"returned data ptc cannot read: {why}"})
            try:
                native.answer(_answers({id: failure}))
            except _ptc.SessionError:
                if not late_ok:
                    raise


class _DaemonPool(concurrent.futures.Executor):
    """A thread pool of daemon workers, started as needed up to `workers`.

    `concurrent.futures.ThreadPoolExecutor` joins its threads at interpreter exit, so one
    stuck handler would hang the exit for ever; these threads are abandoned instead."""

    def __init__(self, workers: int):
        self._workers = max(1, workers)
        self._threads: List[threading.Thread] = []
        self._idle = 0
        self._waiting = 0
        self._queue: "queue.SimpleQueue[Any]" = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> "concurrent.futures.Future[Any]":
        future: "concurrent.futures.Future[Any]" = concurrent.futures.Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("the pool is shut down")
            self._queue.put((future, fn, args, kwargs))
            self._waiting += 1
            if self._waiting > self._idle and len(self._threads) < self._workers:
                thread = threading.Thread(target=self._work, name="ptc-tool", daemon=True)
                self._threads.append(thread)
                thread.start()
        return future

    def _work(self) -> None:
        while True:
            with self._lock:
                self._idle += 1
            item = self._queue.get()
            with self._lock:
                self._idle -= 1
                if item is not None:
                    self._waiting -= 1
            if item is None:
                return
            future, fn, args, kwargs = item
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args, **kwargs))
                except BaseException as error:  # noqa: BLE001 - handed to the future
                    future.set_exception(error)
            del item, future, fn, args, kwargs

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._closed = True
            threads = list(self._threads)
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is not None and cancel_futures:
                item[0].cancel()
        for _ in threads:
            self._queue.put(None)
        if wait:
            for thread in threads:
                thread.join()


def _decision(answer: Any) -> Optional[str]:
    """A policy's answer as a denial reason, or None to allow."""
    if answer is None or answer is True:
        return None
    if answer is False:
        return "denied by the host's policy"
    return str(answer)


class Run:
    """One run of a compiled program, stepped by the host (sans-IO).

    Loop: `step()` returns `Calls` (answer each call with `resume` or `deny`, in any order,
    from any thread) or `Settled`. An empty `Calls` means the run waits for answers you owe.
    Answering a call is also its permission decision: `resume` allows it with its result,
    `deny` refuses it and aborts the script. `cancel()` interrupts the run; the next step
    settles `interrupted` with the audit.
    """

    def __init__(self, native: Any):
        self._native = native
        self._results: Dict[str, str] = {}
        self._answered: Set[str] = set()
        self.outcome: Optional[Outcome] = None

    def step(self) -> Union[Calls, Settled]:
        """Advances the run (the GIL is released while the machine runs a slice)."""
        if self.outcome is not None:
            return Settled(self.outcome)
        while True:
            kind, payload = self._native.step()
            if kind == "settled":
                self.outcome = Outcome.from_dict(payload)
                return Settled(self.outcome)
            if kind == "permission":
                return Calls(_calls(payload))
            if kind == "dispatch":
                answers = {c["id"]: self._results.pop(c["id"]) for c in payload}
                _feed(self._native, answers, late_ok=False)
            elif kind == "cancel":
                for id in payload:
                    self._results.pop(id, None)
            elif kind == "waiting":
                return Calls(())
            # "pause": step again

    def resume(self, results: Mapping[str, Any]) -> None:
        """Answers calls: {id: result}, each result as a handler would return it (data, a
        str, or a `ptc.ToolResult`). Raises `SessionError` for an id not awaiting one."""
        for id, result in results.items():
            self._native.allow(id)
            self._answered.add(id)
            self._results[id] = encode_result(id, result)

    def fail(self, id: str, error: BaseException) -> None:
        """Answers call `id` as a handler that raised `error` would."""
        self._native.allow(id)
        self._answered.add(id)
        self._results[id] = encode_failure(id, error)

    def deny(self, id: str, reason: str) -> None:
        """Denies call `id`: the script aborts and settles `denied`. Raises `SessionError`
        for a call already answered with `resume` or `fail`."""
        if id in self._answered:
            raise _ptc.SessionError(f"call {id} was already answered; it cannot be denied")
        self._native.deny(id, reason)

    def cancel(self) -> None:
        """Interrupts the run."""
        self._native.cancel()


def _calls(payload: List[Dict[str, Any]]) -> Tuple[Call, ...]:
    return tuple(Call(c["id"], c["name"], c["arguments"]) for c in payload)


class Program:
    """A compiled script with its roster: reusable, shareable across threads."""

    def __init__(self, native: Any, roster: Mapping[str, Tool], limits: Optional[Limits]):
        self._native = native
        self.tools = dict(roster)
        self.limits = dict(limits) if limits else {}

    @property
    def direct(self) -> Optional[str]:
        """The tool's name when the script is provably one direct call."""
        direct: Optional[str] = self._native.direct
        return direct

    def start(self, id: Optional[str] = None) -> Run:
        """Starts one run with envelope id `id` (fresh when None)."""
        return Run(self._native.start(id, True))

    def run(
        self, *, policy: Optional[Policy] = None, id: Optional[str] = None, inline: bool = False
    ) -> Outcome:
        """Runs it with the tools' handlers (see `ptc.run`). With `inline`, a lone
        synchronous call (one not in a parallel batch) runs on the calling thread instead of
        a worker: no thread hand-off per call, but `tool_timeout_ms` and `seconds` are then
        checked only when the handler returns (a hung handler hangs the run)."""
        native = self._native.start(id, policy is not None)
        return _drive(native, self.tools, policy, _parallelism(self.limits), inline)

    async def run_async(
        self, *, policy: Optional[Policy] = None, id: Optional[str] = None
    ) -> Outcome:
        """Runs it with the tools' handlers, asynchronously (see `ptc.run_async`)."""
        native = self._native.start(id, policy is not None)
        return await _drive_async(native, self.tools, policy, _parallelism(self.limits))


def _compile_native(
    expression: str, roster: Mapping[str, Tool], limits: Optional[Limits], id: Optional[str]
) -> Any:
    try:
        return _ptc.Program(expression, _tools_json(roster), _limits_json(limits), id)
    except _ptc.CompileFailed as failure:
        raise _compile_error(failure) from None


def _compile_error(failure: BaseException) -> CompileError:
    diagnostics, outcome = failure.args
    return CompileError([Diagnostic.from_dict(d) for d in diagnostics], Outcome.from_dict(outcome))


def compile(expression: str, tools: Tools, *, limits: Optional[Limits] = None) -> Program:
    """Compiles `expression` for `tools` under `limits` (keys as `ptc run --limit`,
    `_` or `-`). Raises `CompileError` with the diagnostics when it does not compile."""
    roster = _roster(tools)
    return Program(_compile_native(expression, roster, limits, None), roster, limits)


def _prepare(
    expression: str, tools: Tools, limits: Optional[Limits], id: Optional[str]
) -> Union[Program, Outcome]:
    roster = _roster(tools)
    try:
        return Program(_compile_native(expression, roster, limits, id), roster, limits)
    except CompileError as error:
        return error.outcome


def run(
    expression: str,
    tools: Tools,
    *,
    limits: Optional[Limits] = None,
    policy: Optional[Policy] = None,
    id: Optional[str] = None,
) -> Outcome:
    """Runs a model's ToolCall `expression` against `tools` with synchronous handlers.

    A parallel batch runs on a thread pool of `parallelism` workers (a limit, default 4).
    `policy(call)` is consulted before each call (None/True allow; False or a reason deny,
    which aborts the script). Budgets, script errors, denials and failed direct calls are
    outcomes, never exceptions. Returns the settled `Outcome` with its audit.
    """
    prepared = _prepare(expression, tools, limits, id)
    if isinstance(prepared, Outcome):
        return prepared
    return prepared.run(policy=policy, id=id)


async def run_async(
    expression: str,
    tools: Tools,
    *,
    limits: Optional[Limits] = None,
    policy: Optional[Policy] = None,
    id: Optional[str] = None,
) -> Outcome:
    """As `run`, awaiting async handlers (sync ones run in the default executor); a batch
    is gathered under a semaphore of `parallelism`. Cancelling the awaiting task interrupts
    the envelope and cancels the handlers' tasks, then re-raises `CancelledError`."""
    prepared = _prepare(expression, tools, limits, id)
    if isinstance(prepared, Outcome):
        return prepared
    return await prepared.run_async(policy=policy, id=id)


class Engine:
    """The tools and budgets built once, for hosts that run many expressions against the
    same roster: the registry with its schema validators and the compile-time roster are
    built here, not on every run, and compiled programs are kept (the last `cache`
    distinct expressions). Thread-safe; `ptc.run` stays the one-line path. With `inline`,
    `run` runs a lone synchronous call on the calling thread (see `Program.run`).

        engine = ptc.Engine(tools, limits={"steps": 100_000}, policy=my_policy)
        outcome = engine.run(expression)          # or: await engine.run_async(expression)
    """

    def __init__(
        self,
        tools: Tools,
        *,
        limits: Optional[Limits] = None,
        policy: Optional[Policy] = None,
        cache: int = 128,
        inline: bool = False,
    ):
        self.tools = _roster(tools)
        self.inline = inline
        self.limits = dict(limits) if limits else {}
        self.policy = policy
        self._native = _ptc.Engine(_tools_json(self.tools), _limits_json(limits))
        self._limits = limits
        self._cache = max(0, cache)
        self._programs: "collections.OrderedDict[str, Program]" = collections.OrderedDict()
        self._lock = threading.Lock()

    def compile(self, expression: str) -> Program:
        """The compiled program of `expression` (cached). Raises `CompileError`."""
        return self._compile(expression, None)

    def _compile(self, expression: str, id: Optional[str]) -> Program:
        # `id` names the envelope of the refused outcome when the script does not compile.
        with self._lock:
            program = self._programs.get(expression)
            if program is not None:
                self._programs.move_to_end(expression)
                return program
        try:
            native = self._native.compile(expression, id)
        except _ptc.CompileFailed as failure:
            raise _compile_error(failure) from None
        program = Program(native, self.tools, self._limits)
        if self._cache:
            with self._lock:
                self._programs[expression] = program
                while len(self._programs) > self._cache:
                    self._programs.popitem(last=False)
        return program

    def _prepare(self, expression: str, id: Optional[str]) -> Union[Program, Outcome]:
        try:
            return self._compile(expression, id)
        except CompileError as error:
            # Compiled once: the refused outcome already names the caller's envelope.
            return error.outcome

    def run(
        self, expression: str, *, policy: Optional[Policy] = None, id: Optional[str] = None
    ) -> Outcome:
        """As `ptc.run(expression, tools, limits=..., policy=...)` with this engine's tools
        and budgets; `policy` (when given) replaces the engine's for this run."""
        prepared = self._prepare(expression, id)
        if isinstance(prepared, Outcome):
            return prepared
        return prepared.run(
            policy=policy if policy is not None else self.policy, id=id, inline=self.inline
        )

    async def run_async(
        self, expression: str, *, policy: Optional[Policy] = None, id: Optional[str] = None
    ) -> Outcome:
        """As `ptc.run_async`, with this engine's tools and budgets."""
        prepared = self._prepare(expression, id)
        if isinstance(prepared, Outcome):
            return prepared
        return await prepared.run_async(
            policy=policy if policy is not None else self.policy, id=id
        )

    def describe(self) -> Dict[str, Any]:
        """As `ptc.describe(tools)`, built once."""
        described: Dict[str, Any] = self._native.describe()
        return described

    def check(self, expression: str) -> Sequence[Diagnostic]:
        """As `ptc.check(expression, tools, limits=...)`."""
        return [Diagnostic.from_dict(d) for d in self._native.check(expression)]


def _call_sync(tool: Tool, call: Dict[str, Any]) -> str:
    try:
        return _settle(tool.name, tool.handler(**call["arguments"]))
    except Exception as error:
        return encode_failure(tool.name, error)


def _settle(tool_name: str, result: Any) -> str:
    """A synchronous handler's return value as its answer text (an awaitable is run to
    completion first; that may raise)."""
    if inspect.isawaitable(result):
        result = asyncio.run(_awaited(result))
    return encode_result(tool_name, result)


async def _awaited(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


def _answer_late(native: Any, answers: Mapping[str, str]) -> None:
    """Feeds answers (see `_feed`); one refused because its call was cancelled or timed
    out meanwhile (the envelope already said so in a cancel event) is dropped."""
    _feed(native, answers, late_ok=True)


def _decide(native: Any, policy: Policy, payload: List[Dict[str, Any]]) -> None:
    for call in _calls(payload):
        reason = _decision(policy(call))
        if reason is None:
            native.allow(call.id)
        else:
            # A denial aborts the script: the envelope settles and takes no more decisions
            # (the batch's other calls are never asked about).
            native.deny(call.id, reason)
            return


def _inline_handler(
    roster: Mapping[str, Tool],
) -> Callable[[str, Dict[str, Any]], Optional[Tuple[bool, Any]]]:
    """`step_inline`'s handler: None for an async tool (left to the driver); else
    `(False, result)` with a plain return value (the native side converts it, or hands it
    to `encode_result`), or `(True, answer_text)` for a raise, a `ToolResult` or an
    awaitable (`_call_sync`'s encoding)."""

    # Decided once per run, not per call: which handlers are synchronous.
    handlers = {
        name: tool.handler
        for name, tool in roster.items()
        if not inspect.iscoroutinefunction(tool.handler)
    }

    def handle(name: str, arguments: Dict[str, Any]) -> Optional[Tuple[bool, Any]]:
        handler = handlers.get(name)
        if handler is None:
            return None
        try:
            result = handler(**arguments)
            # Plain data (the usual answer) needs no further look.
            if type(result) not in _PLAIN_RESULTS and (
                isinstance(result, ToolResult) or inspect.isawaitable(result)
            ):
                return True, _settle(name, result)
        except Exception as error:
            return True, encode_failure(name, error)
        return False, result

    return handle


#: Result types that are neither a `ToolResult` nor awaitable: `_inline_handler` hands them
#: to the native side without asking.
_PLAIN_RESULTS = frozenset({str, int, float, bool, dict, list, tuple, type(None)})


def _drive(
    native: Any,
    roster: Mapping[str, Tool],
    policy: Optional[Policy],
    parallelism: int,
    inline: bool = False,
) -> Outcome:
    pool: Optional[_DaemonPool] = None
    running: Dict[concurrent.futures.Future[str], str] = {}
    handle = _inline_handler(roster) if inline else None
    try:
        while True:
            if handle is not None and not running:
                # Opted in: the native side runs a lone synchronous call on this thread (no
                # thread hand-off, no JSON list); the deadlines are checked when it returns.
                kind, payload = native.step_inline(handle, encode_result)
            else:
                kind, payload = native.step()
            if kind == "settled":
                return Outcome.from_dict(payload)
            if kind == "dispatch":
                calls = payload
                # Even a lone call runs on a worker: this thread must stay free to wait
                # with the deadline.
                if pool is None:
                    pool = _DaemonPool(parallelism)
                for call in calls:
                    running[pool.submit(_call_sync, roster[call["name"]], call)] = call["id"]
            elif kind == "waiting":
                timeout = payload
                if not running:
                    # Only a deadline can move the run on.
                    time.sleep(timeout if timeout is not None else 0.001)
                    continue
                # In slices, so that Ctrl-C (a signal handled between bytecodes) is seen
                # promptly even while no deadline bounds the wait.
                slice_ = _WAIT_SLICE if timeout is None else min(timeout, _WAIT_SLICE)
                done, _ = concurrent.futures.wait(
                    running, timeout=slice_, return_when=concurrent.futures.FIRST_COMPLETED
                )
                if done:
                    _answer_late(native, {running.pop(f): f.result() for f in done})
            elif kind == "permission" and policy is not None:
                _decide(native, policy, payload)
            elif kind == "cancel":
                cancelled = set(payload)
                for future in [f for f, id in running.items() if id in cancelled]:
                    future.cancel()  # a handler already running finishes; its answer is dropped
                    del running[future]
            # "pause": step again
    except BaseException:
        # KeyboardInterrupt or a raising policy: the run must not outlive its driver.
        native.cancel()
        raise
    finally:
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


async def _call_async(
    tool: Tool, call: Dict[str, Any], gate: asyncio.Semaphore, pool: _DaemonPool
) -> str:
    async with gate:
        try:
            if inspect.iscoroutinefunction(tool.handler):
                result = await tool.handler(**call["arguments"])
            else:
                loop = asyncio.get_running_loop()
                result = await loop.run_in_executor(pool, lambda: tool.handler(**call["arguments"]))
                if inspect.isawaitable(result):
                    result = await result
            return encode_result(tool.name, result)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            return encode_failure(tool.name, error)


async def _drive_async(
    native: Any, roster: Mapping[str, Tool], policy: Optional[Policy], parallelism: int
) -> Outcome:
    gate = asyncio.Semaphore(parallelism)
    pool = _DaemonPool(parallelism)
    tasks: Dict[asyncio.Task[str], str] = {}
    try:
        while True:
            kind, payload = native.step()
            if kind == "settled":
                return Outcome.from_dict(payload)
            if kind == "dispatch":
                for call in payload:
                    task = asyncio.ensure_future(_call_async(roster[call["name"]], call, gate, pool))
                    tasks[task] = call["id"]
            elif kind == "waiting":
                timeout = payload
                if not tasks:
                    await asyncio.sleep(timeout if timeout is not None else 0.001)
                    continue
                done, _ = await asyncio.wait(tasks, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
                if done:
                    _answer_late(native, {tasks.pop(t): t.result() for t in done})
            elif kind == "permission" and policy is not None:
                for call in _calls(payload):
                    answer = policy(call)
                    if inspect.isawaitable(answer):
                        answer = await answer
                    reason = _decision(answer)
                    if reason is None:
                        native.allow(call.id)
                    else:
                        native.deny(call.id, reason)  # aborts: no more decisions (_decide)
                        break
            elif kind == "cancel":
                cancelled = set(payload)
                for task in [t for t, id in tasks.items() if id in cancelled]:
                    task.cancel()
                    del tasks[task]
            else:  # "pause": let other tasks run
                await asyncio.sleep(0)
    except BaseException:
        native.cancel()
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        raise
    finally:
        for task in tasks:
            task.cancel()
        pool.shutdown(wait=False, cancel_futures=True)


def describe(tools: Tools) -> Dict[str, Any]:
    """What the model is told: {name, description, input_schema, listing} of the ToolCall
    tool for this roster (`listing` is the tool listing text)."""
    described: Dict[str, Any] = _ptc.describe(_tools_json(_roster(tools)))
    return described


def check(
    expression: str, tools: Tools, *, limits: Optional[Limits] = None
) -> Sequence[Diagnostic]:
    """The static pipeline's diagnostics for `expression` (empty when it compiles)."""
    roster = _roster(tools)
    raw = _ptc.check(expression, _tools_json(roster), _limits_json(limits))
    return [Diagnostic.from_dict(d) for d in raw]


def default_limits() -> Dict[str, Any]:
    """The default budgets, keyed as `ptc run --limit`."""
    return dict(_DEFAULTS)
