//! The rules MCP sets on a header parameter's declaration: where the
//! `x-mcp-header` keyword may stand, on what type, with what name
//! ([`header_params`]), and the walk that finds the declarations of a
//! schema without judging them ([`for_each`]).

use std::fmt;

use serde_json::{Map, Value};

use tool_runtime::__private::quote;

use super::KEYWORD;

/// How deep [`header_params`] and [`for_each`] look into a schema.
const MAX_DEPTH: usize = 128;

/// One header parameter of a schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderParam {
    /// The property names from the root of the arguments to the value:
    /// `["region"]` for a top-level parameter.
    pub path: Vec<String>,
    /// The header's name as declared: the `{name}` of `Mcp-Param-{name}`.
    pub name: String,
}

/// A rule of MCP's an `x-mcp-header` keyword breaks, with where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderProblem {
    /// The JSON pointer of the schema that holds the keyword.
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for HeaderProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pointer = if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        };
        write!(f, "{pointer}: {}", self.message)
    }
}

/// Whether `name` is an HTTP token (RFC 9110 section 5.6.2), as the name
/// of a header parameter must be.
pub fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'!' | b'#'
                        | b'$'
                        | b'%'
                        | b'&'
                        | b'\''
                        | b'*'
                        | b'+'
                        | b'-'
                        | b'.'
                        | b'^'
                        | b'_'
                        | b'`'
                        | b'|'
                        | b'~'
                )
        })
}

/// Every header parameter of `schema`, in document order, or every rule of
/// MCP's that its `x-mcp-header` keywords break (see the
/// [module documentation](super)).
pub fn header_params(schema: &Value) -> Result<Vec<HeaderParam>, Vec<HeaderProblem>> {
    let mut scan = Scan::default();
    scan.node(schema, "", Some(&[]), 0);
    if scan.problems.is_empty() {
        Ok(scan.found)
    } else {
        Err(scan.problems)
    }
}

/// Calls `found` with the path and the header name of each property of
/// `schema` that a chain of `properties` reaches from the root and that
/// carries `x-mcp-header` with a string value, in document order.
///
/// It reads only those chains and judges nothing (a name that is not a
/// token, a property that is not a primitive): [`header_params`] is the
/// check. It allocates nothing for a schema without header parameters.
pub fn for_each(schema: &Value, mut found: impl FnMut(&Path<'_>, &str)) {
    fn walk(
        object: &Map<String, Value>,
        parent: Option<&Path<'_>>,
        depth: usize,
        found: &mut impl FnMut(&Path<'_>, &str),
    ) {
        let Some(Value::Object(properties)) = object.get("properties") else {
            return;
        };
        for (key, child) in properties {
            let Value::Object(child) = child else {
                continue;
            };
            let path = Path { parent, key };
            if let Some(Value::String(name)) = child.get(KEYWORD) {
                found(&path, name);
            }
            if depth < MAX_DEPTH {
                walk(child, Some(&path), depth + 1, found);
            }
        }
    }
    if let Value::Object(root) = schema {
        walk(root, None, 0, &mut found);
    }
}

/// A property's place in the arguments, as [`for_each`] gives it: its name
/// and its parent's place; made on the stack as the walk goes.
#[derive(Debug, Clone, Copy)]
pub struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    key: &'a str,
}

impl<'a> Path<'a> {
    /// The property names from the root, outermost first.
    pub fn keys(&self) -> Vec<&'a str> {
        let mut keys = match self.parent {
            Some(parent) => parent.keys(),
            None => Vec::new(),
        };
        keys.push(self.key);
        keys
    }

    /// The value at this place in `arguments`, when there is one.
    pub fn lookup<'v>(&self, arguments: &'v Value) -> Option<&'v Value> {
        let parent = match self.parent {
            Some(parent) => parent.lookup(arguments)?,
            None => arguments,
        };
        parent.as_object()?.get(self.key)
    }
}

impl fmt::Display for Path<'_> {
    /// The property names joined with `.`: `filter.region`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(parent) = self.parent {
            write!(f, "{parent}.")?;
        }
        f.write_str(self.key)
    }
}

/// Keywords whose value is one subschema a chain of `properties` may not
/// pass through.
const ONE_SCHEMA: &[&str] = &[
    "items",
    "additionalItems",
    "contains",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
];

/// Keywords whose value is a list of subschemas.
const SCHEMA_LISTS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items"];

/// Keywords whose value maps names to subschemas (`properties` apart).
const SCHEMA_MAPS: &[&str] = &[
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

#[derive(Default)]
struct Scan {
    found: Vec<HeaderParam>,
    problems: Vec<HeaderProblem>,
    /// The names seen, lowercased, with the pointer of each.
    seen: Vec<(String, String)>,
}

impl Scan {
    fn report(&mut self, pointer: &str, message: impl Into<String>) {
        self.problems.push(HeaderProblem {
            pointer: pointer.to_owned(),
            message: message.into(),
        });
    }

    /// `path` is the property path while `properties` alone led here, and
    /// `None` once anything else has.
    fn node(&mut self, schema: &Value, pointer: &str, path: Option<&[String]>, depth: usize) {
        let Value::Object(object) = schema else {
            return;
        };
        if depth > MAX_DEPTH {
            return;
        }
        if let Some(keyword) = object.get(KEYWORD) {
            self.keyword(object, keyword, pointer, path);
        }
        for (key, child) in object {
            let key = key.as_str();
            let at = push_pointer(pointer, key);
            if key == "properties" {
                let Value::Object(properties) = child else {
                    continue;
                };
                for (name, property) in properties {
                    let inner = path.map(|path| {
                        let mut inner = path.to_vec();
                        inner.push(name.clone());
                        inner
                    });
                    self.node(
                        property,
                        &push_pointer(&at, name),
                        inner.as_deref(),
                        depth + 1,
                    );
                }
            } else if ONE_SCHEMA.contains(&key) && child.is_object() {
                self.node(child, &at, None, depth + 1);
            } else if SCHEMA_LISTS.contains(&key)
                && let Value::Array(items) = child
            {
                for (i, item) in items.iter().enumerate() {
                    self.node(item, &push_pointer(&at, &i.to_string()), None, depth + 1);
                }
            } else if SCHEMA_MAPS.contains(&key)
                && let Value::Object(map) = child
            {
                for (name, item) in map {
                    self.node(item, &push_pointer(&at, name), None, depth + 1);
                }
            }
        }
    }

    /// One `x-mcp-header` keyword, on the schema `object` at `pointer`.
    fn keyword(
        &mut self,
        object: &Map<String, Value>,
        keyword: &Value,
        pointer: &str,
        path: Option<&[String]>,
    ) {
        let path = match path {
            Some(path) if !path.is_empty() => path,
            Some(_) => {
                self.report(
                    pointer,
                    "x-mcp-header is on the schema's root; put it on one of its properties",
                );
                return;
            }
            None => {
                self.report(
                    pointer,
                    "x-mcp-header is only allowed on a property reached from the root through \
                     `properties` alone, not under items, anyOf, oneOf, allOf, not, if/then/else, \
                     additionalProperties, $defs or a $ref; move the parameter to the top level \
                     (or into a plain nested object)",
                );
                return;
            }
        };
        let Value::String(name) = keyword else {
            self.report(
                pointer,
                format!(
                    "x-mcp-header must be a string (the header's name), not {}",
                    quote::value(keyword)
                ),
            );
            return;
        };
        let mut sound = true;
        if !is_token(name) {
            sound = false;
            let why = if name.is_empty() {
                "it is empty".to_owned()
            } else {
                let bad = name
                    .chars()
                    .find(|c| !c.is_ascii() || !is_token(c.encode_utf8(&mut [0; 4])))
                    .unwrap_or(' ');
                format!("{bad:?} is not allowed")
            };
            self.report(
                pointer,
                format!(
                    "x-mcp-header \"{}\" is not a header name: {why}. Use letters, digits and \
                     `-` (any of !#$%&'*+-.^_`|~ too), as in \"Region\"",
                    quote::name(name)
                ),
            );
        }
        match object.get("type") {
            Some(Value::String(kind))
                if matches!(kind.as_str(), "string" | "integer" | "boolean") => {}
            Some(Value::String(kind)) if kind == "number" => {
                sound = false;
                self.report(
                    pointer,
                    "x-mcp-header is on a \"number\"; MCP allows it on a string, integer or \
                     boolean property only",
                );
            }
            Some(other) => {
                sound = false;
                self.report(
                    pointer,
                    format!(
                        "x-mcp-header is on a property of type {}; MCP allows it on a single \
                         type of string, integer or boolean (a header is sent only when a value \
                         is given, so leave the property out of `required` rather than making \
                         it nullable)",
                        quote::value(other)
                    ),
                );
            }
            None => {
                sound = false;
                self.report(
                    pointer,
                    "x-mcp-header is on a property without a `type`; give it \"type\": \
                     \"string\", \"integer\" or \"boolean\"",
                );
            }
        }
        let lower = name.to_ascii_lowercase();
        if let Some((_, earlier)) = self.seen.iter().find(|(seen, _)| *seen == lower) {
            let earlier = earlier.clone();
            self.report(
                pointer,
                format!(
                    "x-mcp-header \"{}\" is also the header of {earlier} (names are compared \
                     ignoring case); give each parameter its own header name",
                    quote::name(name)
                ),
            );
            return;
        }
        self.seen.push((lower, pointer.to_owned()));
        if sound {
            self.found.push(HeaderParam {
                path: path.to_vec(),
                name: name.clone(),
            });
        }
    }
}

/// Appends one reference token to a JSON pointer.
fn push_pointer(pointer: &str, token: &str) -> String {
    let escaped = token.replace('~', "~0").replace('/', "~1");
    format!("{pointer}/{escaped}")
}

/// Why a tool whose input schema is `schema` cannot be served over MCP,
/// when its header parameters break MCP's rules: every problem
/// [`header_params`] finds, in one sentence.
pub(crate) fn refusal(schema: &Value) -> Option<String> {
    let problems = header_params(schema).err()?;
    let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
    Some(format!(
        "its x-mcp-header keywords break MCP's rules: {}",
        problems.join("; ")
    ))
}
