//! What the sections beside `tools` share: entries keyed by a name.

use marked_yaml::Node;

use super::document::{Location, location};
use super::problem::ManifestProblem;

/// Where `node`, the entry `name` of a section keyed by names (`what`:
/// "MCP server", "OpenAPI entry"), starts, when its name is valid and it
/// is a mapping; otherwise the problem (`name_rule` broken, or not a
/// mapping of `shape`) is pushed.
pub(super) fn keyed_entry(
    what: &str,
    name: &str,
    name_rule: &str,
    shape: &str,
    node: &Node,
    problems: &mut Vec<ManifestProblem>,
) -> Option<Location> {
    let at = location(node.span().start());
    let message = if !valid_name(name) {
        format!("{what} \"{}\": {name_rule}", crate::quote::name(name))
    } else if !matches!(node, Node::Mapping(_)) {
        format!("{what} \"{name}\" must be a mapping{shape}")
    } else {
        return Some(at);
    };
    problems.push(ManifestProblem {
        location: Some(at),
        message,
    });
    None
}

/// Whether `name` is 1 to 64 letters, digits, `_` or `-`.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}
