//! A tool's own formatting of its definition and of its results:
//! [`ToolFormat`] (`#[tool(format = ..)]`), held by a spec as a
//! [`Formatter`].

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use crate::spec::tool_spec::ToolSpec;

/// The text forms of a definition a tool may write itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DescriptionFormat {
    /// The `<tool>` element of an XML prompt.
    Xml,
    /// Plain text, for a prompt that lists tools in prose.
    Text,
    /// The description field of a JSON rendering (any provider).
    Json,
}

/// A tool's own formatting, where the default does not suit it.
///
/// Every method has a provided answer, `None`, which keeps the default: a
/// formatter overrides only what it names.
pub trait ToolFormat: Send + Sync + 'static {
    /// The tool's definition in `format`, in place of the one generated
    /// from its spec.
    fn describe(&self, spec: &ToolSpec, format: DescriptionFormat) -> Option<String> {
        let _ = (spec, format);
        None
    }

    /// The text the model reads for a result whose value is `value`, in
    /// place of the default (the value as JSON, or the text itself).
    fn format_result(&self, spec: &ToolSpec, value: &Value) -> Option<String> {
        let _ = (spec, value);
        None
    }
}

/// A spec's [`ToolFormat`]: a `'static` one, as `#[tool(format = ..)]`
/// names, or a shared one made at run time.
#[derive(Clone)]
pub enum Formatter {
    /// A formatter that lives for the program's life.
    Static(&'static dyn ToolFormat),
    /// A formatter made at run time.
    Shared(Arc<dyn ToolFormat>),
}

impl Formatter {
    /// The formatter.
    pub fn get(&self) -> &dyn ToolFormat {
        match self {
            Formatter::Static(format) => *format,
            Formatter::Shared(format) => &**format,
        }
    }
}

impl fmt::Debug for Formatter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Formatter")
    }
}
