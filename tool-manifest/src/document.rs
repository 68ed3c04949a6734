//! Reading YAML (or JSON) with the line and column of every value and key:
//! [`Document`], [`Location`], and the JSON pointers that name a place.

use std::collections::HashMap;
use std::fmt;

use marked_yaml::types::Marker;
use marked_yaml::{LoaderOptions, Node};
use serde_json::{Map, Value};

/// Where the values and keys of a YAML or JSON text were written, by the
/// JSON pointer (RFC 6901) of the value.
#[derive(Debug, Clone, Default)]
pub(crate) struct Locations {
    pub(crate) values: HashMap<String, Location>,
    pub(crate) keys: HashMap<String, Location>,
}

/// A YAML or JSON document read with the line and column of every value
/// and key, for files a registry file points at (an API description a
/// section names), so that their mistakes can be reported where they are.
///
/// ```
/// use tool_manifest::{Document, Location};
///
/// let document = Document::parse("version: 3.1.0\npaths:\n  /pets/{id}:\n    get: {}\n").unwrap();
/// assert_eq!(document.value()["version"], "3.1.0");
/// // Pointers are RFC 6901: `/` in a key is written `~1`.
/// assert_eq!(document.location_of("/paths/~1pets~1{id}/get"), Some(Location { line: 4, column: 10 }));
/// assert_eq!(document.key_location_of("/paths/~1pets~1{id}/get"), Some(Location { line: 4, column: 5 }));
/// ```
#[derive(Debug, Clone)]
pub struct Document {
    value: Value,
    locations: Locations,
}

impl Document {
    /// Reads a YAML (or JSON) text. Plain scalars are typed as in registry
    /// files (YAML 1.2's core types); a duplicate key is an error.
    pub fn parse(text: &str) -> Result<Self, String> {
        let root = parse_yaml(text)?;
        let mut locations = Locations::default();
        let value = to_json(&root, "", &mut locations);
        Ok(Document { value, locations })
    }

    /// The document as JSON.
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// Where the value at the JSON pointer `pointer` was written.
    pub fn location_of(&self, pointer: &str) -> Option<Location> {
        self.locations.values.get(pointer).copied()
    }

    /// Where the key of the value at `pointer` was written.
    pub fn key_location_of(&self, pointer: &str) -> Option<Location> {
        self.locations.keys.get(pointer).copied()
    }
}

pub(crate) fn parse_yaml(text: &str) -> Result<Node, String> {
    let options = LoaderOptions::default()
        .error_on_duplicate_keys(true)
        .prevent_coercion(true);
    marked_yaml::parse_yaml_with_options(0, text, options).map_err(|error| error.to_string())
}

/// `token` escaped for a JSON pointer (RFC 6901): `~` as `~0`, `/` as `~1`.
pub fn pointer_token(token: &str) -> std::borrow::Cow<'_, str> {
    if token.contains(['~', '/']) {
        token.replace('~', "~0").replace('/', "~1").into()
    } else {
        token.into()
    }
}

/// A line and column in a registry file, counting from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    /// The line.
    pub line: usize,
    /// The column.
    pub column: usize,
}

impl From<&Marker> for Location {
    fn from(marker: &Marker) -> Self {
        Location {
            line: marker.line(),
            column: marker.column(),
        }
    }
}

impl fmt::Display for Location {
    /// `line:column`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// Where a node starts; the file's start when not known.
pub(crate) fn location(marker: Option<&Marker>) -> Location {
    marker
        .map(Location::from)
        .unwrap_or(Location { line: 1, column: 1 })
}

/// Converts a YAML node to JSON (plain scalars typed as YAML 1.2 core
/// schema: null, booleans, numbers; quoted scalars stay strings), recording
/// where each value and each key was written.
pub(crate) fn to_json(node: &Node, pointer: &str, locations: &mut Locations) -> Value {
    locations
        .values
        .insert(pointer.to_owned(), location(node.span().start()));
    match node {
        Node::Scalar(scalar) => {
            let text = scalar.as_str();
            if !scalar.may_coerce() {
                return Value::String(text.to_owned());
            }
            match text {
                "null" | "Null" | "NULL" | "~" | "" => Value::Null,
                _ => scalar
                    .as_bool()
                    .map(Value::Bool)
                    .or_else(|| scalar.as_i64().map(Value::from))
                    .or_else(|| scalar.as_u64().map(Value::from))
                    .or_else(|| {
                        scalar
                            .as_f64()
                            .filter(|f| f.is_finite())
                            .and_then(|f| serde_json::Number::from_f64(f).map(Value::Number))
                    })
                    .unwrap_or_else(|| Value::String(text.to_owned())),
            }
        }
        Node::Sequence(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| to_json(item, &format!("{pointer}/{i}"), locations))
                .collect(),
        ),
        Node::Mapping(mapping) => {
            let mut object = Map::new();
            for (key, value) in mapping.iter() {
                let child = format!("{pointer}/{}", pointer_token(key.as_str()));
                locations
                    .keys
                    .insert(child.clone(), location(key.span().start()));
                object.insert(key.as_str().to_owned(), to_json(value, &child, locations));
            }
            Value::Object(object)
        }
    }
}
