//! A registry file's `resources`, `prompts`, `skills` and `apps` sections
//! (feature `sections`): what a server offers beside its tools, written in YAML
//! beside the `tools` list, each a
//! [`Section`](tool_manifest::Section) for
//! [`Manifest::parse_with`](tool_manifest::Manifest::parse_with).
//!
//! ```yaml
//! resources:
//!   - uri: docs://readme
//!     file: README.md            # or text: "..."
//!     mime: text/markdown
//!     description: The project's readme
//!   - uri: notes://{name}        # one file of a folder per URI
//!     dir: notes
//! prompts:
//!   - name: review
//!     description: Review code
//!     arguments:
//!       - {name: code, description: The code, required: true}
//!       - {name: language, complete: [rust, python, go]}
//!     messages:
//!       - {role: user, text: "Review this {language} code:\n{code}"}
//! skills:                        # feature `skills`
//!   - dir: skills
//! apps:                          # MCP Apps views, and their tools
//!   - uri: ui://counter/view
//!     file: counter.html
//!     tools: [counter_show]      # the model and the view call it
//!     app_tools: [counter_add]   # the view only
//! ```
//!
//! Reading a section checks its shape: every mistake (an unknown key, a
//! value of the wrong type, a `file` resource with a template URI, a
//! message naming an argument the prompt does not have, a path that
//! leaves the file's folder) is reported at its line and column, saying
//! what was expected. [`load`] then finds the files the sections name,
//! relative to the registry file's folder (a missing one is a mistake at
//! its place too), and gives what they make ([`Loaded`]), to add to a
//! [`ResourcesBuilder`] and a
//! [`PromptsBuilder`].
//!
//! A `file` resource is read again at each `resources/read`, so edits
//! show, at most [`Resources::DEFAULT_MAX_READ_BYTES`] (a larger file is
//! an error). A `dir` template's one variable is a file name in the
//! folder: a value with `/`, `\` or NUL, `.`, `..`, a symbolic link or
//! anything but a regular file is not found, and completion offers the
//! folder's file names.
//!
//! ```
//! use tool_manifest::Manifest;
//! use tool_mcp::sections::{PromptsSection, ResourcesSection};
//!
//! let text = "resources:\n  - uri: docs://hello\n    text: Hello\nprompts:\n  - name: greet\n    \
//!             arguments: [{name: who, required: true}]\n    messages:\n      \
//!             - {role: user, text: \"Greet {who}.\"}\n";
//! let manifest = Manifest::parse_with("tools.yaml", text, &[&ResourcesSection, &PromptsSection])
//!     .unwrap();
//! assert!(manifest.problems().is_empty());
//! let loaded = tool_mcp::sections::load(&manifest).unwrap();
//! let resources = loaded.resources(tool_mcp::resources::Resources::builder()).build().unwrap();
//! assert!(resources.resolves("docs://hello"));
//! let prompts = loaded.prompts(tool_mcp::prompts::Prompts::builder()).build().unwrap();
//! assert!(prompts.get("greet").is_some());
//! ```
//!
//! [`Resources::DEFAULT_MAX_READ_BYTES`]: crate::resources::Resources::DEFAULT_MAX_READ_BYTES

mod apps;
mod fields;
mod files;
mod prompts;
mod resources;
#[cfg(feature = "skills")]
mod skills;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tool_manifest::{Manifest, ManifestError, ManifestProblem};

pub use apps::{AppEntry, AppsSection};
pub use prompts::{MessageEntry, PromptEntry, PromptsSection};
pub use resources::{ResourceContent, ResourceEntry, ResourcesSection};
#[cfg(feature = "skills")]
pub use skills::{SkillsEntry, SkillsSection};

use crate::apps::{AppLinks, ToolUi};
use crate::prompts::{Prompt, PromptsBuilder};
use crate::resources::{Resource, ResourcesBuilder};

/// What a registry file's sections make, their files found: resources
/// and prompts to add to a server's (and skills, with feature `skills`).
#[derive(Clone, Default)]
pub struct Loaded {
    resources: Vec<Arc<dyn Resource>>,
    prompts: Vec<Arc<dyn Prompt>>,
    /// The `apps` section's tools, each with its view.
    links: Vec<(String, ToolUi)>,
    #[cfg(feature = "skills")]
    skills: Option<crate::resources::skills::Skills>,
}

impl Loaded {
    /// `builder` with the `resources` section's resources (and the
    /// `skills` section's skills) added.
    pub fn resources(&self, builder: ResourcesBuilder) -> ResourcesBuilder {
        let builder = self.resources.iter().fold(builder, |builder, resource| {
            builder.resource(Arc::clone(resource))
        });
        #[cfg(feature = "skills")]
        if let Some(skills) = &self.skills {
            return builder.skills(skills.clone());
        }
        builder
    }

    /// `builder` with the `prompts` section's prompts added.
    pub fn prompts(&self, builder: PromptsBuilder) -> PromptsBuilder {
        self.prompts.iter().fold(builder, |builder, prompt| {
            builder.prompt(Arc::clone(prompt))
        })
    }

    /// Whether the sections give resources (or skills).
    pub fn has_resources(&self) -> bool {
        #[cfg(feature = "skills")]
        if self.skills.is_some() {
            return true;
        }
        !self.resources.is_empty()
    }

    /// Whether the sections give prompts.
    pub fn has_prompts(&self) -> bool {
        !self.prompts.is_empty()
    }

    /// The `apps` section's links of tools to their views, for
    /// [`McpServer::with_app_links`](crate::server::McpServer::with_app_links)
    /// (its views are among [`resources`](Self::resources)).
    pub fn app_links(&self) -> &[(String, ToolUi)] {
        &self.links
    }

    /// `links` with the `apps` section's links added (a tool the section
    /// names takes its link from the section).
    pub fn link_into(&self, links: &AppLinks) {
        for (tool, ui) in &self.links {
            links.insert(tool.clone(), ui.clone());
        }
    }
}

impl std::fmt::Debug for Loaded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loaded")
            .field("resources", &self.resources.len())
            .field("prompts", &self.prompts.len())
            .field("app_links", &self.links.len())
            .finish_non_exhaustive()
    }
}

/// What `manifest`'s `resources`, `prompts` and `skills` sections make
/// (those it was parsed with), their paths relative to the registry
/// file's folder; the error lists every file not found (or not readable)
/// at the place that names it. The sections' other mistakes are in
/// [`Manifest::problems`] already.
pub fn load(manifest: &Manifest) -> Result<Loaded, ManifestError> {
    let base = Path::new(manifest.source())
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    load_from(manifest, &base)
}

/// [`load`], with relative paths read from the folder `base`.
pub fn load_from(manifest: &Manifest, base: &Path) -> Result<Loaded, ManifestError> {
    let mut loaded = Loaded::default();
    let mut problems = Vec::new();
    for entry in manifest.section::<ResourcesSection>().into_iter().flatten() {
        match entry.load(base) {
            Ok(resource) => loaded.resources.push(resource),
            Err(problem) => problems.push(problem),
        }
    }
    for entry in manifest.section::<PromptsSection>().into_iter().flatten() {
        loaded.prompts.push(entry.to_prompt());
    }
    for entry in manifest.section::<AppsSection>().into_iter().flatten() {
        match entry.load(base) {
            Ok(view) => {
                loaded.resources.push(Arc::new(view));
                loaded.links.extend(entry.links());
            }
            Err(problem) => problems.push(problem),
        }
    }
    #[cfg(feature = "skills")]
    if let Some(entries) = manifest.section::<SkillsSection>() {
        match skills::load(entries, base) {
            Ok(skills) => loaded.skills = skills,
            Err(problem) => problems.push(problem),
        }
    }
    if problems.is_empty() {
        return Ok(loaded);
    }
    Err(ManifestError {
        source: manifest.source().to_owned(),
        problems,
    })
}

/// `path` (as written in the file) below `base`.
fn resolve(base: &Path, path: &Path) -> PathBuf {
    base.join(path)
}

/// A mistake at `at` about a file.
fn file_problem(at: tool_manifest::Location, message: String) -> ManifestProblem {
    ManifestProblem {
        location: Some(at),
        message,
    }
}
