"""End-to-end check of `ptc mcp --http` with authentication, with the official Python SDK.

A guarded upstream (the SDK's own MCPServer over streamable HTTP, behind a check that
requires its bearer token) sits behind `ptc mcp --http 127.0.0.1:0 --auth-token-env ...`;
the SDK's streamable-HTTP client drives the gateway with the gateway's token, then without
it and with a wrong one; then the gateway as an OAuth resource server, with ES256 access
tokens minted by PyJWT (an SDK dependency) and the keys in a JWKS file. With
--node-modules, the official TypeScript SDK client (http_auth_ts.cjs) drives both gateways
too. Run by .ci/mcp-auth.sh:

    python mcp/e2e/http_auth.py --ptc target/debug/ptc [--node-modules NODE_MODULES]

Prints one line per check and a closing "N passed, N failed" line; exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

import anyio
import jwt
import uvicorn
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.algorithms import ECAlgorithm
from mcp import ClientSession
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client
from mcp.server.mcpserver import MCPServer

GATEWAY_TOKEN = "e2e-gateway-token-0123456789"
UPSTREAM_TOKEN = "e2e-upstream-token-9876543210"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Guard:
    """ASGI middleware: only requests with the upstream's token pass; records every
    Authorization value seen."""

    def __init__(self, app):  # noqa: ANN001
        self.app = app
        self.seen: list[str] = []

    async def __call__(self, scope, receive, send):  # noqa: ANN001
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = dict(scope["headers"])
        authorization = headers.get(b"authorization", b"").decode()
        self.seen.append(authorization)
        if authorization != f"Bearer {UPSTREAM_TOKEN}":
            await send({"type": "http.response.start", "status": 401,
                        "headers": [(b"www-authenticate", b'Bearer realm="guarded"')]})
            await send({"type": "http.response.body", "body": b"no"})
            return None
        return await self.app(scope, receive, send)


def start_upstream() -> tuple[int, Guard]:
    server = MCPServer("guarded")

    @server.tool()
    def answer() -> int:
        """The answer."""
        return 42

    guard = Guard(server.streamable_http_app())
    port = free_port()
    config = uvicorn.Config(guard, host="127.0.0.1", port=port, log_level="warning")
    thread = threading.Thread(target=uvicorn.Server(config).run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return port, guard
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the upstream did not start")


def start_gateway(
    ptc: str, config: Path, log: Path, auth: list[str], addr: str = "127.0.0.1:0"
) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "PTC_LOG": "info", "PTC_E2E_TOKEN": GATEWAY_TOKEN,
           "PTC_E2E_UPSTREAM_TOKEN": UPSTREAM_TOKEN}
    process = subprocess.Popen(
        [ptc, "mcp", "--config", str(config), "--http", addr, *auth],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True,
    )
    lines = []
    for line in process.stderr:
        lines.append(line)
        if "at http://" in line:
            url = line[line.index("at http://") + 3:].strip()
            # Keep draining the log so the gateway never blocks on it.
            def drain() -> None:
                with log.open("w") as out:
                    out.writelines(lines)
                    for rest in process.stderr:
                        out.write(rest)
            threading.Thread(target=drain, daemon=True).start()
            return process, url
    raise RuntimeError("the gateway did not start:\n" + "".join(lines))


async def session_call(url: str, token: str | None, expression: str):  # noqa: ANN201
    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with create_mcp_http_client(headers=headers) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                tools = await s.list_tools()
                result = await s.call_tool("ToolCall", {"expression": expression})
                return [t.name for t in tools.tools], result


async def refused(url: str, token: str | None) -> bool:
    try:
        with anyio.fail_after(15):
            await session_call(url, token, "(+ 1 2)")
    except Exception:  # noqa: BLE001 (the SDK raises its own or httpx's error)
        return True
    return False


TS_CLIENT = Path(__file__).with_name("http_auth_ts.cjs")
NODE_MODULES: str | None = None


def typescript(url: str, token: str | None, expression: str, expected) -> bool:  # noqa: ANN001
    """Runs the TypeScript SDK client (http_auth_ts.cjs); whether its check held."""
    env = {**os.environ, "NODE_PATH": NODE_MODULES or ""}
    argv = ["node", str(TS_CLIENT), url, token or "-", expression, json.dumps(expected)]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        print(done.stderr)
    return done.returncode == 0


async def run_checks(args: argparse.Namespace) -> tuple[int, int]:
    work = Path(tempfile.mkdtemp(prefix="ptc-mcp-auth-e2e-"))
    port, guard = start_upstream()
    config = work / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"guarded": {
        "url": f"http://127.0.0.1:{port}/mcp", "bearerTokenEnv": "PTC_E2E_UPSTREAM_TOKEN"}}}))
    gateway, url = start_gateway(
        args.ptc, config, work / "ptc.log", ["--auth-token-env", "PTC_E2E_TOKEN"]
    )
    passed = failed = 0

    async def check(name: str, body) -> None:  # noqa: ANN001
        nonlocal passed, failed
        started = time.monotonic()
        try:
            await body()
        except Exception:  # noqa: BLE001
            failed += 1
            print(f"FAILED {name}")
            traceback.print_exc(file=sys.stdout)
            return
        passed += 1
        print(f"PASSED {name} ({(time.monotonic() - started) * 1000:.0f} ms)")

    async def the_gateways_token_runs_a_tool_call_on_the_guarded_upstream():
        tools, result = await session_call(url, GATEWAY_TOKEN, "(list (guarded.answer) (+ 1 2))")
        assert tools == ["ToolCall", "ToolSearch"], tools
        assert not result.is_error, result
        # The SDK wraps a bare int result as {"result": 42} (structuredContent).
        assert result.structured_content["value"] == [{"result": 42}, 3], result.structured_content

    async def no_token_is_refused():
        assert await refused(url, None)

    async def the_typescript_sdk_client_runs_a_tool_call_with_the_token_only():
        assert typescript(url, GATEWAY_TOKEN, "(list (guarded.answer) (+ 1 2))",
                          [{"result": 42}, 3])
        assert typescript(url, None, "", None)

    async def a_wrong_token_is_refused():
        assert await refused(url, "e2e-gateway-token-012345678X")

    async def the_upstream_saw_only_its_own_token():
        assert guard.seen, "the upstream saw no request"
        assert set(guard.seen) == {f"Bearer {UPSTREAM_TOKEN}"}, set(guard.seen)

    try:
        await check("the gateway's token runs a ToolCall on the guarded upstream",
                    the_gateways_token_runs_a_tool_call_on_the_guarded_upstream)
        await check("no token is refused", no_token_is_refused)
        await check("a wrong token is refused", a_wrong_token_is_refused)
        if args.node_modules:
            await check("the TypeScript SDK client runs a ToolCall with the token only",
                        the_typescript_sdk_client_runs_a_tool_call_with_the_token_only)
    finally:
        gateway.terminate()
        gateway.wait(timeout=10)

    # OAuth mode: ES256 access tokens minted here with PyJWT, keys from a JWKS file.
    key = ec.generate_private_key(ec.SECP256R1())
    jwk = json.loads(ECAlgorithm.to_jwk(key.public_key()))
    jwk.update({"kid": "e2e", "alg": "ES256", "use": "sig"})
    jwks = work / "jwks.json"
    jwks.write_text(json.dumps({"keys": [jwk]}))
    port = free_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    issuer = "https://idp.e2e.test"

    def mint(**change) -> str:  # noqa: ANN003
        now = int(time.time())
        claims = {"iss": issuer, "aud": resource, "sub": "e2e", "iat": now, "exp": now + 300,
                  "scope": "mcp:tools"}
        claims.update(change)
        return jwt.encode(claims, key, algorithm="ES256", headers={"kid": "e2e"})

    gateway, url = start_gateway(
        args.ptc, config, work / "ptc-oauth.log",
        ["--oauth-issuer", issuer, "--oauth-jwks-file", str(jwks), "--oauth-scope",
         "mcp:tools", "--public-url", resource],
        addr=f"127.0.0.1:{port}",
    )

    async def an_access_token_runs_a_tool_call():
        _, result = await session_call(url, mint(), "(guarded.answer)")
        assert not result.is_error, result
        assert "42" in str(result.content), result

    async def the_typescript_sdk_client_runs_a_tool_call_with_an_access_token():
        assert typescript(url, mint(), "(+ 40 2)", 42)
        assert typescript(url, None, "", None)

    async def expired_wrong_audience_and_unscoped_tokens_are_refused():
        assert await refused(url, mint(exp=int(time.time()) - 300))
        assert await refused(url, mint(aud="https://other.example/mcp"))
        assert await refused(url, mint(scope="openid"))
        assert await refused(url, None)

    async def the_challenge_points_at_the_protected_resource_metadata():
        async with create_mcp_http_client() as http:
            answer = await http.post(url, json={})
            assert answer.status_code == 401, answer.status_code
            challenge = answer.headers["www-authenticate"]
            metadata_url = f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp"
            assert f'resource_metadata="{metadata_url}"' in challenge, challenge
            metadata = (await http.get(metadata_url)).json()
            assert metadata["resource"] == resource, metadata
            assert metadata["authorization_servers"] == [issuer], metadata

    try:
        await check("an access token runs a ToolCall", an_access_token_runs_a_tool_call)
        if args.node_modules:
            await check("the TypeScript SDK client runs a ToolCall with an access token",
                        the_typescript_sdk_client_runs_a_tool_call_with_an_access_token)
        await check("expired, wrong-audience and unscoped tokens are refused",
                    expired_wrong_audience_and_unscoped_tokens_are_refused)
        await check("the 401 challenge points at the Protected Resource Metadata",
                    the_challenge_points_at_the_protected_resource_metadata)
        await check("the upstream saw only its own token", the_upstream_saw_only_its_own_token)
    finally:
        gateway.terminate()
        gateway.wait(timeout=10)
    return passed, failed


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ptc", required=True)
    parser.add_argument("--node-modules", help="where @modelcontextprotocol/sdk is installed")
    args = parser.parse_args()
    global NODE_MODULES  # noqa: PLW0603
    NODE_MODULES = args.node_modules
    passed, failed = anyio.run(run_checks, args)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
