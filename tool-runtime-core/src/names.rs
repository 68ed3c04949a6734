//! Names beyond a tool's own: aliases (legacy or alternative names a model
//! or a configuration may use), allowlists (which tools a registry may
//! expose and run), and the "did you mean" for a mistyped name
//! ([`closest`]).

use std::collections::HashMap;

/// The names a registry lets through: exact names, and `prefix*` patterns.
///
/// ```
/// use tool_runtime::__private::names::Allowlist;
///
/// let allow = Allowlist::new(["calculator", "file_*"]);
/// assert!(allow.allows("calculator"));
/// assert!(allow.allows("file_read"));
/// assert!(!allow.allows("http_request"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allowlist {
    exact: Vec<String>,
    prefixes: Vec<String>,
}

impl Allowlist {
    /// An allowlist of exact names and `prefix*` patterns (a lone `*`
    /// allows everything).
    pub fn new<I, S>(entries: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut allowlist = Allowlist {
            exact: Vec::new(),
            prefixes: Vec::new(),
        };
        for entry in entries {
            let entry = entry.into();
            match entry.strip_suffix('*') {
                Some(prefix) => allowlist.prefixes.push(prefix.to_owned()),
                None => allowlist.exact.push(entry),
            }
        }
        allowlist
    }

    /// Whether `name` is allowed.
    pub fn allows(&self, name: &str) -> bool {
        self.exact.iter().any(|e| e == name)
            || self.prefixes.iter().any(|p| name.starts_with(p.as_str()))
    }

    /// Adds entries.
    pub fn extend<I, S>(&mut self, entries: I)
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let more = Allowlist::new(entries);
        self.exact.extend(more.exact);
        self.prefixes.extend(more.prefixes);
    }
}

/// The candidate most like `name`, if any is close enough to be a likely
/// typo (a Jaro-Winkler similarity of 0.8 or more); the nearest wins.
///
/// Every "did you mean" of the runtime comes from here: unknown tools,
/// unknown argument fields, unknown keys of a registry file. A program
/// that reports an unknown name of its own (a command line, a server) gets
/// the same suggestions by passing the names it knows, for instance
/// [`Registry::names`](crate::Registry::names).
///
/// ```
/// use tool_runtime::__private::names::closest;
///
/// let names = ["city", "days", "unit"];
/// assert_eq!(closest("cty", names.into_iter()), Some("city"));
/// assert_eq!(closest("zzzz", names.into_iter()), None);
/// ```
pub fn closest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .map(|candidate| (strsim::jaro_winkler(name, candidate), candidate))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate)
}

/// Which tool each alias stands for, built with collision checks.
#[derive(Debug, Clone, Default)]
pub(crate) struct Aliases {
    map: HashMap<String, usize>,
}

/// Where a name came from, for collision messages.
fn describe_owner(tool: &str, alias: Option<&str>) -> String {
    match alias {
        Some(alias) => format!("alias \"{alias}\" of tool \"{tool}\""),
        None => format!("tool \"{tool}\""),
    }
}

impl Aliases {
    /// Builds the alias map for tools with these canonical names; `aliases`
    /// pairs each tool index with an alias. Returns every collision: an alias
    /// equal to a tool's name or to another tool's alias, as (name, first
    /// owner, second owner).
    pub(crate) fn build(
        names: &[&str],
        aliases: impl IntoIterator<Item = (usize, String)>,
    ) -> (Self, Vec<(String, String, String)>) {
        let mut map: HashMap<String, usize> = HashMap::new();
        let mut collisions = Vec::new();
        for (index, alias) in aliases {
            let tool = names[index];
            if alias == tool {
                continue;
            }
            if let Some(owner) = names.iter().position(|n| *n == alias) {
                collisions.push((
                    alias.clone(),
                    describe_owner(names[owner], None),
                    describe_owner(tool, Some(&alias)),
                ));
                continue;
            }
            match map.get(&alias) {
                Some(&other) if other == index => {}
                Some(&other) => collisions.push((
                    alias.clone(),
                    describe_owner(names[other], Some(&alias)),
                    describe_owner(tool, Some(&alias)),
                )),
                None => {
                    map.insert(alias, index);
                }
            }
        }
        (Aliases { map }, collisions)
    }

    /// The index of the tool `alias` stands for.
    pub(crate) fn get(&self, alias: &str) -> Option<usize> {
        self.map.get(alias).copied()
    }

    /// Every alias, with its tool's index.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, usize)> {
        self.map
            .iter()
            .map(|(alias, index)| (alias.as_str(), *index))
    }
}
