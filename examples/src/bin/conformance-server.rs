//! The tools the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`) calls in its server scenarios,
//! written as ordinary `#[tool]` functions, served over MCP: those of the
//! 2025-11-25 requirements, and those of 2026-07-28 (the diagnostic tools
//! of `server-stateless` and the fixtures of `input-required-result-*`).
//! The same tool code serves both eras: a tool's requests to the client
//! go to a 2025 client as requests, and come back to a 2026-07-28 client
//! as an `input_required` result it answers by calling again.
//!
//! ```text
//! cargo run -p examples --bin conformance-server -- --http 127.0.0.1:3000
//! npx @modelcontextprotocol/conformance server --url http://127.0.0.1:3000/mcp
//! cargo run -p examples --bin conformance-server            # stdio
//! ```
//!
//! Beside the tools, it serves the resources, the resource template and
//! the prompts the resources, prompts and completion scenarios read, with
//! a tool that changes the prompts (`test_trigger_prompt_change`) and one
//! that changes a resource (`test_trigger_resource_update`), and a skill
//! (`skill://conformance-skill/SKILL.md`, the skills extension).
//!
//! `tests/mcp/conformance.sh` runs the suite against it.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tool_mcp::prompts::{ArgumentSpec, PromptMessage, PromptSpec, Prompts};
use tool_mcp::resources::skills::Skills;
use tool_mcp::resources::{Contents, ResourceSpec, Resources, UriTemplate};
use tool_mcp::server::McpServer;
use tool_runtime::{
    Content, Registry, ToolContext, ToolError, content::Audio, content::Image, content::Resource,
    content::ResourceLink, context::Elicitation, context::ElicitationRequest,
    context::SamplingRequest, dynamic::DynamicTool, events::LogLevel, registry::LiveRegistry, tool,
};
use tool_tasks::Tasks;

/// The registry served, for `test_trigger_tool_change` to change.
static SERVED: OnceLock<LiveRegistry> = OnceLock::new();

/// The prompts served, for `test_trigger_prompt_change` to change.
static PROMPTS: OnceLock<Prompts> = OnceLock::new();

/// The resources served, for `test_trigger_resource_update` to change.
static RESOURCES: OnceLock<Resources> = OnceLock::new();

/// How many times `test_trigger_resource_update` changed the watched
/// resource.
static WATCHED_VERSION: AtomicU64 = AtomicU64::new(0);

/// The resource clients subscribe to.
const WATCHED: &str = "test://watched-resource";

/// A 1x1 red pixel, as PNG.
const RED_PIXEL_PNG: [u8; 69] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0x00,
    0x00, 0x03, 0x01, 0x01, 0x00, 0xc9, 0xfe, 0x92, 0xef, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

/// A tenth of a second of silence: 8 kHz, 8-bit mono PCM, as WAV.
fn silence_wav() -> Vec<u8> {
    const RATE: u32 = 8000;
    let samples = vec![0x80u8; RATE as usize / 10];
    let mut wav = Vec::with_capacity(44 + samples.len());
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + samples.len() as u32).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes()); // size of the fmt chunk
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // mono
    wav.extend_from_slice(&RATE.to_le_bytes());
    wav.extend_from_slice(&RATE.to_le_bytes()); // bytes per second
    wav.extend_from_slice(&1u16.to_le_bytes()); // bytes per frame
    wav.extend_from_slice(&8u16.to_le_bytes()); // bits per sample
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&(samples.len() as u32).to_le_bytes());
    wav.extend_from_slice(&samples);
    wav
}

/// Returns a simple text response.
#[tool]
fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Returns a 1x1 red PNG image.
#[tool]
fn test_image_content() -> Image {
    Image::png(RED_PIXEL_PNG)
}

/// Returns a short WAV clip.
#[tool]
fn test_audio_content() -> Audio {
    Audio::wav(silence_wav())
}

/// Returns an embedded text resource.
#[tool]
fn test_embedded_resource() -> Resource {
    Resource::text(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    )
}

/// Returns a link to `test://static-text`, a resource this server serves,
/// for the client to read with `resources/read`.
#[tool]
fn test_resource_link() -> ResourceLink {
    ResourceLink::new("test://static-text", "static-text")
        .with_description("A static text resource")
        .with_mime_type("text/plain")
}

/// Returns text, an image and an embedded resource.
#[tool]
fn test_multiple_content_types() -> Vec<Content> {
    vec![
        Content::text("Multiple content types test:"),
        Image::png(RED_PIXEL_PNG).into(),
        Resource::text(
            "test://mixed-content-resource",
            "application/json",
            json!({"test": "data", "value": 123}).to_string(),
        )
        .into(),
    ]
}

/// Logs three messages at info level while it runs.
#[tool]
async fn test_tool_with_logging(ctx: &ToolContext) -> &'static str {
    ctx.log(LogLevel::Info, "Tool execution started");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool processing data");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool execution completed");
    "Logging test completed: sent 3 log messages"
}

/// Always fails.
#[tool]
fn test_error_handling() -> Result<String, ToolError> {
    Err(ToolError::new(
        "This tool intentionally returns an error for testing",
    ))
}

/// Reports progress at 0%, 50% and 100%.
#[tool]
async fn test_tool_with_progress(ctx: &ToolContext) -> &'static str {
    ctx.progress(0.0, "started");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.progress(0.5, "half way");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.progress(1.0, "done");
    "Progress test completed"
}

/// Asks the client's model to answer a prompt.
#[tool]
async fn test_sampling(
    ctx: &ToolContext,
    /// The prompt to send to the LLM
    prompt: String,
) -> Result<String, ToolError> {
    let answer = ctx
        .sample(SamplingRequest::new(prompt).max_tokens(100))
        .await?;
    Ok(format!(
        "LLM response: {}",
        answer.text().unwrap_or("(not text)")
    ))
}

/// Asks the user for a username and an email address.
#[tool]
async fn test_elicitation(
    ctx: &ToolContext,
    /// The message to show the user
    message: String,
) -> Result<String, ToolError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"},
        },
        "required": ["username", "email"],
    });
    let answer = ctx.elicit_with_schema(message, schema).await?;
    Ok(format!("User response: {}", describe(&answer)))
}

/// Asks the user for values of every primitive type, each with a default.
#[tool]
async fn test_elicitation_sep1034_defaults(ctx: &ToolContext) -> Result<String, ToolError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active",
            },
            "verified": {"type": "boolean", "description": "Verification status", "default": true},
        },
    });
    let answer = ctx
        .elicit_with_schema(
            "Please review and update the form fields with defaults",
            schema,
        )
        .await?;
    Ok(format!("Elicitation completed: {}", describe(&answer)))
}

/// Asks the user to choose, with each kind of enumeration MCP has.
#[tool]
async fn test_elicitation_sep1330_enums(ctx: &ToolContext) -> Result<String, ToolError> {
    let titled = |titles: [&str; 3], values: [&str; 3]| -> Vec<Value> {
        values
            .iter()
            .zip(titles)
            .map(|(value, title)| json!({"const": value, "title": title}))
            .collect()
    };
    let schema = json!({
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "description": "Pick one option",
                "enum": ["option1", "option2", "option3"],
            },
            "titledSingle": {
                "type": "string",
                "description": "Pick one titled option",
                "oneOf": titled(["First Option", "Second Option", "Third Option"], ["value1", "value2", "value3"]),
            },
            "legacyEnum": {
                "type": "string",
                "description": "Pick one (legacy titles)",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"],
            },
            "untitledMulti": {
                "type": "array",
                "description": "Pick any options",
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
            },
            "titledMulti": {
                "type": "array",
                "description": "Pick any titled options",
                "items": {"anyOf": titled(["First Choice", "Second Choice", "Third Choice"], ["value1", "value2", "value3"])},
            },
        },
    });
    let answer = ctx
        .elicit_with_schema("Please choose from the enumerations", schema)
        .await?;
    Ok(format!("Elicitation completed: {}", describe(&answer)))
}

/// Answers after a moment; the suite's SSE polling scenario calls it.
#[tool]
async fn test_reconnection() -> &'static str {
    tokio::time::sleep(Duration::from_millis(100)).await;
    "Reconnection test completed successfully"
}

/// Needs the client's model: a client that did not declare `sampling`
/// gets a missing-capability error (`-32021` in the 2026-07-28 revision).
#[tool]
async fn test_missing_capability(ctx: &ToolContext) -> Result<String, ToolError> {
    let answer = ctx.sample("Say hello.").await?;
    Ok(format!(
        "LLM response: {}",
        answer.text().unwrap_or("(not text)")
    ))
}

/// Asks the user a question mid-call: in the 2026-07-28 revision the
/// question comes back as an `input_required` result, never as a request
/// of the server's.
#[tool]
async fn test_streaming_elicitation(ctx: &ToolContext) -> Result<String, ToolError> {
    let answer = ctx
        .elicit_request(
            ElicitationRequest::new("Continue?", confirm_schema("continue")).named("continue"),
        )
        .await?;
    Ok(format!("Elicitation completed: {}", describe(&answer)))
}

/// Logs while it runs: the client sees the messages only when it asked
/// for a log level.
#[tool]
async fn test_logging_tool(ctx: &ToolContext) -> &'static str {
    ctx.log(LogLevel::Info, "Logging tool started");
    tokio::time::sleep(Duration::from_millis(20)).await;
    ctx.log(LogLevel::Warning, "Logging tool halfway");
    "Logging tool completed"
}

/// Adds a tool to the server's list, or takes it away again: a change the
/// listening clients hear of.
#[tool]
fn test_trigger_tool_change() -> Result<String, ToolError> {
    let live = SERVED
        .get()
        .ok_or_else(|| ToolError::new("the server has no live registry"))?;
    if live.remove(TOGGLED) {
        return Ok(format!("removed {TOGGLED}"));
    }
    let tool = DynamicTool::builder(
        TOGGLED,
        "Appears and disappears.",
        json!({"type": "object"}),
    )
    .handler(|_, _| Ok::<_, ToolError>("here"))
    .build()
    .map_err(|error| ToolError::new(error.to_string()))?;
    live.insert(tool)
        .map_err(|error| ToolError::new(error.to_string()))?;
    Ok(format!("added {TOGGLED}"))
}

/// Says the region it runs in. `region` is a header parameter (MCP's
/// `x-mcp-header`): a client over streamable HTTP also sends it as the
/// header `Mcp-Param-Region`, which must agree with the argument
/// (scenario `http-custom-header-server-validation`).
#[tool]
fn test_custom_headers(
    /// The region to run in
    #[tool(header = "Region")]
    region: String,
) -> String {
    format!("region: {region}")
}

/// The tool `test_trigger_tool_change` adds and removes.
const TOGGLED: &str = "test_toggled_tool";

/// Adds a prompt to the server's list, or takes it away again: a change the
/// listening clients hear of.
#[tool]
fn test_trigger_prompt_change() -> Result<String, ToolError> {
    let prompts = PROMPTS
        .get()
        .ok_or_else(|| ToolError::new("the server has no prompts"))?;
    if prompts.remove(TOGGLED_PROMPT) {
        return Ok(format!("removed {TOGGLED_PROMPT}"));
    }
    // The prompt, made once, from a collection of its own.
    static TOGGLED: OnceLock<Prompts> = OnceLock::new();
    let toggled = TOGGLED.get_or_init(|| {
        Prompts::builder()
            .prompt_fn(
                PromptSpec::new(TOGGLED_PROMPT).with_description("Appears and disappears."),
                |_, _| async { Ok("here") },
            )
            .build()
            .expect("one prompt")
    });
    let prompt = toggled.get(TOGGLED_PROMPT).expect("the prompt is there");
    prompts
        .insert(prompt)
        .map_err(|error| ToolError::new(error.to_string()))?;
    Ok(format!("added {TOGGLED_PROMPT}"))
}

/// The prompt `test_trigger_prompt_change` adds and removes.
const TOGGLED_PROMPT: &str = "test_toggled_prompt";

/// Changes the text of `test://watched-resource` and tells the clients
/// subscribed to it.
#[tool]
fn test_trigger_resource_update() -> Result<String, ToolError> {
    let resources = RESOURCES
        .get()
        .ok_or_else(|| ToolError::new("the server has no resources"))?;
    let version = WATCHED_VERSION.fetch_add(1, Ordering::Relaxed) + 1;
    resources.updated(WATCHED);
    Ok(format!("{WATCHED} is at version {version}"))
}

/// The resources the resources scenarios read.
fn resources() -> Resources {
    let template = UriTemplate::parse("test://template/{id}/data").expect("a valid template");
    Resources::builder()
        .text(
            ResourceSpec::fixed("test://static-text", "static-text")
                .with_description("A static text resource")
                .with_mime_type("text/plain"),
            "This is the content of the static text resource.",
        )
        .blob(
            ResourceSpec::fixed("test://static-binary", "static-binary")
                .with_description("A static binary resource: a 1x1 red PNG")
                .with_mime_type("image/png"),
            RED_PIXEL_PNG,
        )
        .template(
            ResourceSpec::template(template, "template-data")
                .with_description("Data for an id")
                .with_mime_type("application/json"),
            |request| async move {
                let id = request.params.get("id").unwrap_or_default();
                let data =
                    json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
                Ok(vec![Contents::text(
                    request.uri,
                    "application/json",
                    data.to_string(),
                )])
            },
        )
        .template(
            ResourceSpec::fixed(WATCHED, "watched-resource")
                .with_description("A resource test_trigger_resource_update changes")
                .with_mime_type("text/plain"),
            |request| async move {
                let version = WATCHED_VERSION.load(Ordering::Relaxed);
                let text = format!("Watched resource, version {version}.");
                Ok(vec![Contents::text(request.uri, "text/plain", text)])
            },
        )
        .skills(conformance_skill())
        .build()
        .expect("the conformance resources are set up")
}

/// The skill the skills extension's scenarios list, get and read: a
/// `SKILL.md` and a file in a subfolder (for `resources/directory/read`).
fn conformance_skill() -> Skills {
    Skills::builder()
        .skill(
            "conformance-skill",
            [
                (
                    "SKILL.md",
                    "---\nname: conformance-skill\ndescription: A skill the conformance suite \
                     reads.\n---\n# Conformance skill\n\nRead references/guide.md for the \
                     details.\n",
                ),
                (
                    "references/guide.md",
                    "# Guide\n\nThe details of the conformance skill.\n",
                ),
            ],
        )
        .build()
        .expect("the conformance skill is well formed")
}

/// The prompts the prompts and completion scenarios get.
fn prompts() -> Prompts {
    let with_arguments = PromptSpec::new("test_prompt_with_arguments")
        .with_description("A prompt with two required arguments")
        .with_argument(
            ArgumentSpec::required("arg1")
                .with_description("First test argument")
                .with_completions(["paris", "park", "party"]),
        )
        .with_argument(ArgumentSpec::required("arg2").with_description("Second test argument"));
    let embedded = PromptSpec::new("test_prompt_with_embedded_resource")
        .with_description("A prompt that embeds a resource")
        .with_argument(
            ArgumentSpec::required("resourceUri").with_description("The URI of the resource"),
        );
    Prompts::builder()
        .prompt_fn(
            PromptSpec::new("test_simple_prompt").with_description("A prompt without arguments"),
            |_, _| async { Ok("This is a simple prompt for testing.") },
        )
        .prompt_fn(with_arguments, |arguments, _| async move {
            let (arg1, arg2) = (arguments.require("arg1")?, arguments.require("arg2")?);
            Ok(format!(
                "Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"
            ))
        })
        .prompt_fn(embedded, |arguments, _| async move {
            let uri = arguments.require("resourceUri")?;
            let resource =
                Resource::text(uri, "text/plain", "Embedded resource content for testing.");
            Ok(vec![
                PromptMessage::user(resource),
                PromptMessage::user("Please process the embedded resource above."),
            ])
        })
        .prompt_fn(
            PromptSpec::new("test_input_required_result_prompt")
                .with_description("A prompt that asks the user for its context first"),
            |_, ctx| async move {
                let request = ElicitationRequest::new(
                    "What context should the prompt use?",
                    one_field("context", "string"),
                )
                .named("user_context");
                let answer = ctx.elicit_request(request).await?;
                let context = field(&answer, "context");
                Ok(format!("Prompt with context: {context}"))
            },
        )
        .prompt_fn(
            PromptSpec::new("test_prompt_with_image").with_description("A prompt with an image"),
            |_, _| async {
                Ok(vec![
                    PromptMessage::user(Image::png(RED_PIXEL_PNG)),
                    PromptMessage::user("Please analyze the image above."),
                ])
            },
        )
        .build()
        .expect("the conformance prompts are set up")
}

/// An object schema of one required field `name` of type `kind`.
fn one_field(name: &str, kind: &str) -> Value {
    json!({
        "type": "object",
        "properties": {name: {"type": kind}},
        "required": [name],
    })
}

/// An object schema of one required boolean `name`.
fn confirm_schema(name: &str) -> Value {
    one_field(name, "boolean")
}

/// The accepted answer's field `field`, as text.
fn field(answer: &Elicitation<Value>, field: &str) -> String {
    match answer {
        Elicitation::Accepted(content) => match &content[field] {
            Value::String(text) => text.clone(),
            Value::Null => "(none)".to_owned(),
            other => other.to_string(),
        },
        other => format!("({})", other.action()),
    }
}

/// Asks the user's name (request `user_name`) and greets them.
#[tool]
async fn test_input_required_result_elicitation(ctx: &ToolContext) -> Result<String, ToolError> {
    let request = ElicitationRequest::new("What is your name?", one_field("name", "string"))
        .named("user_name");
    let answer = ctx.elicit_request(request).await?;
    Ok(format!("Hello, {}!", field(&answer, "name")))
}

/// Asks the client's model the capital of France (request
/// `capital_question`).
#[tool]
async fn test_input_required_result_sampling(ctx: &ToolContext) -> Result<String, ToolError> {
    let request = SamplingRequest::new("What is the capital of France?")
        .max_tokens(100)
        .named("capital_question");
    let answer = ctx.sample(request).await?;
    Ok(format!(
        "The model says: {}",
        answer.text().unwrap_or("(not text)")
    ))
}

/// Asks the client for its roots and names them.
#[tool]
async fn test_input_required_result_list_roots(ctx: &ToolContext) -> Result<String, ToolError> {
    let roots = ctx.roots().await?;
    let uris: Vec<&str> = roots.iter().map(|root| root.uri.as_str()).collect();
    Ok(format!("Client roots: {}", uris.join(", ")))
}

/// Asks for a confirmation (request `confirm`); the state that carries the
/// round is checked by the server, hence "state-ok".
#[tool]
async fn test_input_required_result_request_state(ctx: &ToolContext) -> Result<String, ToolError> {
    let request = ElicitationRequest::new("Please confirm", confirm_schema("ok")).named("confirm");
    let answer = ctx.elicit_request(request).await?;
    Ok(format!("state-ok: confirmed={}", field(&answer, "ok")))
}

/// Asks for the user's name, a greeting from the model and the client's
/// roots, all at once.
#[tool]
async fn test_input_required_result_multiple_inputs(
    ctx: &ToolContext,
) -> Result<String, ToolError> {
    let name = ElicitationRequest::new("What is your name?", one_field("name", "string"))
        .named("user_name");
    let greeting = SamplingRequest::new("Generate a greeting")
        .max_tokens(50)
        .named("greeting");
    let (name, greeting, roots) =
        tokio::join!(ctx.elicit_request(name), ctx.sample(greeting), ctx.roots());
    Ok(format!(
        "{} {} ({} roots)",
        greeting?.text().unwrap_or("Hello"),
        field(&name?, "name"),
        roots?.len()
    ))
}

/// Asks two questions, one round each: the name (`step1`), then the
/// favourite colour (`step2`).
#[tool]
async fn test_input_required_result_multi_round(ctx: &ToolContext) -> Result<String, ToolError> {
    let name = ElicitationRequest::new("Step 1: What is your name?", one_field("name", "string"))
        .named("step1");
    let name = ctx.elicit_request(name).await?;
    let color = ElicitationRequest::new(
        "Step 2: What is your favorite color?",
        one_field("color", "string"),
    )
    .named("step2");
    let color = ctx.elicit_request(color).await?;
    Ok(format!(
        "{} likes {}",
        field(&name, "name"),
        field(&color, "color")
    ))
}

/// Asks for a confirmation, with a signed state the client must not
/// change.
#[tool]
async fn test_input_required_result_tampered_state(ctx: &ToolContext) -> Result<String, ToolError> {
    let request = ElicitationRequest::new("Please confirm", confirm_schema("ok")).named("confirm");
    let answer = ctx.elicit_request(request).await?;
    Ok(format!("confirmed={}", field(&answer, "ok")))
}

/// Asks the user and the model at once: only what the client declared it
/// can answer is asked (a request needing an undeclared capability fails
/// at once, and the other goes out).
#[tool]
async fn test_input_required_result_capabilities(ctx: &ToolContext) -> Result<String, ToolError> {
    let name = ElicitationRequest::new("What is your name?", one_field("name", "string"))
        .named("user_name");
    let question = SamplingRequest::new("What is the capital of France?")
        .max_tokens(100)
        .named("capital_question");
    let (name, answer) = tokio::join!(ctx.elicit_request(name), ctx.sample(question));
    let name = name.map(|name| field(&name, "name"));
    let answer = answer.map(|answer| answer.text().unwrap_or_default().to_owned());
    match (name, answer) {
        (Err(error), Err(_)) => Err(error),
        (name, answer) => Ok(format!(
            "name: {}, answer: {}",
            name.unwrap_or_else(|_| "(not asked)".to_owned()),
            answer.unwrap_or_else(|_| "(not asked)".to_owned())
        )),
    }
}

/// `action=..., content=...` for an elicitation's answer.
fn describe(answer: &Elicitation<Value>) -> String {
    match answer {
        Elicitation::Accepted(content) => format!("action=accept, content={content}"),
        other => format!("action={}, content={{}}", other.action()),
    }
}

/// A tool whose input schema uses JSON Schema 2020-12 keywords (`$schema`,
/// `$defs`, `$ref`, `additionalProperties`), given as JSON.
fn json_schema_tool() -> DynamicTool {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {
                    "street": {"type": "string"},
                    "city": {"type": "string"},
                },
            },
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"},
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false,
    });
    DynamicTool::builder(
        "json_schema_2020_12_tool",
        "Tool with JSON Schema 2020-12 features",
        schema,
    )
    .handler(|input, _ctx| Ok::<_, ToolError>(json!({"received": input})))
    .build()
    .expect("the schema is valid")
}

/// Greets `name`, in the request.
#[tool]
fn greet(
    /// Whom to greet
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Sleeps `seconds` seconds, then says so: a call that may run as a task
/// (and ends cancelled when its task is).
#[tool(task)]
async fn slow_compute(
    /// How long to work
    seconds: f64,
    /// A label to give back
    #[tool(default)]
    label: String,
) -> String {
    tokio::time::sleep(Duration::from_secs_f64(seconds.clamp(0.0, 3600.0))).await;
    format!("computed {label} in {seconds} s")
}

/// Works for a second, then fails with an error result: runs only as a
/// task.
#[tool(task = "required")]
async fn failing_job() -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(ToolError::new("the job failed, as it always does"))
}

/// Panics, which leaves its task failed: no result of its own.
#[tool(task)]
async fn protocol_error_job() -> String {
    tokio::time::sleep(Duration::from_millis(100)).await;
    panic!("the job broke")
}

/// Asks the user to confirm (request `confirm`), then deletes `filename`
/// (in words only): in a task, the question waits in the task.
#[tool(task)]
async fn confirm_delete(
    /// The file to delete
    filename: String,
    ctx: &ToolContext,
) -> Result<String, ToolError> {
    let request = ElicitationRequest::new(format!("Delete {filename}?"), confirm_schema("confirm"))
        .named("confirm");
    let answer = ctx.elicit_request(request).await?;
    Ok(format!(
        "{filename}: confirmed={}",
        field(&answer, "confirm")
    ))
}

/// Asks two questions at once (requests `name` and `confirm`), so both
/// wait in the task together.
#[tool(task)]
async fn multi_input(ctx: &ToolContext) -> Result<String, ToolError> {
    let name =
        ElicitationRequest::new("What is your name?", one_field("name", "string")).named("name");
    let confirm = ElicitationRequest::new("Go ahead?", confirm_schema("confirm")).named("confirm");
    let (name, confirm) = tokio::join!(ctx.elicit_request(name), ctx.elicit_request(confirm));
    Ok(format!(
        "name={}, confirmed={}",
        field(&name?, "name"),
        field(&confirm?, "confirm")
    ))
}

/// Asks for the user's name (request `user_name`) in `input_required`
/// rounds, then becomes a task that greets them.
#[tool(task = "after_input")]
async fn test_tool_with_task(ctx: &ToolContext) -> Result<String, ToolError> {
    let request = ElicitationRequest::new("What is your name?", one_field("name", "string"))
        .named("user_name");
    let answer = ctx.elicit_request(request).await?;
    Ok(format!("Hello, {}!", field(&answer, "name")))
}

fn registry() -> Registry {
    Registry::builder()
        .tool(TestSimpleTextTool)
        .tool(TestImageContentTool)
        .tool(TestAudioContentTool)
        .tool(TestEmbeddedResourceTool)
        .tool(TestMultipleContentTypesTool)
        .tool(TestResourceLinkTool)
        .tool(TestToolWithLoggingTool)
        .tool(TestErrorHandlingTool)
        .tool(TestToolWithProgressTool)
        .tool(TestSamplingTool)
        .tool(TestElicitationTool)
        .tool(TestElicitationSep1034DefaultsTool)
        .tool(TestElicitationSep1330EnumsTool)
        .tool(TestReconnectionTool)
        .tool(TestMissingCapabilityTool)
        .tool(TestStreamingElicitationTool)
        .tool(TestLoggingToolTool)
        .tool(TestTriggerToolChangeTool)
        .tool(TestTriggerPromptChangeTool)
        .tool(TestTriggerResourceUpdateTool)
        .tool(TestCustomHeadersTool)
        .tool(TestInputRequiredResultElicitationTool)
        .tool(TestInputRequiredResultSamplingTool)
        .tool(TestInputRequiredResultListRootsTool)
        .tool(TestInputRequiredResultRequestStateTool)
        .tool(TestInputRequiredResultMultipleInputsTool)
        .tool(TestInputRequiredResultMultiRoundTool)
        .tool(TestInputRequiredResultTamperedStateTool)
        .tool(TestInputRequiredResultCapabilitiesTool)
        .tool(json_schema_tool())
        .tool(GreetTool)
        .tool(SlowComputeTool)
        .tool(FailingJobTool)
        .tool(ProtocolErrorJobTool)
        .tool(ConfirmDeleteTool)
        .tool(MultiInputTool)
        .tool(TestToolWithTaskTool)
        .build()
        .expect("the conformance tools are set up")
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let live = SERVED.get_or_init(|| LiveRegistry::new(registry()));
    let resources = RESOURCES.get_or_init(resources);
    let prompts = PROMPTS.get_or_init(prompts);
    let server = McpServer::new(live.clone())
        .with_implementation("tool-mcp-conformance-server", env!("CARGO_PKG_VERSION"))
        .with_tasks(Tasks::in_memory())
        .with_resources(resources.clone())
        .with_prompts(prompts.clone())
        .with_unsolicited_answers(true);
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] => server.serve_stdio().await,
        ["--http", address] => {
            let listener = tokio::net::TcpListener::bind(address).await?;
            eprintln!("conformance-server: http://{}/mcp", listener.local_addr()?);
            server
                .serve_http(listener, tool_runtime::context::CancellationToken::new())
                .await
        }
        _ => {
            eprintln!("usage: conformance-server [--http ADDRESS]");
            std::process::exit(2);
        }
    }
}
