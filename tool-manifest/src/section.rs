//! The seam through which a registry file's sections besides `tools` are
//! read by the crates that use them: [`Section`], the node a section is
//! given ([`Node`], [`Key`]), and the context that records where values
//! were written and collects mistakes ([`SectionReader`]).

use std::any::{Any, TypeId};
use std::fmt;

use marked_yaml::Node as Yaml;
use serde_json::Value;

use crate::document::{Location, Locations, location, to_json};
use crate::problem::ManifestProblem;

/// A section of a registry file besides `tools`, read by the crate that
/// uses it: its key at the file's top level, its JSON Schema, and how its
/// value becomes entries.
///
/// A program names the sections it reads when it parses a file
/// ([`Manifest::parse_with`]); a key no given section has is an unknown
/// key, reported at its line and column. The entries come back typed with
/// [`Manifest::section`].
///
/// ```
/// use serde_json::{Value, json};
/// use tool_manifest::{Manifest, Node, Section, SectionReader};
///
/// /// Greetings by language: `greetings: {en: Hello}`.
/// struct Greetings;
///
/// impl Section for Greetings {
///     type Entries = Vec<(String, String)>;
///
///     fn key(&self) -> &'static str {
///         "greetings"
///     }
///     fn description(&self) -> &'static str {
///         "a `greetings` mapping"
///     }
///     fn schema(&self) -> Value {
///         json!({"type": "object", "additionalProperties": {"type": "string"}})
///     }
///     fn read(&self, node: Node<'_>, reader: &mut SectionReader<'_>) -> Self::Entries {
///         let Some(entries) = node.entries() else {
///             reader.problem(Some(node.location()), "`greetings` must be a mapping");
///             return Vec::new();
///         };
///         let mut greetings = Vec::new();
///         for (language, text) in entries {
///             match text.as_text() {
///                 Some(text) => greetings.push((language.as_str().to_owned(), text.to_owned())),
///                 None => reader.problem(Some(text.location()), "a greeting is text"),
///             }
///         }
///         greetings
///     }
/// }
///
/// let text = "tools: []\ngreetings:\n  en: Hello\n  fr: [Bonjour]\n";
/// let manifest = Manifest::parse_with("tools.yaml", text, &[&Greetings]).unwrap();
/// assert_eq!(manifest.section::<Greetings>().unwrap()[0], ("en".into(), "Hello".into()));
/// assert_eq!(manifest.problems()[0].to_string(), "4:7: a greeting is text");
///
/// // Without the section, its key is unknown.
/// let manifest = Manifest::parse("tools.yaml", text).unwrap();
/// assert_eq!(
///     manifest.problems()[0].to_string(),
///     "2:1: unknown key \"greetings\"; the file has a `tools` list (and optionally `$schema`)"
/// );
/// ```
///
/// [`Manifest::parse_with`]: crate::Manifest::parse_with
/// [`Manifest::section`]: crate::Manifest::section
pub trait Section: Send + Sync + 'static {
    /// What reading the section gives, such as its entries in file order.
    type Entries: Send + Sync + 'static;

    /// The section's key at the file's top level.
    fn key(&self) -> &'static str;

    /// The section in a few words, as the message about an unknown key
    /// lists the file's sections: "a `greetings` mapping".
    fn description(&self) -> &'static str;

    /// The JSON Schema of the section's value, for the file's schema
    /// ([`schema_with`](crate::schema_with)).
    fn schema(&self) -> Value;

    /// Reads the section's value. Each mistake goes to `reader` with its
    /// location, and reading goes on past it, so that a file shows every
    /// mistake at once.
    fn read(&self, node: Node<'_>, reader: &mut SectionReader<'_>) -> Self::Entries;
}

mod sealed {
    pub trait Sealed {}

    impl<S: super::Section> Sealed for S {}
}

/// A [`Section`] whatever its entries, as a list of sections holds it:
/// every `Section` is one.
///
/// Its methods are the section's own; [`read_any`](Self::read_any) gives
/// the entries boxed.
pub trait AnySection: sealed::Sealed + Send + Sync {
    /// [`Section::key`].
    fn key(&self) -> &'static str;

    /// [`Section::description`].
    fn description(&self) -> &'static str;

    /// [`Section::schema`].
    fn schema(&self) -> Value;

    /// The [`TypeId`] of the section's type, by which its entries are found.
    fn section_type(&self) -> TypeId;

    /// [`Section::read`], the entries boxed.
    fn read_any(
        &self,
        node: Node<'_>,
        reader: &mut SectionReader<'_>,
    ) -> Box<dyn Any + Send + Sync>;
}

impl<S: Section> AnySection for S {
    fn key(&self) -> &'static str {
        Section::key(self)
    }

    fn description(&self) -> &'static str {
        Section::description(self)
    }

    fn schema(&self) -> Value {
        Section::schema(self)
    }

    fn section_type(&self) -> TypeId {
        TypeId::of::<S>()
    }

    fn read_any(
        &self,
        node: Node<'_>,
        reader: &mut SectionReader<'_>,
    ) -> Box<dyn Any + Send + Sync> {
        Box::new(self.read(node, reader))
    }
}

impl fmt::Debug for dyn AnySection + '_ {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Section").field("key", &self.key()).finish()
    }
}

/// A value in a registry file, as a [`Section`] reads it: a scalar, a
/// list or a mapping, with where it was written.
#[derive(Debug, Clone, Copy)]
pub struct Node<'a> {
    node: &'a Yaml,
}

impl<'a> Node<'a> {
    pub(crate) fn new(node: &'a Yaml) -> Self {
        Node { node }
    }

    /// Where the value starts.
    pub fn location(self) -> Location {
        location(self.node.span().start())
    }

    /// A scalar's text, as written (a number or `true` too); `None` for a
    /// list or a mapping.
    pub fn as_text(self) -> Option<&'a str> {
        self.node.as_scalar().map(|scalar| scalar.as_str())
    }

    /// A mapping's keys and values, in file order; `None` for a scalar or
    /// a list.
    pub fn entries(self) -> Option<impl Iterator<Item = (Key<'a>, Node<'a>)>> {
        let mapping = self.node.as_mapping()?;
        Some(mapping.iter().map(|(key, value)| {
            let key = Key {
                text: key.as_str(),
                location: location(key.span().start()),
            };
            (key, Node::new(value))
        }))
    }

    /// A list's items, in file order; `None` for a scalar or a mapping.
    pub fn items(self) -> Option<impl Iterator<Item = Node<'a>>> {
        let items = self.node.as_sequence()?;
        Some(items.iter().map(Node::new))
    }

    /// The value of `key` in a mapping.
    pub fn get(self, key: &str) -> Option<Node<'a>> {
        self.node.as_mapping()?.get_node(key).map(Node::new)
    }

    /// Whether the value is a mapping.
    pub fn is_mapping(self) -> bool {
        self.node.as_mapping().is_some()
    }
}

/// A key of a mapping in a registry file, with where it was written.
#[derive(Debug, Clone, Copy)]
pub struct Key<'a> {
    text: &'a str,
    location: Location,
}

impl<'a> Key<'a> {
    /// The key's text.
    pub fn as_str(self) -> &'a str {
        self.text
    }

    /// Where the key was written.
    pub fn location(self) -> Location {
        self.location
    }
}

/// What a [`Section`] reads with: it records where the values and keys it
/// takes as JSON were written, by JSON pointer, for
/// [`Manifest::location_of`](crate::Manifest::location_of) and
/// [`Manifest::key_location_of`](crate::Manifest::key_location_of), and
/// collects the mistakes it finds with those of the rest of the file.
#[derive(Debug)]
pub struct SectionReader<'a> {
    pub(crate) locations: &'a mut Locations,
    pub(crate) problems: &'a mut Vec<ManifestProblem>,
}

impl SectionReader<'_> {
    /// `node` as JSON (plain scalars typed as YAML 1.2's core schema:
    /// null, booleans, numbers; quoted scalars stay strings), recording
    /// where each value and key below it was written, `pointer` naming
    /// `node` itself (`/greetings/en`; see
    /// [`pointer_token`](crate::pointer_token)).
    pub fn to_json(&mut self, node: Node<'_>, pointer: &str) -> Value {
        to_json(node.node, pointer, self.locations)
    }

    /// Where the value at `pointer` was written, when recorded.
    pub fn location_of(&self, pointer: &str) -> Option<Location> {
        self.locations.values.get(pointer).copied()
    }

    /// Where the key of the value at `pointer` was written, when recorded.
    pub fn key_location_of(&self, pointer: &str) -> Option<Location> {
        self.locations.keys.get(pointer).copied()
    }

    /// A mistake at `location` (when known): what is wrong and what to
    /// write instead.
    pub fn problem(&mut self, location: Option<Location>, message: impl Into<String>) {
        self.problems.push(ManifestProblem {
            location,
            message: message.into(),
        });
    }
}
