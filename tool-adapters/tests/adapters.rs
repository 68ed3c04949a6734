//! The LLM client adapters (`tool-adapters`), end to end.
//!
//! Each client runs a whole agent loop through its real HTTP client against
//! a stand-in for the provider on 127.0.0.1 (`examples/standin`): the first
//! response asks for four calls (one that works, one whose arguments the
//! tool refuses, one that panics, one that runs past its time limit), the
//! stand-in checks that the second request carries every result, errors
//! included, word for word, and the second response is the model's answer. The agent-loop turn over plain JSON (`tool_adapters::
//! answer`) is tested for every provider format tool-runtime renders.

#[path = "../examples/standin/mod.rs"]
mod standin;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use standin::weather::{WeatherTool, completion};
use standin::{StandIn, Step, mentions};
use tool_runtime::providers::Provider;
use tool_runtime::{Registry, ToolContext, schema::strict, tool};

/// Always breaks.
#[tool]
fn flaky() -> String {
    panic!("the flaky tool broke")
}

/// Takes far longer than it may.
#[tool(timeout = "50ms")]
async fn slow() -> String {
    tokio::time::sleep(Duration::from_secs(30)).await;
    "done".into()
}

/// The clients build reqwest clients, and in this workspace reqwest has
/// rustls without a crypto provider (tool-mcp's client installs ring's when
/// it connects): install it for them.
fn tls() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Another test may have installed it meanwhile: either is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

fn registry() -> Registry {
    Registry::builder()
        .tool(WeatherTool)
        .tool(FlakyTool)
        .tool(SlowTool)
        .build()
        .expect("the test tools form a registry")
}

/// What the results of the four calls read, each of which the model must
/// be sent in the request after the calls.
const PARIS: &str = "Paris, day 1: sunny, 21°C\nParis, day 2: sunny, 21°C";
const OSLO: &str = r#"invalid arguments for weather: days: must be from 1 to 14, got 40; unit: unknown variant "kelvin", expected one of "celsius", "fahrenheit""#;
const FLAKY: &str = "tool flaky panicked: the flaky tool broke";
const SLOW: &str = "tool slow timed out after 50ms and was stopped";

/// The four calls: (id, name, arguments as JSON text).
const CALLS: [(&str, &str, &str); 4] = [
    ("call_paris", "weather", r#"{"city":"Paris","days":2}"#),
    (
        "call_oslo",
        "weather",
        r#"{"city":"Oslo","days":40,"unit":"kelvin"}"#,
    ),
    ("call_flaky", "flaky", "{}"),
    // (genai fails a whole response whose arguments are `""`, which
    // tool-runtime reads as `{}`.)
    ("call_slow", "slow", "{}"),
];

const ANSWER: &str = "Paris is sunny; Oslo's forecast could not be had.";

/// A check that the request offers the registry's three tools, wherever a
/// client puts their names.
fn offers_the_tools(request: &Value) -> Result<(), String> {
    let tools = &request["tools"];
    let named = |name: &str| {
        tools.as_array().is_some_and(|tools| {
            tools
                .iter()
                .any(|tool| tool["name"] == name || tool["function"]["name"] == name)
        })
    };
    match ["weather", "flaky", "slow"]
        .into_iter()
        .find(|name| !named(name))
    {
        None => Ok(()),
        Some(missing) => Err(format!("the tool {missing} is not offered: {tools}")),
    }
}

/// A check that the request carries every result, errors word for word.
fn carries_every_result(request: &Value) -> Result<(), String> {
    let missing: Vec<&str> = [PARIS, OSLO, FLAKY, SLOW]
        .into_iter()
        .filter(|text| !mentions(request, text))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!("the request lacks {missing:?}: {request}"))
    }
}

/// The chat completion that makes the four calls.
fn chat_calls() -> Value {
    let calls: Vec<Value> = CALLS
        .iter()
        .map(|(id, name, arguments)| {
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
        })
        .collect();
    completion(
        json!({"role": "assistant", "content": null, "tool_calls": calls, "refusal": null, "annotations": []}),
        "tool_calls",
    )
}

/// The chat completion that answers.
fn chat_answer() -> Value {
    completion(
        json!({"role": "assistant", "content": ANSWER, "refusal": null, "annotations": []}),
        "stop",
    )
}

/// The three exchanges of a chat completions loop.
fn chat_script() -> Vec<Step> {
    vec![
        Step::check(offers_the_tools, chat_calls()),
        Step::check(carries_every_result, chat_answer()),
    ]
}

#[tokio::test]
async fn async_openai_chat_completions_loop() {
    tls();
    use async_openai::Client;
    use async_openai::config::OpenAIConfig;
    use async_openai::types::chat::{
        ChatCompletionRequestMessage, ChatCompletionRequestToolMessageContent,
        ChatCompletionRequestUserMessage, CreateChatCompletionRequest,
    };

    let registry = registry();
    let ctx = ToolContext::new();
    let stand_in = StandIn::start(chat_script()).unwrap();
    let client = Client::with_config(
        OpenAIConfig::new()
            .with_api_base(format!("{}/v1", stand_in.url()))
            .with_api_key("stand-in"),
    );
    let mut messages = vec![ChatCompletionRequestMessage::User(
        ChatCompletionRequestUserMessage::from("Weather in Paris and Oslo?"),
    )];
    let tools = tool_adapters::async_openai::chat_tools(&registry);
    let mut turns = 0;
    let answer = loop {
        turns += 1;
        assert!(turns <= 2, "the loop did not end");
        let request = CreateChatCompletionRequest {
            model: "gpt-4.1".into(),
            messages: messages.clone(),
            tools: Some(tools.clone()),
            ..Default::default()
        };
        let response = client.chat().create(request).await.unwrap();
        let message = &response.choices[0].message;
        let turn = tool_adapters::async_openai::answer_chat(&registry, message, &ctx).await;
        if message.tool_calls.is_none() {
            assert_eq!(turn.len(), 1);
            break message.content.clone().unwrap();
        }
        // The assistant message, then the four tool messages in order.
        let ids: Vec<&str> = turn
            .iter()
            .filter_map(|message| match message {
                ChatCompletionRequestMessage::Tool(tool) => Some(tool.tool_call_id.as_str()),
                _ => None,
            })
            .collect();
        assert!(matches!(
            turn[0],
            ChatCompletionRequestMessage::Assistant(_)
        ));
        assert_eq!(ids, ["call_paris", "call_oslo", "call_flaky", "call_slow"]);
        let ChatCompletionRequestMessage::Tool(oslo) = &turn[2] else {
            panic!("not a tool message: {:?}", turn[2]);
        };
        assert_eq!(
            oslo.content,
            ChatCompletionRequestToolMessageContent::Text(OSLO.into())
        );
        messages.extend(turn);
    };
    assert_eq!(answer, ANSWER);
    let exchanges = stand_in.finish().unwrap();
    assert_eq!(exchanges[0].request_line, "POST /v1/chat/completions");
    // The assistant's tool calls went back before the results.
    let second = &exchanges[1].body["messages"];
    assert_eq!(second[1]["role"], "assistant");
    assert_eq!(second[1]["tool_calls"][1]["id"], "call_oslo");
    assert_eq!(
        second[3],
        json!({"role": "tool", "tool_call_id": "call_oslo", "content": OSLO})
    );
}

#[tokio::test]
async fn async_openai_chat_calls_with_unreadable_arguments_are_answered_alone() {
    use async_openai::types::chat::{
        ChatCompletionMessageToolCall, ChatCompletionMessageToolCalls,
        ChatCompletionRequestToolMessageContent, FunctionCall,
    };

    let call = |id: &str, arguments: &str| {
        ChatCompletionMessageToolCalls::Function(ChatCompletionMessageToolCall {
            id: id.into(),
            function: FunctionCall {
                name: "weather".into(),
                arguments: arguments.into(),
            },
        })
    };
    let calls = [
        call("cut", r#"{"city": "Par"#),
        call("array", "[1, 2]"),
        call("ok", r#"{"city": "Rome"}"#),
    ];
    let messages =
        tool_adapters::async_openai::run_chat_calls(&registry(), &calls, &ToolContext::new()).await;
    let texts: Vec<String> = messages
        .iter()
        .map(|message| match &message.content {
            ChatCompletionRequestToolMessageContent::Text(text) => text.clone(),
            other => panic!("not text: {other:?}"),
        })
        .collect();
    assert_eq!(
        texts,
        [
            "invalid arguments for weather: the arguments are not valid JSON: EOF while parsing a string at line 1 column 13",
            "invalid arguments for weather: the arguments must be a JSON object, got [1,2]",
            "Rome, day 1: sunny, 21°C",
        ]
    );
}

/// A Responses API response (OpenAI's response object) with `output`.
fn response(id: &str, output: Value) -> Value {
    json!({
        "id": id,
        "object": "response",
        "created_at": 1_741_476_542,
        "status": "completed",
        "error": null,
        "incomplete_details": null,
        "model": "gpt-4.1-2025-04-14",
        "output": output,
        "parallel_tool_calls": true,
        "store": false,
        "tool_choice": "auto",
        "usage": {
            "input_tokens": 82, "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 17, "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 99
        }
    })
}

#[tokio::test]
async fn async_openai_responses_loop() {
    tls();
    use async_openai::Client;
    use async_openai::config::OpenAIConfig;
    use async_openai::types::responses::{
        CreateResponse, EasyInputMessage, InputItem, InputParam, OutputItem,
    };

    let mut output = vec![json!({
        "type": "message", "id": "msg_first", "status": "completed", "role": "assistant",
        "content": [{"type": "output_text", "annotations": [], "text": "Let me look."}]
    })];
    output.extend(CALLS.iter().map(|(id, name, arguments)| {
        json!({"type": "function_call", "id": format!("fc_{id}"), "call_id": id, "name": name,
               "arguments": arguments, "status": "completed"})
    }));
    let answer = json!([{
        "type": "message", "id": "msg_answer", "status": "completed", "role": "assistant",
        "content": [{"type": "output_text", "annotations": [], "text": ANSWER}]
    }]);
    let stand_in = StandIn::start(vec![
        Step::check(offers_the_tools, response("resp_1", Value::Array(output))),
        Step::check(carries_every_result, response("resp_2", answer)),
    ])
    .unwrap();

    let registry = registry();
    let ctx = ToolContext::new();
    let client = Client::with_config(
        OpenAIConfig::new()
            .with_api_base(format!("{}/v1", stand_in.url()))
            .with_api_key("stand-in"),
    );
    let mut input = vec![InputItem::EasyMessage(EasyInputMessage::from(
        "Weather in Paris and Oslo?",
    ))];
    let tools = tool_adapters::async_openai::response_tools(&registry);
    let mut turns = 0;
    let answer = loop {
        turns += 1;
        assert!(turns <= 2, "the loop did not end");
        let request = CreateResponse {
            model: Some("gpt-4.1".into()),
            input: InputParam::Items(input.clone()),
            tools: Some(tools.clone()),
            store: Some(false),
            ..Default::default()
        };
        let response = client.responses().create(request).await.unwrap();
        let called = response
            .output
            .iter()
            .any(|item| matches!(item, OutputItem::FunctionCall(_)));
        input
            .extend(tool_adapters::async_openai::answer_response(&registry, &response, &ctx).await);
        if !called {
            break response.output_text().unwrap();
        }
    };
    assert_eq!(answer, ANSWER);
    let exchanges = stand_in.finish().unwrap();
    assert_eq!(exchanges[0].request_line, "POST /v1/responses");
    // Every tool stated non-strict, since the API reads a missing `strict`
    // as `true`.
    for tool in exchanges[0].body["tools"].as_array().unwrap() {
        assert_eq!(tool["strict"], false, "{tool}");
    }
    // The output items went back as input items (not references), then the
    // four outputs, in order.
    let second = exchanges[1].body["input"].as_array().unwrap();
    let kinds: Vec<&str> = second
        .iter()
        .map(|item| item["type"].as_str().unwrap_or("(none)"))
        .collect();
    assert_eq!(
        kinds,
        [
            "message",
            "message",
            "function_call",
            "function_call",
            "function_call",
            "function_call",
            "function_call_output",
            "function_call_output",
            "function_call_output",
            "function_call_output"
        ],
        "{second:?}"
    );
    assert_eq!(second[3]["call_id"], "call_oslo");
    assert_eq!(
        second[7],
        json!({"type": "function_call_output", "call_id": "call_oslo", "output": OSLO})
    );
}

#[tokio::test]
async fn genai_loop() {
    tls();
    use genai::Client;
    use genai::adapter::AdapterKind;
    use genai::chat::{ChatMessage, ChatRequest};
    use genai::resolver::{AuthData, Endpoint, ProviderConfig};

    let registry = registry();
    let ctx = ToolContext::new();
    let stand_in = StandIn::start(chat_script()).unwrap();
    let endpoint = Endpoint::from_owned(format!("{}/v1/", stand_in.url()));
    let client = Client::builder()
        .append_provider_config(
            AdapterKind::OpenAI,
            ProviderConfig::from_endpoint(endpoint).with_auth(AuthData::from_single("stand-in")),
        )
        .build()
        .unwrap();
    let mut request = ChatRequest::new(vec![ChatMessage::user("Weather in Paris and Oslo?")])
        .with_tools(tool_adapters::genai::tools(&registry));
    let mut turns = 0;
    let answer = loop {
        turns += 1;
        assert!(turns <= 2, "the loop did not end");
        let response = client
            .exec_chat("gpt-4.1", request.clone(), None)
            .await
            .unwrap();
        if response.tool_calls().is_empty() {
            break response.first_text().unwrap().to_owned();
        }
        let calls = response.tool_calls().len();
        let messages = tool_adapters::genai::answer(&registry, response, &ctx).await;
        assert_eq!((calls, messages.len()), (4, 2));
        for message in messages {
            request = request.append_message(message);
        }
    };
    assert_eq!(answer, ANSWER);
    let exchanges = stand_in.finish().unwrap();
    assert_eq!(exchanges[0].request_line, "POST /v1/chat/completions");
    let second = &exchanges[1].body["messages"];
    assert_eq!(second[1]["role"], "assistant");
    assert_eq!(
        second[3],
        json!({"role": "tool", "tool_call_id": "call_oslo", "content": OSLO})
    );
}

#[tokio::test]
async fn rig_agent_loop() {
    tls();
    use rig_agent::AgentBuilder;
    use rig_core::providers::openai::OpenAIConfig;

    let registry = registry();
    let ctx = ToolContext::new();
    let stand_in = StandIn::start(chat_script()).unwrap();
    let model = OpenAIConfig::new("stand-in")
        .with_base_url(format!("{}/v1", stand_in.url()))
        .client()
        .chat("gpt-4.1");
    let agent = AgentBuilder::new(model)
        .dynamic_tools(tool_adapters::rig::tools(&registry, &ctx))
        .build();
    let response = agent
        .prompt("Weather in Paris and Oslo?")
        .max_turns(3)
        .await
        .unwrap();
    assert_eq!(response.output(), ANSWER);
    let exchanges = stand_in.finish().unwrap();
    assert_eq!(exchanges[0].request_line, "POST /v1/chat/completions");
    // rig answers each call with a tool message of its own.
    let second = exchanges[1].body["messages"].as_array().unwrap();
    let tool_messages: Vec<&Value> = second
        .iter()
        .filter(|message| message["role"] == "tool")
        .collect();
    assert_eq!(tool_messages.len(), 4, "{second:?}");
    assert_eq!(
        tool_messages[1],
        &json!({"role": "tool", "tool_call_id": "call_oslo", "content": OSLO})
    );
}

#[tokio::test]
async fn a_strict_registry_offers_tool_runtimes_strict_schema_to_every_client() {
    use async_openai::types::chat::{
        ChatCompletionMessageToolCall, ChatCompletionMessageToolCalls,
        ChatCompletionRequestToolMessageContent, ChatCompletionTools, FunctionCall,
    };
    use async_openai::types::responses::Tool;

    let registry = Registry::builder()
        .tool(WeatherTool)
        .strict(true)
        .build()
        .unwrap();
    let expected = strict::strict_input_schema(&WeatherTool::SPEC).unwrap();
    // Optional and defaulted parameters: required, but nullable.
    assert_eq!(expected["required"], json!(["city", "days", "unit"]));

    let [ChatCompletionTools::Function(chat)] =
        &tool_adapters::async_openai::chat_tools(&registry)[..]
    else {
        panic!("not one function tool");
    };
    assert_eq!(
        (chat.function.strict, chat.function.parameters.as_ref()),
        (Some(true), Some(&expected))
    );
    let [Tool::Function(responses)] = &tool_adapters::async_openai::response_tools(&registry)[..]
    else {
        panic!("not one function tool");
    };
    assert_eq!(
        (responses.strict, responses.parameters.as_ref()),
        (Some(true), Some(&expected))
    );
    let [genai] = &tool_adapters::genai::tools(&registry)[..] else {
        panic!("not one tool");
    };
    assert_eq!(
        (genai.strict, genai.schema.as_ref()),
        (Some(true), Some(&expected))
    );
    let ctx = ToolContext::new();
    let [rig] = &tool_adapters::rig::tools(&registry, &ctx)[..] else {
        panic!("not one tool");
    };
    assert_eq!(rig.definition().parameters, expected);

    // Arguments in the strict form are read back: `null` is absent, so
    // `days` takes its default.
    let call = ChatCompletionMessageToolCalls::Function(ChatCompletionMessageToolCall {
        id: "strict".into(),
        function: FunctionCall {
            name: "weather".into(),
            arguments: r#"{"city": "Oslo", "days": null, "unit": null}"#.into(),
        },
    });
    let answers = tool_adapters::async_openai::run_chat_calls(&registry, &[call], &ctx).await;
    assert_eq!(
        answers[0].content,
        ChatCompletionRequestToolMessageContent::Text("Oslo, day 1: sunny, 21°C".into())
    );
    // So does rig's tool.
    let output = rig
        .execute(json!({"city": "Oslo", "days": 2, "unit": null}))
        .await
        .unwrap();
    assert_eq!(
        output.as_text(),
        Some("Oslo, day 1: sunny, 21°C\nOslo, day 2: sunny, 21°C")
    );

    // A registry that is not strict states `strict: false` for every tool.
    let ordinary = registry_with_weather();
    let [genai] = &tool_adapters::genai::tools(&ordinary)[..] else {
        panic!("not one tool");
    };
    assert_eq!(
        (genai.strict, genai.schema.as_ref()),
        (Some(false), Some(WeatherTool::SPEC.input_schema()))
    );
}

fn registry_with_weather() -> Registry {
    Registry::builder().tool(WeatherTool).build().unwrap()
}

#[tokio::test]
async fn rig_tool_errors_keep_tool_runtimes_text_and_kind() {
    use rig_core::tool::ToolErrorKind;

    let ctx = ToolContext::new();
    let tools = tool_adapters::rig::tools(&registry(), &ctx);
    let names: Vec<&str> = tools.iter().map(|tool| tool.name().as_str()).collect();
    assert_eq!(names, ["flaky", "slow", "weather"]);
    let error = |index: usize, arguments: Value| {
        let tool = &tools[index];
        async move { tool.execute(arguments).await.unwrap_err() }
    };
    let invalid = error(2, json!({"city": "Oslo", "days": 40, "unit": "kelvin"})).await;
    assert_eq!(
        (invalid.kind(), invalid.model_output().as_text()),
        (ToolErrorKind::InvalidArgs, Some(OSLO))
    );
    let panicked = error(0, json!({})).await;
    assert_eq!(
        (panicked.kind(), panicked.model_output().as_text()),
        (ToolErrorKind::Other, Some(FLAKY))
    );
    let late = error(1, json!({})).await;
    assert_eq!(
        (late.kind(), late.model_output().as_text()),
        (ToolErrorKind::Timeout, Some(SLOW))
    );
}

/// One response per provider format, each calling `weather` twice (the
/// second time with arguments it refuses), and what `answer` must append.
#[tokio::test]
async fn answer_runs_the_calls_of_every_provider_format() {
    let good = json!({"city": "Paris", "days": 2});
    let bad = json!({"city": "Oslo", "days": 40, "unit": "kelvin"});
    let text = |value: &Value| value.to_string();
    let registry = registry();
    let ctx = ToolContext::new();

    // OpenAI Chat Completions: the assistant message, its nulls left out,
    // then a tool message per call.
    let body = completion(
        json!({"role": "assistant", "content": null, "refusal": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": text(&good)}},
            {"id": "c2", "type": "function", "function": {"name": "weather", "arguments": text(&bad)}}
        ]}),
        "tool_calls",
    );
    let turn = tool_adapters::answer(&registry, Provider::OpenAiChat, &body, &ctx)
        .await
        .unwrap();
    assert!(!turn.is_final());
    assert_eq!(turn.messages.len(), 3);
    assert_eq!(turn.messages[0], {
        let mut message = body["choices"][0]["message"].clone();
        let members = message.as_object_mut().unwrap();
        members.remove("content");
        members.remove("refusal");
        message
    });
    assert_eq!(
        turn.messages[1],
        json!({"role": "tool", "tool_call_id": "c1", "content": PARIS})
    );
    assert_eq!(
        turn.messages[2],
        json!({"role": "tool", "tool_call_id": "c2", "content": OSLO})
    );
    let done = tool_adapters::answer(&registry, Provider::OpenAiChat, &chat_answer(), &ctx)
        .await
        .unwrap();
    assert!(done.is_final());
    assert_eq!(
        done.messages,
        [json!({"role": "assistant", "content": ANSWER, "annotations": []})]
    );

    // The Responses API: every output item, then an output per call.
    let output = json!([
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "weather", "arguments": text(&good)},
        {"type": "function_call", "id": "fc_2", "call_id": "c2", "name": "weather", "arguments": text(&bad)}
    ]);
    let turn = tool_adapters::answer(
        &registry,
        Provider::OpenAiResponses,
        &response("r", output.clone()),
        &ctx,
    )
    .await
    .unwrap();
    let mut expected = output.as_array().unwrap().clone();
    expected.push(json!({"type": "function_call_output", "call_id": "c1", "output": PARIS}));
    expected.push(json!({"type": "function_call_output", "call_id": "c2", "output": OSLO}));
    assert_eq!(turn.messages, expected);

    // Anthropic Messages: the assistant's content, then one user message.
    let content = json!([
        {"type": "text", "text": "Looking."},
        {"type": "tool_use", "id": "t1", "name": "weather", "input": good},
        {"type": "tool_use", "id": "t2", "name": "weather", "input": bad}
    ]);
    let body = json!({"id": "msg", "type": "message", "role": "assistant", "content": content, "stop_reason": "tool_use"});
    let turn = tool_adapters::answer(&registry, Provider::Anthropic, &body, &ctx)
        .await
        .unwrap();
    assert_eq!(
        turn.messages,
        [
            json!({"role": "assistant", "content": content}),
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": PARIS}]},
                {"type": "tool_result", "tool_use_id": "t2", "content": [{"type": "text", "text": OSLO}], "is_error": true}
            ]})
        ]
    );

    // Bedrock Converse: the output message, then one user message.
    let message = json!({"role": "assistant", "content": [
        {"text": "Looking."},
        {"toolUse": {"toolUseId": "b1", "name": "weather", "input": good}},
        {"toolUse": {"toolUseId": "b2", "name": "weather", "input": bad}}
    ]});
    let body = json!({"output": {"message": message}, "stopReason": "tool_use"});
    let turn = tool_adapters::answer(&registry, Provider::Bedrock, &body, &ctx)
        .await
        .unwrap();
    assert_eq!(turn.messages[0], message);
    assert_eq!(turn.messages[1]["role"], "user");
    assert_eq!(
        turn.messages[1]["content"][1]["toolResult"]["status"],
        "error"
    );
    assert_eq!(
        turn.messages[1]["content"][1]["toolResult"]["content"][0]["text"],
        OSLO
    );

    // Gemini: the candidate's content, then one user content.
    let content = json!({"role": "model", "parts": [
        {"functionCall": {"name": "weather", "args": good}},
        {"functionCall": {"name": "weather", "args": bad}}
    ]});
    let body = json!({"candidates": [{"content": content, "finishReason": "STOP"}]});
    let turn = tool_adapters::answer(&registry, Provider::Gemini, &body, &ctx)
        .await
        .unwrap();
    assert_eq!(turn.messages[0], content);
    assert_eq!(
        turn.messages[1],
        json!({"role": "user", "parts": [
            {"functionResponse": {"name": "weather", "response": {"output": PARIS}}},
            {"functionResponse": {"name": "weather", "response": {"error": OSLO}}}
        ]})
    );

    // MCP: a JSON-RPC response per `tools/call` request, by request id.
    let requests = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "weather", "arguments": good}},
        {"jsonrpc": "2.0", "id": "two", "method": "tools/call", "params": {"name": "weather", "arguments": bad}}
    ]);
    let turn = tool_adapters::answer(&registry, Provider::Mcp, &requests, &ctx)
        .await
        .unwrap();
    assert_eq!(turn.messages.len(), 2);
    assert_eq!(
        (
            &turn.messages[0]["id"],
            &turn.messages[0]["result"]["isError"]
        ),
        (&json!(1), &json!(false))
    );
    assert_eq!(turn.messages[1]["id"], "two");
    assert_eq!(turn.messages[1]["result"]["content"][0]["text"], OSLO);
    assert_eq!(turn.messages[1]["result"]["isError"], true);

    // Plain text is not parsed.
    let error = tool_adapters::answer(&registry, Provider::Xml, &json!("<tool_use/>"), &ctx)
        .await
        .unwrap_err();
    assert_eq!(error.provider, Provider::Xml);
}

#[tokio::test]
async fn answer_answers_unreadable_arguments_and_runs_the_other_calls() {
    let body = json!({"output": [
        {"type": "function_call", "call_id": "cut", "name": "weather", "arguments": r#"{"city": "Par"#},
        {"type": "function_call", "call_id": "ok", "name": "weather", "arguments": r#"{"city": "Rome"}"#},
        {"type": "function_call", "call_id": "number", "name": "weather", "arguments": "7"},
        {"type": "function_call", "call_id": "empty", "name": "flaky", "arguments": ""}
    ]});
    let turn = tool_adapters::answer(
        &registry(),
        Provider::OpenAiResponses,
        &body,
        &ToolContext::new(),
    )
    .await
    .unwrap();
    let texts: Vec<String> = turn
        .results
        .iter()
        .map(|result| result.text_content())
        .collect();
    assert_eq!(
        texts,
        [
            "invalid arguments for weather: the arguments are not valid JSON: EOF while parsing a string at line 1 column 13",
            "Rome, day 1: sunny, 21°C",
            "invalid arguments for weather: the arguments must be a JSON object, got 7",
            FLAKY,
        ]
    );
    // The calls as they came: the unread ones hold their text.
    assert_eq!(turn.calls[0].input, json!(r#"{"city": "Par"#));
    assert_eq!(turn.calls[1].input, json!({"city": "Rome"}));
    // The response itself is echoed unchanged.
    assert_eq!(turn.messages[0], body["output"][0]);

    // Anything else out of shape is the parser's error.
    let error = tool_adapters::answer(
        &registry(),
        Provider::OpenAiResponses,
        &json!({"output": [{"type": "function_call", "name": "weather", "arguments": "{}"}]}),
        &ToolContext::new(),
    )
    .await
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        r#"responses: /output/0/call_id: missing "call_id""#
    );
}

/// Counts the calls running at once.
static RUNNING: AtomicUsize = AtomicUsize::new(0);
static MOST: AtomicUsize = AtomicUsize::new(0);

/// Waits a little, counting how many calls wait with it.
#[tool]
async fn pause() -> String {
    let now = RUNNING.fetch_add(1, Ordering::SeqCst) + 1;
    MOST.fetch_max(now, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(30)).await;
    RUNNING.fetch_sub(1, Ordering::SeqCst);
    "paused".into()
}

#[tokio::test]
async fn answer_runs_the_calls_concurrently_under_the_registrys_limit() {
    let registry = Registry::builder()
        .tool(PauseTool)
        .concurrency_limit(2)
        .build()
        .unwrap();
    let content: Vec<Value> = (0..5)
        .map(|i| json!({"type": "tool_use", "id": format!("p{i}"), "name": "pause", "input": {}}))
        .collect();
    let body = json!({"role": "assistant", "content": content});
    let turn = tool_adapters::answer(&registry, Provider::Anthropic, &body, &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(turn.results.len(), 5);
    assert!(
        turn.results
            .iter()
            .all(|result| result.text_content() == "paused")
    );
    let ids: Vec<&str> = turn
        .results
        .iter()
        .map(|result| result.tool_use_id.as_str())
        .collect();
    assert_eq!(ids, ["p0", "p1", "p2", "p3", "p4"]);
    assert_eq!(MOST.load(Ordering::SeqCst), 2);
}
