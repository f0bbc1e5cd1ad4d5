"""Drives `ctx mcp` with the official MCP Python SDK (the `mcp` package):
initialize, the tool list, a call, a call cancelled by the client (the SDK
sends `notifications/cancelled` when the awaiting task is cancelled), and
a call after it on the same session. Prints one JSON object of what it saw
for tests/mcp.rs to check; usage: mcp_sdk_client.py CTX WORKDIR."""

import json
import os
import sys
import time

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def state(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return "gone"


async def main(ctx, work):
    seen = {}
    params = StdioServerParameters(command=ctx, args=["mcp"], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            seen["server"] = init.server_info.name
            tools = await session.list_tools()
            seen["tools"] = [t.name for t in tools.tools]
            done = await session.call_tool("ctx_run", {"argv": ["sh", "-c", "echo from-sdk; exit 4"]})
            seen["call"] = {
                "text": "".join(c.text for c in done.content if c.type == "text"),
                "exit": (done.meta or {}).get("ctx/exit"),
            }
            pids = os.path.join(work, "pids")
            script = f"echo $$ > {pids}.tmp; sleep 300 & echo $! >> {pids}.tmp; mv {pids}.tmp {pids}; wait"
            with anyio.move_on_after(30):
                async with anyio.create_task_group() as group:
                    async def long_call():
                        await session.call_tool("ctx_run", {"argv": ["sh", "-c", script]})

                    group.start_soon(long_call)
                    while not os.path.exists(pids):
                        await anyio.sleep(0.05)
                    cancelled_at = time.monotonic()
                    group.cancel_scope.cancel()
            numbers = [int(p) for p in open(pids).read().split()]
            ended = None
            while time.monotonic() - cancelled_at < 10:
                if all(state(p) in ("gone", "Z") for p in numbers):
                    ended = time.monotonic() - cancelled_at
                    break
                await anyio.sleep(0.05)
            seen["cancel"] = {"pids": len(numbers), "ended_after": ended}
            after = await session.call_tool("ctx_run", {"argv": ["echo", "still-serving"]})
            seen["after"] = "".join(c.text for c in after.content if c.type == "text")
    print(json.dumps(seen))


anyio.run(main, sys.argv[1], sys.argv[2])
