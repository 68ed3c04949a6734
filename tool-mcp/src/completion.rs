//! Completion (`completion/complete`): the values a prompt's argument or a
//! URI template's variable may take, offered as a client types.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use tool_runtime::ToolContext;

/// A request for the values of one argument (of a prompt) or variable (of
/// a URI template), as far as the client has typed it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CompleteRequest {
    /// The argument's (or variable's) name.
    pub argument: String,
    /// What the client typed of its value so far.
    pub value: String,
    /// The values of the other arguments given already, by name.
    pub context: BTreeMap<String, String>,
    /// The context of the request: its caller, its cancellation.
    pub ctx: ToolContext,
}

impl CompleteRequest {
    /// A request for `argument`'s values starting from `value`, with no
    /// other arguments known, in `ctx`.
    pub fn new(argument: impl Into<String>, value: impl Into<String>, ctx: ToolContext) -> Self {
        Self {
            argument: argument.into(),
            value: value.into(),
            context: BTreeMap::new(),
            ctx,
        }
    }
}

/// The values offered for an argument: at most
/// [`MAX_VALUES`](Self::MAX_VALUES) go out (the first ones, with `hasMore`
/// and the `total`).
///
/// ```
/// use tool_mcp::completion::Completion;
///
/// let completion = Completion::prefix_of(["paris", "park", "rome"], "par");
/// assert_eq!(completion.values, ["paris", "park"]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Completion {
    /// The values, best first.
    pub values: Vec<String>,
    /// How many values there are in all, when more than `values` holds.
    pub total: Option<u64>,
    /// Whether there are more values than `values` holds.
    pub has_more: bool,
}

impl Completion {
    /// The most values a `completion/complete` result holds (the
    /// specification's limit): 100.
    pub const MAX_VALUES: usize = 100;

    /// No values.
    pub fn none() -> Self {
        Self::default()
    }

    /// `values`, all of them.
    pub fn of<S: Into<String>>(values: impl IntoIterator<Item = S>) -> Self {
        Self {
            values: values.into_iter().map(Into::into).collect(),
            total: None,
            has_more: false,
        }
    }

    /// The `candidates` that start with `value`, in their order.
    pub fn prefix_of<S: AsRef<str>>(candidates: impl IntoIterator<Item = S>, value: &str) -> Self {
        Self::of(
            candidates
                .into_iter()
                .filter(|candidate| candidate.as_ref().starts_with(value))
                .map(|candidate| candidate.as_ref().to_owned()),
        )
    }

    /// The `completion` of a `CompleteResult`: the first
    /// [`MAX_VALUES`](Self::MAX_VALUES) values, with `total` and `hasMore`
    /// when there are more.
    pub(crate) fn to_json(&self) -> Value {
        let all = self.values.len();
        let values = &self.values[..all.min(Self::MAX_VALUES)];
        let has_more = self.has_more || all > values.len();
        let mut completion = json!({"values": values});
        let total = match self.total {
            Some(total) => Some(total.max(all as u64)),
            None => (all > values.len()).then_some(all as u64),
        };
        if let Some(total) = total {
            completion["total"] = total.into();
        }
        if has_more {
            completion["hasMore"] = true.into();
        }
        completion
    }
}
