//! The `skills` section (feature `skills`): folders of skills served with
//! MCP's skills extension.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde_json::Value;
use tool_manifest::{Location, ManifestProblem, Node, Section, SectionReader};

use super::fields::{self, Fields};
use crate::resources::skills::Skills;

/// The `skills` section of a registry file (feature `skills`): a list of
/// folders, each `dir:` a path relative to the registry file's folder,
/// whose skills (each a folder with a `SKILL.md`, see
/// [`Skills::from_dir`]) are served as resources with `skills/list` and
/// `skills/get`.
///
/// ```
/// use tool_manifest::Manifest;
/// use tool_mcp::sections::SkillsSection;
///
/// let text = "skills:\n  - dir: skills\n  - folder: more\n";
/// let manifest = Manifest::parse_with("tools.yaml", text, &[&SkillsSection]).unwrap();
/// assert_eq!(manifest.section::<SkillsSection>().unwrap()[0].dir, std::path::Path::new("skills"));
/// assert_eq!(
///     manifest.problems()[0].to_string(),
///     "3:5: unknown key \"folder\" in a skills folder; it takes `dir`"
/// );
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct SkillsSection;

/// One entry of a `skills` section: a folder of skills.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SkillsEntry {
    /// The folder, as written (relative to the registry file's folder).
    pub dir: PathBuf,
    /// Where the folder was written.
    pub location: Location,
}

impl Section for SkillsSection {
    type Entries = Vec<SkillsEntry>;

    fn key(&self) -> &'static str {
        "skills"
    }

    fn description(&self) -> &'static str {
        "a `skills` list"
    }

    fn schema(&self) -> Value {
        tool_manifest::section_schema::<Vec<SkillsForm>>()
    }

    fn read(&self, node: Node<'_>, reader: &mut SectionReader<'_>) -> Vec<SkillsEntry> {
        let Some(items) = node.items() else {
            reader.problem(
                Some(node.location()),
                "`skills` must be a list of folders of skills, each `dir: PATH`",
            );
            return Vec::new();
        };
        items
            .filter_map(|item| {
                let fields = Fields::read(item, "a skills folder", &["dir"], reader)?;
                if !fields.has("dir") {
                    reader.problem(
                        Some(fields.at),
                        "a skills folder needs `dir`: the folder, relative to the registry file",
                    );
                    return None;
                }
                let (dir, spanned) = fields::relative_path(&fields, "dir", reader)?;
                Some(SkillsEntry {
                    dir,
                    location: spanned.value,
                })
            })
            .collect()
    }
}

/// The skills of every folder of `entries`, below `base`; `None` for no
/// folders. A folder that cannot be read, or a mistake in a skill, is a
/// mistake at the folder's place.
pub(super) fn load(
    entries: &[SkillsEntry],
    base: &Path,
) -> Result<Option<Skills>, ManifestProblem> {
    if entries.is_empty() {
        return Ok(None);
    }
    let mut builder = Skills::builder();
    for entry in entries {
        let full = super::resolve(base, &entry.dir);
        builder = builder.dir(&full).map_err(|error| {
            super::file_problem(
                entry.location,
                format!("the skills folder {}: {error}", entry.dir.display()),
            )
        })?;
    }
    let at = entries[0].location;
    builder
        .build()
        .map(Some)
        .map_err(|error| super::file_problem(at, format!("skills: {error}")))
}

// The section's form, for its schema: each doc comment is a description.

/// A folder of skills, each a folder with a SKILL.md.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[allow(
    dead_code,
    reason = "a form for the schema: entries are read from the YAML"
)]
struct SkillsForm {
    /// The folder, relative to the registry file's folder.
    dir: String,
}
