//! Streaming: `Registry::stream` yields progress, trace entries and partial
//! outputs as the tool reports them, then exactly one result; records are
//! watchable while the tool runs and serialise to JSON.

#[path = "streaming/tasks.rs"]
mod tasks;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio::sync::Notify;
use tool_runtime::{
    Registry, State, ToolContext, ToolEvent, ToolUse, events::CallStatus, events::Progress,
    events::Stream, spec::ToolErrorKind, tool,
};

/// How many items the streaming tools have produced so far.
#[derive(Default)]
struct Produced(AtomicUsize);

/// A gate the consumer opens.
#[derive(Default)]
struct Gate(Notify);

/// Yields `count` numbers, sleeping between them.
#[tool]
fn slow_numbers(
    /// How many numbers
    count: usize,
    produced: State<Produced>,
) -> impl Stream<Item = usize> {
    tool_runtime::stream! {
        for i in 1..=count {
            produced.0.fetch_add(1, Ordering::SeqCst);
            yield i;
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

/// Reports a step, then waits for the consumer to open the gate.
#[tool]
async fn gated(progress: Progress, gate: State<Gate>) -> &'static str {
    progress.progress(0.5, "waiting for the gate");
    gate.0.notified().await;
    progress.trace("gate", "opened");
    "through"
}

/// Yields text, then fails.
#[tool]
fn fails_midway() -> impl Stream<Item = Result<String, String>> {
    futures_util::stream::iter(vec![
        Ok("first".to_owned()),
        Err("the source went away after one item".to_owned()),
        Ok("never".to_owned()),
    ])
}

/// A sync function returning a stream.
#[tool]
fn letters() -> impl Stream<Item = char> {
    futures_util::stream::iter(['a', 'b', 'c'])
}

/// Panics after yielding once.
#[tool]
async fn panics_after_one() -> impl Stream<Item = u8> {
    tool_runtime::stream! {
        yield 1u8;
        tokio::task::yield_now().await;
        panic!("stream broke after one item");
    }
}

/// Panics before yielding anything.
#[tool]
fn panics_first() -> impl Stream<Item = u8> {
    tool_runtime::stream! {
        if true {
            panic!("stream broke at once");
        }
        yield 0u8;
    }
}

/// A blocking tool that reports, then waits for the consumer's answer.
#[tool(blocking)]
fn blocking_handshake(progress: Progress, answer: State<Answer>) -> Result<String, String> {
    progress.progress(0.1, "asking");
    let reply = answer
        .0
        .lock()
        .unwrap()
        .take()
        .ok_or("no answer channel")?
        .recv_timeout(Duration::from_secs(10))
        .map_err(
            |_| "no answer: the progress report did not reach the consumer while the tool ran",
        )?;
    Ok(format!("got {reply}"))
}

/// Where the blocking tool reads its answer from.
struct Answer(std::sync::Mutex<Option<std::sync::mpsc::Receiver<u32>>>);

/// Reports a trace entry per step.
#[tool]
fn traced(progress: Progress) -> Value {
    for (i, step) in ["split", "analyse", "summarise"].into_iter().enumerate() {
        progress.trace(step, format!("step {}", i + 1));
        progress.progress((i + 1) as f64 / 3.0, step);
    }
    json!({"sections": 3})
}

fn call(name: &str, input: Value) -> ToolUse {
    ToolUse::new(format!("{name}-1"), name, input)
}

fn registry() -> Registry {
    Registry::builder()
        .tool(SlowNumbersTool)
        .tool(GatedTool)
        .tool(FailsMidwayTool)
        .tool(LettersTool)
        .tool(PanicsAfterOneTool)
        .tool(PanicsFirstTool)
        .tool(TracedTool)
        .state(Produced::default())
        .state(Gate::default())
        .build()
        .unwrap()
}

#[tokio::test(start_paused = true)]
async fn partial_outputs_arrive_before_the_next_item_is_produced() {
    let registry = registry();
    // State passed with the call wins over the registry's, and the test
    // keeps a handle on it.
    let ctx = ToolContext::new().with_app_state(Produced::default());
    let produced: State<Produced> = ctx.app_state().unwrap();
    let mut events = registry.stream(call("slow_numbers", json!({"count": 4})), &ctx);
    let mut partials = 0;
    let mut last = None;
    while let Some(event) = events.next().await {
        match event {
            ToolEvent::Partial { value } => {
                partials += 1;
                assert_eq!(value, json!(partials));
                // The tool is sleeping before its next item: the consumer
                // sees item k while exactly k items exist.
                assert_eq!(produced.0.load(Ordering::SeqCst), partials);
            }
            ToolEvent::Result(result) => last = Some(result),
            other => panic!("unexpected event {other:?}"),
        }
    }
    assert_eq!(partials, 4);
    let result = last.expect("the stream ends with a result");
    assert_eq!(result.text_content(), "4");
    assert_eq!(result.tool_use_id, "slow_numbers-1");
}

#[tokio::test(start_paused = true)]
async fn the_consumer_sees_an_event_while_the_tool_waits_for_it() {
    let registry = Registry::builder().tool(GatedTool).build().unwrap();
    // `State<Gate>` is supplied per call on the context.
    let ctx = ToolContext::new().with_app_state(Gate::default());
    let gate_state: State<Gate> = ctx.app_state().unwrap();
    let mut events = registry.stream(call("gated", json!({})), &ctx);

    let consume = async {
        let mut seen = Vec::new();
        while let Some(event) = events.next().await {
            if let ToolEvent::Progress { message, .. } = &event {
                assert_eq!(message, "waiting for the gate");
                // The tool cannot finish until this event has been seen.
                gate_state.0.notify_one();
            }
            seen.push(event);
        }
        seen
    };
    // Paused time: a stream that stalled would let the clock run to here.
    let seen = tokio::time::timeout(Duration::from_secs(60), consume)
        .await
        .expect("the progress event arrived while the tool was waiting");
    assert!(matches!(seen[0], ToolEvent::Progress { .. }));
    assert!(matches!(&seen[1], ToolEvent::Trace(entry) if entry.step == "gate"));
    assert!(matches!(&seen[2], ToolEvent::Result(r) if r.text_content() == "through"));
    assert_eq!(seen.len(), 3);
}

#[tokio::test]
async fn a_stream_of_results_ends_at_the_first_error() {
    let registry = registry();
    let mut stream = registry.stream(call("fails_midway", json!({})), &ToolContext::new());
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event);
    }
    assert_eq!(
        events[0],
        ToolEvent::Partial {
            value: json!("first")
        }
    );
    let ToolEvent::Result(result) = &events[1] else {
        panic!("expected the result, got {:?}", events[1]);
    };
    assert!(result.is_error());
    assert_eq!(result.text_content(), "the source went away after one item");
    assert_eq!(events.len(), 2);
    let record = stream.record();
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(record.error_kind, Some(ToolErrorKind::Failed));
}

#[tokio::test]
async fn a_sync_function_can_return_a_stream() {
    let registry = registry();
    let events: Vec<ToolEvent> = registry
        .stream(call("letters", json!({})), &ToolContext::new())
        .collect()
        .await;
    let values: Vec<Value> = events
        .iter()
        .filter_map(|event| match event {
            ToolEvent::Partial { value } => Some(value.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(values, [json!("a"), json!("b"), json!("c")]);
    // invoke on a streaming tool collects it: the last item is the result.
    let result = registry
        .invoke(call("letters", json!({})), &ToolContext::new())
        .await;
    assert_eq!(result.text_content(), "c");
}

#[tokio::test]
async fn panics_in_streams_become_error_results() {
    let registry = registry();
    let events: Vec<ToolEvent> = registry
        .stream(call("panics_after_one", json!({})), &ToolContext::new())
        .collect()
        .await;
    assert_eq!(events[0], ToolEvent::Partial { value: json!(1) });
    let ToolEvent::Result(result) = &events[1] else {
        panic!("expected the result, got {:?}", events[1]);
    };
    assert_eq!(result.error_kind, Some(ToolErrorKind::Panicked));
    assert_eq!(
        result.text_content(),
        "tool panics_after_one panicked: stream broke after one item"
    );

    let (result, record) = registry
        .invoke_recorded(call("panics_first", json!({})), &ToolContext::new())
        .await;
    assert_eq!(
        result.text_content(),
        "tool panics_first panicked: stream broke at once"
    );
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(record.error_kind, Some(ToolErrorKind::Panicked));
}

#[tokio::test]
async fn events_from_a_blocking_tool_arrive_while_it_runs() {
    let (answer_tx, answer_rx) = std::sync::mpsc::channel();
    let registry = Registry::builder()
        .tool(BlockingHandshakeTool)
        .state(Answer(std::sync::Mutex::new(Some(answer_rx))))
        .build()
        .unwrap();
    let mut events = registry.stream(call("blocking_handshake", json!({})), &ToolContext::new());
    let first = events.next().await.unwrap();
    assert!(
        matches!(&first, ToolEvent::Progress { message, .. } if message == "asking"),
        "{first:?}"
    );
    answer_tx.send(42).unwrap();
    let rest: Vec<ToolEvent> = events.collect().await;
    let [ToolEvent::Result(result)] = rest.as_slice() else {
        panic!("expected only the result, got {rest:?}");
    };
    assert_eq!(result.text_content(), "got 42");
}

#[tokio::test]
async fn the_record_can_be_watched_while_the_tool_runs() {
    let registry = Registry::builder().tool(GatedTool).build().unwrap();
    let ctx = ToolContext::new().with_app_state(Gate::default());
    let gate: State<Gate> = ctx.app_state().unwrap();
    let stream = registry.stream(call("gated", json!({})), &ctx);
    let mut watch = stream.watch_record();
    assert_eq!(watch.borrow().status, CallStatus::InProgress);

    let driver = tokio::spawn(stream.finish());
    // Wait for the record to show the tool's progress, while it runs.
    let snapshot = watch
        .wait_for(|record| record.progress.is_some())
        .await
        .unwrap()
        .clone();
    assert_eq!(snapshot.status, CallStatus::InProgress);
    assert_eq!(snapshot.progress, Some(0.5));
    assert_eq!(snapshot.message.as_deref(), Some("waiting for the gate"));
    assert!(snapshot.result.is_none() && snapshot.ended_at_ms.is_none());

    gate.0.notify_one();
    let (result, record) = driver.await.unwrap();
    assert_eq!(result.text_content(), "through");
    assert_eq!(record.status, CallStatus::Completed);
    assert_eq!(watch.borrow_and_update().status, CallStatus::Completed);
}

#[tokio::test]
async fn a_record_holds_the_whole_call_and_serialises_to_json() {
    let registry = registry();
    let (result, record) = registry
        .invoke_recorded(
            ToolUse::new("doc-9", "traced", json!({})),
            &ToolContext::new(),
        )
        .await;
    assert!(result.is_success());
    assert_eq!(record.id, "doc-9");
    assert_eq!(record.tool, "traced");
    assert_eq!(record.status, CallStatus::Completed);
    assert_eq!(record.progress, Some(1.0));
    let steps: Vec<&str> = record.trace.iter().map(|e| e.step.as_str()).collect();
    assert_eq!(steps, ["split", "analyse", "summarise"]);
    let end = record.ended_at_ms.unwrap();
    assert!(
        record
            .trace
            .iter()
            .all(|e| e.at_ms >= record.started_at_ms && e.at_ms <= end)
    );
    assert!(record.trace.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
    assert_eq!(record.result.as_ref(), Some(&result));

    let json = serde_json::to_value(&record).unwrap();
    assert_eq!(json["status"], "completed");
    assert_eq!(json["tool"], "traced");
    assert_eq!(json["trace"][1]["step"], "analyse");
    assert_eq!(json["trace"][1]["message"], "step 2");
    assert!(json["trace"][1]["at_ms"].is_u64());
    assert!(json["started_at_ms"].is_u64() && json["ended_at_ms"].is_u64());
    assert_eq!(
        json["result"],
        json!({"toolUseId": "doc-9", "status": "success", "content": [{"json": {"sections": 3}}]})
    );
    assert_eq!(json["error_kind"], Value::Null);
    // Tagged like the events, and read back whole.
    assert_eq!(json["type"], "record");
    let back: tool_runtime::events::ToolCallRecord = serde_json::from_value(json).unwrap();
    assert_eq!(back, record);
    let event = serde_json::to_value(ToolEvent::Result(result)).unwrap();
    assert_eq!(event["type"], "result");
}

#[tokio::test]
async fn a_record_of_an_unknown_tool_is_failed() {
    let registry = registry();
    let (result, record) = registry
        .invoke_recorded(call("no_such_tool", json!({})), &ToolContext::new())
        .await;
    assert_eq!(result.error_kind, Some(ToolErrorKind::UnknownTool));
    assert_eq!(record.status, CallStatus::Failed);
    assert_eq!(record.tool, "no_such_tool");
    assert!(record.trace.is_empty() && record.progress.is_none());
}

#[tokio::test(start_paused = true)]
async fn cancelling_a_stream_stops_just_that_call() {
    let registry = Registry::builder().tool(GatedTool).build().unwrap();
    let ctx = ToolContext::new().with_app_state(Gate::default());
    let mut first = registry.stream(call("gated", json!({})), &ctx);
    // Paused time: were the event held back, the clock would run out here.
    let event = tokio::time::timeout(Duration::from_secs(60), first.next())
        .await
        .expect("the progress event arrived while the tool waited")
        .unwrap();
    assert!(matches!(event, ToolEvent::Progress { .. }));
    first.cancel();
    let rest: Vec<ToolEvent> = first.by_ref().collect().await;
    let [ToolEvent::Result(result)] = rest.as_slice() else {
        panic!("expected only the result, got {rest:?}");
    };
    assert_eq!(result.error_kind, Some(ToolErrorKind::Cancelled));
    assert_eq!(
        result.text_content(),
        "the call to gated was cancelled before it finished"
    );
    let record = first.record();
    assert_eq!(record.status, CallStatus::Incomplete);
    // What the tool reported before the cancellation is kept.
    assert_eq!(record.progress, Some(0.5));
    assert!(!ctx.is_cancelled(), "the caller's context is not cancelled");
}

#[tokio::test]
async fn dropping_a_stream_stops_the_call_and_closes_its_record() {
    let registry = Registry::builder().tool(GatedTool).build().unwrap();
    let ctx = ToolContext::new().with_app_state(Gate::default());
    let mut stream = registry.stream(call("gated", json!({})), &ctx);
    let watch = stream.watch_record();
    assert!(matches!(
        stream.next().await,
        Some(ToolEvent::Progress { .. })
    ));
    drop(stream);
    let record = watch.borrow().clone();
    assert_eq!(record.status, CallStatus::Incomplete);
    assert_eq!(record.error_kind, Some(ToolErrorKind::Cancelled));
    assert_eq!(
        record.result.unwrap().text_content(),
        "the call to gated was cancelled before it finished: its stream was dropped"
    );
    assert_eq!(record.progress, Some(0.5));
}
