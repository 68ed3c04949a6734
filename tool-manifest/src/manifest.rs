//! `Manifest`: a parsed registry file, the sections it was read with, and
//! the registry it describes.

use std::any::{Any, TypeId};
use std::sync::Arc;

use marked_yaml::types::MarkedScalarNode;
use tool_runtime_core::{Registry, RegistryBuilder};

use crate::document::{Location, Locations, parse_yaml};
use crate::problem::{ManifestError, ManifestProblem, problem};
use crate::section::{AnySection, Node, Section, SectionReader};
use crate::tools;

/// A parsed registry file.
#[derive(Debug, Clone)]
pub struct Manifest {
    source: String,
    entries: Vec<tools::Entry>,
    /// Where each value and each key was written, by JSON pointer.
    locations: Locations,
    /// Mistakes found while reading, reported with those found at build.
    problems: Vec<ManifestProblem>,
    /// What the given sections read, in the order they were given.
    sections: Vec<SectionEntries>,
}

/// The entries one section read, by the section's type.
#[derive(Clone)]
struct SectionEntries {
    section: TypeId,
    key: &'static str,
    entries: Arc<dyn Any + Send + Sync>,
}

impl std::fmt::Debug for SectionEntries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SectionEntries")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

impl Manifest {
    /// Reads a registry file from disk: its `tools` (see
    /// [`from_path_with`](Self::from_path_with) for more sections).
    pub fn from_path(path: impl AsRef<std::path::Path>) -> Result<Self, ManifestError> {
        Self::from_path_with(path, &[])
    }

    /// Reads a registry file from disk with `sections` besides `tools`.
    pub fn from_path_with(
        path: impl AsRef<std::path::Path>,
        sections: &[&dyn AnySection],
    ) -> Result<Self, ManifestError> {
        let path = path.as_ref();
        let source = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|error| ManifestError {
            source: source.clone(),
            problems: vec![ManifestProblem {
                location: None,
                message: format!("cannot read the file: {error}"),
            }],
        })?;
        Self::parse_with(&source, &text, sections)
    }

    /// Parses a registry file's text; `source` names it in messages. The
    /// file has `tools` (and optionally `$schema`) alone: see
    /// [`parse_with`](Self::parse_with) for more sections.
    pub fn parse(source: &str, text: &str) -> Result<Self, ManifestError> {
        Self::parse_with(source, text, &[])
    }

    /// Parses a registry file's text with `sections` besides `tools`,
    /// which other crates provide; `source` names it in messages. A key no
    /// section has is a mistake, at its line and column. When two sections
    /// have one key, the first reads it.
    ///
    /// The result is an error only when the text cannot be read as a
    /// mapping; the mistakes inside it are kept ([`problems`](Self::problems))
    /// and reported at [`build`](Self::build), with the ones only the
    /// registry can find.
    pub fn parse_with(
        source: &str,
        text: &str,
        sections: &[&dyn AnySection],
    ) -> Result<Self, ManifestError> {
        let fail = |problems: Vec<ManifestProblem>| ManifestError {
            source: source.to_owned(),
            problems,
        };
        let root = parse_yaml(text).map_err(|error| {
            fail(vec![ManifestProblem {
                location: None,
                message: format!("not valid YAML: {error}"),
            }])
        })?;
        let Some(root) = root.as_mapping() else {
            return Err(fail(vec![problem(
                root.span().start(),
                "the file must be a mapping with a `tools` list",
            )]));
        };
        let mut problems = Vec::new();
        let mut locations = Locations::default();
        unknown_sections(root.iter().map(|(key, _)| key), sections, &mut problems);
        let mut read = Vec::new();
        for (index, section) in sections.iter().enumerate() {
            let key = section.key();
            let first = sections[..index].iter().all(|other| other.key() != key);
            let Some(node) = root.get_node(key).filter(|_| first && key != "tools") else {
                continue;
            };
            let mut reader = SectionReader {
                locations: &mut locations,
                problems: &mut problems,
            };
            let entries = section.read_any(Node::new(node), &mut reader);
            read.push(SectionEntries {
                section: section.section_type(),
                key,
                entries: Arc::from(entries),
            });
        }
        let entries = tools::read(root, !read.is_empty(), &mut locations, &mut problems);
        Ok(Manifest {
            source: source.to_owned(),
            entries,
            locations,
            problems,
            sections: read,
        })
    }

    /// The mistakes found while reading the file (more may show at build).
    pub fn problems(&self) -> &[ManifestProblem] {
        &self.problems
    }

    /// What the section `S` read: `None` when the file does not have it,
    /// or when `S` was not among the sections the file was parsed with.
    pub fn section<S: Section>(&self) -> Option<&S::Entries> {
        self.sections
            .iter()
            .find(|read| read.section == TypeId::of::<S>())
            .and_then(|read| read.entries.downcast_ref())
    }

    /// Where the value at `pointer` was written: a JSON pointer (RFC 6901)
    /// into the file as JSON, such as `/tools/2/config/max_results`. A
    /// section records the places of the values it reads
    /// ([`SectionReader::to_json`]).
    pub fn location_of(&self, pointer: &str) -> Option<Location> {
        self.locations.values.get(pointer).copied()
    }

    /// Where the key of the value at `pointer` was written
    /// (`/tools/2/config/max_results` gives where `max_results:` is), for a
    /// mistake in the key itself.
    pub fn key_location_of(&self, pointer: &str) -> Option<Location> {
        self.locations.keys.get(pointer).copied()
    }

    /// The name the file goes by in messages (its path).
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The names of the tools the file enables, in file order.
    pub fn tool_names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|entry| entry.name.as_str())
    }

    /// A builder holding the file's tools, aliases and configurations, for
    /// more setup in code before [`RegistryBuilder::build`]. Locations are
    /// lost on this path; [`build`](Self::build) keeps them.
    pub fn builder(&self) -> RegistryBuilder {
        tools::configure(&self.entries, Registry::builder())
    }

    /// Builds the registry the file describes, reporting every mistake with
    /// its location.
    pub fn build(&self) -> Result<Registry, ManifestError> {
        self.build_with(Registry::builder())
    }

    /// Like [`build`](Self::build), starting from a builder set up in code
    /// (state, policies, configuration the file may override).
    pub fn build_with(&self, builder: RegistryBuilder) -> Result<Registry, ManifestError> {
        let mut problems = self.problems.clone();
        problems.extend(tools::duplicates(&self.entries));
        match tools::configure(&self.entries, builder).build() {
            Ok(registry) if problems.is_empty() => return Ok(registry),
            Ok(_) => {}
            Err(error) => {
                for registry_problem in error.problems() {
                    problems.extend(tools::locate(
                        &self.entries,
                        &self.locations,
                        registry_problem,
                    ));
                }
            }
        }
        problems.sort_by_key(|p| p.location.map(|l| (l.line, l.column)));
        Err(ManifestError {
            source: self.source.clone(),
            problems,
        })
    }
}

/// A problem for each top-level key that is not `tools`, `$schema` or one
/// of `sections`, with the key it is closest to.
fn unknown_sections<'a>(
    keys: impl Iterator<Item = &'a MarkedScalarNode>,
    sections: &[&dyn AnySection],
    problems: &mut Vec<ManifestProblem>,
) {
    let known = || std::iter::once("tools").chain(sections.iter().map(|s| s.key()));
    for key in keys {
        if known().any(|known| known == key.as_str()) || key.as_str() == "$schema" {
            continue;
        }
        let suggestion = tool_runtime_core::__private::names::closest(key.as_str(), known())
            .map(|s| format!("did you mean \"{s}\"? "))
            .unwrap_or_default();
        problems.push(problem(
            key.span().start(),
            format!(
                "unknown key \"{}\"; {suggestion}the file has {} (and optionally `$schema`)",
                tool_runtime_core::__private::quote::name(key.as_str()),
                described(sections),
            ),
        ));
    }
}

/// The file's sections in words: "a `tools` list, a `greetings` mapping
/// and ...".
fn described(sections: &[&dyn AnySection]) -> String {
    let mut parts: Vec<&str> = vec!["a `tools` list"];
    for section in sections {
        if !parts.contains(&section.description()) {
            parts.push(section.description());
        }
    }
    match parts.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => parts.join(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_problem_reads_line_column_and_message() {
        let problem = ManifestProblem {
            location: Some(Location {
                line: 12,
                column: 5,
            }),
            message: "tool \"search\" is listed twice (first at line 4); remove one entry".into(),
        };
        assert_eq!(
            problem.to_string(),
            "12:5: tool \"search\" is listed twice (first at line 4); remove one entry"
        );
        let unplaced = ManifestProblem {
            location: None,
            message: "cannot read the file: not found".into(),
        };
        assert_eq!(unplaced.to_string(), "cannot read the file: not found");
        let error = ManifestError {
            source: "tools.yaml".into(),
            problems: vec![problem, unplaced],
        };
        assert_eq!(
            error.to_string(),
            "tools.yaml:12:5: tool \"search\" is listed twice (first at line 4); remove one entry\n\
             tools.yaml: cannot read the file: not found"
        );
    }
}
