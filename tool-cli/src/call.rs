//! The `call` command: one call through the registry's agent path, its
//! progress and trace lines on stderr, its result on stdout.

use std::io::{self, IsTerminal, Read};
use std::process::ExitCode;

use futures_util::StreamExt;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::{Map, Value};
use tool_runtime::providers::describe_value;
use tool_runtime::{ToolContext, ToolEvent, ToolResult, ToolUse, spec::ToolErrorKind};

use crate::command::CallArgs;
use crate::output::{pretty, print_out, terminal};
use crate::{EXIT_TOOL_ERROR, EXIT_USAGE, Tools, usage_error};

/// Reads the arguments of `call` from wherever they were given.
fn read_arguments(args: &CallArgs) -> Result<Value, String> {
    let (text, source) = match (&args.args, &args.args_file) {
        (Some(text), _) if text == "-" => {
            let mut bytes = Vec::new();
            io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|error| format!("cannot read the arguments from stdin: {error}"))?;
            (text_of(bytes, "stdin")?, "stdin".to_owned())
        }
        (Some(text), _) => (text.clone(), "--args".to_owned()),
        (None, Some(path)) => {
            let source = path.display().to_string();
            let bytes = std::fs::read(path)
                .map_err(|error| format!("cannot read the arguments file {source}: {error}"))?;
            (text_of(bytes, &source)?, source)
        }
        (None, None) => return Ok(Value::Object(Map::new())),
    };
    parse_object(&text, &source, ("the arguments", "are"))
}

/// Bytes read from a file or stdin as text: a leading UTF-8 byte-order
/// mark (which some editors write) is skipped, and bytes that are not
/// UTF-8 are an error saying where.
fn text_of(bytes: Vec<u8>, source: &str) -> Result<String, String> {
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    let bytes = match bytes.strip_prefix(BOM) {
        Some(rest) => rest.to_vec(),
        None => bytes,
    };
    String::from_utf8(bytes).map_err(|error| {
        format!(
            "the arguments in {source} are not valid UTF-8: the bytes at offset {} are not UTF-8",
            error.utf8_error().valid_up_to()
        )
    })
}

/// Reads a JSON object; `what` names it and the verb that goes with it
/// (`("the state", "is")`) for messages.
fn parse_object(text: &str, source: &str, what: (&str, &str)) -> Result<Value, String> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    let (subject, verb) = what;
    let value: Value = serde_json::from_str(text)
        .map_err(|error| format!("{subject} in {source} {verb} not valid JSON: {error}"))?;
    if !value.is_object() {
        return Err(format!(
            "{subject} in {source} must be a JSON object, got {}",
            describe_value(&value)
        ));
    }
    Ok(value)
}

pub(crate) async fn call(tools: &Tools, args: CallArgs) -> ExitCode {
    #[cfg(feature = "code-mode")]
    let offered = match code_mode(tools) {
        Ok(offered) => offered,
        Err(code) => return code,
    };
    #[cfg(feature = "code-mode")]
    let tools = offered.as_ref().unwrap_or(tools);
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
        match parse_object(state, "--state", ("the state", "is")) {
            Ok(Value::Object(state)) => ctx = ctx.with_state_map(state),
            Ok(_) => {}
            Err(message) => return usage_error(message),
        }
    }
    let tool_use = ToolUse::new("cli-1", spec.name.clone(), input);
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
    // A remote tool's error is its server's text: escaped and cut short.
    eprintln!("error: {}", terminal(&result.text_content(), 2000));
    match result.error_kind {
        Some(ToolErrorKind::InvalidArguments | ToolErrorKind::UnknownTool) => {
            ExitCode::from(EXIT_USAGE)
        }
        _ => ExitCode::from(EXIT_TOOL_ERROR),
    }
}

/// The tools as a registry file's `code_mode` section offers them, as
/// `serve` does: a `code_mode` tool over the file's own tools, alone
/// (`offer: in_place`) or beside them (`beside`), with the section's
/// options. The tools of the file's MCP servers are offered directly
/// either way, and are not the script's: `serve` makes `code_mode` before
/// they answer. `None` when the file has no such section.
#[cfg(feature = "code-mode")]
fn code_mode(tools: &Tools) -> Result<Option<Tools>, ExitCode> {
    use tool_builtin::code_mode::CodeModeOffer;
    use tool_runtime::{Registry, registry::LiveRegistry};
    if tools.code_mode.is_none() {
        return Ok(None);
    }
    let remote = |name: &str| tools.sources.contains_key(name);
    let own = LiveRegistry::new(tools.registry.clone());
    for name in tools.sources.keys() {
        own.remove(name);
    }
    let own = Registry::clone(&own.snapshot());
    let made = crate::sections::code_mode_tool(own, tools.code_mode.as_ref(), false, false)
        .map_err(usage_error)?;
    let Some((tool, offer)) = made else {
        return Ok(None);
    };
    let offered = LiveRegistry::new(tools.registry.clone());
    if offer == CodeModeOffer::InPlace {
        for name in tools.registry.names().filter(|name| !remote(name)) {
            offered.remove(name);
        }
    }
    offered
        .insert(tool)
        .map_err(|error| usage_error(format!("code mode: {error}")))?;
    let offered = Registry::clone(&offered.snapshot());
    Ok(Some(Tools::new(offered, tools.excluded.clone())))
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
            ToolEvent::Log { level, message } => self.line(format!("[{level}] {message}")),
            _ => {}
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
