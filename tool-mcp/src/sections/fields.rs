//! Reading one entry of a section: a mapping whose keys are checked
//! against those it takes, with each mistake at its place.

use std::path::{Component, Path, PathBuf};

use tool_manifest::{Key, Location, Node, SectionReader};

/// The keys of one mapping, checked: those it takes, each once.
pub(super) struct Fields<'a> {
    /// What the mapping is, for messages: "a resource", "prompt \"review\"".
    pub(super) what: String,
    entries: Vec<(Key<'a>, Node<'a>)>,
    /// Where the mapping starts (its first key).
    pub(super) at: Location,
}

impl<'a> Fields<'a> {
    /// `node`'s keys, when it is a mapping whose keys are all among
    /// `keys`; each other key (and a mapping that is not one) is a
    /// mistake. `None` when `node` is not a mapping.
    pub(super) fn read(
        node: Node<'a>,
        what: &str,
        keys: &[&str],
        reader: &mut SectionReader<'_>,
    ) -> Option<Self> {
        let Some(entries) = node.entries() else {
            reader.problem(
                Some(node.location()),
                format!("{what} must be a mapping with the keys {}", listed(keys)),
            );
            return None;
        };
        let entries: Vec<_> = entries.collect();
        for (key, _) in &entries {
            if !keys.contains(&key.as_str()) {
                reader.problem(
                    Some(key.location()),
                    format!(
                        "unknown key \"{}\" in {what}; it takes {}",
                        key.as_str().escape_debug(),
                        listed(keys)
                    ),
                );
            }
        }
        // Where its first key is: a mapping's own place is where its
        // first value starts.
        let at = entries
            .first()
            .map_or(node.location(), |(key, _)| key.location());
        Some(Fields {
            what: what.to_owned(),
            entries,
            at,
        })
    }

    /// The value of `key`, with where its key was written.
    pub(super) fn get(&self, key: &str) -> Option<(Location, Node<'a>)> {
        self.entries
            .iter()
            .find(|(k, _)| k.as_str() == key)
            .map(|(k, node)| (k.location(), *node))
    }

    /// Whether the mapping has `key`.
    pub(super) fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The text of `key`, when given and text; a list or a mapping is a
    /// mistake at its key.
    pub(super) fn text(&self, key: &str, reader: &mut SectionReader<'_>) -> Option<Spanned> {
        let (at, node) = self.get(key)?;
        match node.as_text() {
            Some(text) => Some(Spanned {
                text: text.to_owned(),
                key: at,
                value: node.location(),
            }),
            None => {
                reader.problem(Some(at), format!("`{key}` of {} is text", self.what));
                None
            }
        }
    }

    /// The text of `key`, which the mapping must have.
    pub(super) fn required_text(
        &self,
        key: &str,
        reader: &mut SectionReader<'_>,
        hint: &str,
    ) -> Option<Spanned> {
        if !self.has(key) {
            reader.problem(
                Some(self.at),
                format!("{} needs `{key}`: {hint}", self.what),
            );
            return None;
        }
        self.text(key, reader)
    }

    /// `key` as `true` or `false` (`false` when not given).
    pub(super) fn flag(&self, key: &str, reader: &mut SectionReader<'_>) -> bool {
        let Some((at, node)) = self.get(key) else {
            return false;
        };
        match node.as_text() {
            Some("true") => true,
            Some("false") => false,
            _ => {
                reader.problem(
                    Some(at),
                    format!("`{key}` of {} is `true` or `false`", self.what),
                );
                false
            }
        }
    }

    /// `key` as a list of texts (empty when not given).
    pub(super) fn texts(&self, key: &str, reader: &mut SectionReader<'_>) -> Vec<String> {
        let Some((at, node)) = self.get(key) else {
            return Vec::new();
        };
        let texts: Option<Vec<String>> = node.items().and_then(|items| {
            items
                .map(|item| item.as_text().map(str::to_owned))
                .collect()
        });
        texts.unwrap_or_else(|| {
            reader.problem(
                Some(at),
                format!("`{key}` of {} is a list of texts", self.what),
            );
            Vec::new()
        })
    }
}

/// A text value, with where its key and the value were written.
#[derive(Debug, Clone)]
pub(super) struct Spanned {
    pub(super) text: String,
    pub(super) key: Location,
    pub(super) value: Location,
}

/// `keys` for a message: "`a`, `b` and `c`".
fn listed(keys: &[&str]) -> String {
    let quoted: Vec<String> = keys.iter().map(|key| format!("`{key}`")).collect();
    match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => "no keys".to_owned(),
    }
}

/// The path `key` of `fields` names, when it is a safe one: relative,
/// without `..`, not empty, without NUL; otherwise a mistake at its key.
pub(super) fn relative_path(
    fields: &Fields<'_>,
    key: &str,
    reader: &mut SectionReader<'_>,
) -> Option<(PathBuf, Spanned)> {
    let spanned = fields.text(key, reader)?;
    let path = Path::new(&spanned.text);
    let safe = !spanned.text.is_empty()
        && !spanned.text.contains('\0')
        && path
            .components()
            .all(|part| matches!(part, Component::Normal(_) | Component::CurDir));
    if !safe {
        reader.problem(
            Some(spanned.key),
            format!(
                "`{key}` of {} is a path relative to the registry file's folder, below it \
                 (no `..`, not absolute): \"{}\" is not",
                fields.what,
                spanned.text.escape_debug()
            ),
        );
        return None;
    }
    Some((path.to_path_buf(), spanned))
}
