//! What a tool call costs, by path, next to the hand-written floor and (with
//! `--features peers`) next to rmcp and rig; what reporting every argument
//! error costs; and how a registry of a thousand tools behaves.
//!
//! Every path is checked to give the expected answer before it is timed.
//! `scripts/perf-report.sh` turns the results into `docs/performance.md`.

use std::hint::black_box;
use std::time::Duration;

use bench::sample::SearchTool;
use bench::{INVALID_ARGS, VALID_ARGS, complete, expected_output, floor, tool_use_json};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use tool_runtime::providers::{self, Provider};
use tool_runtime::{
    Registry, Tool, ToolContext, ToolOutput, ToolResult, ToolUse, registry::Linked,
};

fn text_of(result: &ToolResult) -> Result<String, String> {
    if result.is_error() {
        Err(result.text_content())
    } else {
        Ok(result.text_content())
    }
}

/// The valid path, every way it can be taken.
fn calls(c: &mut Criterion) {
    let registry = Registry::builder()
        .tool(SearchTool)
        .build()
        .expect("one tool");
    let global = Registry::global();
    let ctx = ToolContext::new();
    // A caller that keeps a handle to cancel its calls with: every call
    // then reads the token under its lock.
    let cancellable = ToolContext::new();
    let _handle = cancellable.cancellation_token().clone();
    let args: Value = serde_json::from_str(VALID_ARGS).expect("valid JSON");
    let use_text = tool_use_json(VALID_ARGS);
    let tool_use: ToolUse = serde_json::from_str(&use_text).expect("a tool use");
    let expected = expected_output();

    // The answers first: a fast wrong path is no result.
    assert_eq!(floor::call_str(VALID_ARGS).unwrap(), json!(expected));
    assert_eq!(floor::call_value(&args).unwrap(), json!(expected));
    assert_eq!(
        floor::invoke_str(&use_text)["content"][0]["text"],
        json!(expected)
    );
    let result = complete(registry.invoke(tool_use.clone(), &ctx));
    assert_eq!(text_of(&result), Ok(expected.clone()));
    assert_eq!(result.tool_use_id, "tooluse_8f2a");
    assert_eq!(
        complete(SearchTool.call_json(&args, &ctx)).unwrap(),
        json!(expected)
    );
    assert_eq!(
        complete(SearchTool.call_str(VALID_ARGS, &ctx))
            .and_then(ToolOutput::into_value)
            .unwrap(),
        json!(expected)
    );
    assert_eq!(
        text_of(&complete(global.invoke(tool_use.clone(), &ctx))),
        Ok(expected.clone())
    );
    assert_eq!(
        text_of(&floor::invoke_owned(tool_use.clone())),
        Ok(expected.clone())
    );

    let mut group = c.benchmark_group("call");
    group.bench_function("body_only", |b| {
        b.iter(|| {
            bench::search_body(
                black_box("rust tool calling"),
                black_box(5),
                black_box(bench::Mode::Fuzzy),
            )
        })
    });
    group.bench_function("floor_str", |b| {
        b.iter(|| floor::call_str(black_box(VALID_ARGS)).unwrap())
    });
    group.bench_function("floor_value", |b| {
        b.iter(|| floor::call_value(black_box(&args)).unwrap())
    });
    // From an owned `Value` prepared outside the timed loop and dropped
    // inside it, as `Registry::call_json` takes its input.
    group.bench_function("floor_value_owned", |b| {
        b.iter_batched(
            || args.clone(),
            |input| {
                let output = floor::call_value(&input).unwrap();
                drop(input);
                output
            },
            BatchSize::SmallInput,
        )
    });
    group.bench_function("floor_tool_use_str", |b| {
        b.iter(|| floor::invoke_str(black_box(&use_text)))
    });
    group.bench_function("floor_tool_use_owned", |b| {
        b.iter_batched(
            || tool_use.clone(),
            floor::invoke_owned,
            BatchSize::SmallInput,
        )
    });
    group.bench_function("ours_invoke_str", |b| {
        b.iter(|| {
            let call: ToolUse = serde_json::from_str(black_box(&use_text)).unwrap();
            complete(registry.invoke(call, &ctx))
        })
    });
    group.bench_function("ours_invoke_tool_use", |b| {
        b.iter_batched(
            || tool_use.clone(),
            |call| complete(registry.invoke(call, &ctx)),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("ours_invoke_tool_use_cancellable", |b| {
        b.iter_batched(
            || tool_use.clone(),
            |call| complete(registry.invoke(call, &cancellable)),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("ours_invoke_tool_use_1000", |b| {
        b.iter_batched(
            || tool_use.clone(),
            |call| complete(global.invoke(call, &ctx)),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("ours_call_json", |b| {
        b.iter(|| complete(SearchTool.call_json(black_box(&args), &ctx)).unwrap())
    });
    group.bench_function("ours_call_json_str", |b| {
        b.iter(|| {
            let input: Value = serde_json::from_str(black_box(VALID_ARGS)).unwrap();
            complete(SearchTool.call_json(&input, &ctx)).unwrap()
        })
    });
    group.bench_function("ours_call_str", |b| {
        b.iter(|| complete(SearchTool.call_str(black_box(VALID_ARGS), &ctx)).unwrap())
    });
    group.bench_function("ours_call_json_owned", |b| {
        b.iter_batched(
            || args.clone(),
            |input| {
                let output = complete(SearchTool.call_json(&input, &ctx)).unwrap();
                drop(input);
                output
            },
            BatchSize::SmallInput,
        )
    });
    group.bench_function("ours_registry_call_json", |b| {
        b.iter_batched(
            || args.clone(),
            |input| complete(registry.call_json("search", input, &ctx)).unwrap(),
            BatchSize::SmallInput,
        )
    });
    #[cfg(feature = "peers")]
    peers::calls(&mut group, &args);
    group.finish();
}

/// Four mistakes at once, by each path that reports them.
fn invalid(c: &mut Criterion) {
    let registry = Registry::builder()
        .tool(SearchTool)
        .build()
        .expect("one tool");
    let ctx = ToolContext::new();
    let args: Value = serde_json::from_str(INVALID_ARGS).expect("valid JSON");
    let use_text = tool_use_json(INVALID_ARGS);

    let call: ToolUse = serde_json::from_str(&use_text).unwrap();
    let message = text_of(&complete(registry.invoke(call, &ctx))).unwrap_err();
    for field in ["query", "limit", "mode", "verbose"] {
        assert!(
            message.contains(field),
            "the error names {field}: {message}"
        );
    }
    assert!(floor::call_str(INVALID_ARGS).is_err());
    assert!(complete(SearchTool.call_json(&args, &ctx)).is_err());
    assert_eq!(
        complete(SearchTool.call_str(INVALID_ARGS, &ctx))
            .unwrap_err()
            .message(),
        complete(SearchTool.call_json(&args, &ctx))
            .unwrap_err()
            .message()
    );

    let mut group = c.benchmark_group("invalid");
    group.bench_function("floor_str", |b| {
        b.iter(|| floor::call_str(black_box(INVALID_ARGS)).unwrap_err())
    });
    group.bench_function("ours_invoke_str", |b| {
        b.iter(|| {
            let call: ToolUse = serde_json::from_str(black_box(&use_text)).unwrap();
            complete(registry.invoke(call, &ctx))
        })
    });
    group.bench_function("ours_call_json", |b| {
        b.iter(|| complete(SearchTool.call_json(black_box(&args), &ctx)).unwrap_err())
    });
    group.bench_function("ours_call_str", |b| {
        b.iter(|| complete(SearchTool.call_str(black_box(INVALID_ARGS), &ctx)).unwrap_err())
    });
    #[cfg(feature = "peers")]
    peers::invalid(&mut group, &args);
    group.finish();
}

/// The error for a wrong-typed argument whose value is 4 MB of text,
/// against the same error for a short value: what the message quotes of
/// the value is bounded, and so is the work of quoting it.
fn echo(c: &mut Criterion) {
    let ctx = ToolContext::new();
    let args = |limit: String| json!({"query": "q", "limit": limit, "mode": "fuzzy"});
    let short = args("7".into());
    let huge = args("7".repeat(4 << 20));
    let message = complete(SearchTool.call_json(&huge, &ctx))
        .unwrap_err()
        .to_string();
    assert!(message.len() < 300, "{} bytes", message.len());
    let mut group = c.benchmark_group("echo");
    group.bench_function("wrong_type_short", |b| {
        b.iter(|| complete(SearchTool.call_json(black_box(&short), &ctx)).unwrap_err())
    });
    group.bench_function("wrong_type_4mb", |b| {
        b.iter(|| complete(SearchTool.call_json(black_box(&huge), &ctx)).unwrap_err())
    });
    // The text path parses what it is given, and reading 4 MB is the
    // floor of that: the same text with the string where it belongs.
    let huge_text = huge.to_string();
    let fitting_text = args("7".into())
        .to_string()
        .replace("\"q\"", &format!("{:?}", "7".repeat(4 << 20)));
    group.bench_function("text_wrong_type_4mb", |b| {
        b.iter(|| complete(SearchTool.call_str(black_box(&huge_text), &ctx)).unwrap_err())
    });
    group.bench_function("text_parse_4mb", |b| {
        b.iter(|| serde_json::from_str::<Value>(black_box(&fitting_text)).unwrap())
    });
    group.finish();
}

/// The global registry of the generated tools (plus the two sample ones).
fn scale(c: &mut Criterion) {
    let registry = Registry::global();
    let count = registry.len();
    assert!(
        count > bench::SCALE_TOOLS,
        "the generated tools are registered"
    );
    let middle = bench::scale_tool_name(bench::SCALE_TOOLS / 2);
    assert!(registry.contains(&middle));
    let ctx = ToolContext::new();
    let misspelt = ToolUse::new("t", format!("{middle}x"), json!({}));
    assert!(complete(registry.invoke(misspelt.clone(), &ctx)).is_error());

    let mut group = c.benchmark_group("scale");
    group.sample_size(20);
    group.bench_function("build_global", |b| {
        b.iter(|| Registry::builder().linked(Linked::all()).build().unwrap())
    });
    group.bench_function("lookup_hit", |b| {
        b.iter(|| registry.get(black_box(&middle)).is_some())
    });
    group.bench_function("lookup_miss", |b| {
        b.iter(|| registry.get(black_box("no_such_tool")).is_none())
    });
    group.bench_function("invoke_unknown_name", |b| {
        b.iter_batched(
            || misspelt.clone(),
            |call| complete(registry.invoke(call, &ctx)),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("input_schemas_uncached", |b| {
        b.iter(|| {
            registry
                .specs()
                .map(|spec| tool_runtime::__private::input_schema(spec.params))
                .filter(Value::is_object)
                .count()
        })
    });
    group.bench_function("input_schemas_cached", |b| {
        b.iter(|| {
            registry
                .specs()
                .map(|spec| black_box(spec.input_schema()))
                .filter(|schema| schema.is_object())
                .count()
        })
    });
    for provider in [Provider::Anthropic, Provider::OpenAiStrict] {
        let id = format!("render_{}_uncached", provider.name().replace('-', "_"));
        group.bench_function(id, |b| {
            b.iter(|| providers::render_tools(provider, registry.specs()))
        });
        let id = format!("render_{}_cached", provider.name().replace('-', "_"));
        group.bench_function(id, |b| b.iter(|| black_box(registry.render(provider))));
    }
    group.bench_function("tool_list_json", |b| {
        b.iter(|| {
            let tools: Vec<Value> = registry
                .specs()
                .map(|spec| {
                    json!({
                        "name": spec.name,
                        "description": spec.description,
                        "input_schema": spec.input_schema(),
                    })
                })
                .collect();
            serde_json::to_string(&tools).unwrap().len()
        })
    });
    group.finish();
}

#[cfg(feature = "peers")]
mod peers {
    use std::hint::black_box;

    use bench::peers::{mcp, rig};
    use bench::{INVALID_ARGS, VALID_ARGS, complete, expected_output};
    use criterion::measurement::WallTime;
    use criterion::{BatchSize, BenchmarkGroup};
    use serde_json::Value;

    /// One tokio runtime for the rmcp service task, kept for the whole run.
    fn harness() -> &'static mcp::Harness {
        use std::sync::OnceLock;
        static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
        static HARNESS: OnceLock<mcp::Harness> = OnceLock::new();
        let runtime = RUNTIME.get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .expect("a runtime")
        });
        HARNESS.get_or_init(|| {
            let _entered = runtime.enter();
            mcp::Harness::new()
        })
    }

    pub fn calls(group: &mut BenchmarkGroup<'_, WallTime>, args: &Value) {
        let h = harness();
        let params_text = mcp::params_json(VALID_ARGS);
        let expected = expected_output();
        let response = complete(h.call(mcp::Harness::parse_params(&params_text)));
        assert_eq!(mcp::Harness::text(&response), Ok(expected.clone()));
        let mut rig_ctx = rig_core::tool::ToolContext::default();
        let result = complete(rig::execute(VALID_ARGS.to_owned(), &mut rig_ctx));
        assert!(result.is_success());
        assert_eq!(result.output().as_text(), Some(expected.as_str()));

        group.bench_function("rmcp_str", |b| {
            b.iter(|| complete(h.call(mcp::Harness::parse_params(black_box(&params_text)))))
        });
        group.bench_function("rmcp_params", |b| {
            b.iter_batched(
                || mcp::Harness::params(args),
                |params| complete(h.call(params)),
                BatchSize::SmallInput,
            )
        });
        group.bench_function("rig_str", |b| {
            b.iter_batched(
                || VALID_ARGS.to_owned(),
                |text| complete(rig::execute(text, &mut rig_ctx)),
                BatchSize::SmallInput,
            )
        });
    }

    pub fn invalid(group: &mut BenchmarkGroup<'_, WallTime>, args: &Value) {
        let h = harness();
        let params_text = mcp::params_json(INVALID_ARGS);
        let response = complete(h.call(mcp::Harness::parse_params(&params_text)));
        assert!(mcp::Harness::text(&response).is_err());
        let mut rig_ctx = rig_core::tool::ToolContext::default();
        let result = complete(rig::execute(INVALID_ARGS.to_owned(), &mut rig_ctx));
        assert!(result.is_error());
        let _ = args;

        group.bench_function("rmcp_str", |b| {
            b.iter(|| complete(h.call(mcp::Harness::parse_params(black_box(&params_text)))))
        });
        group.bench_function("rig_str", |b| {
            b.iter_batched(
                || INVALID_ARGS.to_owned(),
                |text| complete(rig::execute(text, &mut rig_ctx)),
                BatchSize::SmallInput,
            )
        });
    }
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(4))
        .configure_from_args()
}

criterion_group! {
    name = runtime;
    config = config();
    targets = calls, invalid, echo, scale
}
criterion_main!(runtime);
