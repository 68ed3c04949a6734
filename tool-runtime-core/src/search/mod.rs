//! Tool search, for registries too large to offer whole: a [`ToolIndex`]
//! ranks tools for a query with BM25, and [`SearchTool`] offers it to the
//! model as the tool `search_tools(query, limit?, include_definitions?)`.
//!
//! A model picks tools less well past a few dozen of them, and every
//! definition sent costs tokens on every request. A registry can instead
//! offer a few tools always and defer the rest
//! ([`RegistryBuilder::defer`](crate::RegistryBuilder::defer),
//! [`always_offer`](crate::RegistryBuilder::always_offer)): the model finds
//! them with `search_tools`, or with the provider's own tool search where
//! there is one (Anthropic, the OpenAI Responses API; see
//! [`Provider::has_tool_search`](crate::Provider::has_tool_search)).
//!
//! The index reads each tool's name, title, aliases and description, and
//! the names, descriptions and enum values of its parameters (from the
//! input schema, so run-time tools are indexed like `#[tool]` functions).
//! Words are split at `snake_case` and `camelCase` boundaries, lowercased,
//! stripped of common English words and cut to a rough stem; a query's
//! everyday verbs also look for the words tools are usually named with
//! (`find` for `search` and `get`, `remove` for `delete`), at half weight.
//! Nothing leaves the process: no model, no network.
//!
//! ```
//! use serde_json::json;
//! use tool_runtime::search::ToolIndex;
//! use tool_runtime::ToolSpec;
//!
//! let specs = [
//!     ToolSpec::new("send_email", "Sends an email message to one or more recipients.", json!({})),
//!     ToolSpec::new("get_weather", "Current weather for a city.", json!({})),
//!     ToolSpec::new("create_invoice", "Creates an invoice for a customer.", json!({})),
//! ];
//! let index = ToolIndex::new(&specs);
//! let hits = index.search("email my manager", 3);
//! assert_eq!(hits[0].name, "send_email");
//! assert!(index.search("quantum chromodynamics", 3).is_empty());
//! ```

mod tokenize;
mod tool;

use std::collections::HashMap;

use serde_json::Value;

use crate::names::Allowlist;
use crate::spec::tool_spec::ToolSpec;

pub use tool::{SearchTool, found_names};

/// How much a word counts in each part of a tool: a word of the name
/// tells more about the tool than a word of a parameter's description.
const NAME_WEIGHT: f32 = 3.0;
const TITLE_WEIGHT: f32 = 2.0;
const DESCRIPTION_WEIGHT: f32 = 1.0;
const PARAM_NAME_WEIGHT: f32 = 1.0;
const PARAM_TEXT_WEIGHT: f32 = 0.5;

/// BM25's term-frequency saturation and length normalisation, at the
/// values most search engines default to.
const K1: f32 = 1.2;
const B: f32 = 0.75;

/// How deep nested object parameters are read for names and descriptions.
const MAX_SCHEMA_DEPTH: usize = 3;

/// The hasher of the term table: terms come from the registry's own specs.
type TermHasher = foldhash::fast::FixedState;

/// A search index over tool specs, ranking them for a query with BM25.
///
/// Build it once (from [`Registry::specs`](crate::Registry::specs) or any
/// specs) and search it as often as needed; it holds the tools' names, not
/// their specs. Searching a thousand tools takes microseconds
/// (`docs/performance.md`).
#[derive(Debug, Clone, Default)]
pub struct ToolIndex {
    /// The name of each indexed tool, in the order given.
    names: Vec<String>,
    /// Each term's number, its place in `postings`.
    terms: HashMap<String, u32, TermHasher>,
    /// For each term, the tools that have it and its weighted frequency in each.
    postings: Vec<Vec<(u32, f32)>>,
    /// Each tool's weighted length in terms.
    lengths: Vec<f32>,
    /// The mean of `lengths`.
    average_length: f32,
}

/// One tool a search found: its name and how well it matched (higher is
/// better; scores compare only within one search).
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// The tool's name.
    pub name: String,
    /// The tool's BM25 score for the query.
    pub score: f32,
}

impl ToolIndex {
    /// Indexes `specs`. A name given twice is indexed twice; a registry's
    /// names are unique.
    pub fn new<'a>(specs: impl IntoIterator<Item = &'a ToolSpec>) -> Self {
        let mut index = ToolIndex::default();
        for spec in specs {
            index.add(spec);
        }
        let total: f32 = index.lengths.iter().sum();
        index.average_length = if index.lengths.is_empty() {
            1.0
        } else {
            (total / index.lengths.len() as f32).max(f32::EPSILON)
        };
        index
    }

    /// Adds one tool's terms.
    fn add(&mut self, spec: &ToolSpec) {
        let doc = self.names.len() as u32;
        let mut counts: HashMap<String, f32, TermHasher> = HashMap::default();
        let mut length = 0.0;
        let mut count = |text: &str, weight: f32| {
            tokenize::terms(text, |term| {
                *counts.entry(term).or_default() += weight;
                length += weight;
            });
        };
        count(&spec.name, NAME_WEIGHT);
        if let Some(title) = &spec.title {
            count(title, TITLE_WEIGHT);
        }
        for alias in spec.aliases.iter() {
            count(alias, TITLE_WEIGHT);
        }
        count(&spec.description, DESCRIPTION_WEIGHT);
        schema_text(spec.input_schema(), 0, &mut count);
        self.names.push(spec.name.to_string());
        self.lengths.push(length);
        for (term, frequency) in counts {
            let next = self.postings.len() as u32;
            let id = *self.terms.entry(term).or_insert(next);
            if id == next {
                self.postings.push(Vec::new());
            }
            self.postings[id as usize].push((doc, frequency));
        }
    }

    /// The `limit` tools that match `query` best, best first; ties in name
    /// order. Tools that share no term with the query are not returned, so
    /// the list may be shorter than `limit`, or empty.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit> {
        self.ranked(query, limit)
            .into_iter()
            .map(|(doc, score)| Hit {
                name: self.names[doc].clone(),
                score,
            })
            .collect()
    }

    /// The positions (in the order the specs were given) and scores of the
    /// best `limit` tools for `query`.
    pub(crate) fn ranked(&self, query: &str, limit: usize) -> Vec<(usize, f32)> {
        if limit == 0 || self.names.is_empty() {
            return Vec::new();
        }
        // Each term once, at the highest weight the query gives it.
        let mut query_terms: Vec<(u32, f32)> = Vec::new();
        tokenize::query_terms(query, |term, weight| {
            if let Some(&id) = self.terms.get(&term) {
                match query_terms.iter_mut().find(|(known, _)| *known == id) {
                    Some((_, known)) => *known = known.max(weight),
                    None => query_terms.push((id, weight)),
                }
            }
        });
        let total = self.names.len() as f32;
        let mut scores = vec![0.0f32; self.names.len()];
        let mut touched: Vec<u32> = Vec::new();
        for (id, weight) in query_terms {
            let postings = &self.postings[id as usize];
            let found = postings.len() as f32;
            let idf = weight * (1.0 + (total - found + 0.5) / (found + 0.5)).ln();
            for &(doc, frequency) in postings {
                let norm = K1 * (1.0 - B + B * self.lengths[doc as usize] / self.average_length);
                let score = &mut scores[doc as usize];
                if *score == 0.0 {
                    touched.push(doc);
                }
                *score += idf * frequency * (K1 + 1.0) / (frequency + norm);
            }
        }
        let mut ranked: Vec<(usize, f32)> = touched
            .into_iter()
            .map(|doc| (doc as usize, scores[doc as usize]))
            .filter(|(_, score)| *score > 0.0)
            .collect();
        let order = |a: &(usize, f32), b: &(usize, f32)| {
            b.1.total_cmp(&a.1)
                .then_with(|| self.names[a.0].cmp(&self.names[b.0]))
        };
        crate::order::sort_by(&mut ranked, order);
        ranked.truncate(limit);
        ranked
    }

    /// How many tools are indexed.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether no tool is indexed.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// Feeds the names, descriptions, titles and string enum values of a
/// schema's properties to `count`, nested objects and array items included
/// down to [`MAX_SCHEMA_DEPTH`].
fn schema_text(schema: &Value, depth: usize, count: &mut impl FnMut(&str, f32)) {
    if depth > MAX_SCHEMA_DEPTH {
        return;
    }
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        if let Some(items) = schema.get("items") {
            schema_text(items, depth + 1, count);
        }
        return;
    };
    for (name, property) in properties {
        count(name, PARAM_NAME_WEIGHT);
        for key in ["title", "description"] {
            if let Some(text) = property.get(key).and_then(Value::as_str) {
                count(text, PARAM_TEXT_WEIGHT);
            }
        }
        if let Some(values) = property.get("enum").and_then(Value::as_array) {
            for value in values.iter().filter_map(Value::as_str) {
                count(value, PARAM_TEXT_WEIGHT);
            }
        }
        schema_text(property, depth + 1, count);
    }
}

/// Which tools a registry defers: those matching `defer`, or, when
/// `always` is given, every tool it does not match; a tool `always`
/// matches is never deferred.
#[derive(Debug, Clone, Default)]
pub(crate) struct Deferral {
    pub(crate) defer: Option<Allowlist>,
    pub(crate) always: Option<Allowlist>,
}

impl Deferral {
    /// Whether any tool may be deferred.
    pub(crate) fn is_set(&self) -> bool {
        self.defer.is_some() || self.always.is_some()
    }

    /// Whether the tool named `name` is deferred. The search tool never is.
    pub(crate) fn defers(&self, name: &str) -> bool {
        if name == SearchTool::NAME || self.always.as_ref().is_some_and(|a| a.allows(name)) {
            return false;
        }
        self.always.is_some() || self.defer.as_ref().is_some_and(|d| d.allows(name))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn spec(name: &str, description: &str, schema: Value) -> ToolSpec {
        ToolSpec::new(name.to_owned(), description.to_owned(), schema)
    }

    fn specs() -> Vec<ToolSpec> {
        vec![
            spec(
                "get_weather",
                "Current conditions for a city.",
                json!({"type": "object", "properties": {
                    "city": {"type": "string", "description": "City name"},
                    "unit": {"enum": ["celsius", "fahrenheit"]}
                }}),
            ),
            spec(
                "send_email",
                "Sends a message to a recipient.",
                json!({"type": "object", "properties": {
                    "to": {"type": "string", "description": "Recipient address"},
                    "attachment": {"type": "object", "properties": {
                        "mimeType": {"type": "string", "description": "Media type of the file"}
                    }}
                }}),
            ),
            spec("sendSms", "Texts a phone number.", json!({})),
            spec("list_files", "Lists the files of a folder.", json!({})),
        ]
    }

    #[test]
    fn names_weigh_more_than_descriptions() {
        let index = ToolIndex::new(&specs());
        let hits = index.search("weather", 5);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].name, "get_weather");
        assert!(hits[0].score > 0.0);
        assert_eq!(index.search("send", 5)[0].name, "sendSms");
    }

    #[test]
    fn parameters_and_enum_values_are_indexed() {
        let index = ToolIndex::new(&specs());
        assert_eq!(index.search("fahrenheit", 5)[0].name, "get_weather");
        assert_eq!(index.search("media type", 5)[0].name, "send_email");
        assert_eq!(index.search("recipient", 5)[0].name, "send_email");
    }

    #[test]
    fn limit_and_order_are_kept() {
        let index = ToolIndex::new(&specs());
        assert!(index.search("send", 0).is_empty());
        let hits = index.search("send email file city", 2);
        assert_eq!(hits.len(), 2);
        assert!(hits[0].score >= hits[1].score);
        assert!(index.search("", 5).is_empty());
        assert!(ToolIndex::new([]).search("send", 5).is_empty());
    }

    #[test]
    fn deferral_rules() {
        let none = Deferral::default();
        assert!(!none.is_set() && !none.defers("a"));
        let by_prefix = Deferral {
            defer: Some(Allowlist::new(["crm_*"])),
            always: Some(Allowlist::new(["crm_lookup"])),
        };
        assert!(by_prefix.defers("crm_delete") && by_prefix.defers("other"));
        assert!(!by_prefix.defers("crm_lookup"));
        let some = Deferral {
            defer: Some(Allowlist::new(["crm_*"])),
            always: None,
        };
        assert!(some.defers("crm_delete") && !some.defers("other"));
        assert!(!some.defers(SearchTool::NAME));
    }
}
