//! The `requestState` of the stateless revision's `input_required`
//! results: the only way answers are read (unless the server takes answers
//! given without one), opaque to the client, and refused when altered,
//! expired, moved to another call, sealed by a server of another key or for
//! another owner.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};
use tool_mcp::server::McpServer;
use tool_runtime::{
    Registry, ToolContext, ToolError, context::Caller, context::Elicitation,
    context::ElicitationRequest, tool,
};

use super::{Client, modern, task_server, with_tasks};

/// A name no tool writes: an answer's own text, looked for in the states.
const SECRET: &str = "Quetzalcoatl-7731-secret";

/// The `content.name` of an accepted elicitation, or its action.
fn name_of(answer: Elicitation<Value>) -> String {
    match answer {
        Elicitation::Accepted(content) => content["name"].as_str().unwrap_or("?").to_owned(),
        other => other.action().to_owned(),
    }
}

/// Asks for a first name, then for a second one. `flag` is an argument
/// only: a state holds for the arguments it was issued for.
#[tool]
async fn two_questions(ctx: &ToolContext, flag: bool) -> Result<String, ToolError> {
    // Read by the state's digest of the arguments, not here.
    let _ = flag;
    let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
    let first = ctx
        .elicit_request(ElicitationRequest::new("First?", schema.clone()).named("first"))
        .await?;
    let second = ctx
        .elicit_request(ElicitationRequest::new("Second?", schema).named("second"))
        .await?;
    Ok(format!("{} and {}", name_of(first), name_of(second)))
}

fn server(key: &[u8]) -> McpServer {
    let registry = Registry::builder().tool(TwoQuestionsTool).build().unwrap();
    McpServer::new(registry).with_request_state_key(key)
}

/// A server of `key` whose calls are `subject`'s, as a resource server
/// makes them: the same caller in every instance.
fn server_for(key: &[u8], subject: &str) -> McpServer {
    let caller = Caller::new(subject);
    server(key).with_context(ToolContext::new().with_caller(caller))
}

const KEY: &[u8] = b"a key of thirty-two bytes or so!";

/// The params of a call of `two_questions`, with `extra` params.
fn call(count: bool, extra: Value) -> Value {
    let mut params = json!({"name": "two_questions", "arguments": {"flag": count},
        "_meta": modern(json!({"elicitation": {}}))});
    for (key, value) in extra.as_object().unwrap() {
        params[key] = value.clone();
    }
    params
}

fn accept(name: &str) -> Value {
    json!({"action": "accept", "content": {"name": name}})
}

/// The `input_required` result of `answer`, asserted to be one.
fn input_required(answer: &Value) -> &Value {
    let result = &answer["result"];
    assert_eq!(result["resultType"], "input_required", "{answer}");
    result
}

/// The `-32602` error of `answer`'s message, asserted to be one.
fn invalid_params(answer: &Value) -> &str {
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    answer["error"]["message"].as_str().unwrap()
}

/// The state of round 2: the first question answered with [`SECRET`], the
/// second asked.
async fn second_round(client: &mut Client, count: bool) -> String {
    let (first, _) = client.call(1, call(count, json!({}))).await;
    let state = input_required(&first)["requestState"].clone();
    let answers = json!({"first": accept(SECRET)});
    let (second, _) = client
        .call(
            2,
            call(
                count,
                json!({"inputResponses": answers, "requestState": state}),
            ),
        )
        .await;
    let result = input_required(&second);
    assert!(result["inputRequests"]["second"].is_object(), "{second}");
    result["requestState"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn answers_without_the_request_state_answer_nothing_and_the_tool_asks_again() {
    let mut client = Client::open(server(KEY));
    // On a first call, whether the state is absent or null: the answers
    // are not read, and the tool asks its first question.
    for (id, extra) in [
        (1, json!({"inputResponses": {"first": accept("Mallory")}})),
        (
            2,
            json!({"inputResponses": {"first": accept("Mallory"), "second": accept("Eve")},
                   "requestState": null}),
        ),
    ] {
        let (asked, _) = client.call(id, call(true, extra)).await;
        let requests = input_required(&asked)["inputRequests"].as_object().unwrap();
        assert_eq!(requests.len(), 1, "{asked}");
        assert!(requests.contains_key("first"), "{asked}");
    }

    // On a retry that leaves out the state it was given: asked again too,
    // and a state comes with the question.
    let (first, _) = client.call(3, call(true, json!({}))).await;
    let state = input_required(&first)["requestState"].clone();
    let (again, _) = client
        .call(
            4,
            call(true, json!({"inputResponses": {"first": accept("Ada")}})),
        )
        .await;
    let result = input_required(&again);
    assert!(result["inputRequests"]["first"].is_object(), "{again}");
    assert!(result["requestState"].is_string(), "{again}");

    // An empty inputResponses is none: the call is a first one.
    let (fresh, _) = client
        .call(5, call(true, json!({"inputResponses": {}})))
        .await;
    assert!(input_required(&fresh)["inputRequests"]["first"].is_object());

    // With the state, an answer to a question not asked yet is ignored:
    // the tool asks it.
    let answers = json!({"first": accept("Ada"), "second": accept("Mallory")});
    let (second, _) = client
        .call(
            6,
            call(
                true,
                json!({"inputResponses": answers, "requestState": state}),
            ),
        )
        .await;
    let result = input_required(&second);
    let requests = result["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{second}");
    assert!(requests.contains_key("second"), "{second}");
    let state = result["requestState"].clone();
    let (done, _) = client
        .call(
            7,
            call(
                true,
                json!({"inputResponses": {"second": accept("Grace")}, "requestState": state}),
            ),
        )
        .await;
    assert_eq!(
        done["result"]["content"][0]["text"], "Ada and Grace",
        "{done}"
    );
}

#[tokio::test]
async fn answers_without_the_request_state_do_not_reach_a_task() {
    let mut client = Client::open(task_server(Default::default()));
    let answers = json!({"user_name": {"action": "accept", "content": {"name": "Mallory"}}});
    let (asked, _) = client
        .call(
            1,
            json!({"name": "onboard", "arguments": {}, "_meta": with_tasks(),
                   "inputResponses": answers}),
        )
        .await;
    // The tool asks for the name: the answer sent without a state was not
    // read, and no task started with it.
    let result = input_required(&asked);
    assert!(result["inputRequests"]["user_name"].is_object(), "{asked}");
    assert!(!asked.to_string().contains("Mallory"), "{asked}");
}

#[tokio::test]
async fn a_request_state_shows_no_answer_it_carries() {
    let mut client = Client::open(server(KEY));
    let state = second_round(&mut client, false).await;
    assert!(!state.contains(SECRET), "{state}");
    // Each part of it decodes as base64url to bytes that are no JSON and
    // hold neither the answer nor the tool's name.
    for part in state.split('.') {
        let bytes = URL_SAFE_NO_PAD
            .decode(part)
            .unwrap_or_else(|error| panic!("{part:?} is base64url: {error}"));
        assert!(
            serde_json::from_slice::<Value>(&bytes).is_err(),
            "{}",
            String::from_utf8_lossy(&bytes)
        );
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains(SECRET), "{text}");
        assert!(!text.contains("two_questions"), "{text}");
    }

    // The state still carries the answer: the next round uses it.
    let (done, _) = client
        .call(
            3,
            call(
                false,
                json!({"inputResponses": {"second": accept("Grace")}, "requestState": state}),
            ),
        )
        .await;
    assert_eq!(
        done["result"]["content"][0]["text"],
        format!("{SECRET} and Grace"),
        "{done}"
    );
}

#[tokio::test]
async fn a_request_state_altered_anywhere_or_cut_is_refused() {
    let mut client = Client::open(server(KEY));
    let state = second_round(&mut client, false).await;
    let mut altered = Vec::new();
    for (at, character) in state.char_indices() {
        let mut one = state.clone();
        one.replace_range(at..=at, if character == 'A' { "B" } else { "A" });
        altered.push(one);
    }
    for cut in [1, state.len() / 2, state.len() - 1] {
        altered.push(state[..cut].to_owned());
    }
    altered.push(format!("{state}AAAA"));
    altered.push(String::new());
    for (id, altered) in (10..).zip(altered) {
        let retry = json!({"inputResponses": {"second": accept("Grace")}, "requestState": altered});
        let (refused, _) = client.call(id, call(false, retry)).await;
        let message = invalid_params(&refused);
        assert!(
            message.contains("not one this server issued"),
            "{altered}: {message}"
        );
    }
}

#[tokio::test]
async fn a_request_state_is_refused_by_a_server_of_another_key_and_taken_by_one_of_the_same() {
    let mut client = Client::open(server_for(KEY, "ada"));
    let state = second_round(&mut client, false).await;
    let retry = |id| {
        (
            id,
            call(
                false,
                json!({"inputResponses": {"second": accept("Grace")}, "requestState": state}),
            ),
        )
    };

    for mut other in [
        Client::open(server_for(b"another key of thirty-two bytes!", "ada")),
        Client::open(
            McpServer::new(Registry::builder().tool(TwoQuestionsTool).build().unwrap())
                .with_context(ToolContext::new().with_caller(Caller::new("ada"))),
        ),
        // The same key, but another caller; or no caller, whose states are
        // its session's.
        Client::open(server_for(KEY, "grace")),
        Client::open(server(KEY)),
    ] {
        let (id, params) = retry(1);
        let (refused, _) = other.call(id, params).await;
        let message = invalid_params(&refused);
        assert!(message.contains("not one this server issued"), "{message}");
    }

    // Another instance given the same key takes it from the same caller.
    let mut twin = Client::open(server_for(KEY, "ada"));
    let (id, params) = retry(2);
    let (done, _) = twin.call(id, params).await;
    assert_eq!(
        done["result"]["content"][0]["text"],
        format!("{SECRET} and Grace"),
        "{done}"
    );
}

#[tokio::test]
async fn a_request_state_is_refused_past_its_lifetime_or_for_another_call() {
    let registry = Registry::builder().tool(TwoQuestionsTool).build().unwrap();
    let mut brief = Client::open(
        McpServer::new(registry)
            .with_request_state_key(KEY)
            .with_request_state_ttl(Duration::ZERO),
    );
    let (first, _) = brief.call(1, call(false, json!({}))).await;
    let state = input_required(&first)["requestState"].clone();
    tokio::time::sleep(Duration::from_millis(5)).await;
    let answers = json!({"first": accept("Ada")});
    let (expired, _) = brief
        .call(
            2,
            call(
                false,
                json!({"inputResponses": answers, "requestState": state}),
            ),
        )
        .await;
    assert!(invalid_params(&expired).contains("expired"), "{expired}");

    let mut client = Client::open(server(KEY));
    let state = second_round(&mut client, false).await;
    let mut moved = call(
        false,
        json!({"inputResponses": {"second": accept("Grace")}, "requestState": state}),
    );
    moved["arguments"]["flag"] = json!(true);
    let (refused, _) = client.call(3, moved).await;
    assert!(
        invalid_params(&refused).contains("another call"),
        "{refused}"
    );
}

/// A first call's answers: `first` and `second` as given, and answers to
/// no question of the tool's.
fn unsolicited(first: Value, second: Value) -> Value {
    json!({"inputResponses": {
        "first": first,
        "second": second,
        "unknown_extra_key": {"action": "accept", "content": {"name": "Mallory"}},
        "another_unexpected": {"roots": []},
    }})
}

/// The text of a complete result, asserted to be one.
fn text_of(answer: &Value) -> &str {
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
    answer["result"]["content"][0]["text"].as_str().unwrap()
}

#[tokio::test]
async fn taking_unsolicited_answers_a_first_call_with_its_answers_completes() {
    let mut client = Client::open(server(KEY).with_unsolicited_answers(true));
    // Both questions answered from the start; the other keys ignored,
    // whether the state is absent or null.
    let (done, _) = client
        .call(1, call(true, unsolicited(accept("Ada"), accept("Grace"))))
        .await;
    assert_eq!(text_of(&done), "Ada and Grace");
    let mut extra = unsolicited(accept("Ada"), json!({"action": "decline"}));
    extra["requestState"] = Value::Null;
    let (done, _) = client.call(2, call(true, extra)).await;
    assert_eq!(text_of(&done), "Ada and decline");

    // Only the first answered: the second is asked, and the state that
    // comes with it carries the first answer to the next round.
    let (asked, _) = client
        .call(
            3,
            call(false, json!({"inputResponses": {"first": accept("Ada")}})),
        )
        .await;
    let result = input_required(&asked);
    let requests = result["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{asked}");
    assert!(requests.contains_key("second"), "{asked}");
    let state = result["requestState"].clone();
    let (done, _) = client
        .call(
            4,
            call(
                false,
                json!({"inputResponses": {"second": accept("Grace")}, "requestState": state}),
            ),
        )
        .await;
    assert_eq!(text_of(&done), "Ada and Grace");
}

#[tokio::test]
async fn taking_unsolicited_answers_an_answer_that_does_not_fit_its_question_is_asked_again() {
    let mut client = Client::open(server(KEY).with_unsolicited_answers(true));
    let misfits = [
        json!({"action": "accept", "content": {"name": 42}}),
        json!({"action": "accept", "content": "Ada"}),
        json!({"action": "accept"}),
        json!({"action": "maybe"}),
        json!({"roots": [{"uri": "file:///"}]}),
        json!({}),
    ];
    for (id, misfit) in (1..).zip(misfits) {
        let (asked, _) = client
            .call(id, call(true, unsolicited(misfit.clone(), accept("Grace"))))
            .await;
        let requests = input_required(&asked)["inputRequests"].as_object().unwrap();
        assert_eq!(requests.len(), 1, "{misfit}: {asked}");
        assert!(requests.contains_key("first"), "{misfit}: {asked}");
    }
    // The same answers, the first one fitting (input the schema does not
    // ask for is no misfit): taken.
    let fitting = json!({"action": "accept", "content": {"name": "Ada", "age": 36}});
    let (done, _) = client
        .call(8, call(true, unsolicited(fitting, accept("Grace"))))
        .await;
    assert_eq!(text_of(&done), "Ada and Grace");
    // An answer that is no result at all is refused, as on any retry.
    let (refused, _) = client
        .call(9, call(true, unsolicited(json!("Ada"), accept("Grace"))))
        .await;
    assert!(
        invalid_params(&refused).contains("inputResponses[\"first\"]"),
        "{refused}"
    );
}

#[tokio::test]
async fn taking_unsolicited_answers_a_request_state_is_read_and_refused_as_before() {
    let state = second_round(&mut Client::open(server_for(KEY, "ada")), false).await;
    // Another caller's state, with answers to every question: refused,
    // the answers unread.
    let mut grace = Client::open(server_for(KEY, "grace").with_unsolicited_answers(true));
    let mut retry = unsolicited(accept("Mallory"), accept("Eve"));
    retry["requestState"] = json!(state);
    let (refused, _) = grace.call(1, call(false, retry.clone())).await;
    let message = invalid_params(&refused);
    assert!(message.contains("not one this server issued"), "{message}");
    // Without the state, the same server takes them.
    retry.as_object_mut().unwrap().remove("requestState");
    let (done, _) = grace.call(2, call(false, retry.clone())).await;
    assert_eq!(text_of(&done), "Mallory and Eve");
    retry["requestState"] = json!(state);

    // The owner's state presented for another call: refused.
    let mut ada = Client::open(server_for(KEY, "ada").with_unsolicited_answers(true));
    let (refused, _) = ada.call(2, call(true, retry.clone())).await;
    assert!(
        invalid_params(&refused).contains("another call"),
        "{refused}"
    );

    // The owner's own state: its first answer holds, not the one given
    // again, and the second is the answer to the question it says was
    // asked.
    let (done, _) = ada.call(3, call(false, retry)).await;
    assert_eq!(text_of(&done), format!("{SECRET} and Eve"));

    // A state that asked the first question: an answer to the second,
    // not asked yet, is ignored, and the tool asks it.
    let (first, _) = ada.call(4, call(false, json!({}))).await;
    let mut retry = unsolicited(accept("Ada"), accept("Mallory"));
    retry["requestState"] = input_required(&first)["requestState"].clone();
    let (asked, _) = ada.call(5, call(false, retry)).await;
    let requests = input_required(&asked)["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{asked}");
    assert!(requests.contains_key("second"), "{asked}");
}

#[tokio::test]
async fn not_taking_unsolicited_answers_by_default_a_first_call_with_its_answers_is_asked() {
    for server in [server(KEY), server(KEY).with_unsolicited_answers(false)] {
        let mut client = Client::open(server);
        let (asked, _) = client
            .call(1, call(true, unsolicited(accept("Ada"), accept("Grace"))))
            .await;
        let result = input_required(&asked);
        let requests = result["inputRequests"].as_object().unwrap();
        assert_eq!(requests.len(), 1, "{asked}");
        assert!(requests.contains_key("first"), "{asked}");
        assert!(!asked.to_string().contains("Grace"), "{asked}");
    }
    // Where the server takes them, the same call completes.
    let mut client = Client::open(server(KEY).with_unsolicited_answers(true));
    let (done, _) = client
        .call(1, call(true, unsolicited(accept("Ada"), accept("Grace"))))
        .await;
    assert_eq!(text_of(&done), "Ada and Grace");
}
