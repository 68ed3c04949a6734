//! The formatter of a transformed tool whose tool has one
//! ([`ToolFormat`]): the tool's own, speaking the new names.
//!
//! The formatter is always handed the transformed tool's spec, so what it
//! reads from the spec (the name, the description, the arguments of the
//! schema) is already the new one. What it writes by itself is not: a
//! formatter written for the tool reads a call in its own form into the
//! tool's argument names. [`Renamed`] gives such a call the names the model
//! gives, and leaves out the hidden arguments, whose values the transform
//! sets.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::plan::Plan;
use crate::spec::tool_spec::ToolSpec;
use crate::spec::tool_spec::format::{CallBody, DescriptionFormat, Formatter, ToolFormat};

/// A tool's formatter, its calls' arguments renamed as a transform renames
/// them.
pub(super) struct Renamed {
    inner: Formatter,
    /// The old name and the new one of each argument the model sees under
    /// another name.
    renamed: Vec<(String, String)>,
    /// The old names of the hidden arguments.
    hidden: Vec<String>,
}

/// The formatter of a transformed tool whose tool has `inner` and whose
/// arguments `plan` reshapes: `inner` itself when no argument is renamed
/// or hidden.
pub(super) fn renamed(inner: Formatter, plan: &Plan) -> Formatter {
    let renamed: Vec<(String, String)> = plan
        .visible
        .iter()
        .filter(|arg| arg.old != arg.new)
        .map(|arg| (arg.old.clone(), arg.new.clone()))
        .collect();
    let hidden: Vec<String> = plan.hidden.iter().map(|(old, _)| old.clone()).collect();
    if renamed.is_empty() && hidden.is_empty() {
        return inner;
    }
    Formatter::Shared(Arc::new(Renamed {
        inner,
        renamed,
        hidden,
    }))
}

impl Renamed {
    /// `arguments` in the names the model gives: a new name kept, an old
    /// one renamed (the new name wins if both are there), a hidden one left
    /// out, any other kept.
    fn outward(&self, arguments: Value) -> Value {
        let Value::Object(given) = arguments else {
            return arguments;
        };
        let is_new = |key: &str| self.renamed.iter().any(|(_, new)| new == key);
        let mut out = Map::new();
        for (key, value) in &given {
            if is_new(key) {
                out.insert(key.clone(), value.clone());
            } else if let Some((_, new)) = self.renamed.iter().find(|(old, _)| old == key) {
                if !given.contains_key(new) {
                    out.insert(new.clone(), value.clone());
                }
            } else if !self.hidden.contains(key) {
                out.insert(key.clone(), value.clone());
            }
        }
        Value::Object(out)
    }
}

impl ToolFormat for Renamed {
    fn describe(&self, spec: &ToolSpec, format: DescriptionFormat) -> Option<String> {
        self.inner.get().describe(spec, format)
    }

    fn format_result(&self, spec: &ToolSpec, value: &Value) -> Option<String> {
        self.inner.get().format_result(spec, value)
    }

    fn parse_call(&self, spec: &ToolSpec, text: &str) -> Option<Result<CallBody, String>> {
        let read = self.inner.get().parse_call(spec, text)?;
        Some(read.map(|body| CallBody {
            arguments: self.outward(body.arguments),
            len: body.len,
        }))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_call_read_in_the_tools_names_is_given_the_new_ones() {
        struct Nothing;
        impl ToolFormat for Nothing {}
        let format = Renamed {
            inner: Formatter::Shared(Arc::new(Nothing)),
            renamed: vec![("q".into(), "query".into()), ("a".into(), "b".into())],
            hidden: vec!["limit".into()],
        };
        let read = format.outward(json!({"q": "x", "limit": 3, "other": 1, "b": 2}));
        assert_eq!(read, json!({"query": "x", "other": 1, "b": 2}));
        // A new name given beside the old one wins.
        let both = format.outward(json!({"q": "old", "query": "new"}));
        assert_eq!(both, json!({"query": "new"}));
        assert_eq!(format.outward(json!([1])), json!([1]));
    }
}
