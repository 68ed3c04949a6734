"""The `toolbox` MCP server, driven by the official Python MCP SDK.

Each test starts `toolbox serve` (stdio, or `--http` on a free loopback
port) and talks to it the way an MCP client application does. The expected
tool definitions come from `toolbox schema --format mcp`, the registry's own
rendering, so the server is checked against the registry and not against
copies kept here.

The binary is the one the `TOOLBOX` environment variable names;
`tests/mcp/run.sh` builds it and sets the variable.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import subprocess
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator

import pytest
from mcp import Client, ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

# Long enough for a debug build on a loaded machine; only a hang reaches it.
TIMEOUT = 60

DOCUMENT = "\n\n".join(
    [
        "# Field notes",
        "## Rivers\nRivers carry water to the sea. They also carry silt.",
        "## Hills\nHills rise slowly over time. Rivers cut through them.",
        "## Towns\nTowns grow where rivers meet. Trade follows the water.",
    ]
)


def toolbox() -> str:
    path = os.environ.get("TOOLBOX", "")
    if not path:
        pytest.fail("set TOOLBOX to the path of the built toolbox binary (tests/mcp/run.sh does)")
    if not os.access(path, os.X_OK):
        pytest.fail(f"TOOLBOX={path} is not an executable file")
    return path


def server_env() -> dict[str, str]:
    # The configured `search` tool stays out unless its key is set: leave it
    # out here, whatever the caller's environment holds.
    return {key: value for key, value in os.environ.items() if not key.startswith("TOOL_")}


def expected_tools() -> dict[str, dict[str, Any]]:
    """The registry's MCP rendering, by tool name."""
    out = subprocess.run(
        [toolbox(), "schema", "--format", "mcp"],
        check=True,
        capture_output=True,
        text=True,
        env=server_env(),
        timeout=TIMEOUT,
    ).stdout
    return {tool["name"]: tool for tool in json.loads(out)["tools"]}


def run(coroutine: Any) -> Any:
    async def bounded() -> Any:
        return await asyncio.wait_for(coroutine, TIMEOUT)

    return asyncio.run(bounded())


@asynccontextmanager
async def session() -> AsyncIterator[ClientSession]:
    """An initialised client session with `toolbox serve` over stdio."""
    params = StdioServerParameters(command=toolbox(), args=["serve"], env=server_env())
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as client:
            await client.initialize()
            yield client


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def dump(model: Any) -> dict[str, Any]:
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


def test_initialize_names_the_server_and_offers_tools() -> None:
    async def scenario() -> None:
        params = StdioServerParameters(command=toolbox(), args=["serve"], env=server_env())
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as client:
                init = await client.initialize()
                assert init.server_info.name == "toolbox"
                assert init.capabilities.tools is not None

    run(scenario())


def test_listed_tools_match_the_registry() -> None:
    expected = expected_tools()
    assert {"convert_length", "process_document", "schedule_meeting"} <= expected.keys()

    async def scenario() -> None:
        async with session() as client:
            listed = {tool.name: dump(tool) for tool in (await client.list_tools()).tools}
            assert listed.keys() == expected.keys()
            for name, want in expected.items():
                got = listed[name]
                for key in ("name", "title", "description", "inputSchema", "outputSchema", "annotations"):
                    assert got.get(key) == want.get(key), f"{name}.{key}"

    run(scenario())


def test_schedule_meeting_lists_an_output_schema() -> None:
    # Checked here so the comparison above cannot pass on two empty sides.
    tool = expected_tools()["schedule_meeting"]
    assert tool["outputSchema"]["type"] == "object"
    assert "slot" in tool["inputSchema"]["properties"]


def test_call_with_good_arguments() -> None:
    async def scenario() -> None:
        async with session() as client:
            result = await client.call_tool(
                "convert_length", {"value": 1, "from": "mile", "to": "kilometre"}
            )
            assert result.is_error is False
            assert text_of(result) == "1 mile = 1.6093 kilometre"

    run(scenario())


def test_structured_content_matches_the_output_schema() -> None:
    async def scenario() -> None:
        async with session() as client:
            # The SDK validates structuredContent against the listed
            # outputSchema and raises when it does not match.
            result = await client.call_tool(
                "schedule_meeting",
                {
                    "title": "Planning",
                    "slot": {"date": "2030-05-04", "start": "09:30", "minutes": 45},
                    "attendees": [{"name": "Ada", "email": "ada@example.com"}],
                },
            )
            assert result.is_error is False, text_of(result)
            structured = result.structured_content
            assert structured is not None
            assert structured["title"] == "Planning"
            assert json.loads(text_of(result)) == structured

    run(scenario())


def test_bad_arguments_give_an_error_result_and_the_server_keeps_serving() -> None:
    async def scenario() -> None:
        async with session() as client:
            bad = await client.call_tool(
                "convert_length", {"value": "far", "from": "mile", "to": "kilometre"}
            )
            assert bad.is_error is True
            message = text_of(bad)
            assert "invalid arguments for convert_length" in message
            assert "value" in message

            missing = await client.call_tool("convert_length", {})
            assert missing.is_error is True
            assert "missing" in text_of(missing)

            again = await client.call_tool(
                "convert_length", {"value": 2, "from": "mile", "to": "kilometre"}
            )
            assert again.is_error is False
            assert text_of(again) == "2 mile = 3.2187 kilometre"

    run(scenario())


def test_unknown_tool_is_a_protocol_error_and_the_server_keeps_serving() -> None:
    async def scenario() -> None:
        async with session() as client:
            with pytest.raises(MCPError) as raised:
                await client.call_tool("convert_lenght", {"value": 1})
            assert raised.value.code == -32602
            assert 'did you mean "convert_length"' in raised.value.message

            after = await client.call_tool(
                "convert_length", {"value": 1, "from": "metre", "to": "millimetre"}
            )
            assert after.is_error is False

    run(scenario())


def test_progress_reaches_the_client() -> None:
    async def scenario() -> None:
        reports: list[tuple[float, float | None, str | None]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            reports.append((progress, total, message))

        async with session() as client:
            result = await client.call_tool(
                "process_document",
                {"text": DOCUMENT, "key_terms": 3},
                progress_callback=on_progress,
            )
            assert result.is_error is False, text_of(result)
            assert result.structured_content["title"] == "Field notes"
            assert len(result.structured_content["sections"]) == 3

        # One report per section plus the first and the last.
        assert len(reports) >= 3, reports
        progresses = [progress for progress, _, _ in reports]
        assert progresses == sorted(progresses) and len(set(progresses)) == len(progresses)
        assert progresses[-1] == 1.0
        assert all(total == 1.0 for _, total, _ in reports)
        assert reports[-1][2] == "done"

    run(scenario())


def test_no_progress_without_a_progress_token() -> None:
    async def scenario() -> None:
        seen: list[Any] = []

        async def on_message(message: Any) -> None:
            seen.append(message)

        params = StdioServerParameters(command=toolbox(), args=["serve"], env=server_env())
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, message_handler=on_message) as client:
                await client.initialize()
                result = await client.call_tool("process_document", {"text": DOCUMENT})
                assert result.is_error is False
        progress = [m for m in seen if "progress" in type(getattr(m, "root", m)).__name__.lower()]
        assert progress == []

    run(scenario())


# MCP's logging is deprecated in the newest protocol drafts, and the SDK warns
# of it; clients use it today, so the server supports it.
@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")
def test_log_messages_arrive_at_the_level_set() -> None:
    async def scenario() -> None:
        logs: list[Any] = []

        async def on_log(params: Any) -> None:
            logs.append(params)

        params = StdioServerParameters(command=toolbox(), args=["serve"], env=server_env())
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, logging_callback=on_log) as client:
                init = await client.initialize()
                assert init.capabilities.logging is not None
                # Every level until the client sets one: the debug line too.
                await client.call_tool("process_document", {"text": DOCUMENT})
                assert [log.level for log in logs] == ["debug", "notice"]
                logs.clear()
                await client.set_logging_level("notice")
                result = await client.call_tool("process_document", {"text": DOCUMENT})
                assert result.is_error is False
        assert [log.level for log in logs] == ["notice"]
        assert logs[0].logger == "process_document"
        assert "section(s)" in logs[0].data

    run(scenario())


def test_auto_mode_client_lists_and_calls() -> None:
    # The SDK's high-level client negotiates the newest protocol it can.
    async def scenario() -> None:
        params = StdioServerParameters(command=toolbox(), args=["serve"], env=server_env())
        async with Client(params) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert names == expected_tools().keys()
            result = await client.call_tool(
                "convert_length", {"value": 3, "from": "foot", "to": "metre"}
            )
            assert result.is_error is False
            assert text_of(result) == "3 foot = 0.9144 metre"

    run(scenario())


@asynccontextmanager
async def http_server() -> AsyncIterator[str]:
    """`toolbox serve --http` on a free loopback port; yields its URL."""
    process = await asyncio.create_subprocess_exec(
        toolbox(),
        "serve",
        "--http",
        "127.0.0.1:0",
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env=server_env(),
    )
    try:
        assert process.stderr is not None
        url = None
        while url is None:
            line = (await process.stderr.readline()).decode()
            if not line:
                raise AssertionError("toolbox serve --http exited before it said where it listens")
            match = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", line)
            if match:
                url = match.group(1)
        yield url
    finally:
        process.terminate()
        await process.wait()


def test_streamable_http_lists_and_calls_with_progress() -> None:
    async def scenario() -> None:
        reports: list[float] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            reports.append(progress)

        async with http_server() as url:
            async with streamable_http_client(url) as (read, write):
                async with ClientSession(read, write) as client:
                    await client.initialize()
                    names = {tool.name for tool in (await client.list_tools()).tools}
                    assert names == expected_tools().keys()
                    result = await client.call_tool(
                        "process_document", {"text": DOCUMENT}, progress_callback=on_progress
                    )
                    assert result.is_error is False, text_of(result)
                    bad = await client.call_tool("convert_length", {"value": True})
                    assert bad.is_error is True
        assert reports and reports[-1] == 1.0

    run(scenario())


def test_http_refuses_addresses_other_than_loopback() -> None:
    done = subprocess.run(
        [toolbox(), "serve", "--http", "0.0.0.0:0"],
        capture_output=True,
        text=True,
        env=server_env(),
        timeout=TIMEOUT,
    )
    assert done.returncode == 2
    assert "loopback" in done.stderr


# --------------------------------------------- content, sampling, elicitation
#
# These talk to the `conformance-server` example (its tools are the ones the
# MCP conformance suite calls), whose binary CONFORMANCE_SERVER names.


def conformance_server() -> str:
    path = os.environ.get("CONFORMANCE_SERVER", "")
    if not path:
        pytest.fail("set CONFORMANCE_SERVER to the built conformance-server binary (tests/mcp/run.sh does)")
    return path


@asynccontextmanager
async def conformance_session(**callbacks: Any) -> AsyncIterator[ClientSession]:
    """An initialised session with `conformance-server` over stdio."""
    params = StdioServerParameters(command=conformance_server(), args=[], env=server_env())
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, **callbacks) as client:
            await client.initialize()
            yield client


def test_an_image_result_arrives_as_an_image() -> None:
    async def scenario() -> None:
        async with conformance_session() as client:
            result = await client.call_tool("test_image_content", {})
            assert result.is_error is False
            [block] = result.content
            assert block.type == "image"
            assert block.mime_type == "image/png"
            assert base64.b64decode(block.data).startswith(b"\x89PNG\r\n\x1a\n")

            mixed = await client.call_tool("test_multiple_content_types", {})
            assert [block.type for block in mixed.content] == ["text", "image", "resource"]
            resource = mixed.content[2].resource
            assert str(resource.uri) == "test://mixed-content-resource"
            assert json.loads(resource.text) == {"test": "data", "value": 123}

    run(scenario())


def test_a_sampling_request_is_answered_by_the_clients_handler() -> None:
    async def scenario() -> None:
        asked: list[Any] = []

        async def on_sampling(context: Any, params: types.CreateMessageRequestParams) -> Any:
            asked.append(params)
            return types.CreateMessageResult(
                role="assistant",
                content=types.TextContent(type="text", text="Paris"),
                model="test-model",
                stop_reason="endTurn",
            )

        async with conformance_session(sampling_callback=on_sampling) as client:
            result = await client.call_tool("test_sampling", {"prompt": "Capital of France?"})
        assert result.is_error is False, result
        assert text_of(result) == "LLM response: Paris"
        [params] = asked
        assert params.max_tokens == 100
        [message] = params.messages
        assert message.role == "user"
        assert message.content.text == "Capital of France?"

    run(scenario())


def test_sampling_without_the_capability_is_an_error_result() -> None:
    async def scenario() -> None:
        async with conformance_session() as client:
            result = await client.call_tool("test_sampling", {"prompt": "hi"})
        assert result.is_error is True
        assert "did not declare the `sampling` capability" in text_of(result)

    run(scenario())


def test_an_elicitation_accepted_and_one_declined() -> None:
    async def scenario() -> None:
        answers = [
            types.ElicitResult(action="accept", content={"username": "ada", "email": "ada@example.com"}),
            types.ElicitResult(action="decline"),
        ]
        asked: list[Any] = []

        async def on_elicit(context: Any, params: Any) -> Any:
            asked.append(params)
            return answers[len(asked) - 1]

        async with conformance_session(elicitation_callback=on_elicit) as client:
            accepted = await client.call_tool("test_elicitation", {"message": "Who are you?"})
            declined = await client.call_tool("test_elicitation", {"message": "And now?"})
        assert text_of(accepted).startswith("User response: action=accept, content=")
        content = json.loads(text_of(accepted).split("content=", 1)[1])
        assert content == {"username": "ada", "email": "ada@example.com"}
        assert text_of(declined) == "User response: action=decline, content={}"
        assert asked[0].message == "Who are you?"
        schema = asked[0].requested_schema
        assert sorted(schema["required"]) == ["email", "username"]
        assert set(schema["properties"]) == {"username", "email"}

    run(scenario())


# ------------------------------------------ resources, prompts, completion
#
# The same server's resources (a text, a blob, a URI template), its prompts
# and the completion of a prompt's argument, over stdio and over streamable
# HTTP.


@asynccontextmanager
async def conformance_http_server() -> AsyncIterator[str]:
    """`conformance-server --http` on a free loopback port; yields its URL."""
    process = await asyncio.create_subprocess_exec(
        conformance_server(),
        "--http",
        "127.0.0.1:0",
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env=server_env(),
    )
    try:
        assert process.stderr is not None
        line = (await process.stderr.readline()).decode()
        match = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", line)
        if not match:
            raise AssertionError(f"conformance-server --http did not say where it listens: {line!r}")
        yield match.group(1)
    finally:
        process.terminate()
        await process.wait()


@asynccontextmanager
async def conformance_over(transport: str) -> AsyncIterator[ClientSession]:
    """An initialised session with `conformance-server` over `transport`."""
    if transport == "stdio":
        async with conformance_session() as client:
            yield client
        return
    async with conformance_http_server() as url:
        async with streamable_http_client(url) as (read, write):
            async with ClientSession(read, write) as client:
                await client.initialize()
                yield client


TRANSPORTS = ["stdio", "streamable HTTP"]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_resources_are_listed_and_read(transport: str) -> None:
    async def scenario() -> None:
        async with conformance_over(transport) as client:
            listed = {str(resource.uri): resource for resource in (await client.list_resources()).resources}
            assert {"test://static-text", "test://static-binary"} <= listed.keys()
            assert listed["test://static-text"].mime_type == "text/plain"

            [text] = (await client.read_resource("test://static-text")).contents
            assert str(text.uri) == "test://static-text"
            assert text.mime_type == "text/plain"
            assert text.text == "This is the content of the static text resource."

            [blob] = (await client.read_resource("test://static-binary")).contents
            assert blob.mime_type == "image/png"
            assert base64.b64decode(blob.blob).startswith(b"\x89PNG\r\n\x1a\n")

            templates = (await client.list_resource_templates()).resource_templates
            assert [template.uri_template for template in templates] == ["test://template/{id}/data"]
            [data] = (await client.read_resource("test://template/42/data")).contents
            assert str(data.uri) == "test://template/42/data"
            assert data.mime_type == "application/json"
            assert json.loads(data.text)["id"] == "42"

            with pytest.raises(MCPError) as missing:
                await client.read_resource("test://no-such-resource")
            assert missing.value.error.code == -32602

    run(scenario())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_prompts_are_listed_got_and_completed(transport: str) -> None:
    async def scenario() -> None:
        async with conformance_over(transport) as client:
            prompts = {prompt.name: prompt for prompt in (await client.list_prompts()).prompts}
            assert {"test_simple_prompt", "test_prompt_with_arguments"} <= prompts.keys()
            arguments = prompts["test_prompt_with_arguments"].arguments
            assert [(a.name, a.required) for a in arguments] == [("arg1", True), ("arg2", True)]

            got = await client.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
            [message] = got.messages
            assert message.role == "user"
            assert message.content.text == "Prompt with arguments: arg1='a', arg2='b'"

            completed = await client.complete(
                types.PromptReference(name="test_prompt_with_arguments"),
                {"name": "arg1", "value": "par"},
            )
            assert completed.completion.values == ["paris", "park", "party"]
            narrowed = await client.complete(
                types.PromptReference(name="test_prompt_with_arguments"),
                {"name": "arg1", "value": "pari"},
            )
            assert narrowed.completion.values == ["paris"]

            with pytest.raises(MCPError) as missing:
                await client.get_prompt("no_such_prompt", {})
            assert missing.value.error.code == -32602

    run(scenario())


# ------------------------------------- a registry file's resources and prompts
#
# `toolbox --registry FILE serve` serves the file's `resources` and
# `prompts` sections: a file beside it read at each read, a folder's files
# by a URI template, and a prompt made of its arguments.

REGISTRY_WITH_CONTENT = """\
tools: [calculator]
resources:
  - uri: docs://readme
    file: README.md
    description: The readme
  - uri: notes://{name}
    dir: notes
prompts:
  - name: review
    arguments:
      - {name: code, required: true}
      - {name: language, complete: [rust, python, ruby]}
    messages:
      - {role: user, text: "Review this {language} code: {code}"}
"""


def test_a_registry_files_resources_and_prompts_are_served(tmp_path: Any) -> None:
    (tmp_path / "README.md").write_text("# Readme\n")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text("note a")
    registry = tmp_path / "tools.yaml"
    registry.write_text(REGISTRY_WITH_CONTENT)

    async def scenario() -> None:
        params = StdioServerParameters(
            command=toolbox(), args=["--registry", str(registry), "serve"], env=server_env()
        )
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as client:
                await client.initialize()
                listed = [str(resource.uri) for resource in (await client.list_resources()).resources]
                assert "docs://readme" in listed
                [readme] = (await client.read_resource("docs://readme")).contents
                assert (readme.text, readme.mime_type) == ("# Readme\n", "text/markdown")
                # Read again at each read: an edit shows.
                (tmp_path / "README.md").write_text("# Edited\n")
                [readme] = (await client.read_resource("docs://readme")).contents
                assert readme.text == "# Edited\n"

                templates = (await client.list_resource_templates()).resource_templates
                assert [template.uri_template for template in templates] == ["notes://{name}"]
                [note] = (await client.read_resource("notes://a.md")).contents
                assert note.text == "note a"
                with pytest.raises(MCPError) as outside:
                    await client.read_resource("notes://..%2FREADME.md")
                assert outside.value.error.code == -32602

                got = await client.get_prompt("review", {"code": "x = 1", "language": "python"})
                assert [message.content.text for message in got.messages] == [
                    "Review this python code: x = 1"
                ]
                completed = await client.complete(
                    types.PromptReference(name="review"), {"name": "language", "value": "r"}
                )
                assert completed.completion.values == ["rust", "ruby"]

    run(scenario())


def test_a_registry_files_missing_resource_file_is_refused_at_its_line(tmp_path: Any) -> None:
    registry = tmp_path / "tools.yaml"
    registry.write_text("tools: [calculator]\nresources:\n  - uri: docs://readme\n    file: README.md\n")
    done = subprocess.run(
        [toolbox(), "--registry", str(registry), "serve"],
        capture_output=True,
        text=True,
        env=server_env(),
        timeout=TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2, done.stderr
    assert f"{registry}:4:11: resource `docs://readme`: the file README.md" in done.stderr
