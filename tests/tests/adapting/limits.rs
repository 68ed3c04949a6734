//! Result limits: text cut in the middle with a marker, structured results
//! refused rather than cut, full results kept and read back (by handle and
//! by `read_result`), through `Registry::invoke`, a provider's rendering
//! and the MCP server.

use serde_json::{Value, json};
use tool_runtime::providers::Provider;
use tool_runtime::{
    Registry, Tool, ToolContext, ToolSpec, ToolUse, limits::ResultHandle, limits::ResultLimit, tool,
};

use super::formatting::{Formatted, Row, check_schema};
use super::mcp::{mcp_answers, served_answers};

const KIB: usize = 1024;

/// About 2 MB of numbered lines, with a character of two bytes on each so
/// a cut must mind character boundaries.
fn big_text() -> String {
    (0..100_000)
        .map(|i| format!("line {i:07} é of the log\n"))
        .collect()
}

/// Dumps the whole log.
#[tool(register = false)]
fn dump_log() -> String {
    big_text()
}

/// Lists every row.
#[tool(register = false)]
fn all_rows() -> Vec<Row> {
    (0..50_000)
        .map(|i| Row {
            item: format!("item number {i}"),
            count: i,
        })
        .collect()
}

/// Lists a few rows.
#[tool(register = false)]
fn few_rows() -> Vec<Row> {
    (0..3)
        .map(|i| Row {
            item: format!("item {i}"),
            count: i,
        })
        .collect()
}

fn limited() -> Registry {
    Registry::builder()
        .tool(DumpLogTool)
        .tool(AllRowsTool)
        .tool(FewRowsTool)
        .result_limit(ResultLimit::Bytes(64 * KIB))
        .read_result(true)
        .build()
        .unwrap()
}

/// The numbers of a marker `[… CUT of TOTAL bytes cut; ...]`.
fn marker_numbers(text: &str) -> (usize, usize) {
    let at = text.find("[… ").expect("a marker");
    let words: Vec<&str> = text[at + "[… ".len()..].split(' ').take(3).collect();
    let number = |word: &str| word.replace(',', "").parse::<usize>().unwrap();
    (number(words[0]), number(words[2]))
}

/// Checks a cut text: about the limit, head and tail of the full text, the
/// marker's numbers right, and its handle the result's.
fn assert_cut(text: &str, full: &str, handle: &ResultHandle) {
    assert!(
        (60 * KIB..=66 * KIB).contains(&text.len()),
        "{} bytes",
        text.len()
    );
    let (cut, total) = marker_numbers(text);
    assert_eq!(total, full.len());
    let start = text.find("\n[… ").unwrap();
    let end = text.find(" …]\n").unwrap() + " …]\n".len();
    let (head, marker, tail) = (&text[..start], &text[start..end], &text[end..]);
    assert!(full.starts_with(head) && full.ends_with(tail));
    assert_eq!(head.len() + cut + tail.len(), full.len());
    assert!(head.len() > 30 * KIB && tail.len() > 30 * KIB);
    assert!(marker.contains(handle.as_str()), "{marker}");
    assert!(marker.contains("read_result"), "{marker}");
}

/// Reads the full result under `handle` with `read_result`, page by page.
async fn read_pages(registry: &Registry, handle: &ResultHandle) -> String {
    let mut text = String::new();
    let mut offset = 0;
    for page in 0.. {
        assert!(page < 100, "too many pages");
        let call = ToolUse::new(
            format!("p{page}"),
            "read_result",
            json!({"handle": handle.as_str(), "offset": offset}),
        );
        let result = registry.invoke(call, &ToolContext::new()).await;
        assert!(result.is_success(), "{}", result.text_content());
        assert!(result.full_result.is_none(), "a page is not cut again");
        assert!(result.text_content().len() <= 64 * KIB);
        let note = result.content[0].as_text().unwrap().to_owned();
        text.push_str(result.content[1].as_text().unwrap());
        if note.ends_with(", the end]") {
            break;
        }
        let next = note.rsplit("offset ").next().unwrap().trim_end_matches(']');
        offset = next.parse().unwrap();
        assert_eq!(offset, text.len());
    }
    text
}

#[tokio::test]
async fn a_long_text_reaches_the_model_cut_and_stays_readable_in_full() {
    let registry = limited();
    let full = big_text();
    assert!(full.len() > 2_000_000);
    let call = ToolUse::new("1", "dump_log", json!({}));
    let (result, record) = registry
        .invoke_recorded(call.clone(), &ToolContext::new())
        .await;
    assert!(result.is_success());
    let handle = record.full_result.clone().expect("a handle in the record");
    assert_eq!(result.full_result.as_ref(), Some(&handle));
    assert_cut(&result.text_content(), &full, &handle);

    // Read back whole, and page by page.
    let kept = registry.full_result(&handle).unwrap();
    assert_eq!(kept.text_content(), full);
    assert_eq!(read_pages(&registry, &handle).await, full);

    // What a provider sends is the cut text.
    let message = registry.render_result(Provider::OpenAiChat, &call, &result);
    assert_eq!(message["content"], result.text_content());
    let serialized = serde_json::to_value(&record).unwrap();
    assert_eq!(serialized["full_result"], handle.as_str());
}

#[tokio::test]
async fn streamed_and_concurrent_calls_are_held_to_the_limit_too() {
    use futures_util::StreamExt;
    let registry = limited();
    let mut events = registry.stream(
        ToolUse::new("1", "dump_log", json!({})),
        &ToolContext::new(),
    );
    let mut last = None;
    while let Some(event) = events.next().await {
        if let tool_runtime::ToolEvent::Result(result) = event {
            last = Some(result);
        }
    }
    let streamed = last.expect("a result");
    assert!(streamed.text_content().len() <= 66 * KIB);
    assert!(events.record().full_result.is_some());

    let all = registry
        .invoke_all(
            [
                ToolUse::new("a", "dump_log", json!({})),
                ToolUse::new("b", "few_rows", json!({})),
            ],
            &ToolContext::new(),
        )
        .await;
    assert!(all[0].text_content().len() <= 66 * KIB);
    assert!(all[0].full_result.is_some());
    assert!(all[1].full_result.is_none());
}

#[tokio::test]
async fn no_limit_is_the_default_and_a_tools_own_limit_wins() {
    let open = Registry::builder().tool(DumpLogTool).build().unwrap();
    assert_eq!(open.result_limit(), None);
    let whole = open
        .invoke(
            ToolUse::new("1", "dump_log", json!({})),
            &ToolContext::new(),
        )
        .await;
    assert_eq!(whole.text_content(), big_text());
    assert!(whole.full_result.is_none());

    let mut spec = DumpLogTool.spec().clone();
    spec.name = "dump_log_short".into();
    spec.result_limit = Some(ResultLimit::Bytes(2_000));
    let short = Renamed { spec };
    let registry = Registry::builder()
        .tool(short)
        .result_limit(ResultLimit::Bytes(64 * KIB))
        .read_result(false)
        .build()
        .unwrap();
    let result = registry
        .invoke(
            ToolUse::new("1", "dump_log_short", json!({})),
            &ToolContext::new(),
        )
        .await;
    let text = result.text_content();
    assert!((1_500..=2_000).contains(&text.len()), "{}", text.len());
    // No read_result here: the marker names the handle alone.
    let handle = result.full_result.unwrap();
    assert!(
        text.contains(&format!("full result: handle {handle} …]")),
        "{text}"
    );
}

/// `dump_log` under another spec.
struct Renamed {
    spec: ToolSpec,
}

impl Tool for Renamed {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call<'a>(
        &'a self,
        input: &'a Value,
        ctx: &'a ToolContext,
    ) -> tool_runtime::spec::ToolFuture<'a> {
        DumpLogTool.call(input, ctx)
    }
}

#[tokio::test]
async fn a_limit_in_tokens_is_counted_in_tokens() {
    let registry = Registry::builder()
        .tool(DumpLogTool)
        .result_limit(ResultLimit::Tokens(2_000))
        .token_counter(tool_tokens::O200kBase)
        .build()
        .unwrap();
    let result = registry
        .invoke(
            ToolUse::new("1", "dump_log", json!({})),
            &ToolContext::new(),
        )
        .await;
    let tokens = tool_tokens::count(&result.text_content());
    assert!((1_500..=2_000).contains(&tokens), "{tokens} tokens");
    assert!(
        result
            .text_content()
            .contains(" bytes cut; full result: handle r-")
    );
}

/// Chants one short word: 30 words in 60 bytes.
#[tool(register = false, result_limit = "20 tokens")]
fn chant() -> String {
    "a ".repeat(30)
}

/// One token a word.
fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

#[tokio::test]
async fn a_limit_in_tokens_counts_with_the_registrys_counter() {
    let call = || ToolUse::new("1", "chant", json!({}));
    let ctx = ToolContext::new();
    // By default 60 bytes are 15 tokens: within the tool's 20.
    let estimated = Registry::builder().tool(ChantTool).build().unwrap();
    assert_eq!(estimated.token_counter().count(&chant()), 15);
    let whole = estimated.invoke(call(), &ctx).await;
    assert_eq!(whole.text_content(), chant());
    // Counted a token a word, they are 30: the result is cut to fit, for
    // the tool's own limit and for the registry's.
    for registry in [
        Registry::builder().tool(ChantTool).token_counter(words),
        Registry::builder()
            .tool(ChantTool)
            .result_limit(ResultLimit::Tokens(20))
            .token_counter(words),
    ] {
        let registry = registry.build().unwrap();
        assert_eq!(registry.token_counter().count(&chant()), 30);
        let cut = registry.invoke(call(), &ctx).await;
        let text = cut.text_content();
        assert!(
            text.contains(" bytes cut; full result: handle r-"),
            "{text}"
        );
        assert!(words(&text) <= 20, "{} words: {text}", words(&text));
        assert!(cut.full_result.is_some());
    }
}

#[tokio::test]
async fn a_counter_that_panics_counts_as_the_estimate() {
    let registry = Registry::builder()
        .tool(ChantTool)
        .token_counter(|_: &str| -> usize { panic!("no count") })
        .build()
        .unwrap();
    assert_eq!(registry.token_counter().count(&chant()), 15);
    let result = registry
        .invoke(ToolUse::new("1", "chant", json!({})), &ToolContext::new())
        .await;
    assert_eq!(result.text_content(), chant());
}

#[tokio::test]
async fn a_structured_result_over_the_limit_is_refused_not_cut() {
    let registry = limited();
    let schema = tool_runtime::providers::mcp::output_schema(AllRowsTool.spec()).unwrap();
    let call = ToolUse::new("1", "all_rows", json!({}));
    let (result, record) = registry
        .invoke_recorded(call.clone(), &ToolContext::new())
        .await;
    assert!(result.is_error());
    let text = result.text_content();
    assert!(text.len() < 1_000, "{text}");
    assert!(text.contains("over its limit of 65,536 bytes"), "{text}");
    assert!(text.contains("not cut"), "{text}");
    let handle = record.full_result.expect("the full value kept");
    assert!(text.contains(handle.as_str()), "{text}");
    // The full value is kept whole, and valid.
    let kept = registry.full_result(&handle).unwrap();
    let value = kept.value().unwrap().into_owned();
    assert_eq!(value.as_array().unwrap().len(), 50_000);
    check_schema(&schema, &json!({"result": value}));
    // Rendered, it is an error with no structured content.
    let mcp = registry.render_result(Provider::Mcp, &call, &result);
    assert_eq!(mcp["isError"], true);
    assert!(mcp.get("structuredContent").is_none());

    // Within the limit, a structured result is unchanged.
    let few = registry
        .invoke(
            ToolUse::new("2", "few_rows", json!({})),
            &ToolContext::new(),
        )
        .await;
    assert!(few.is_success() && few.full_result.is_none());
    let rendered = registry.render_result(Provider::Mcp, &call, &few);
    check_schema(&schema, &rendered["structuredContent"]);
}

#[tokio::test]
async fn formatted_text_over_the_limit_is_cut_beside_its_value() {
    struct Long;
    impl tool_runtime::format::ToolFormat for Long {
        fn format_result(&self, _spec: &ToolSpec, value: &Value) -> Option<String> {
            Some(format!("{value}\n").repeat(40_000))
        }
    }
    let registry = Registry::builder()
        .tool(Formatted::new(FewRowsTool, Long))
        .result_limit(ResultLimit::Bytes(64 * KIB))
        .build()
        .unwrap();
    let call = ToolUse::new("1", "few_rows", json!({}));
    let result = registry.invoke(call.clone(), &ToolContext::new()).await;
    assert!(result.is_success());
    assert!(result.text_content().len() <= 64 * KIB);
    let mcp = registry.render_result(Provider::Mcp, &call, &result);
    let schema = tool_runtime::providers::mcp::output_schema(FewRowsTool.spec()).unwrap();
    check_schema(&schema, &mcp["structuredContent"]);
    assert_eq!(mcp["structuredContent"]["result"][2]["item"], "item 2");
}

#[tokio::test]
async fn a_dropped_result_says_so() {
    let registry = Registry::builder()
        .tool(DumpLogTool)
        .result_limit(ResultLimit::Bytes(64 * KIB))
        .read_result(true)
        .kept_results(1, 8 << 20)
        .build()
        .unwrap();
    let ctx = ToolContext::new();
    let first = registry
        .invoke(ToolUse::new("1", "dump_log", json!({})), &ctx)
        .await;
    let second = registry
        .invoke(ToolUse::new("2", "dump_log", json!({})), &ctx)
        .await;
    let (first, second) = (first.full_result.unwrap(), second.full_result.unwrap());
    assert_ne!(first, second);
    let missing = registry.full_result(&first).unwrap_err();
    assert!(missing.to_string().contains("dropped"), "{missing}");
    assert!(registry.full_result(&second).is_ok());
    let read = registry
        .invoke(
            ToolUse::new("3", "read_result", json!({"handle": first.as_str()})),
            &ctx,
        )
        .await;
    assert!(read.is_error());
    assert!(
        read.text_content().contains("dropped"),
        "{}",
        read.text_content()
    );
    let past = registry
        .invoke(
            ToolUse::new(
                "4",
                "read_result",
                json!({"handle": second.as_str(), "offset": 99_999_999}),
            ),
            &ctx,
        )
        .await;
    assert!(past.text_content().contains("past the end"), "{past:?}");
}

/// A full result is its call's owner's: `read_result` in another owner's
/// call (or in a call of no one) finds nothing under its handle, as under
/// one never given out; the owner's calls read it, and the program reads
/// every result.
#[tokio::test]
async fn a_kept_result_is_read_only_in_calls_of_its_owner() {
    use tool_runtime::context::{Caller, Owner};
    let registry = limited();
    let alice = ToolContext::new().with_caller(Caller::new("alice"));
    let bob = ToolContext::new().with_caller(Caller::new("bob"));
    let session = ToolContext::new().with_owner(Owner::session("s1"));
    let read = async |ctx: &ToolContext, handle: &str| {
        let call = ToolUse::new("r", "read_result", json!({"handle": handle}));
        registry.invoke(call, ctx).await
    };
    for owner in [&alice, &session] {
        let cut = registry
            .invoke(ToolUse::new("1", "dump_log", json!({})), owner)
            .await;
        let handle = cut.full_result.expect("kept");
        for other in [&bob, &ToolContext::new()] {
            let refused = read(other, handle.as_str()).await;
            let missing = read(other, "r-0123456789abcdef0123456789abcdef").await;
            assert!(refused.is_error(), "{refused:?}");
            assert_eq!(
                refused.text_content().replace(handle.as_str(), "H"),
                missing
                    .text_content()
                    .replace("r-0123456789abcdef0123456789abcdef", "H")
            );
        }
        let page = read(owner, handle.as_str()).await;
        assert!(page.is_success(), "{}", page.text_content());
        assert!(registry.full_result(&handle).is_ok());
    }
}

#[tokio::test]
async fn the_mcp_server_holds_results_to_the_limit() {
    let registry = limited();
    // Every session's calls are one caller's, whose kept results each of
    // them reads.
    let server = || {
        let caller = tool_runtime::context::Caller::new("model");
        tool_mcp::server::McpServer::new(registry.clone())
            .with_context(ToolContext::new().with_caller(caller))
    };
    let answers = served_answers(
        server(),
        &[
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "dump_log", "arguments": {}}}),
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": "all_rows", "arguments": {}}}),
            json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                "params": {"name": "few_rows", "arguments": {}}}),
        ],
    )
    .await;
    let tools = answers[0]["result"]["tools"].as_array().unwrap();
    assert!(tools.iter().any(|tool| tool["name"] == "read_result"));
    let schema_of = |name: &str| {
        tools.iter().find(|tool| tool["name"] == name).unwrap()["outputSchema"].clone()
    };

    let cut = &answers[1]["result"];
    assert_eq!(cut["isError"], false);
    let text = cut["content"][0]["text"].as_str().unwrap();
    let full = big_text();
    let marker = &text[text.find("handle r-").unwrap() + "handle ".len()..];
    let handle = ResultHandle::new(marker.split([',', ' ']).next().unwrap());
    assert_cut(text, &full, &handle);

    // The model reads it on with read_result, through the server: the
    // registry's clones share what it keeps, each caller's its own. A
    // session of no caller finds nothing under the handle.
    let request = |id: i64, offset: usize| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "read_result",
                "arguments": {"handle": handle.as_str(), "offset": offset}}})
    };
    let anonymous = &mcp_answers(registry.clone(), &[request(9, 0)]).await[0]["result"];
    assert_eq!(anonymous["isError"], true, "{anonymous}");
    let mut read = String::new();
    let mut offset = 0;
    for i in 0..100 {
        let page = &served_answers(server(), &[request(10 + i, offset)]).await[0]["result"];
        assert_eq!(page["isError"], false, "{page}");
        read.push_str(page["content"][1]["text"].as_str().unwrap());
        let note = page["content"][0]["text"].as_str().unwrap();
        if note.ends_with(", the end]") {
            break;
        }
        offset = note
            .rsplit("offset ")
            .next()
            .unwrap()
            .trim_end_matches(']')
            .parse()
            .unwrap();
    }
    assert_eq!(read, full);

    let refused = &answers[2]["result"];
    assert_eq!(refused["isError"], true);
    assert!(refused.get("structuredContent").is_none());
    assert!(
        refused["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("65,536 bytes")
    );
    let within = &answers[3]["result"];
    check_schema(&schema_of("few_rows"), &within["structuredContent"]);
}

#[test]
fn the_text_of_a_cut_result_stays_within_bounds_for_any_limit() {
    let text = big_text();
    for limit in [1, 50, 100, 1_000, 64 * KIB] {
        let registry = Registry::builder()
            .tool(DumpLogTool)
            .result_limit(ResultLimit::Bytes(limit))
            .build()
            .unwrap();
        let result = futures_util::FutureExt::now_or_never(registry.invoke(
            ToolUse::new("1", "dump_log", json!({})),
            &ToolContext::new(),
        ))
        .expect("a sync tool");
        let shown = result.text_content();
        // A limit smaller than the marker leaves the marker alone (one
        // that names read_result, which the registry offers).
        assert!(shown.len() <= limit.max(150), "{limit}: {}", shown.len());
        assert!(shown.contains("read it with read_result"), "{shown}");
        assert!(shown.contains(" bytes cut; "), "{shown}");
        assert!(text.len() > shown.len());
    }
}

/// Dumps the whole log, held to a limit of its own.
#[tool(register = false, result_limit = "64KB")]
fn dump_own_log() -> String {
    big_text()
}

#[tokio::test]
async fn read_results_pages_fit_the_limit_their_result_was_held_to() {
    // The tool's own limit, and none for the registry.
    let registry = Registry::builder()
        .tool(DumpOwnLogTool)
        .read_result(true)
        .build()
        .unwrap();
    let cut = registry
        .invoke(
            ToolUse::new("1", "dump_own_log", json!({})),
            &ToolContext::new(),
        )
        .await;
    assert!(cut.text_content().len() <= 64 * KIB);
    let handle = cut.full_result.expect("kept");
    // `read_pages` checks each page, its note included, against 64 KiB.
    assert_eq!(read_pages(&registry, &handle).await, big_text());
    // A page asked to be longer is the same page.
    let long = registry
        .invoke(
            ToolUse::new(
                "2",
                "read_result",
                json!({"handle": handle.as_str(), "offset": 0, "length": 1_000_000}),
            ),
            &ToolContext::new(),
        )
        .await;
    assert!(long.is_success(), "{}", long.text_content());
    assert!(long.text_content().len() <= 64 * KIB);
    assert!(long.text_content().len() > 60 * KIB);
}

/// Writes the same two-byte letter many times.
#[tool(register = false)]
fn accents() -> String {
    "é".repeat(10_000)
}

#[tokio::test]
async fn a_limit_smaller_than_a_page_note_still_reads_a_character_at_a_time() {
    let registry = Registry::builder()
        .tool(AccentsTool)
        .result_limit(ResultLimit::Tokens(5))
        .read_result(true)
        .build()
        .unwrap();
    let ctx = ToolContext::new();
    let cut = registry
        .invoke(ToolUse::new("1", "accents", json!({})), &ctx)
        .await;
    let handle = cut.full_result.expect("kept");
    let read = |offset: usize| {
        registry.invoke(
            ToolUse::new(
                "2",
                "read_result",
                json!({"handle": handle.as_str(), "offset": offset}),
            ),
            &ctx,
        )
    };
    // An offset inside a character starts at that character.
    for offset in [0, 1] {
        let page = read(offset).await;
        assert_eq!(page.content[1].as_text(), Some("é"), "{page:?}");
        assert!(page.text_content().contains("read on from offset 2]"));
    }
    let last = read(19_998).await;
    assert!(last.text_content().ends_with(", the end]\né"), "{last:?}");
}

#[tokio::test]
async fn a_tool_made_at_run_time_takes_a_limit_and_a_formatter() {
    struct Shout;
    impl tool_runtime::format::ToolFormat for Shout {
        fn format_result(&self, _spec: &ToolSpec, value: &Value) -> Option<String> {
            Some(value.as_str()?.to_uppercase())
        }
    }
    let tool = tool_runtime::dynamic::DynamicTool::builder(
        "echo_many",
        "Repeats a word.",
        json!({"type": "object", "properties": {"word": {"type": "string"}}}),
    )
    .result_limit(ResultLimit::Bytes(300))
    .formatter(Shout)
    .handler(|args, _ctx| Ok(args["word"].as_str().unwrap_or("").repeat(1_000)))
    .build()
    .unwrap();
    let registry = Registry::builder().tool(tool).build().unwrap();
    let result = registry
        .invoke(
            ToolUse::new("1", "echo_many", json!({"word": "ab"})),
            &ToolContext::new(),
        )
        .await;
    let text = result.text_content();
    assert!(text.len() <= 300 && text.starts_with("ABAB"), "{text}");
    assert!(text.contains("[… "), "{text}");
    // The full result is the formatter's text, whole, beside the value.
    let full = registry.full_result(&result.full_result.unwrap()).unwrap();
    assert_eq!(full.text_content(), "AB".repeat(1_000));
    assert_eq!(
        full.structured_content.as_deref(),
        Some(&json!("ab".repeat(1_000)))
    );
}
