//! What the client takes in from a server, at most: [`McpLimits`], and the
//! checks of one listed tool against them.

use std::io;

use serde_json::{Map, Value};

/// How deep a message from a server may nest (objects and arrays) before
/// its deeper parts are cut off at the transport: past 128 levels a message
/// could not be read at all. A call's answer that deep fails the call; a
/// tool whose schema reaches that deep is left out as deeper than
/// [`McpLimits::max_schema_depth`].
pub const MAX_MESSAGE_DEPTH: usize = 100;

/// The most a [`McpLimits::max_schema_depth`] may be, so that a schema cut
/// off at [`MAX_MESSAGE_DEPTH`] is always over it.
const MAX_SCHEMA_DEPTH_CEILING: usize = 64;

/// What the client takes in from one server, at most. A server is not
/// trusted to be small: each limit is checked as the bytes arrive or the
/// list is paged, so that memory stays bounded and a call over a limit
/// fails at once, with a message naming the limit and the server.
///
/// | limit | default | over it |
/// | --- | --- | --- |
/// | [`max_tools`](Self::max_tools) | 1000 | the tool list is refused; paging stops at the page that crosses it |
/// | [`max_list_bytes`](Self::max_list_bytes) | 16 MiB | the tool list is refused; paging stops |
/// | [`max_schema_bytes`](Self::max_schema_bytes) | 256 KiB | that tool is left out |
/// | [`max_schema_depth`](Self::max_schema_depth) | 32 | that tool is left out |
/// | [`max_result_bytes`](Self::max_result_bytes) | 4 MiB | the message is not read; the request it answers fails |
/// | [`max_resources`](Self::max_resources) | 1000 | the resource list is refused; paging stops at the page that crosses it |
/// | [`max_resource_templates`](Self::max_resource_templates) | 1000 | the template list is refused; paging stops |
/// | [`max_prompts`](Self::max_prompts) | 1000 | the prompt list is refused; paging stops |
///
/// [`max_list_bytes`](Self::max_list_bytes) bounds each of the resource,
/// template and prompt lists as it does the tool list; a read of a
/// resource, a prompt and a completion are messages, bounded by
/// [`max_result_bytes`](Self::max_result_bytes) as a call's answer is (and
/// a completion keeps its first 100 values).
///
/// The names are also the keys of a server's entry in a registry file
/// (see [`set`](Self::set)).
///
/// ```
/// use tool_mcp::client::McpLimits;
///
/// let limits = McpLimits::default().with_max_tools(50).with_max_result_bytes(1 << 20);
/// assert_eq!(limits.max_tools, 50);
/// assert_eq!(limits.max_schema_depth, 32);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct McpLimits {
    /// The most tools the server may list (every page). 1000 by default.
    pub max_tools: usize,
    /// The most bytes the server's whole tool list may take, as JSON (every
    /// page). 16 MiB by default.
    pub max_list_bytes: usize,
    /// The most bytes of one tool's input schema, and of its output schema,
    /// as JSON. 256 KiB by default.
    pub max_schema_bytes: usize,
    /// The deepest one tool's input or output schema may nest (objects and
    /// arrays; a flat `{"type": "object"}` is 1). 32 by default, 64 at most.
    pub max_schema_depth: usize,
    /// The most bytes of one message from the server: the answer to a call,
    /// a page of its tool list, a notification. 4 MiB by default. Over
    /// stdio it bounds each line read; over HTTP each response body and
    /// each server-sent event.
    pub max_result_bytes: usize,
    /// The most resources the server may list (`resources/list`, every
    /// page). 1000 by default.
    pub max_resources: usize,
    /// The most resource templates the server may list
    /// (`resources/templates/list`, every page). 1000 by default.
    pub max_resource_templates: usize,
    /// The most prompts the server may list (`prompts/list`, every page).
    /// 1000 by default.
    pub max_prompts: usize,
}

impl Default for McpLimits {
    fn default() -> Self {
        Self {
            max_tools: 1000,
            max_list_bytes: 16 << 20,
            max_schema_bytes: 256 << 10,
            max_schema_depth: 32,
            max_result_bytes: 4 << 20,
            max_resources: 1000,
            max_resource_templates: 1000,
            max_prompts: 1000,
        }
    }
}

impl McpLimits {
    /// The limits' names, which are also the keys of a server's entry in a
    /// registry file.
    pub const KEYS: [&'static str; 8] = [
        "max_tools",
        "max_list_bytes",
        "max_schema_bytes",
        "max_schema_depth",
        "max_result_bytes",
        "max_resources",
        "max_resource_templates",
        "max_prompts",
    ];

    /// Sets [`max_tools`](Self::max_tools).
    pub fn with_max_tools(mut self, max: usize) -> Self {
        self.max_tools = max;
        self
    }

    /// Sets [`max_list_bytes`](Self::max_list_bytes).
    pub fn with_max_list_bytes(mut self, max: usize) -> Self {
        self.max_list_bytes = max;
        self
    }

    /// Sets [`max_schema_bytes`](Self::max_schema_bytes).
    pub fn with_max_schema_bytes(mut self, max: usize) -> Self {
        self.max_schema_bytes = max;
        self
    }

    /// Sets [`max_schema_depth`](Self::max_schema_depth), at most 64.
    pub fn with_max_schema_depth(mut self, max: usize) -> Self {
        self.max_schema_depth = max.min(MAX_SCHEMA_DEPTH_CEILING);
        self
    }

    /// Sets [`max_result_bytes`](Self::max_result_bytes).
    pub fn with_max_result_bytes(mut self, max: usize) -> Self {
        self.max_result_bytes = max;
        self
    }

    /// Sets [`max_resources`](Self::max_resources).
    pub fn with_max_resources(mut self, max: usize) -> Self {
        self.max_resources = max;
        self
    }

    /// Sets [`max_resource_templates`](Self::max_resource_templates).
    pub fn with_max_resource_templates(mut self, max: usize) -> Self {
        self.max_resource_templates = max;
        self
    }

    /// Sets [`max_prompts`](Self::max_prompts).
    pub fn with_max_prompts(mut self, max: usize) -> Self {
        self.max_prompts = max;
        self
    }

    /// Sets the limit named `key` (one of [`KEYS`](Self::KEYS)) to `value`,
    /// a whole number of at least 1 (and at most 64 for
    /// `max_schema_depth`). `Ok(false)` when `key` names no limit; an error
    /// saying what the value must be when it is not one.
    ///
    /// ```
    /// use serde_json::json;
    /// use tool_mcp::client::McpLimits;
    ///
    /// let mut limits = McpLimits::default();
    /// assert_eq!(limits.set("max_tools", &json!(10)), Ok(true));
    /// assert_eq!(limits.max_tools, 10);
    /// assert_eq!(limits.set("command", &json!("npx")), Ok(false));
    /// assert!(limits.set("max_tools", &json!("ten")).is_err());
    /// ```
    pub fn set(&mut self, key: &str, value: &Value) -> Result<bool, String> {
        let (slot, ceiling) = match key {
            "max_tools" => (&mut self.max_tools, None),
            "max_list_bytes" => (&mut self.max_list_bytes, None),
            "max_schema_bytes" => (&mut self.max_schema_bytes, None),
            "max_schema_depth" => (&mut self.max_schema_depth, Some(MAX_SCHEMA_DEPTH_CEILING)),
            "max_result_bytes" => (&mut self.max_result_bytes, None),
            "max_resources" => (&mut self.max_resources, None),
            "max_resource_templates" => (&mut self.max_resource_templates, None),
            "max_prompts" => (&mut self.max_prompts, None),
            _ => return Ok(false),
        };
        let number = value
            .as_u64()
            .filter(|n| *n >= 1)
            .and_then(|n| usize::try_from(n).ok());
        match (number, ceiling) {
            (Some(n), Some(most)) if n > most => Err(format!(
                "`{key}` is at most {most} (deeper messages are cut off at {MAX_MESSAGE_DEPTH} levels)"
            )),
            (Some(n), _) => {
                *slot = n;
                Ok(true)
            }
            (None, _) => Err(format!("`{key}` is a whole number of at least 1")),
        }
    }
}

/// `bytes` for a message: `4 MiB`, `256 KiB`, `1000 bytes`.
pub(crate) fn bytes(bytes: usize) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} bytes")
    }
}

/// Why a tool's schema (`which`: "input" or "output") is over the limits,
/// if it is.
pub(crate) fn schema_problem(
    schema: &Map<String, Value>,
    which: &str,
    limits: &McpLimits,
) -> Option<String> {
    if json_size(schema, limits.max_schema_bytes).is_none() {
        return Some(format!(
            "its {which} schema is larger than {}, the limit `max_schema_bytes`",
            bytes(limits.max_schema_bytes)
        ));
    }
    if depth_over(schema, limits.max_schema_depth) {
        return Some(format!(
            "its {which} schema is nested deeper than {} levels, the limit `max_schema_depth`",
            limits.max_schema_depth
        ));
    }
    None
}

/// The size of `value` as compact JSON, or `None` once it is over `max`
/// (the writing stops there).
pub(crate) fn json_size<T: serde::Serialize + ?Sized>(value: &T, max: usize) -> Option<usize> {
    struct Counter {
        count: usize,
        max: usize,
    }
    impl io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.count += buf.len();
            if self.count > self.max {
                return Err(io::Error::other("over the limit"));
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter { count: 0, max };
    serde_json::to_writer(&mut counter, value).ok()?;
    Some(counter.count)
}

/// Whether the object `schema` nests deeper than `max` levels (itself
/// the first), walked without recursion.
fn depth_over(schema: &Map<String, Value>, max: usize) -> bool {
    if max == 0 {
        return true;
    }
    let mut stack: Vec<(&Value, usize)> = schema.values().map(|value| (value, 2)).collect();
    while let Some((value, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(members) => Box::new(members.values()),
            _ => continue,
        };
        if depth > max {
            return true;
        }
        stack.extend(children.map(|child| (child, depth + 1)));
    }
    false
}
