//! `prompts/list` and `prompts/get`, their errors, and prompt changes.

use serde_json::json;
use tool_mcp::prompts::PromptSpec;

use super::{Client, ERAS, Era, assert_error, plain, server};

#[tokio::test]
async fn prompts_list_gives_every_prompt_in_name_order() {
    for era in ERAS {
        let (mut client, _) = Client::start(server(), era).await;
        let list = client.request("prompts/list", json!({})).await;
        let list = plain(era, &list, true);
        let names: Vec<&str> = list["prompts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "asking",
                "failing",
                "simple",
                "with_arguments",
                "with_image"
            ]
        );
        assert_eq!(
            list["prompts"][3],
            json!({"name": "with_arguments", "description": "A prompt with arguments",
            "arguments": [
                {"name": "arg1", "description": "First test argument", "required": true},
                {"name": "count", "required": false},
            ]})
        );
    }
}

#[tokio::test]
async fn prompts_get_gives_the_messages() {
    for era in ERAS {
        let (mut client, _) = Client::start(server(), era).await;
        let simple = client
            .request("prompts/get", json!({"name": "simple"}))
            .await;
        // Not cached: a prompt's messages depend on its arguments.
        assert_eq!(
            plain(era, &simple, false),
            json!({"messages": [{"role": "user", "content":
                {"type": "text", "text": "This is a simple prompt for testing."}}]})
        );
        let with_arguments = client
            .request(
                "prompts/get",
                json!({"name": "with_arguments", "arguments": {"arg1": "v1", "count": "3", "other": "x"}}),
            )
            .await;
        assert_eq!(
            plain(era, &with_arguments, false)["messages"][0]["content"]["text"],
            "arg1='v1' x3"
        );
        let image = client
            .request("prompts/get", json!({"name": "with_image"}))
            .await;
        let image = plain(era, &image, false);
        assert_eq!(image["messages"][0]["content"]["type"], "image");
        assert_eq!(image["messages"][0]["content"]["mimeType"], "image/png");
        assert_eq!(image["messages"][1]["role"], "assistant");
    }
}

#[tokio::test]
async fn prompts_get_errors_are_invalid_params_or_internal() {
    for era in ERAS {
        let (mut client, _) = Client::start(server(), era).await;
        let unknown = client.request("prompts/get", json!({"name": "nope"})).await;
        assert_error(&unknown, -32602, json!({"name": "nope"}));
        let missing = client
            .request("prompts/get", json!({"name": "with_arguments"}))
            .await;
        assert_error(&missing, -32602, json!({"argument": "arg1"}));
        let not_text = client
            .request(
                "prompts/get",
                json!({"name": "with_arguments", "arguments": {"arg1": 1}}),
            )
            .await;
        assert_error(&not_text, -32602, json!({"argument": "arg1"}));
        let unparsed = client
            .request(
                "prompts/get",
                json!({"name": "with_arguments", "arguments": {"arg1": "a", "count": "many"}}),
            )
            .await;
        assert_eq!(unparsed["error"]["code"], -32602, "{unparsed}");
        assert_eq!(unparsed["error"]["data"]["argument"], "count");
        let failing = client
            .request("prompts/get", json!({"name": "failing"}))
            .await;
        assert_eq!(failing["error"]["code"], -32603, "{failing}");
        assert!(
            failing["error"]["message"]
                .as_str()
                .unwrap()
                .contains("no luck")
        );
        let no_name = client.request("prompts/get", json!({})).await;
        assert_eq!(no_name["error"]["code"], -32602);
    }
}

#[tokio::test]
async fn a_prompt_change_is_told_to_sessions_and_listens() {
    let prompts = super::prompts();
    let server = super::server().with_prompts(prompts.clone());
    let (mut session, _) = Client::start(server.clone(), Era::Session).await;
    let (mut stateless, _) = Client::start(server, Era::Stateless).await;
    let listen = stateless
        .send_request(
            "subscriptions/listen",
            json!({"notifications": {"promptsListChanged": true, "resourcesListChanged": true}}),
        )
        .await;
    let ack = stateless.next().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"promptsListChanged": true, "resourcesListChanged": true})
    );
    prompts
        .insert(prompts.get("simple").map(|_| Toggled).unwrap())
        .unwrap();
    let changed = session.next().await;
    assert_eq!(changed["method"], "notifications/prompts/list_changed");
    let changed = stateless.next().await;
    assert_eq!(changed["method"], "notifications/prompts/list_changed");
    assert_eq!(
        changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        listen
    );
    let list = session.request("prompts/list", json!({})).await;
    assert_eq!(list["result"]["prompts"].as_array().unwrap().len(), 6);
    assert!(prompts.remove("toggled"));
    let changed = session.next().await;
    assert_eq!(changed["method"], "notifications/prompts/list_changed");
}

/// A prompt of its own kind.
struct Toggled;

impl tool_mcp::prompts::Prompt for Toggled {
    fn spec(&self) -> &PromptSpec {
        static SPEC: std::sync::OnceLock<PromptSpec> = std::sync::OnceLock::new();
        SPEC.get_or_init(|| PromptSpec::new("toggled").with_description("Comes and goes"))
    }

    fn get(
        &self,
        _: tool_mcp::prompts::PromptArguments,
        _: tool_runtime::ToolContext,
    ) -> futures_util::future::BoxFuture<
        '_,
        Result<tool_mcp::prompts::GetPrompt, tool_mcp::prompts::PromptError>,
    > {
        Box::pin(async { Ok("here".into()) })
    }
}

/// The `_meta` of a request of revision 2026-07-28 declaring `capabilities`.
fn meta(capabilities: serde_json::Value) -> serde_json::Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

#[tokio::test]
async fn a_prompt_that_asks_is_input_required_then_complete_in_the_stateless_revision() {
    let (mut client, _) = Client::start(server(), Era::Stateless).await;
    let elicitation = meta(json!({"elicitation": {}}));
    let first = client
        .request(
            "prompts/get",
            json!({"name": "asking", "_meta": elicitation}),
        )
        .await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let asked = &result["inputRequests"]["user_context"];
    assert_eq!(asked["method"], "elicitation/create");
    assert_eq!(asked["params"]["message"], "What context?");
    let state = result["requestState"].as_str().unwrap().to_owned();
    let answer = json!({"user_context": {"action": "accept", "content": {"context": "tests"}}});
    let second = client
        .request(
            "prompts/get",
            json!({"name": "asking", "inputResponses": answer, "requestState": state,
                "_meta": elicitation}),
        )
        .await;
    assert_eq!(
        plain(Era::Stateless, &second, false),
        json!({"messages": [{"role": "user", "content":
            {"type": "text", "text": "context: \"tests\""}}]})
    );
    // The state is the prompt's: refused for another prompt, and for a
    // tool call of the same name.
    let other = client
        .request(
            "prompts/get",
            json!({"name": "simple", "inputResponses": answer, "requestState": state,
                "_meta": elicitation}),
        )
        .await;
    assert_eq!(other["error"]["code"], -32602, "{other}");
    let call = client
        .request(
            "tools/call",
            json!({"name": "asking", "arguments": {}, "inputResponses": answer,
                "requestState": state, "_meta": elicitation}),
        )
        .await;
    assert_eq!(call["error"]["code"], -32602, "{call}");
    // Answers without the state are not read: the prompt asks again.
    let unasked = client
        .request(
            "prompts/get",
            json!({"name": "asking", "inputResponses": answer, "_meta": elicitation}),
        )
        .await;
    assert_eq!(unasked["result"]["resultType"], "input_required");
}

#[tokio::test]
async fn a_prompt_that_asks_without_the_capability_is_error_32021() {
    let (mut client, _) = Client::start(server(), Era::Stateless).await;
    let answer = client
        .request("prompts/get", json!({"name": "asking"}))
        .await;
    assert_error(
        &answer,
        -32021,
        json!({"requiredCapabilities": {"elicitation": {}}}),
    );
}

#[tokio::test]
async fn a_prompt_that_asks_sends_the_client_a_request_in_a_session() {
    let (mut client, _) = Client::start(server(), Era::Session).await;
    let id = client
        .send_request("prompts/get", json!({"name": "asking"}))
        .await;
    let request = client.next().await;
    assert_eq!(request["method"], "elicitation/create", "{request}");
    client
        .send(json!({"jsonrpc": "2.0", "id": request["id"], "result":
            {"action": "accept", "content": {"context": "session"}}}))
        .await;
    let (answer, _) = client.response(id).await;
    assert_eq!(
        answer["result"]["messages"][0]["content"]["text"],
        "context: \"session\""
    );
}
