//! A ready command line for any program that links tools: list them, print
//! their definitions for a provider, call one, show its configuration, and
//! serve them over MCP.
//!
//! Enabled by the `cli` feature (`serve` needs `mcp` too, and `serve --http`
//! needs `mcp-http`). A whole program:
//!
//! ```no_run
//! // Link the crates whose tools to offer.
//! // use my_tools as _;
//!
//! fn main() -> std::process::ExitCode {
//!     tool_runtime::cli::run()
//! }
//! ```
//!
//! ```text
//! toolbox list [--json]
//! toolbox schema [NAME] [--format openai|openai-strict|responses|anthropic|bedrock|gemini|mcp|xml]
//! toolbox call NAME [--args JSON | --args - | --args-file PATH] [--state JSON]
//! toolbox config NAME [--json]
//! toolbox serve [--http 127.0.0.1:PORT]
//! toolbox --registry tools.yaml COMMAND ...
//! ```
//!
//! Exit codes: `0` success; `1` the tool ran and returned an error result
//! (or `serve` stopped on an error); `2` a usage or argument error (an unknown subcommand or tool, arguments
//! that are not a JSON object or that the tool rejects, a bad registry
//! file). Results and listings go to stdout, messages, progress and trace
//! lines to stderr. The guide is `docs/cli.md`.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::io::{self, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use futures_util::StreamExt;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::{Map, Value, json};

use crate::context::ToolContext;
use crate::error::ToolErrorKind;
use crate::events::ToolEvent;
use crate::manifest::Manifest;
use crate::providers::Provider;
use crate::registry::{Registry, RegistryProblem};
use crate::result::{ToolResult, ToolUse};
use crate::spec::ToolSpec;

/// The exit code of a tool that ran and returned an error result.
pub const EXIT_TOOL_ERROR: u8 = 1;
/// The exit code of a usage or argument error.
pub const EXIT_USAGE: u8 = 2;

/// Runs the command line over every tool linked into this program
/// ([`Registry::global`]) with this process's arguments, on a Tokio runtime
/// of its own, and returns the exit code.
///
/// Call it from a plain `fn main() -> ExitCode`, not from inside a Tokio
/// runtime (use [`run_async`] there).
pub fn run() -> ExitCode {
    match Registry::try_global() {
        Ok(registry) => {
            let excluded = Registry::global_report().excluded;
            block_on(run_inner(registry.clone(), excluded, std::env::args_os()))
        }
        Err(error) => {
            eprintln!("error: the linked tools do not form a registry: {error}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// Runs the command line over `registry` with this process's arguments, on a
/// Tokio runtime of its own, and returns the exit code. `--registry FILE`
/// still replaces `registry` with the file's tools.
pub fn run_with(registry: Registry) -> ExitCode {
    block_on(run_async(registry, std::env::args_os()))
}

/// Runs `future` on a new multi-threaded Tokio runtime.
fn block_on(future: impl std::future::Future<Output = ExitCode>) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the Tokio runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(future)
}

/// Runs the command line over `registry` with the arguments `args` (the
/// first is the program's name, as in [`std::env::args_os`]) inside the
/// caller's Tokio runtime, and returns the exit code.
pub async fn run_async<I, T>(registry: Registry, args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    run_inner(registry, Vec::new(), args).await
}

/// The command line over `registry`; `excluded` says which linked tools
/// the global registry left out, and why.
async fn run_inner<I, T>(registry: Registry, excluded: Vec<RegistryProblem>, args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let program = args
        .first()
        .map(Path::new)
        .and_then(Path::file_stem)
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_else(|| "tools".to_owned());
    let command = Cli::command()
        .name(program.clone())
        .bin_name(program.clone());
    let cli = match command
        .try_get_matches_from(args)
        .and_then(|matches| Cli::from_arg_matches(&matches))
    {
        Ok(cli) => cli,
        Err(error) => {
            // Help and version are not errors; clap knows which is which.
            let _ = error.print();
            return ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(EXIT_USAGE));
        }
    };
    let tools = match &cli.registry {
        Some(path) => match Manifest::from_path(path).and_then(|file| file.build()) {
            Ok(registry) => Tools {
                registry,
                excluded: Vec::new(),
            },
            Err(error) => return usage_error(format!("bad registry file: {error}")),
        },
        None => Tools { registry, excluded },
    };
    match cli.command {
        Command::List { json } => list(&tools, json),
        Command::Schema { name, format } => schema(&tools, name.as_deref(), format),
        Command::Call(call_args) => call(&tools, call_args).await,
        Command::Config { name, json } => config(&tools, &name, json),
        #[cfg(feature = "mcp")]
        Command::Serve(serve_args) => {
            tools.note_excluded();
            serve(tools.registry, &program, serve_args).await
        }
    }
}

/// The registry the command line works on, and the linked tools it left
/// out (with the reason).
struct Tools {
    registry: Registry,
    excluded: Vec<RegistryProblem>,
}

impl Tools {
    /// Says on stderr which linked tools are left out, and why.
    fn note_excluded(&self) {
        for problem in &self.excluded {
            eprintln!("note: a linked tool is left out: {problem}");
        }
    }

    /// Why the linked tool `name` was left out of the registry, if it was.
    fn left_out(&self, name: &str) -> Option<&RegistryProblem> {
        self.excluded.iter().find(|problem| {
            matches!(problem, RegistryProblem::InvalidConfig { tool, .. } if tool == name)
        })
    }

    /// The spec of the linked tool `name` that was left out of the registry,
    /// and why it was.
    fn left_out_spec(&self, name: &str) -> Option<(ToolSpec, &RegistryProblem)> {
        let problem = self.left_out(name)?;
        let found = std::cell::Cell::new(None);
        // The filter sees every linked tool's spec; nothing is added.
        let _ = Registry::builder().global_filtered(|spec| {
            if spec.name == name {
                found.set(Some(*spec));
            }
            false
        });
        found.get().map(|spec| (spec, problem))
    }

    /// The tool named (or aliased) `name`, or the exit code of the message
    /// saying there is none.
    fn find(&self, name: &str) -> Result<&ToolSpec, ExitCode> {
        let registry = &self.registry;
        if let Some(tool) = registry.resolve(name) {
            return Ok(tool.spec());
        }
        if let Some(problem) = self.left_out(name) {
            return Err(usage_error(format!(
                "tool \"{name}\" is linked but left out of the registry: {problem}; \
                 `config {name}` shows what it needs"
            )));
        }
        let mut message = format!("unknown tool \"{name}\"");
        if let Some(close) = crate::names::closest(name, registry.names()) {
            let _ = write!(message, "; did you mean \"{close}\"?");
        }
        if registry.is_empty() {
            message.push_str("; no tools are available");
        } else {
            let names: Vec<&str> = registry.names().collect();
            let _ = write!(message, "; the tools are: {}", names.join(", "));
        }
        Err(usage_error(message))
    }
}

/// Lists, describes, calls and serves the tools linked into this program.
#[derive(Debug, Parser)]
#[command(
    about = "Lists, describes, calls and serves the tools linked into this program.",
    after_help = "Exit codes: 0 success, 1 the tool returned an error result, 2 a usage or argument error."
)]
struct Cli {
    /// Build the registry from this registry file (YAML or JSON) instead of
    /// offering every linked tool.
    #[arg(long, global = true, value_name = "FILE")]
    registry: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the tools: name, description, parameters.
    List {
        /// Print JSON for programs instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Print tool definitions in a provider's format (every tool without NAME).
    Schema {
        /// The tool (all tools when absent).
        name: Option<String>,
        /// The format: openai, openai-strict, responses, anthropic, bedrock,
        /// gemini, mcp or xml.
        #[arg(long, short, value_name = "FORMAT", default_value = "mcp", value_parser = parse_provider)]
        format: Provider,
    },
    /// Call a tool and print its result as JSON.
    Call(CallArgs),
    /// Show a tool's configuration: schema, defaults, environment variables.
    Config {
        /// The tool.
        name: String,
        /// Print JSON for programs instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Serve the tools over the Model Context Protocol (stdio by default).
    #[cfg(feature = "mcp")]
    Serve(ServeArgs),
}

#[derive(Debug, clap::Args)]
struct CallArgs {
    /// The tool.
    name: String,
    /// The arguments: a JSON object, or `-` to read it from stdin.
    #[arg(long, value_name = "JSON", conflicts_with = "args_file")]
    args: Option<String>,
    /// Read the arguments (a JSON object) from this file.
    #[arg(long, value_name = "PATH")]
    args_file: Option<PathBuf>,
    /// Invocation state for the call, a JSON object (what an agent would
    /// pass along: a user id, preferences).
    #[arg(long, value_name = "JSON")]
    state: Option<String>,
    /// No progress bar or trace lines on stderr.
    #[arg(long, short)]
    quiet: bool,
}

#[cfg(feature = "mcp")]
#[derive(Debug, clap::Args)]
struct ServeArgs {
    /// Serve streamable HTTP on this loopback address (say
    /// 127.0.0.1:8080; port 0 picks a free one) at /mcp, instead of stdio.
    #[cfg(feature = "mcp-http")]
    #[arg(long, value_name = "ADDR")]
    http: Option<std::net::SocketAddr>,
}

fn parse_provider(name: &str) -> Result<Provider, String> {
    name.parse::<Provider>().map_err(|error| error.to_string())
}

fn usage_error(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(EXIT_USAGE)
}

/// Writes `text` and a newline to stdout. A closed pipe (`| head`) is not
/// an error worth reporting.
fn print_out(text: &str) -> ExitCode {
    let mut stdout = io::stdout().lock();
    match writeln!(stdout, "{text}").and_then(|()| stdout.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: cannot write to stdout: {error}");
            ExitCode::FAILURE
        }
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

/// The first paragraph of a description, as one line.
fn summary(description: &str) -> String {
    description
        .lines()
        .map(str::trim)
        .skip_while(|line| line.is_empty())
        .take_while(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The parameters of a tool, optional ones marked with `?`.
fn parameter_list(spec: &ToolSpec) -> String {
    let names: Vec<String> = spec
        .params
        .iter()
        .map(|param| {
            if param.required {
                param.name.to_owned()
            } else {
                format!("{}?", param.name)
            }
        })
        .collect();
    if names.is_empty() {
        "-".to_owned()
    } else {
        names.join(", ")
    }
}

/// A schema's type for a table: its `type`, or what it is made of.
fn type_label(schema: &Value) -> String {
    match schema.get("type") {
        Some(Value::String(kind)) => kind.clone(),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("|"),
        _ if schema.get("enum").is_some() => "enum".into(),
        _ if schema.get("$ref").is_some() => "object".into(),
        _ if schema.get("anyOf").is_some() || schema.get("oneOf").is_some() => "union".into(),
        _ => "any".into(),
    }
}

/// Rows as a table with aligned columns (the last column is not padded).
fn table(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            rows.iter()
                .filter_map(|row| row.get(i))
                .map(|cell| cell.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                let _ = write!(line, "{cell:<width$}  ", width = widths[i]);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.pop();
    out
}

/// Cuts `text` to `max` characters, marking the cut.
fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max.saturating_sub(1)) {
        Some((cut, _)) if text.chars().count() > max => format!("{}…", &text[..cut]),
        _ => text.to_owned(),
    }
}

fn list(tools: &Tools, json: bool) -> ExitCode {
    let registry = &tools.registry;
    tools.note_excluded();
    let aliases = registry.aliases();
    if json {
        let tools: Vec<Value> = registry
            .specs()
            .map(|spec| {
                let schema = spec.input_schema();
                let parameters: Vec<Value> = spec
                    .params
                    .iter()
                    .map(|param| {
                        let property = &schema["properties"][param.name];
                        let mut entry = Map::new();
                        entry.insert("name".into(), param.name.into());
                        entry.insert("type".into(), type_label(property).into());
                        entry.insert("required".into(), param.required.into());
                        entry.insert("description".into(), param.description.into());
                        if let Some(default) = property.get("default") {
                            entry.insert("default".into(), default.clone());
                        }
                        Value::Object(entry)
                    })
                    .collect();
                let tool_aliases: Vec<&str> = aliases
                    .iter()
                    .filter(|(_, name)| *name == spec.name)
                    .map(|(alias, _)| *alias)
                    .collect();
                let mcp = crate::providers::mcp::tool(spec);
                json!({
                    "name": spec.name,
                    "title": spec.title,
                    "description": spec.description,
                    "parameters": parameters,
                    "aliases": tool_aliases,
                    "annotations": mcp.get("annotations").cloned().unwrap_or_else(|| json!({})),
                    "configurable": spec.config.is_some(),
                    "streaming": spec.streaming,
                })
            })
            .collect();
        return print_out(&pretty(&Value::Array(tools)));
    }
    if registry.is_empty() {
        return print_out("no tools");
    }
    let mut rows = vec![vec![
        "NAME".to_owned(),
        "DESCRIPTION".to_owned(),
        "PARAMETERS".to_owned(),
    ]];
    rows.extend(registry.specs().map(|spec| {
        vec![
            spec.name.to_owned(),
            clip(&summary(spec.description), 72),
            parameter_list(spec),
        ]
    }));
    print_out(&table(&rows))
}

fn schema(tools: &Tools, name: Option<&str>, format: Provider) -> ExitCode {
    let registry = &tools.registry;
    let Some(name) = name else {
        return match registry.render(format) {
            Value::String(text) => print_out(text.trim_end()),
            value => print_out(&pretty(value)),
        };
    };
    let spec = match tools.find(name) {
        Ok(spec) => spec,
        Err(code) => return code,
    };
    let position = registry.names().position(|n| n == spec.name);
    // The registry's own rendering (its strict switch included), entry by
    // entry; XML is rendered per tool.
    let rendered = registry.render(format);
    let entries = match rendered {
        Value::Array(items) => Some(items),
        Value::Object(object) => object.values().find_map(Value::as_array),
        _ => None,
    };
    let one = match (entries, position) {
        (Some(items), Some(i)) if i < items.len() => items[i].clone(),
        _ => crate::providers::render_tool(format, spec),
    };
    match one {
        Value::String(text) => print_out(text.trim_end()),
        value => print_out(&pretty(&value)),
    }
}

/// Reads the arguments of `call` from wherever they were given.
fn read_arguments(args: &CallArgs) -> Result<Value, String> {
    let (text, source) = match (&args.args, &args.args_file) {
        (Some(text), _) if text == "-" => {
            let mut text = String::new();
            io::stdin()
                .read_to_string(&mut text)
                .map_err(|error| format!("cannot read the arguments from stdin: {error}"))?;
            (text, "stdin".to_owned())
        }
        (Some(text), _) => (text.clone(), "--args".to_owned()),
        (None, Some(path)) => {
            let text = std::fs::read_to_string(path).map_err(|error| {
                format!("cannot read the arguments file {}: {error}", path.display())
            })?;
            (text, path.display().to_string())
        }
        (None, None) => return Ok(Value::Object(Map::new())),
    };
    parse_object(&text, &source, "the arguments")
}

fn parse_object(text: &str, source: &str, what: &str) -> Result<Value, String> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    let value: Value = serde_json::from_str(text)
        .map_err(|error| format!("{what} in {source} are not valid JSON: {error}"))?;
    if !value.is_object() {
        return Err(format!(
            "{what} in {source} must be a JSON object, got {}",
            crate::providers::describe_value(&value)
        ));
    }
    Ok(value)
}

async fn call(tools: &Tools, args: CallArgs) -> ExitCode {
    let registry = &tools.registry;
    let spec = match tools.find(&args.name) {
        Ok(spec) => spec,
        Err(code) => return code,
    };
    let input = match read_arguments(&args) {
        Ok(input) => input,
        Err(message) => return usage_error(message),
    };
    let mut ctx = ToolContext::new();
    if let Some(state) = &args.state {
        match parse_object(state, "--state", "the state") {
            Ok(Value::Object(state)) => ctx = ctx.with_state_map(state),
            Ok(_) => {}
            Err(message) => return usage_error(message),
        }
    }
    let tool_use = ToolUse::new("cli-1", spec.name, input);
    let mut reporter = Reporter::new(!args.quiet);
    let mut events = registry.stream(tool_use, &ctx);
    let mut result = None;
    while let Some(event) = events.next().await {
        match event {
            ToolEvent::Result(last) => result = Some(last),
            other => reporter.report(&other),
        }
    }
    reporter.finish();
    let result =
        result.unwrap_or_else(|| ToolResult::error("cli-1", "the call produced no result"));
    let text = serde_json::to_value(&result)
        .map(|value| pretty(&value))
        .unwrap_or_else(|error| {
            format!("{{\"error\": \"the result could not be serialised: {error}\"}}")
        });
    let printed = print_out(&text);
    if printed != ExitCode::SUCCESS {
        return printed;
    }
    if result.is_success() {
        return ExitCode::SUCCESS;
    }
    eprintln!("error: {}", result.text_content());
    match result.error_kind {
        Some(ToolErrorKind::InvalidArguments | ToolErrorKind::UnknownTool) => {
            ExitCode::from(EXIT_USAGE)
        }
        _ => ExitCode::from(EXIT_TOOL_ERROR),
    }
}

/// Shows what a running call reports on stderr: a live progress bar and
/// trace lines on a terminal, plain lines otherwise.
struct Reporter {
    enabled: bool,
    terminal: bool,
    bar: Option<ProgressBar>,
}

impl Reporter {
    fn new(enabled: bool) -> Self {
        Self {
            enabled,
            terminal: io::stderr().is_terminal(),
            bar: None,
        }
    }

    fn bar(&mut self) -> &ProgressBar {
        self.bar.get_or_insert_with(|| {
            let bar = ProgressBar::with_draw_target(Some(1000), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] [{bar:30}] {percent:>3}% {msg}",
            )
            .map(|style| style.progress_chars("=> "))
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            // The spinner and the clock move while a slow step runs.
            bar.enable_steady_tick(std::time::Duration::from_millis(120));
            bar
        })
    }

    /// A line above the bar on a terminal, a plain line otherwise.
    fn line(&mut self, text: String) {
        match &self.bar {
            Some(bar) if self.terminal => bar.println(text),
            _ => eprintln!("{text}"),
        }
    }

    fn report(&mut self, event: &ToolEvent) {
        if !self.enabled {
            return;
        }
        match event {
            ToolEvent::Progress { progress, message } => {
                if self.terminal {
                    let bar = self.bar();
                    bar.set_message(message.clone());
                    bar.set_position((progress * 1000.0).round() as u64);
                } else {
                    let percent = (progress * 100.0).round();
                    self.line(format!("[progress {percent:>3}%] {message}"));
                }
            }
            ToolEvent::Trace(entry) => self.line(format!("[trace] {entry}")),
            ToolEvent::Partial { value } => {
                let text = match value {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                self.line(format!("[partial] {text}"));
            }
            _ => {}
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

fn config(tools: &Tools, name: &str, json: bool) -> ExitCode {
    let registry = &tools.registry;
    // A tool left out for its configuration is what this command is for.
    let (spec, left_out) = match tools.left_out_spec(name) {
        Some((spec, problem)) => (spec, Some(problem)),
        None => match tools.find(name) {
            Ok(spec) => (*spec, None),
            Err(code) => return code,
        },
    };
    let Some(config) = spec.config else {
        if json {
            return print_out(&pretty(&json!({"tool": spec.name, "configurable": false})));
        }
        return print_out(&format!("{} takes no configuration.", spec.name));
    };
    let schema = config.schema();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let defaults: Map<String, Value> = properties
        .iter()
        .filter_map(|(field, property)| {
            property
                .get("default")
                .map(|default| (field.clone(), default.clone()))
        })
        .collect();
    let prefix = crate::config::env_prefix(spec.name);
    // Field names only: a configuration often holds secrets.
    let configured: Option<Vec<String>> = registry.config(spec.name).map(|value| {
        value
            .json()
            .as_object()
            .map(|fields| fields.keys().cloned().collect())
            .unwrap_or_default()
    });
    if json {
        return print_out(&pretty(&json!({
            "tool": spec.name,
            "configurable": true,
            "type": config.type_name,
            "schema": schema,
            "defaults": defaults,
            "required": required,
            "env_prefix": prefix,
            "configured": configured,
            "left_out": left_out.map(ToString::to_string),
        })));
    }
    let mut out = format!(
        "{} takes a configuration ({}).\n\n",
        spec.name, config.type_name
    );
    let mut rows = vec![vec![
        "FIELD".to_owned(),
        "TYPE".to_owned(),
        "DEFAULT".to_owned(),
        "REQUIRED".to_owned(),
        "ENVIRONMENT".to_owned(),
        "DESCRIPTION".to_owned(),
    ]];
    for (field, property) in &properties {
        let default = property
            .get("default")
            .map_or_else(|| "-".to_owned(), Value::to_string);
        let is_required = if required.contains(&field.as_str()) {
            "yes"
        } else {
            "no"
        };
        let env = format!(
            "{prefix}{}",
            field
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() {
                    c.to_ascii_uppercase()
                } else {
                    '_'
                })
                .collect::<String>()
        );
        let description = property
            .get("description")
            .and_then(Value::as_str)
            .map(summary)
            .unwrap_or_default();
        rows.push(vec![
            field.clone(),
            type_label(property),
            default,
            is_required.to_owned(),
            env,
            clip(&description, 60),
        ]);
    }
    out.push_str(&table(&rows));
    out.push_str("\n\n");
    match (left_out, &configured) {
        (Some(problem), _) => {
            let _ = write!(
                out,
                "Left out of this registry: {problem}.\nSet the fields in the environment \
                 ({prefix}<FIELD>) or in a registry file (--registry)."
            );
        }
        (None, Some(fields)) if fields.is_empty() => {
            out.push_str("Configured in this registry from the defaults alone.");
        }
        (None, Some(fields)) => {
            let _ = write!(
                out,
                "Configured in this registry; fields given: {} (values not shown).",
                fields.join(", ")
            );
        }
        (None, None) => out.push_str(
            "Not configured in this registry; set it in a registry file (--registry) or in code.",
        ),
    }
    out.push_str("\n\nSchema:\n");
    out.push_str(&pretty(schema));
    print_out(&out)
}

#[cfg(feature = "mcp")]
async fn serve(registry: Registry, program: &str, args: ServeArgs) -> ExitCode {
    let server = crate::mcp_server::McpServer::new(registry)
        .with_implementation(program, env!("CARGO_PKG_VERSION"));
    #[cfg(feature = "mcp-http")]
    if let Some(address) = args.http {
        return serve_http(server, address).await;
    }
    let _ = args;
    match server.serve_stdio().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: the MCP server stopped: {error}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(feature = "mcp-http")]
async fn serve_http(
    server: crate::mcp_server::McpServer,
    address: std::net::SocketAddr,
) -> ExitCode {
    if !address.ip().is_loopback() {
        return usage_error(format!(
            "--http {address}: only loopback addresses (127.0.0.1, [::1]) are served; \
             put a proxy with authentication in front to reach the server from elsewhere"
        ));
    }
    let listener = match tokio::net::TcpListener::bind(address).await {
        Ok(listener) => listener,
        Err(error) => return usage_error(format!("cannot listen on {address}: {error}")),
    };
    let bound = listener.local_addr().unwrap_or(address);
    eprintln!(
        "serving MCP over streamable HTTP at http://{bound}{}",
        crate::mcp_server::MCP_PATH
    );
    let shutdown = tokio_util::sync::CancellationToken::new();
    match server.serve_http(listener, shutdown).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: the MCP server stopped: {error}");
            ExitCode::FAILURE
        }
    }
}
