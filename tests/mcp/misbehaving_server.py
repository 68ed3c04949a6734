"""An MCP server over stdio that misbehaves on purpose, for the proxy's tests.

Python's standard library alone: JSON-RPC lines on stdin and stdout.
`python3 misbehaving_server.py MODE`, where MODE is one of:

- `hang`: reads its input and never answers, not even `initialize`.
- `huge`: `echo`, and `huge` / `huge_id_first`, whose result is 100 MB of
  text, written as it is made; `huge` writes its `id` last (as the
  TypeScript SDK does), `huge_id_first` first.
- `deep`: `echo`, and `deep`, whose input schema nests 100 levels of
  properties (over 200 levels of JSON).
- `many`: 200 pages of 1,000 tools each, paged with a cursor.
- `names`: `x.y` and `x_y` (alike once sanitized), `ctl` whose title,
  description, parameter name and error carry control characters, `scalar`
  whose result is wrapped as `{"result": ...}`, `fails` whose JSON-RPC
  error message carries control characters, and `echo`.

When `MISBEHAVING_LOG` names a file, each request's method (and a
tools/list page's cursor) is appended to it, one per line.
"""

import json
import os
import sys

MODE = sys.argv[1]
OUT = sys.stdout.buffer
LOG = os.environ.get("MISBEHAVING_LOG")


def log(text):
    if LOG:
        with open(LOG, "a") as file:
            file.write(text + "\n")


def send(message):
    OUT.write(json.dumps(message).encode() + b"\n")
    OUT.flush()


def answer(id, result):
    send({"jsonrpc": "2.0", "id": id, "result": result})


def text(value):
    return {"content": [{"type": "text", "text": value}], "isError": False}


def tool(name, description="A tool.", schema=None, **more):
    entry = {
        "name": name,
        "description": description,
        "inputSchema": schema or {"type": "object", "properties": {}},
    }
    entry.update(more)
    return entry


ECHO = tool(
    "echo",
    "Says the message back.",
    {"type": "object", "properties": {"message": {"type": "string"}}},
)


def deep_schema(levels):
    schema = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def tools_page(cursor):
    if MODE == "huge":
        return [ECHO, tool("huge"), tool("huge_id_first")], None
    if MODE == "deep":
        return [ECHO, tool("deep", "Too deep.", deep_schema(100))], None
    if MODE == "many":
        page = int(cursor or 0)
        tools = [
            tool(f"t{page}_{i}", "One of very many tools.") for i in range(1000)
        ]
        return tools, (str(page + 1) if page + 1 < 200 else None)
    if MODE == "names":
        return [
            ECHO,
            tool("x.y", "The dotted one."),
            tool("x_y", "The underscored one."),
            tool(
                "ctl",
                "Bad\x1b[31m red\x07 text\x1b]0;title\x07 here.",
                {
                    "type": "object",
                    "properties": {"p\x1b[2Jq": {"type": "string", "description": "d\x1b[1m"}},
                },
                title="T\x1b[5mitle",
            ),
            tool(
                "scalar",
                "Returns a number, wrapped.",
                outputSchema={
                    "type": "object",
                    "properties": {"result": {"type": "integer"}},
                    "required": ["result"],
                },
            ),
            tool("fails", "Fails with a JSON-RPC error."),
        ], None
    return [ECHO], None


def write_huge(id, id_first):
    # 100 MB of text in 1 MB pieces, never whole in memory.
    head = b'{"jsonrpc": "2.0", "id": %d, "result": ' % id if id_first else b'{"result": '
    OUT.write(head + b'{"content": [{"type": "text", "text": "')
    piece = b"x" * (1 << 20)
    try:
        for _ in range(100):
            OUT.write(piece)
        tail = b'"}], "isError": false}'
        tail += b"}" if id_first else b', "jsonrpc": "2.0", "id": %d}' % id
        OUT.write(tail + b"\n")
        OUT.flush()
    except BrokenPipeError:
        sys.exit(0)


def call(id, params):
    name = params.get("name")
    arguments = params.get("arguments") or {}
    if name == "echo":
        return answer(id, text("echo: " + str(arguments.get("message", ""))))
    if name in ("huge", "huge_id_first"):
        return write_huge(id, name == "huge_id_first")
    if name == "ctl":
        result = text("oops\x1b[31m red\x07")
        result["isError"] = True
        return answer(id, result)
    if name == "scalar":
        result = text("42")
        result["structuredContent"] = {"result": 42}
        return answer(id, result)
    if name == "fails":
        return send(
            {
                "jsonrpc": "2.0",
                "id": id,
                "error": {"code": -32000, "message": "broken\x1b[2J\x1b]0;pwned\x07 " + "z" * 5000},
            }
        )
    send({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": "unknown tool"}})


def main():
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        message = json.loads(line)
        method = message.get("method")
        id = message.get("id")
        params = message.get("params") or {}
        log(method + (" " + str(params.get("cursor")) if method == "tools/list" else ""))
        if MODE == "hang" or id is None:
            continue
        if method == "initialize":
            answer(
                id,
                {
                    "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "misbehaving-" + MODE, "version": "1"},
                },
            )
        elif method == "tools/list":
            tools, next_cursor = tools_page(params.get("cursor"))
            result = {"tools": tools}
            if next_cursor is not None:
                result["nextCursor"] = next_cursor
            answer(id, result)
        elif method == "tools/call":
            call(id, params)
        elif method == "ping":
            answer(id, {})
        else:
            send({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no such method"}})


if __name__ == "__main__":
    main()
