//! The Python a script sees: each exposed tool as a function, with a
//! signature and a docstring made from its spec (for the model, in the
//! `code_mode` tool's description), and the program that runs the script
//! with those functions defined (for the interpreter).
//!
//! A schema's types become Python annotations: `string` is `str`,
//! `integer` `int`, `number` `float`, `boolean` `bool`, `array` a `list[...]`,
//! `object` a `dict`, a choice (`anyOf`, `oneOf`, a list of types) a union
//! with `|`, an enumeration of a few values a `Literal[...]`; anything
//! else is `Any`. An optional parameter without a default is `... | None =
//! None`: passing `None` sends nothing, unless the schema takes `null`.
//! What the types do not say (ranges, lengths, patterns, formats, a long
//! enumeration) follows the parameter's description in the docstring:
//! `n: How many. (>= 1, <= 100)`. A name that is not a Python identifier,
//! or is a keyword, is changed into one (`from` becomes `from_`); the
//! function sends the schema's own name.

use std::collections::HashSet;
use std::fmt::Write as _;

use serde_json::Value;
use tool_runtime::ToolSpec;

use super::schema::{annotation, constraints, json_string, keys, literal, takes_none};

/// The environment variable that tells the script's process which
/// descriptor is its end of the bridge.
pub(crate) const FD_VARIABLE: &str = "TOOL_CODE_MODE_FD";

/// The names the program defines for the script besides the tools: a tool
/// whose Python name would be one of them gets a `_` appended.
const RESERVED: &[&str] = &["ToolCallError", "search_tools"];

/// Python's keywords, which cannot name a parameter or a function.
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// One tool as a Python function.
#[derive(Debug, Clone)]
pub(crate) struct PyTool {
    /// The tool's name in the registry.
    pub(crate) name: String,
    /// The function's name in Python.
    pub(crate) ident: String,
    params: Vec<PyParam>,
    returns: String,
    description: String,
}

#[derive(Debug, Clone)]
struct PyParam {
    /// The property's name in the schema.
    json: String,
    /// The parameter's name in Python.
    ident: String,
    annotation: String,
    required: bool,
    /// The schema's default, as a Python literal.
    default: Option<String>,
    description: Option<String>,
    /// The keys of the object the parameter takes (or of its list's
    /// items), when its schema names them.
    keys: Option<String>,
    /// What the schema asks of the value besides its type: `>= 1, <= 100`.
    constraints: Option<String>,
}

impl PyParam {
    /// Whether the annotation lets the value be `None` (the schema takes
    /// `null`, or any value).
    fn takes_none(&self) -> bool {
        takes_none(&self.annotation)
    }

    /// An optional parameter whose `None` is sent as nothing: it has no
    /// default of the schema's and the schema does not take `null`.
    fn none_is_absent(&self) -> bool {
        !self.required && !self.takes_none()
    }
}

impl PyTool {
    /// The function for `spec`, its name unique among `taken` (to which it
    /// is added).
    pub(crate) fn new(spec: &ToolSpec, taken: &mut HashSet<String>) -> Self {
        let mut ident = identifier(&spec.name);
        while taken.contains(&ident) || RESERVED.contains(&ident.as_str()) {
            ident.push('_');
        }
        taken.insert(ident.clone());
        let schema = spec.input_schema();
        let required: HashSet<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut params = Vec::new();
        let mut names = HashSet::new();
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            for (json, property) in properties {
                let mut ident = identifier(json);
                // The names the functions' bodies use stay theirs.
                if ident.starts_with("__cm_") {
                    ident.insert(0, 'p');
                }
                while names.contains(&ident) {
                    ident.push('_');
                }
                names.insert(ident.clone());
                params.push(PyParam {
                    json: json.clone(),
                    ident,
                    annotation: annotation(property, schema, 0),
                    required: required.contains(json.as_str()),
                    default: property.get("default").map(literal),
                    description: property
                        .get("description")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    keys: keys(property, schema, 0),
                    constraints: constraints(property, schema, 0),
                });
            }
        }
        // Required parameters first, in the schema's order, so that they
        // may be passed by position.
        params.sort_by_key(|param| !param.required);
        let returns = spec
            .output_schema()
            .map_or_else(|| "Any".to_owned(), |output| annotation(output, output, 0));
        Self {
            name: spec.name.to_string(),
            ident,
            params,
            returns,
            description: spec.description.trim().to_owned(),
        }
    }

    /// The signature and docstring the model reads.
    pub(crate) fn signature(&self) -> String {
        let mut out = format!("def {}(", self.ident);
        for (i, param) in self.params.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            let _ = write!(out, "{}: {}", param.ident, param.annotation);
            match (&param.default, param.required) {
                (_, true) => {}
                (Some(default), false) if default != "None" => {
                    let _ = write!(out, " = {default}");
                }
                // None is the default: the annotation says it may be.
                (_, false) if param.takes_none() => out.push_str(" = None"),
                (_, false) => out.push_str(" | None = None"),
            }
        }
        let _ = writeln!(out, ") -> {}:", self.returns);
        let mut doc = self.description.clone();
        let described: Vec<&PyParam> = self
            .params
            .iter()
            .filter(|param| {
                param.description.is_some() || param.keys.is_some() || param.constraints.is_some()
            })
            .collect();
        if !described.is_empty() {
            doc.push_str("\n\nArgs:");
            for param in described {
                let mut line = param
                    .description
                    .as_deref()
                    .unwrap_or_default()
                    .trim()
                    .to_owned();
                if let Some(keys) = &param.keys {
                    add_part(&mut line, keys);
                }
                if let Some(constraints) = &param.constraints {
                    add_part(&mut line, &format!("({constraints})"));
                }
                let _ = write!(doc, "\n    {}: {line}", param.ident);
            }
        }
        let doc = doc.replace("\"\"\"", "\\\"\\\"\\\"");
        out.push_str("    \"\"\"");
        for (i, line) in doc.lines().enumerate() {
            if i > 0 {
                out.push('\n');
                if !line.is_empty() {
                    out.push_str("    ");
                }
            }
            out.push_str(line);
        }
        out.push_str("\"\"\"\n");
        out
    }

    /// The function's definition in the program, inside the function that
    /// makes them all (so that no tool's name hides a built-in the program
    /// uses): it sends the arguments given (under the schema's names) and
    /// returns the reply.
    fn definition(&self) -> String {
        let mut out = format!("    def {}(", self.ident);
        let mut body = String::new();
        let absent: Vec<String> = self
            .params
            .iter()
            .filter(|param| param.none_is_absent())
            .map(|param| format!("{}, ", json_string(&param.json)))
            .collect();
        for (i, param) in self.params.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
                body.push_str(", ");
            }
            out.push_str(&param.ident);
            if !param.required {
                out.push_str("=__cm_missing");
            }
            let _ = write!(body, "{}: {}", json_string(&param.json), param.ident);
        }
        let _ = writeln!(
            out,
            "):\n        return __cm_call({}, {{{body}}}, ({}))",
            json_string(&self.name),
            absent.concat()
        );
        let _ = writeln!(
            out,
            "    {0}.__doc__ = {1}\n    __cm_tools[{2}] = {0}",
            self.ident,
            json_string(&self.description),
            json_string(&self.ident),
        );
        out
    }
}

/// `name` as a Python identifier: other characters become `_`, a leading
/// digit gets a `_` before it, a keyword one after it.
fn identifier(name: &str) -> String {
    let mut ident: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if ident.is_empty() || ident.starts_with(|c: char| c.is_ascii_digit()) {
        ident.insert(0, '_');
    }
    if KEYWORDS.contains(&ident.as_str()) {
        ident.push('_');
    }
    ident
}

/// Adds `part` to the end of `line`, after a space when it has text.
fn add_part(line: &mut String, part: &str) {
    if !line.is_empty() {
        line.push(' ');
    }
    line.push_str(part);
}

/// The program the interpreter runs: the bridge, the functions of `tools`,
/// then `script` (compiled as the file `<script>`, so that tracebacks show
/// its lines). `max_request` bounds one request line, in bytes.
pub(crate) fn program(tools: &[PyTool], script: &str, max_request: u64) -> String {
    let mut out = String::with_capacity(BRIDGE.len() + script.len() + 256 * tools.len());
    out.push_str(BRIDGE);
    let _ = writeln!(
        out,
        "_bridge = _Bridge({}, {max_request})",
        json_string(FD_VARIABLE)
    );
    out.push_str("def _tools():\n    __cm_tools = {}\n");
    for tool in tools {
        out.push_str(&tool.definition());
    }
    out.push_str("    return __cm_tools\n\n\n_TOOLS = _tools()\n");
    let _ = writeln!(out, "_SCRIPT = {}", json_string(script));
    out.push_str(RUN);
    out
}

/// The bridge's Python side: a request is one JSON line on the socket, its
/// reply one JSON line with the same `id`, read by a thread of its own so
/// that threads of the script may call tools at once.
const BRIDGE: &str = r#"import json as _json, os as _os, socket as _socket, sys as _sys, threading as _threading


class ToolCallError(Exception):
    """A tool call made by the script failed. `tool` is the tool's name and
    `kind` the error's kind ("invalid_arguments", "not_approved", "limit",
    ...)."""

    def __init__(self, message, tool=None, kind=None):
        super().__init__(message)
        self.tool = tool
        self.kind = kind


class _Bridge:
    def __init__(self, variable, max_request):
        fd = int(_os.environ.pop(variable))
        self._socket = _socket.socket(fileno=fd)
        self._max = max_request
        self._send = _threading.Lock()
        self._cond = _threading.Condition()
        self._replies = {}
        self._next = 0
        self._closed = None
        _threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            for line in self._socket.makefile("rb"):
                try:
                    reply = _json.loads(line)
                    key = reply["id"]
                except Exception:
                    continue
                with self._cond:
                    self._replies[key] = reply
                    self._cond.notify_all()
        except Exception:
            pass
        with self._cond:
            self._closed = "the connection to the tools is closed"
            self._cond.notify_all()

    def request(self, message, tool):
        with self._cond:
            self._next += 1
            key = self._next
        message["id"] = key
        line = _json.dumps(message, ensure_ascii=False, allow_nan=False).encode() + b"\n"
        if len(line) - 1 > self._max:
            raise ToolCallError(
                "the request is %d bytes of JSON, more than the limit of %d" % (len(line) - 1, self._max),
                tool, "limit")
        with self._send:
            self._socket.sendall(line)
        with self._cond:
            while key not in self._replies:
                if self._closed:
                    raise ToolCallError(self._closed, tool, "closed")
                self._cond.wait()
            return self._replies.pop(key)


__cm_missing = object()


def __cm_call(tool, arguments, absent=()):
    arguments = {k: v for k, v in arguments.items()
                 if v is not __cm_missing and not (v is None and k in absent)}
    reply = _bridge.request({"tool": tool, "arguments": arguments}, tool)
    if reply.get("ok"):
        return reply.get("value")
    raise ToolCallError(reply.get("error", "the call failed"), tool, reply.get("kind"))


def search_tools(query, limit=5):
    """The tools that best match `query`: a list of dicts with `name`,
    `signature` and `description`."""
    reply = _bridge.request({"search": str(query), "limit": int(limit)}, "search_tools")
    if reply.get("ok"):
        return reply.get("value")
    raise ToolCallError(reply.get("error", "the search failed"), "search_tools", reply.get("kind"))


"#;

/// Runs the script in a namespace of its own that holds only the tools,
/// `ToolCallError` and `search_tools`; an uncaught exception's traceback
/// starts in the script.
const RUN: &str = r#"
def _run():
    import linecache, traceback
    linecache.cache["<script>"] = (len(_SCRIPT), None, _SCRIPT.splitlines(True), "<script>")
    namespace = {"__name__": "__main__", "__builtins__": __builtins__,
                 "ToolCallError": ToolCallError, "search_tools": search_tools}
    namespace.update(_TOOLS)
    try:
        code = compile(_SCRIPT, "<script>", "exec")
        exec(code, namespace)
    except SystemExit:
        raise
    except BaseException as error:
        traceback.print_exception(type(error), error, error.__traceback__.tb_next)
        _sys.exit(1)


_run()
_sys.stdout.flush()
_sys.stderr.flush()
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, schema: Value) -> PyTool {
        let spec = ToolSpec::new(name.to_owned(), "Does it.", schema);
        PyTool::new(&spec, &mut HashSet::new())
    }

    #[test]
    fn keywords_and_defaults_become_python() {
        let tool = tool(
            "convert_length",
            json!({
                "type": "object",
                "properties": {
                    "value": {"type": "number", "description": "How long."},
                    "from": {"type": "string"},
                    "to": {"type": "string", "default": "m"},
                    "exact": {"type": ["boolean", "null"]},
                },
                "required": ["value", "from"],
            }),
        );
        let signature = tool.signature();
        assert!(
            signature.starts_with(
                "def convert_length(from_: str, value: float, exact: bool | None = None, to: str = \"m\") -> Any:"
            ) || signature.starts_with(
                "def convert_length(value: float, from_: str, to: str = \"m\", exact: bool | None = None) -> Any:"
            ),
            "{signature}"
        );
        assert!(signature.contains("value: How long."), "{signature}");
        let definition = tool.definition();
        assert!(definition.contains("\"from\": from_"), "{definition}");
        assert!(definition.contains("to=__cm_missing"), "{definition}");
    }

    #[test]
    fn optional_parameters_take_none_and_constraints_are_documented() {
        let units: Vec<String> = (0..20).map(|i| format!("u{i}")).collect();
        let tool = tool(
            "book",
            json!({
                "type": "object",
                "properties": {
                    "room": {"type": "string", "pattern": "^[A-Z]{2}\\d{3}$"},
                    "people": {"type": "integer", "minimum": 1, "exclusiveMaximum": 13},
                    "note": {"anyOf": [{"type": "string", "maxLength": 200}, {"type": "null"}]},
                    "unit": {"type": "string", "enum": units},
                    "tags": {"type": "array", "items": {"type": "string", "minLength": 2}, "maxItems": 3},
                    "day": {"type": "string", "format": "date"},
                    "size": {"type": "integer", "format": "uint32", "minimum": 0},
                },
                "required": ["room"],
            }),
        );
        let signature = tool.signature();
        // note's schema takes null: its None is sent; the others' is not.
        assert!(
            signature.contains("note: str | None = None")
                && signature.contains("people: int | None = None"),
            "{signature}"
        );
        for line in [
            "room: (pattern r\"^[A-Z]{2}\\d{3}$\")",
            "people: (>= 1, < 13)",
            "note: (at most 200 characters)",
            "unit: (one of \"u0\", \"u1\", ",
            "tags: (at most 3 items, each item at least 2 characters)",
            "day: (format \"date\")",
            "size: (>= 0)",
        ] {
            assert!(signature.contains(line), "{line} in {signature}");
        }
        let definition = tool.definition();
        assert!(definition.contains("\"people\", "), "{definition}");
        assert!(!definition.contains("\"note\", "), "{definition}");
    }

    #[test]
    fn names_become_unique_identifiers() {
        let mut taken = HashSet::new();
        let empty = json!({"type": "object"});
        let a = PyTool::new(&ToolSpec::new("weather.get", "", empty.clone()), &mut taken);
        let b = PyTool::new(&ToolSpec::new("weather-get", "", empty.clone()), &mut taken);
        let c = PyTool::new(&ToolSpec::new("class", "", empty.clone()), &mut taken);
        let d = PyTool::new(&ToolSpec::new("search_tools", "", empty), &mut taken);
        assert_eq!(
            [a.ident, b.ident, c.ident, d.ident],
            ["weather_get", "weather_get_", "class_", "search_tools_"]
        );
        assert_eq!(identifier("3d"), "_3d");
    }
}
