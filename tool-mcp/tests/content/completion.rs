//! `completion/complete` of prompt arguments and template variables.

use serde_json::json;
use tool_mcp::completion::Completion;

use super::{Client, ERAS, assert_error, plain, server};

#[tokio::test]
async fn completion_offers_an_arguments_values_by_prefix() {
    for era in ERAS {
        let (mut client, _) = Client::start(server(), era).await;
        let complete = |value: &str| {
            json!({"ref": {"type": "ref/prompt", "name": "with_arguments"},
                "argument": {"name": "arg1", "value": value}})
        };
        let answer = client.request("completion/complete", complete("par")).await;
        assert_eq!(
            plain(era, &answer, false),
            json!({"completion": {"values": ["paris", "park", "party"]}})
        );
        let answer = client
            .request("completion/complete", complete("part"))
            .await;
        assert_eq!(answer["result"]["completion"]["values"], json!(["party"]));
        // An argument without values, a fixed URI, a template without a
        // completer: none.
        let none = [
            json!({"ref": {"type": "ref/prompt", "name": "with_arguments"},
                "argument": {"name": "count", "value": ""}}),
            json!({"ref": {"type": "ref/resource", "uri": "test://static-text"},
                "argument": {"name": "x", "value": ""}}),
            json!({"ref": {"type": "ref/resource", "uri": "test://template/{id}/data"},
                "argument": {"name": "id", "value": "1"}}),
        ];
        for params in none {
            let answer = client.request("completion/complete", params).await;
            assert_eq!(
                answer["result"]["completion"],
                json!({"values": []}),
                "{answer}"
            );
        }
    }
}

#[tokio::test]
async fn completion_of_unknown_refs_is_invalid_params() {
    for era in ERAS {
        let (mut client, _) = Client::start(server(), era).await;
        let answer = client
            .request(
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "nope"},
                    "argument": {"name": "a", "value": ""}}),
            )
            .await;
        assert_error(&answer, -32602, json!({"name": "nope"}));
        let answer = client
            .request(
                "completion/complete",
                json!({"ref": {"type": "ref/resource", "uri": "test://nope/{x}"},
                    "argument": {"name": "x", "value": ""}}),
            )
            .await;
        assert_error(&answer, -32602, json!({"uri": "test://nope/{x}"}));
        for params in [
            json!({"ref": {"type": "ref/other"}, "argument": {"name": "a", "value": ""}}),
            json!({"ref": {"type": "ref/prompt", "name": "simple"}}),
            json!({"argument": {"name": "a", "value": ""}}),
        ] {
            let answer = client.request("completion/complete", params).await;
            assert_eq!(answer["error"]["code"], -32602, "{answer}");
        }
    }
}

#[test]
fn at_most_a_hundred_values_go_out_with_the_total() {
    let many = Completion::of((0..150).map(|n| n.to_string()));
    assert_eq!(many.values.len(), 150);
    // The wire form is checked through a prompt of 150 completions.
    let prompts = tool_mcp::prompts::Prompts::builder()
        .prompt_fn(
            tool_mcp::prompts::PromptSpec::new("many").with_argument(
                tool_mcp::prompts::ArgumentSpec::optional("n")
                    .with_completions((0..150).map(|n| format!("v{n}"))),
            ),
            |_, _| async { Ok("x") },
        )
        .build()
        .unwrap();
    let server =
        tool_mcp::server::McpServer::new(tool_runtime::Registry::builder().build().unwrap())
            .with_prompts(prompts);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (mut client, _) = Client::start(server, super::Era::Session).await;
        let answer = client
            .request(
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "many"},
                    "argument": {"name": "n", "value": "v"}}),
            )
            .await;
        let completion = &answer["result"]["completion"];
        assert_eq!(completion["values"].as_array().unwrap().len(), 100);
        assert_eq!(completion["values"][0], "v0");
        assert_eq!(completion["total"], 150);
        assert_eq!(completion["hasMore"], true);
    });
}
