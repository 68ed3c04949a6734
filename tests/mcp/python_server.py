"""A small MCP server written with the official Python SDK (mcp 2.x,
`MCPServer`, formerly FastMCP), for the Rust client's tests
(tool-mcp/tests/client.rs). It speaks stdio:

    target/mcp-venv/bin/python tests/mcp/python_server.py

Tools:
  add            two integers, plain text result
  divide         structured output (an output schema and structuredContent);
                 dividing by zero raises ToolError, which the SDK answers
                 with an `isError: true` result whose text is the message
  slow_count     reports progress (with a total and a message) while it
                 sleeps, `steps` times `delay` seconds
  register_tool  adds a tool named `name` at run time and sends
                 `notifications/tools/list_changed`
  env            the value of an environment variable (empty when unset)
  wait_forever   waits until it is cancelled (notifications/cancelled), and
                 records the cancellation under its `label`
  cancelled      the labels recorded so far, comma-separated
"""

from __future__ import annotations

import asyncio
import os

from pydantic import BaseModel

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("python-test-server")


class Quotient(BaseModel):
    """The result of a division."""

    quotient: float
    remainder: int


@server.tool(structured_output=False)
def add(a: int, b: int) -> str:
    """Adds two integers."""
    return f"{a} + {b} = {a + b}"


@server.tool()
def divide(a: int, b: int) -> Quotient:
    """Divides `a` by `b`; dividing by zero is an error result."""
    if b == 0:
        raise ToolError(f"cannot divide {a} by zero")
    return Quotient(quotient=a / b, remainder=a % b)


@server.tool(structured_output=False)
async def slow_count(steps: int, delay: float, ctx: Context) -> str:
    """Counts to `steps`, waiting `delay` seconds per step and reporting progress."""
    for step in range(1, steps + 1):
        await asyncio.sleep(delay)
        await ctx.report_progress(step, steps, f"step {step} of {steps}")
    return f"counted to {steps}"


@server.tool(structured_output=False)
async def register_tool(name: str, ctx: Context) -> str:
    """Adds a tool called `name` (it answers with its own name) and tells the client."""

    def added() -> str:
        return f"I am {name}"

    server.add_tool(
        added, name=name, description=f"A tool added at run time: {name}.", structured_output=False
    )
    await ctx.session.send_tool_list_changed()
    return f"registered {name}"


@server.tool(structured_output=False)
def env(name: str) -> str:
    """The value of the environment variable `name`, empty when unset."""
    return os.environ.get(name, "")


CANCELLED: list[str] = []


@server.tool(structured_output=False)
async def wait_forever(label: str) -> str:
    """Waits until the call is cancelled, which is recorded under `label`."""
    try:
        await asyncio.sleep(3600)
    except BaseException:
        # The SDK cancels the call's task on notifications/cancelled.
        CANCELLED.append(label)
        raise
    return "never"


@server.tool(structured_output=False)
def cancelled() -> str:
    """The labels of the calls cancelled so far, comma-separated."""
    return ",".join(CANCELLED)


if __name__ == "__main__":
    server.run("stdio")
