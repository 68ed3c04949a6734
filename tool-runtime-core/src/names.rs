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
pub fn closest<'a>(name: &str, mut candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    closest_of(name, &mut candidates)
}

/// [`closest`], compiled once for every kind of iterator.
fn closest_of<'a>(name: &str, candidates: &mut dyn Iterator<Item = &'a str>) -> Option<&'a str> {
    let mut best: Option<(f64, &str)> = None;
    for candidate in candidates {
        let score = jaro_winkler(name, candidate);
        // Of equal scores the last wins, as with `Iterator::max_by`.
        if score >= 0.8 && best.is_none_or(|(top, _)| score >= top) {
            best = Some((score, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// The Jaro-Winkler similarity of `a` and `b` by characters, from 0 (nothing
/// alike) to 1 (equal): `strsim::jaro_winkler`'s, to the last bit, written
/// here so a user's build compiles no crate for it (docs/architecture.md,
/// "Did you mean, without `strsim`"; the macro has the same function).
fn jaro_winkler(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let jaro = jaro(&a, &b);
    if jaro <= 0.7 {
        return jaro;
    }
    let mut prefix = 0;
    while prefix < 4 && prefix < a.len() && prefix < b.len() && a[prefix] == b[prefix] {
        prefix += 1;
    }
    jaro + 0.1 * prefix as f64 * (1.0 - jaro)
}

/// The Jaro similarity: the characters of each that match one of the other
/// within half the longer length, and how many of those are out of order.
fn jaro(a: &[char], b: &[char]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return if a.is_empty() && b.is_empty() {
            1.0
        } else {
            0.0
        };
    }
    let range = (a.len().max(b.len()) / 2).saturating_sub(1);
    let mut a_matched = vec![false; a.len()];
    let mut b_matched = vec![false; b.len()];
    let mut matches = 0;
    for (i, &c) in a.iter().enumerate() {
        for j in i.saturating_sub(range)..b.len().min(i + range + 1) {
            if !b_matched[j] && b[j] == c {
                a_matched[i] = true;
                b_matched[j] = true;
                matches += 1;
                break;
            }
        }
    }
    if matches == 0 {
        return 0.0;
    }
    // The matched characters of each, in order: pairs that differ.
    let mut transpositions = 0;
    let mut j = 0;
    for (i, &c) in a.iter().enumerate() {
        if a_matched[i] {
            while !b_matched[j] {
                j += 1;
            }
            if b[j] != c {
                transpositions += 1;
            }
            j += 1;
        }
    }
    let m = matches as f64;
    ((m / a.len() as f64) + (m / b.len() as f64) + ((matches - transpositions / 2) as f64 / m))
        / 3.0
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn similarity_is_strsims_to_the_last_bit() {
        // Words near each other from a small alphabet (accents included, as
        // characters count, not bytes), every pair of lengths up to 9.
        const LETTERS: [char; 7] = ['a', 'b', 'c', 'd', 'é', '_', 'ß'];
        let mut seed = 3u64;
        let word = |seed: &mut u64| -> String {
            *seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let length = (*seed >> 60) as usize % 10;
            (0..length)
                .map(|i| LETTERS[(*seed >> (4 * i + 8)) as usize % LETTERS.len()])
                .collect()
        };
        for _ in 0..20_000 {
            let (a, b) = (word(&mut seed), word(&mut seed));
            assert_eq!(
                jaro_winkler(&a, &b).to_bits(),
                strsim::jaro_winkler(&a, &b).to_bits(),
                "{a:?} {b:?}"
            );
        }
        for (a, b) in [("cheeseburger", "cheese fries"), ("city", "cty"), ("", "")] {
            assert_eq!(jaro_winkler(a, b), strsim::jaro_winkler(a, b));
        }
    }

    #[test]
    fn closest_takes_the_best_and_of_equals_the_last() {
        let names = ["city", "days", "unit"];
        assert_eq!(closest("cty", names.into_iter()), Some("city"));
        assert_eq!(closest("zzzz", names.into_iter()), None);
        assert_eq!(closest("ab", ["ab", "ab"].into_iter()), Some("ab"));
        // Two as close: the later one, as `Iterator::max_by` gives.
        let tied = ["abcx", "abcy"];
        let found = closest("abcz", tied.into_iter()).unwrap();
        assert!(std::ptr::eq(found, tied[1]));
    }
}
