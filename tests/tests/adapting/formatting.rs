//! A tool's own formatting: its definition in XML, text and JSON
//! renderings, calls written in its own form, and its results' text, with
//! the value kept beside it (through `Registry::invoke`, the providers'
//! renderings and the MCP server).

use std::sync::Arc;

use serde_json::{Value, json};
use tool_runtime::providers::{self, Provider};
use tool_runtime::{
    Registry, Tool, ToolContext, ToolSpec, ToolUse, format::CallBody, format::DescriptionFormat,
    format::Formatter, format::ToolFormat, spec::ToolFuture, tool, transform::ArgTransform,
    transform::ToolTransform,
};

/// A tool with a formatter of its own on another tool's spec: what
/// `#[tool(format = ..)]` makes, written by hand.
pub(super) struct Formatted<T> {
    inner: T,
    spec: ToolSpec,
}

impl<T: Tool> Formatted<T> {
    pub(super) fn new(inner: T, format: impl ToolFormat) -> Self {
        let mut spec = inner.spec().clone();
        spec.formatter = Some(Formatter::Shared(Arc::new(format)));
        Formatted { inner, spec }
    }
}

impl<T: Tool> Tool for Formatted<T> {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn takes_context(&self) -> bool {
        self.inner.takes_context()
    }

    fn call<'a>(&'a self, input: &'a Value, ctx: &'a ToolContext) -> ToolFuture<'a> {
        self.inner.call(input, ctx)
    }
}

/// Writes a file.
#[tool(register = false)]
fn write_file(
    /// Where to write, relative to the project's root
    path: String,
    /// The file's whole content
    content: String,
) -> String {
    format!("wrote {} bytes to {path}", content.len())
}

const START: &str = "__START_CONTENT__";
const END: &str = "__END_CONTENT__";

/// `write_file` takes its content between two marker lines, unescaped,
/// rather than as a JSON string.
struct WriteFileFormat;

impl ToolFormat for WriteFileFormat {
    fn describe(&self, spec: &ToolSpec, format: DescriptionFormat) -> Option<String> {
        let how = format!(
            "To call it, write the path on the line after the opening tag, then the file's \
             content exactly as it is, without escaping anything, between a {START} line and \
             an {END} line:\n<tool_call name=\"{name}\">\nsrc/main.rs\n{START}\nfn main() {{}}\n\
             {END}\n</tool_call>\n",
            name = spec.name
        );
        match format {
            DescriptionFormat::Xml => Some(format!(
                "<tool name=\"{}\">\n<description>{}</description>\n<calling>\n{how}</calling>\n</tool>\n",
                spec.name, spec.description
            )),
            DescriptionFormat::Text => Some(format!("{}: {}\n{how}", spec.name, spec.description)),
            _ => None,
        }
    }

    fn parse_call(&self, _spec: &ToolSpec, text: &str) -> Option<Result<CallBody, String>> {
        Some(read_write_file(text))
    }
}

fn read_write_file(text: &str) -> Result<CallBody, String> {
    let rest = text.trim_start_matches(['\n', '\r', ' ', '\t']);
    let skipped = text.len() - rest.len();
    let (path, after) = rest
        .split_once('\n')
        .ok_or("write the path on its own line")?;
    let opening = format!("{START}\n");
    let body = after
        .strip_prefix(&opening)
        .ok_or(format!("expected a {START} line after the path"))?;
    let closing = format!("\n{END}");
    let end = body
        .find(&closing)
        .ok_or(format!("expected an {END} line after the content"))?;
    Ok(CallBody {
        arguments: json!({"path": path.trim(), "content": &body[..end]}),
        len: skipped + path.len() + 1 + opening.len() + end + closing.len(),
    })
}

/// A row of the inventory.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub(super) struct Row {
    /// The item's name
    pub(super) item: String,
    /// How many are in stock
    pub(super) count: u32,
}

/// Lists the inventory.
#[tool(register = false)]
fn list_inventory() -> Vec<Row> {
    vec![
        Row {
            item: "bolts".into(),
            count: 120,
        },
        Row {
            item: "washers".into(),
            count: 8,
        },
    ]
}

/// The inventory as a table of text; its description for JSON renderings
/// says so.
struct TableFormat;

impl ToolFormat for TableFormat {
    fn describe(&self, spec: &ToolSpec, format: DescriptionFormat) -> Option<String> {
        (format == DescriptionFormat::Json)
            .then(|| format!("{} The answer is a table.", spec.description))
    }

    fn format_result(&self, _spec: &ToolSpec, value: &Value) -> Option<String> {
        let rows = value.as_array()?;
        let mut table = String::from("item    | count\n");
        for row in rows {
            table.push_str(&format!(
                "{:<8}| {}\n",
                row["item"].as_str()?,
                row["count"].as_u64()?
            ));
        }
        Some(table)
    }
}

const TABLE: &str = "item    | count\nbolts   | 120\nwashers | 8\n";

fn registry() -> Registry {
    Registry::builder()
        .tool(Formatted::new(WriteFileTool, WriteFileFormat))
        .tool(Formatted::new(ListInventoryTool, TableFormat))
        .build()
        .unwrap()
}

#[test]
fn the_xml_and_text_renderings_take_the_formatters_definition() {
    let registry = registry();
    let xml = registry.render_xml();
    // write_file's own element, in place of the generated one; the table
    // tool writes none for XML, so it keeps its generated element.
    assert!(xml.contains("<calling>\nTo call it"), "{xml}");
    assert!(!xml.contains("<arg name=\"content\""), "{xml}");
    assert!(xml.contains("<tool name=\"list_inventory\">\n"), "{xml}");
    assert!(xml.starts_with("<tools>\n") && xml.ends_with("</tools>\n"));

    let text = registry.render_text();
    assert!(
        text.starts_with("list_inventory: Lists the inventory.\nArguments: none\n"),
        "{text}"
    );
    assert!(
        text.contains("\nwrite_file: Writes a file.\nTo call it"),
        "{text}"
    );
    assert!(text.contains(&format!("{START}\nfn main() {{}}\n{END}")));
}

#[test]
fn json_renderings_take_the_formatters_description() {
    let registry = registry();
    let said = "Lists the inventory. The answer is a table.";
    let openai = registry.render(Provider::OpenAiChat);
    assert_eq!(openai[0]["function"]["name"], "list_inventory");
    assert_eq!(openai[0]["function"]["description"], said);
    let anthropic = registry.render(Provider::Anthropic);
    assert_eq!(anthropic[0]["description"], said);
    let mcp = registry.render(Provider::Mcp);
    assert_eq!(mcp["tools"][0]["description"], said);
    let gemini = registry.render(Provider::Gemini);
    assert_eq!(gemini["functionDeclarations"][0]["description"], said);
    // A formatter that writes nothing for JSON keeps the spec's.
    assert_eq!(anthropic[1]["description"], "Writes a file.");
}

#[tokio::test]
async fn a_call_in_the_tools_own_form_is_read_back_and_run() {
    let registry = registry();
    // Content that would need escaping in JSON, and the closing tag itself.
    let content = "line \"one\"\n\t<b>\\n</b> </tool_call>\nlast";
    let answer = format!(
        "I will write it now.\n<tool_call name=\"write_file\">\nnotes/a.txt\n{START}\n{content}\n{END}\n</tool_call>\n\
         <tool_call name=\"list_inventory\" id=\"x7\"></tool_call> done"
    );
    let calls = registry.parse_xml_calls(&answer).unwrap();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(
        calls[0],
        ToolUse::new(
            "call_1",
            "write_file",
            json!({"path": "notes/a.txt", "content": content})
        )
    );
    assert_eq!(calls[1], ToolUse::new("x7", "list_inventory", json!({})));
    let result = registry.invoke(calls[0].clone(), &ToolContext::new()).await;
    assert_eq!(
        result.text_content(),
        format!("wrote {} bytes to notes/a.txt", content.len())
    );

    // A call that breaks the tool's form is an error naming where.
    let broken = "<tool_call name=\"write_file\">\nnotes/a.txt\nno markers\n</tool_call>";
    let error = registry.parse_xml_calls(broken).unwrap_err();
    assert!(
        error.message.contains(&format!("expected a {START} line")),
        "{error}"
    );
    // Other tools' bodies are JSON.
    let bad = providers::xml::parse_tool_calls(
        "<tool_call name=\"list_inventory\">{nope}</tool_call>",
        registry.specs(),
    )
    .unwrap_err();
    assert!(bad.message.contains("not valid JSON"), "{bad}");
}

#[tokio::test]
async fn a_formatted_result_reads_as_text_and_keeps_its_value() {
    let registry = registry();
    let call = ToolUse::new("c1", "list_inventory", json!({}));
    let result = registry.invoke(call.clone(), &ToolContext::new()).await;
    assert!(result.is_success());
    assert_eq!(result.text_content(), TABLE);
    let rows = json!([{"item": "bolts", "count": 120}, {"item": "washers", "count": 8}]);
    assert_eq!(result.structured_content.as_deref(), Some(&rows));

    let openai = registry.render_result(Provider::OpenAiChat, &call, &result);
    assert_eq!(openai["content"], TABLE, "{openai}");
    let anthropic = registry.render_result(Provider::Anthropic, &call, &result);
    assert_eq!(anthropic["content"][0]["text"], TABLE, "{anthropic}");
    let mcp = registry.render_result(Provider::Mcp, &call, &result);
    assert_eq!(mcp["content"][0]["text"], TABLE);
    assert_eq!(mcp["structuredContent"], json!({"result": rows}));

    // Streamed and recorded alike.
    let (recorded, record) = registry.invoke_recorded(call, &ToolContext::new()).await;
    assert_eq!(recorded.text_content(), TABLE);
    assert_eq!(
        record
            .result
            .unwrap()
            .structured_content
            .map(|value| *value),
        Some(rows)
    );
}

/// Whether `instance` is valid against `schema`, with every error.
pub(super) fn check_schema(schema: &Value, instance: &Value) {
    let validator = jsonschema::validator_for(schema).expect("a valid schema");
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{instance} against {schema}: {errors:?}");
}

#[tokio::test]
async fn the_mcp_server_sends_the_text_and_the_structured_value_its_schema_accepts() {
    let answers = super::mcp::mcp_answers(
        registry(),
        &[
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "list_inventory", "arguments": {}}}),
        ],
    )
    .await;
    let tools = answers[0]["result"]["tools"].as_array().unwrap();
    let listed = tools
        .iter()
        .find(|tool| tool["name"] == "list_inventory")
        .unwrap();
    assert_eq!(
        listed["description"],
        "Lists the inventory. The answer is a table."
    );
    let schema = &listed["outputSchema"];
    assert!(schema.is_object(), "{listed}");
    let called = &answers[1]["result"];
    assert_eq!(called["isError"], false);
    assert_eq!(called["content"], json!([{"type": "text", "text": TABLE}]));
    check_schema(schema, &called["structuredContent"]);
    assert_eq!(called["structuredContent"]["result"][1]["item"], "washers");
}

/// A hand-written tool that writes its own text and keeps its value
/// beside it, and one that sends only the value's JSON text.
struct OwnText {
    spec: ToolSpec,
    with_value: bool,
}

impl Tool for OwnText {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call<'a>(&'a self, _input: &'a Value, _ctx: &'a ToolContext) -> ToolFuture<'a> {
        let value = json!({"total": 128});
        let result = if self.with_value {
            tool_runtime::ToolResult::text("", "128 items in all").with_structured_content(value)
        } else {
            tool_runtime::ToolResult::text("", value.to_string())
        };
        ToolFuture::ready(Ok(result.into()))
    }
}

#[tokio::test]
async fn a_hand_written_tool_with_an_output_schema_sends_structured_content() {
    let schema = json!({"type": "object", "properties": {"total": {"type": "integer"}},
        "required": ["total"]});
    let tool = |name: &'static str, with_value| {
        let mut spec = ToolSpec::new(name, "Counts.", json!({"type": "object"}));
        spec.output_schema = tool_runtime::spec::SchemaSource::given(schema.clone());
        OwnText { spec, with_value }
    };
    let registry = Registry::builder()
        .tool(tool("counted", true))
        .tool(tool("as_json", false))
        .build()
        .unwrap();
    let answers = super::mcp::mcp_answers(
        registry,
        &[
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "counted", "arguments": {}}}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "as_json", "arguments": {}}}),
        ],
    )
    .await;
    assert_eq!(
        answers[0]["result"]["content"][0]["text"],
        "128 items in all"
    );
    for answer in &answers {
        check_schema(&schema, &answer["result"]["structuredContent"]);
    }
}

#[test]
fn the_text_rendering_offers_what_the_xml_rendering_offers() {
    let registry = Registry::builder()
        .tool(Formatted::new(WriteFileTool, WriteFileFormat))
        .tool(Formatted::new(ListInventoryTool, TableFormat))
        .defer(["write_file"])
        .build()
        .unwrap();
    let text = registry.render_text();
    assert!(!text.contains("write_file"), "{text}");
    assert!(text.contains("\nsearch_tools (Search tools): "), "{text}");
    assert!(!registry.render_xml().contains("write_file"));
}

/// `write_file` re-exposed as `save_note`, its `content` renamed `body`.
fn save_note(path: Option<&str>) -> tool_runtime::transform::TransformedTool {
    let mut transform = ToolTransform::new(Formatted::new(WriteFileTool, WriteFileFormat))
        .name("save_note")
        .description("Saves a note.")
        .arg("content", ArgTransform::new().rename("body"));
    if let Some(path) = path {
        transform = transform.arg("path", ArgTransform::hidden(json!(path)));
    }
    transform.build().unwrap()
}

#[tokio::test]
async fn a_formatted_tool_re_exposed_with_a_renamed_argument_is_called_in_its_own_form() {
    let registry = Registry::builder().tool(save_note(None)).build().unwrap();
    // The formatter writes the definition of the new tool.
    let xml = registry.render_xml();
    assert!(
        xml.contains("<tool name=\"save_note\">\n<description>Saves a note."),
        "{xml}"
    );
    assert!(
        xml.contains("<tool_call name=\"save_note\">\nsrc/main.rs"),
        "{xml}"
    );
    // A call that follows it reads in the new names, and runs.
    let content = "a \"quoted\" line\n</tool_call>\nlast";
    let answer = format!(
        "<tool_call name=\"save_note\">\nnotes/a.md\n{START}\n{content}\n{END}\n</tool_call>"
    );
    let calls = registry.parse_xml_calls(&answer).unwrap();
    assert_eq!(
        calls,
        [ToolUse::new(
            "call_1",
            "save_note",
            json!({"path": "notes/a.md", "body": content})
        )]
    );
    let result = registry.invoke(calls[0].clone(), &ToolContext::new()).await;
    assert!(result.is_success(), "{}", result.text_content());
    assert_eq!(
        result.text_content(),
        format!("wrote {} bytes to notes/a.md", content.len())
    );

    // A hidden argument the form still writes is the transform's to set.
    let fixed = Registry::builder()
        .tool(save_note(Some("notes/today.md")))
        .build()
        .unwrap();
    let calls = fixed.parse_xml_calls(&answer).unwrap();
    assert_eq!(calls[0].input, json!({"body": content}));
    let result = fixed.invoke(calls[0].clone(), &ToolContext::new()).await;
    assert_eq!(
        result.text_content(),
        format!("wrote {} bytes to notes/today.md", content.len())
    );
}

#[tokio::test]
async fn a_registry_files_re_exposed_formatted_tool_reads_calls_in_the_new_names() {
    let text = "\
tools:
  - name: save_note
    from: write_file
    arguments:
      content: {rename: body}
";
    let manifest = tool_manifest::Manifest::parse("tools.yaml", text).unwrap();
    let registry = manifest
        .build_with(Registry::builder().tool(Formatted::new(WriteFileTool, WriteFileFormat)))
        .unwrap();
    let answer =
        format!("<tool_call name=\"save_note\">\nnotes/b.md\n{START}\nhi\n{END}\n</tool_call>");
    let calls = registry.parse_xml_calls(&answer).unwrap();
    assert_eq!(calls[0].input, json!({"path": "notes/b.md", "body": "hi"}));
    let result = registry.invoke(calls[0].clone(), &ToolContext::new()).await;
    assert_eq!(result.text_content(), "wrote 2 bytes to notes/b.md");
}
