//! What a tool receives besides its arguments: the `ToolContext` (tool use,
//! invocation state, cancellation, deadline), `State<T>`, `Extension<T>`,
//! `Progress`, and types made injectable with one `FromToolContext` impl.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::{Value, json};
use tool_runtime::{
    FromToolContext, Registry, State, ToolContext, ToolError, ToolUse, context::CancellationToken,
    context::Elicit, context::Extension, events::CallStatus, events::Progress, spec::ToolErrorKind,
    tool,
};

/// Reports what the context says about the call.
#[tool(timeout = "1h")]
fn describe_call(
    /// Anything; echoed back through the context
    note: String,
    ctx: &ToolContext,
) -> Value {
    let _ = note;
    json!({
        "id": ctx.tool_use_id(),
        "name": ctx.tool_name(),
        "input": ctx.input(),
        "session": ctx.state().get("session"),
        "timeout_ms": ctx.timeout().map(|t| t.as_millis() as u64),
        "has_deadline": ctx.deadline().is_some(),
        "cancelled": ctx.is_cancelled(),
    })
}

/// Reports whether the call has a deadline.
#[tool]
fn no_deadline(ctx: ToolContext) -> bool {
    ctx.deadline().is_some() || ctx.timeout().is_some() || ctx.remaining().is_some()
}

/// A hit counter shared by every call.
struct Hits(AtomicU32);

/// A greeting prefix.
struct Greeting(&'static str);

/// Counts a hit.
#[tool]
fn hit(hits: State<Hits>, greeting: State<Greeting>) -> String {
    let n = hits.0.fetch_add(1, Ordering::SeqCst) + 1;
    format!("{} #{n}", greeting.0)
}

/// Something nobody registers.
struct Unsupplied;

/// Needs state nobody supplies.
#[tool]
fn needs_missing(_missing: State<Unsupplied>) -> &'static str {
    "ran anyway"
}

/// The caller, per request.
#[derive(Debug, Clone)]
struct Caller {
    name: String,
}

/// Greets the caller.
#[tool]
async fn whoami(caller: Extension<Caller>) -> String {
    tokio::task::yield_now().await;
    format!("you are {}", caller.name)
}

/// Reports progress from a sync tool through the injected handle.
#[tool]
fn steps(progress: Progress) -> &'static str {
    progress.trace("load", "read 3 rows");
    progress.progress(-0.5, "below the range");
    progress.progress(f64::NAN, "not a number");
    progress.progress(0.25, "a quarter");
    progress.trace("sum", "added them up");
    progress.progress(1.7, "above the range");
    "done"
}

/// Reports through the context's own methods from an async tool.
#[tool]
async fn ctx_steps(ctx: &ToolContext) -> &'static str {
    ctx.trace("start", "begun");
    tokio::task::yield_now().await;
    ctx.progress(0.5, "half");
    ctx.partial(json!({"rows": 2}));
    "finished"
}

/// The request's locale, read from the invocation state: a new injectable
/// type is one trait impl.
struct Locale(String);

impl FromToolContext<'_> for Locale {
    fn from_tool_context(ctx: &ToolContext) -> Result<Self, ToolError> {
        ctx.state()
            .get("locale")
            .and_then(Value::as_str)
            .map(|locale| Locale(locale.to_owned()))
            .ok_or_else(|| {
                ToolError::with_kind(ToolErrorKind::MissingContext, "no locale in the state")
            })
    }
}

/// Says hello in the request's locale, and whether a greeting was set.
#[tool]
fn localized(
    #[tool(inject)] locale: Locale,
    #[tool(inject)] greeting: Option<State<Greeting>>,
    #[tool(inject)] token: CancellationToken,
) -> String {
    let greeting = greeting.map_or("hello", |g| g.0);
    format!(
        "{greeting} in {} (cancelled: {})",
        locale.0,
        token.is_cancelled()
    )
}

fn call(name: &str, input: Value) -> ToolUse {
    ToolUse::new(format!("{name}-1"), name, input)
}

#[tokio::test]
async fn the_context_exposes_the_tool_use_state_and_limits() {
    let registry = Registry::builder()
        .tool(DescribeCallTool)
        .tool(NoDeadlineTool)
        .build()
        .unwrap();
    let ctx = ToolContext::new().with_state("session", json!("s-42"));
    let result = registry
        .invoke(
            ToolUse::new("use-7", "describe_call", json!({"note": "hi"})),
            &ctx,
        )
        .await;
    assert!(result.is_success(), "{}", result.text_content());
    let seen = result.content[0].clone().into_value();
    assert_eq!(
        seen,
        json!({
            "id": "use-7",
            "name": "describe_call",
            "input": {"note": "hi"},
            "session": "s-42",
            "timeout_ms": 3_600_000,
            "has_deadline": true,
            "cancelled": false,
        })
    );

    let result = registry
        .invoke(call("no_deadline", json!({})), &ToolContext::new())
        .await;
    assert_eq!(result.text_content(), "false");
}

#[tokio::test]
async fn outside_a_registry_the_context_knows_no_call() {
    let ctx = ToolContext::new();
    assert_eq!(ctx.tool_use_id(), None);
    assert_eq!(ctx.tool_name(), None);
    assert_eq!(ctx.input(), &Value::Null);
    assert!(!ctx.progress_handle().is_watched());
    // Reporting outside a call is allowed and goes nowhere.
    ctx.progress(0.5, "nobody listens");
    assert_eq!(steps(Progress::default()), "done");
}

#[tokio::test]
async fn state_comes_from_the_registry_and_the_context_overrides_it() {
    let registry = Registry::builder()
        .tool(HitTool)
        .state(Hits(AtomicU32::new(0)))
        .state(Greeting("hello"))
        .build()
        .unwrap();
    let ctx = ToolContext::new();
    assert_eq!(
        registry
            .invoke(call("hit", json!({})), &ctx)
            .await
            .text_content(),
        "hello #1"
    );
    assert_eq!(
        registry
            .invoke(call("hit", json!({})), &ctx)
            .await
            .text_content(),
        "hello #2"
    );

    // A value of the same type on the context wins over the registry's.
    let ctx = ToolContext::new().with_app_state(Greeting("bonjour"));
    assert_eq!(
        registry
            .invoke(call("hit", json!({})), &ctx)
            .await
            .text_content(),
        "bonjour #3"
    );
}

#[tokio::test]
async fn state_is_shared_not_copied() {
    let ctx = ToolContext::new().with_app_state(Hits(AtomicU32::new(5)));
    let a: State<Hits> = ctx.app_state().unwrap();
    let b = a.clone();
    a.0.fetch_add(1, Ordering::SeqCst);
    assert_eq!(b.0.load(Ordering::SeqCst), 6);
    assert!(Arc::ptr_eq(&a.into_arc(), &b.into_arc()));
    assert!(ctx.app_state::<Greeting>().is_none());
}

#[tokio::test]
async fn missing_state_is_an_error_result_naming_the_type() {
    let registry = Registry::builder().tool(NeedsMissingTool).build().unwrap();
    let result = registry
        .invoke(call("needs_missing", json!({})), &ToolContext::new())
        .await;
    assert!(result.is_error());
    assert_eq!(result.error_kind, Some(ToolErrorKind::MissingContext));
    let text = result.text_content();
    assert!(
        text.starts_with("tool needs_missing needs shared state of type `")
            && text.contains(std::any::type_name::<Unsupplied>()),
        "{text}"
    );
    assert!(!text.contains("ran anyway"));
}

#[tokio::test]
async fn extensions_come_from_the_context() {
    let registry = Registry::builder().tool(WhoamiTool).build().unwrap();
    let ctx = ToolContext::new().with_extension(Caller { name: "ada".into() });
    let result = registry.invoke(call("whoami", json!({})), &ctx).await;
    assert_eq!(result.text_content(), "you are ada");

    let result = registry
        .invoke(call("whoami", json!({})), &ToolContext::new())
        .await;
    assert_eq!(result.error_kind, Some(ToolErrorKind::MissingContext));
    assert!(
        result
            .text_content()
            .contains(std::any::type_name::<Caller>()),
        "{}",
        result.text_content()
    );
}

#[tokio::test]
async fn progress_from_a_sync_tool_is_clamped_and_recorded() {
    let registry = Registry::builder().tool(StepsTool).build().unwrap();
    let (result, record) = registry
        .invoke_recorded(call("steps", json!({})), &ToolContext::new())
        .await;
    assert_eq!(result.text_content(), "done");
    assert_eq!(record.status, CallStatus::Completed);
    // -0.5 became 0.0, NaN was ignored, 1.7 became 1.0 and was the last.
    assert_eq!(record.progress, Some(1.0));
    assert_eq!(record.message.as_deref(), Some("above the range"));
    let steps: Vec<String> = record.trace_lines().collect();
    assert_eq!(steps, ["load: read 3 rows", "sum: added them up"]);
}

#[tokio::test]
async fn the_context_reports_like_the_progress_handle() {
    use futures_util::StreamExt;
    use tool_runtime::ToolEvent;

    let registry = Registry::builder().tool(CtxStepsTool).build().unwrap();
    let events: Vec<ToolEvent> = registry
        .stream(call("ctx_steps", json!({})), &ToolContext::new())
        .collect()
        .await;
    let kinds: Vec<Value> = events
        .iter()
        .map(|event| serde_json::to_value(event).unwrap()["type"].clone())
        .collect();
    assert_eq!(kinds, ["trace", "progress", "partial", "result"]);
    assert_eq!(
        events[2],
        ToolEvent::Partial {
            value: json!({"rows": 2})
        }
    );
}

#[tokio::test]
async fn a_new_injectable_type_is_one_trait_impl() {
    let registry = Registry::builder().tool(LocalizedTool).build().unwrap();
    assert!(LocalizedTool::SPEC.params.is_empty());

    let ctx = ToolContext::new().with_state("locale", json!("fr-FR"));
    let result = registry.invoke(call("localized", json!({})), &ctx).await;
    assert_eq!(result.text_content(), "hello in fr-FR (cancelled: false)");

    let ctx = ctx.with_app_state(Greeting("salut"));
    let result = registry.invoke(call("localized", json!({})), &ctx).await;
    assert_eq!(result.text_content(), "salut in fr-FR (cancelled: false)");

    // The impl's error ends the call before the function runs.
    let result = registry
        .invoke(call("localized", json!({})), &ToolContext::new())
        .await;
    assert_eq!(result.error_kind, Some(ToolErrorKind::MissingContext));
    assert_eq!(result.text_content(), "no locale in the state");
}

// ------------------------------------------- requests to the calling client

mod client_requests {
    use std::sync::Mutex;

    use super::*;
    use tool_runtime::{
        context::ClientFuture, context::ClientRequests, context::Elicitation,
        context::ElicitationRequest, context::SamplingRequest, context::SamplingResponse,
    };

    /// A client that answers every request from a script and keeps what it
    /// was asked.
    #[derive(Default)]
    struct ScriptedClient {
        sampled: Mutex<Vec<SamplingRequest>>,
        elicited: Mutex<Vec<ElicitationRequest>>,
        answers: Mutex<Vec<Elicitation<Value>>>,
    }

    impl ClientRequests for ScriptedClient {
        fn sample(&self, request: SamplingRequest) -> ClientFuture<'_, SamplingResponse> {
            let prompt = request.messages[0]
                .content
                .as_text()
                .unwrap_or_default()
                .to_owned();
            self.sampled.lock().unwrap().push(request);
            Box::pin(
                async move { Ok(SamplingResponse::new("scripted", format!("echo: {prompt}"))) },
            )
        }

        fn elicit(&self, request: ElicitationRequest) -> ClientFuture<'_, Elicitation<Value>> {
            self.elicited.lock().unwrap().push(request);
            let answer = self.answers.lock().unwrap().remove(0);
            Box::pin(async move { Ok(answer) })
        }
    }

    #[derive(serde::Deserialize, schemars::JsonSchema, Debug, PartialEq)]
    struct Contact {
        /// Your name
        name: String,
        /// How many copies
        copies: u32,
        /// A note, if any
        note: Option<String>,
    }

    /// Asks the model, then the user.
    #[tool]
    async fn ask_both(ctx: &ToolContext, prompt: String) -> Result<String, ToolError> {
        let answer = ctx
            .sample(
                SamplingRequest::new(prompt)
                    .max_tokens(50)
                    .system_prompt("Be brief"),
            )
            .await?;
        let contact = ctx.elicit::<Contact>("Who are you?").await?;
        Ok(format!(
            "{} / {}",
            answer.text().unwrap_or_default(),
            match contact {
                Elicitation::Accepted(contact) => format!("{} x{}", contact.name, contact.copies),
                other => other.action().to_owned(),
            }
        ))
    }

    fn call(prompt: &str) -> ToolUse {
        ToolUse::new("c", "ask_both", json!({"prompt": prompt}))
    }

    #[tokio::test]
    async fn a_tool_asks_the_client_in_its_context_and_reads_typed_answers() {
        let registry = Registry::builder().tool(AskBothTool).build().unwrap();
        let client = Arc::new(ScriptedClient::default());
        client.answers.lock().unwrap().extend([
            Elicitation::Accepted(json!({"name": "Ada", "copies": 2})),
            Elicitation::Declined,
            Elicitation::Accepted(json!({"name": "Ada", "copies": "two"})),
        ]);
        let ctx = ToolContext::new().with_client(client.clone());

        let result = registry.invoke(call("hi"), &ctx).await;
        assert_eq!(result.text_content(), "echo: hi / Ada x2");
        let result = registry.invoke(call("again"), &ctx).await;
        assert_eq!(result.text_content(), "echo: again / decline");
        // An answer that does not fit the type: an error result naming it.
        let result = registry.invoke(call("third"), &ctx).await;
        assert!(result.is_error());
        assert!(
            result
                .text_content()
                .starts_with("the user's answer does not match the requested schema"),
            "{}",
            result.text_content()
        );
        // It names the field and what came.
        assert!(
            result
                .text_content()
                .contains("copies: invalid type: string \"two\""),
            "{}",
            result.text_content()
        );

        let sampled = client.sampled.lock().unwrap();
        assert_eq!(sampled.len(), 3);
        assert_eq!(sampled[0].max_tokens, 50);
        assert_eq!(sampled[0].system_prompt.as_deref(), Some("Be brief"));
        // The requested schema is the type's, with the optional field's
        // plain type (MCP's requested schemas have no `null`).
        let elicited = client.elicited.lock().unwrap();
        assert_eq!(elicited[0].message, "Who are you?");
        let schema = &elicited[0].requested_schema;
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["properties"]["name"]["description"], "Your name");
        assert_eq!(schema["properties"]["note"]["type"], "string");
        assert_eq!(schema["required"], json!(["name", "copies"]));
        assert!(schema.get("$schema").is_none(), "{schema}");
    }

    #[tokio::test]
    async fn without_a_client_the_tool_gets_a_client_unavailable_error() {
        let registry = Registry::builder().tool(AskBothTool).build().unwrap();
        let result = registry.invoke(call("hi"), &ToolContext::new()).await;
        assert_eq!(result.error_kind, Some(ToolErrorKind::ClientUnavailable));
        assert!(
            result
                .text_content()
                .starts_with("sampling is not available"),
            "{}",
            result.text_content()
        );
    }
}

/// A tool's scopes against the caller on the call's context.
mod scopes {
    use std::sync::atomic::{AtomicU32, Ordering};

    use serde_json::json;
    use tool_runtime::context::Caller;
    use tool_runtime::dynamic::DynamicTool;
    use tool_runtime::{Registry, Tool, ToolContext, ToolUse, spec::ToolErrorKind, tool, toolset};

    /// Writes a file.
    #[tool(scopes("files:write", "files:read"))]
    fn write_file(path: String) -> String {
        format!("wrote {path}")
    }

    /// How many times `open_vault` ran: only the test of a refused call
    /// calls it.
    static OPENED: AtomicU32 = AtomicU32::new(0);

    /// Opens the vault.
    #[tool(scopes("vault:open"))]
    fn open_vault() -> &'static str {
        OPENED.fetch_add(1, Ordering::SeqCst);
        "open"
    }

    /// Reads a file.
    #[tool]
    fn read_file(path: String) -> String {
        format!("read {path}")
    }

    /// An archive, whose methods are tools.
    struct Archive;

    #[toolset]
    impl Archive {
        /// Deletes the archive, which needs the admin scope.
        #[tool(scopes("archive:admin"))]
        async fn purge_archive(&self, ctx: &ToolContext) -> String {
            tokio::task::yield_now().await;
            format!(
                "purged by {:?}",
                ctx.caller().and_then(|c| c.subject.clone())
            )
        }
    }

    fn registry() -> Registry {
        Registry::builder()
            .tool(WriteFileTool)
            .tool(ReadFileTool)
            .toolset(std::sync::Arc::new(Archive))
            .build()
            .unwrap()
    }

    fn as_caller(scopes: &[&str]) -> ToolContext {
        ToolContext::new().with_caller(Caller::new("ada").with_scopes(scopes.iter().copied()))
    }

    fn write(id: &str) -> ToolUse {
        ToolUse::new(id, "write_file", json!({"path": "a.txt"}))
    }

    #[test]
    fn the_attribute_puts_the_scopes_in_the_spec() {
        assert_eq!(*WriteFileTool::SPEC.scopes, ["files:write", "files:read"]);
        assert!(ReadFileTool::SPEC.scopes.is_empty());
        let registry = registry();
        let purge = registry.get("purge_archive").unwrap().spec();
        assert_eq!(*purge.scopes, ["archive:admin"]);
    }

    #[tokio::test]
    async fn a_caller_lacking_a_scope_gets_an_error_and_the_tool_does_not_run() {
        let registry = registry();
        let result = registry
            .invoke(write("1"), &as_caller(&["files:read"]))
            .await;
        assert_eq!(result.error_kind, Some(ToolErrorKind::InsufficientScope));
        assert_eq!(
            result.text_content(),
            "the call to write_file needs the scope \"files:write\", which the caller was not \
             granted, so it was not run"
        );
        let result = registry.invoke(write("2"), &as_caller(&[])).await;
        assert_eq!(
            result.text_content(),
            "the call to write_file needs the scopes \"files:write\" and \"files:read\", which \
             the caller was not granted, so it was not run"
        );
        let purge = ToolUse::new("3", "purge_archive", json!({}));
        let result = registry.invoke(purge, &as_caller(&["files:write"])).await;
        assert_eq!(result.error_kind, Some(ToolErrorKind::InsufficientScope));
        // Refused before it runs, on the path of a tool that reads no
        // context and on the direct path.
        let vault = Registry::builder().tool(OpenVaultTool).build().unwrap();
        let open = ToolUse::new("4", "open_vault", json!({}));
        let result = vault
            .invoke(open.clone(), &as_caller(&["vault:close"]))
            .await;
        assert_eq!(result.error_kind, Some(ToolErrorKind::InsufficientScope));
        let anyone = as_caller(&[]);
        let direct = vault.call_json("open_vault", json!({}), &anyone).await;
        assert_eq!(direct.unwrap_err().kind(), ToolErrorKind::InsufficientScope);
        assert_eq!(OPENED.load(Ordering::SeqCst), 0);
        let result = vault.invoke(open, &as_caller(&["vault:open"])).await;
        assert_eq!(result.text_content(), "open");
        assert_eq!(OPENED.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_caller_granted_every_scope_calls_the_tool() {
        let registry = registry();
        let ctx = as_caller(&["files:read", "files:write", "archive:admin"]);
        let result = registry.invoke(write("1"), &ctx).await;
        assert_eq!(result.text_content(), "wrote a.txt");
        let purge = ToolUse::new("2", "purge_archive", json!({}));
        let result = registry.invoke(purge, &ctx).await;
        assert_eq!(result.text_content(), "purged by Some(\"ada\")");
    }

    #[tokio::test]
    async fn an_anonymous_call_is_not_checked() {
        let registry = registry();
        let result = registry.invoke(write("1"), &ToolContext::new()).await;
        assert_eq!(result.text_content(), "wrote a.txt");
        assert_eq!(registry.specs_for(&ToolContext::new()).count(), 3);
    }

    #[tokio::test]
    async fn the_direct_path_checks_scopes_too() {
        let registry = registry();
        let input = json!({"path": "b.txt"});
        let error = registry
            .call_json("write_file", input.clone(), &as_caller(&["files:read"]))
            .await
            .unwrap_err();
        assert_eq!(error.kind(), ToolErrorKind::InsufficientScope);
        let ctx = as_caller(&["files:read", "files:write"]);
        let value = registry.call_json("write_file", input, &ctx).await.unwrap();
        assert_eq!(value, "wrote b.txt");
    }

    #[tokio::test]
    async fn a_caller_is_not_offered_nor_told_of_tools_it_may_not_call() {
        let registry = registry();
        let names = |ctx: &ToolContext| {
            registry
                .specs_for(ctx)
                .map(|spec| spec.name.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&as_caller(&[])), ["read_file"]);
        assert_eq!(
            names(&as_caller(&["files:write", "files:read"])),
            ["read_file", "write_file"]
        );
        // An unknown name's suggestions leave hidden tools out.
        let typo = ToolUse::new("1", "write_fil", json!({}));
        let result = registry.invoke(typo, &as_caller(&["files:read"])).await;
        assert_eq!(
            result.text_content(),
            "unknown tool \"write_fil\"; available tools: read_file"
        );
    }

    #[tokio::test]
    async fn a_builder_adds_scopes_to_a_tool_by_name() {
        let registry = Registry::builder()
            .tool(WriteFileTool)
            .tool(ReadFileTool)
            .require_scopes("read_file", ["files:read"])
            .require_scopes("write_file", ["files:read", "audit"])
            .build()
            .unwrap();
        let spec = |name| registry.get(name).unwrap().spec().scopes.to_vec();
        assert_eq!(spec("read_file"), ["files:read"]);
        assert_eq!(spec("write_file"), ["files:write", "files:read", "audit"]);
        let read = ToolUse::new("1", "read_file", json!({"path": "a"}));
        let result = registry.invoke(read.clone(), &as_caller(&[])).await;
        assert_eq!(result.error_kind, Some(ToolErrorKind::InsufficientScope));
        let result = registry.invoke(read, &as_caller(&["files:read"])).await;
        assert_eq!(result.text_content(), "read a");
    }

    #[tokio::test]
    async fn a_dynamic_tool_takes_scopes_and_checks_them() {
        let tool = DynamicTool::builder("shout", "Shouts.", json!({"type": "object"}))
            .scopes(["voice:loud"])
            .handler(|_, _| Ok("HEY"))
            .build()
            .unwrap();
        assert_eq!(*tool.spec().scopes, ["voice:loud"]);
        let registry = Registry::builder().tool(tool).build().unwrap();
        let shout = ToolUse::new("1", "shout", json!({}));
        let result = registry.invoke(shout.clone(), &as_caller(&[])).await;
        assert_eq!(result.error_kind, Some(ToolErrorKind::InsufficientScope));
        let result = registry.invoke(shout, &as_caller(&["voice:loud"])).await;
        assert_eq!(result.text_content(), "HEY");

        for (bad, problem) in [
            ("voice loud", "it holds ' '"),
            ("", "it is empty"),
            ("voice\"", "'\"' is not allowed in a scope"),
        ] {
            let error = DynamicTool::builder("shout", "Shouts.", json!({"type": "object"}))
                .scopes(["ok", bad])
                .handler(|_, _| Ok("HEY"))
                .build()
                .unwrap_err();
            let text = error.to_string();
            assert!(
                text.starts_with("tool shout: invalid scope") && text.contains(problem),
                "{text}"
            );
        }
    }

    #[tokio::test]
    async fn search_tools_finds_no_tool_the_caller_may_not_call() {
        let registry = Registry::builder()
            .tool(WriteFileTool)
            .tool(ReadFileTool)
            .tool_search(true)
            .build()
            .unwrap();
        let search = |ctx: ToolContext| {
            let registry = registry.clone();
            async move {
                let query = ToolUse::new("s", "search_tools", json!({"query": "file"}));
                let found = registry.invoke(query, &ctx).await;
                tool_runtime::search::found_names(&found)
            }
        };
        assert_eq!(search(as_caller(&["files:read"])).await, ["read_file"]);
        let mut all = search(as_caller(&["files:read", "files:write"])).await;
        all.sort();
        assert_eq!(all, ["read_file", "write_file"]);
        assert_eq!(search(ToolContext::new()).await.len(), 2);
    }
}
