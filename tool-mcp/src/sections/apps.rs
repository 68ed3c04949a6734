//! The `apps` section: MCP Apps views (HTML files served at `ui://`
//! URIs) and the tools each belongs to.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde_json::Value;
use tool_manifest::{Location, ManifestProblem, Node, Section, SectionReader};

use super::fields::{self, Fields};
use super::files;
use crate::apps::{App, AppLinks, Csp, Permission, ToolUi, Visibility};
use crate::resources::{Body, Resources};

/// The `apps` section of a registry file: a list of views, each a `uri`
/// (`ui://...`) and the HTML `file` served there (read once, when the file
/// is loaded), with what the view may reach (`csp`, `permissions`), how
/// the host shows it (`prefers_border`, `domain`, `title`,
/// `description`), and the tools whose results it shows: `tools` (the
/// model and the view call them), `app_tools` (the view only) and
/// `model_tools` (the model only).
///
/// ```
/// use tool_manifest::Manifest;
/// use tool_mcp::apps::Visibility;
/// use tool_mcp::sections::AppsSection;
///
/// let text = "apps:\n  - uri: ui://counter/view\n    file: counter.html\n    \
///             csp: {connect_domains: [\"https://api.example.com\"]}\n    \
///             tools: [counter_show]\n    app_tools: [counter_add]\n";
/// let manifest = Manifest::parse_with("tools.yaml", text, &[&AppsSection]).unwrap();
/// assert!(manifest.problems().is_empty());
/// let app = &manifest.section::<AppsSection>().unwrap()[0];
/// assert_eq!(app.links()[1].0, "counter_add");
/// assert_eq!(app.links()[1].1.visibility, Visibility::App);
///
/// // The view, its file read beside the registry file.
/// let dir = std::env::temp_dir().join(format!("apps-section-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// std::fs::write(dir.join("counter.html"), "<p>0</p>").unwrap();
/// let view = app.load(&dir).unwrap();
/// assert_eq!(view.html(), "<p>0</p>");
/// assert_eq!(view.ui_meta()["csp"]["connectDomains"][0], "https://api.example.com");
/// # std::fs::remove_dir_all(&dir).unwrap();
///
/// let text = "apps:\n  - uri: https://example.com/view\n    file: view.html\n";
/// let manifest = Manifest::parse_with("tools.yaml", text, &[&AppsSection]).unwrap();
/// assert!(manifest.problems()[0].to_string().starts_with("2:10: an app's view is at a ui:// URI"));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct AppsSection;

/// One entry of an `apps` section, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AppEntry {
    /// The view's URI, `ui://...`.
    pub uri: String,
    /// Its HTML file, relative to the registry file's folder.
    pub file: PathBuf,
    /// Its name (`name:`; the URI when not given).
    pub name: String,
    /// A title for people.
    pub title: Option<String>,
    /// What it shows.
    pub description: Option<String>,
    /// What it may reach.
    pub csp: Csp,
    /// The browser capabilities it asks for.
    pub permissions: Vec<Permission>,
    /// Whether it wants a border drawn around it.
    pub prefers_border: Option<bool>,
    /// The origin it asks the host to give its sandbox.
    pub domain: Option<String>,
    /// The tools it belongs to, with who may call each.
    pub tools: Vec<(String, Visibility)>,
    /// Where the entry starts.
    pub location: Location,
    /// Where the file's path was written.
    file_at: Location,
}

const KEYS: &[&str] = &[
    "uri",
    "file",
    "name",
    "title",
    "description",
    "csp",
    "permissions",
    "prefers_border",
    "domain",
    "tools",
    "app_tools",
    "model_tools",
];

/// The keys of `csp`, with the list each fills.
const CSP_KEYS: &[&str] = &[
    "connect_domains",
    "resource_domains",
    "frame_domains",
    "base_uri_domains",
];

impl Section for AppsSection {
    type Entries = Vec<AppEntry>;

    fn key(&self) -> &'static str {
        "apps"
    }

    fn description(&self) -> &'static str {
        "an `apps` list"
    }

    fn schema(&self) -> Value {
        tool_manifest::section_schema::<Vec<AppForm>>()
    }

    fn read(&self, node: Node<'_>, reader: &mut SectionReader<'_>) -> Vec<AppEntry> {
        let Some(items) = node.items() else {
            reader.problem(
                Some(node.location()),
                "`apps` must be a list of views, each a `uri` (ui://...) with its HTML `file`",
            );
            return Vec::new();
        };
        items.filter_map(|item| read_entry(item, reader)).collect()
    }
}

/// One entry, when it is well formed (its mistakes reported).
fn read_entry(node: Node<'_>, reader: &mut SectionReader<'_>) -> Option<AppEntry> {
    let what = match node.get("uri").and_then(Node::as_text) {
        Some(uri) => format!("app `{uri}`"),
        None => "an app".to_owned(),
    };
    let fields = Fields::read(node, &what, KEYS, reader)?;
    let uri = fields.required_text("uri", reader, "the ui:// URI of the view")?;
    if let Err(error) = ToolUi::new(uri.text.as_str()) {
        reader.problem(Some(uri.value), error.to_string());
        return None;
    }
    if !fields.has("file") {
        reader.problem(
            Some(fields.at),
            format!("{what} needs `file`: its HTML, relative to the registry file"),
        );
        return None;
    }
    let (file, file_spanned) = fields::relative_path(&fields, "file", reader)?;
    let csp = read_csp(&fields, reader)?;
    let prefers_border = fields
        .has("prefers_border")
        .then(|| fields.flag("prefers_border", reader));
    let mut tools = Vec::new();
    for (key, visibility) in [
        ("tools", Visibility::ModelAndApp),
        ("app_tools", Visibility::App),
        ("model_tools", Visibility::Model),
    ] {
        let names = fields.texts(key, reader);
        tools.extend(names.into_iter().map(|name| (name, visibility)));
    }
    let name = fields.text("name", reader);
    Some(AppEntry {
        name: name.map_or_else(|| uri.text.clone(), |name| name.text),
        uri: uri.text,
        file,
        title: fields.text("title", reader).map(|t| t.text),
        description: fields.text("description", reader).map(|d| d.text),
        permissions: read_permissions(&fields, reader),
        csp,
        prefers_border,
        domain: fields.text("domain", reader).map(|d| d.text),
        tools,
        location: fields.at,
        file_at: file_spanned.value,
    })
}

/// `csp`, its origins checked; `None` (a mistake at `csp`) when one is not
/// an origin.
fn read_csp(fields: &Fields<'_>, reader: &mut SectionReader<'_>) -> Option<Csp> {
    let Some((at, node)) = fields.get("csp") else {
        return Some(Csp::new());
    };
    let what = format!("the csp of {}", fields.what);
    let csp_fields = Fields::read(node, &what, CSP_KEYS, reader)?;
    let csp = Csp::new()
        .connect_domains(csp_fields.texts("connect_domains", reader))
        .resource_domains(csp_fields.texts("resource_domains", reader))
        .frame_domains(csp_fields.texts("frame_domains", reader))
        .base_uri_domains(csp_fields.texts("base_uri_domains", reader));
    match App::builder("ui://check", "").csp(csp.clone()).build() {
        Ok(_) => Some(csp),
        Err(error) => {
            reader.problem(Some(at), error.to_string());
            None
        }
    }
}

/// `permissions`, each known (an unknown one a mistake, left out).
fn read_permissions(fields: &Fields<'_>, reader: &mut SectionReader<'_>) -> Vec<Permission> {
    let mut permissions = Vec::new();
    for name in fields.texts("permissions", reader) {
        let permission = match name.as_str() {
            "camera" => Permission::Camera,
            "microphone" => Permission::Microphone,
            "geolocation" => Permission::Geolocation,
            "clipboard_write" | "clipboardWrite" => Permission::ClipboardWrite,
            _ => {
                let at = fields.get("permissions").map(|(at, _)| at);
                reader.problem(
                    at,
                    format!(
                        "unknown permission \"{}\" of {}: it takes camera, microphone, \
                         geolocation and clipboard_write",
                        name.escape_debug(),
                        fields.what
                    ),
                );
                continue;
            }
        };
        if !permissions.contains(&permission) {
            permissions.push(permission);
        }
    }
    permissions
}

impl AppEntry {
    /// Each tool it belongs to, by name, with its link to the view.
    pub fn links(&self) -> Vec<(String, ToolUi)> {
        self.tools
            .iter()
            .filter_map(|(tool, visibility)| {
                let ui = ToolUi::new(self.uri.as_str()).ok()?;
                Some((tool.clone(), ui.with_visibility(*visibility)))
            })
            .collect()
    }

    /// The view, its HTML read from the file below `base` (at most
    /// [`Resources::DEFAULT_MAX_READ_BYTES`], UTF-8); a file that cannot
    /// be read is a mistake at its path.
    pub fn load(&self, base: &Path) -> Result<App, ManifestProblem> {
        let path = super::resolve(base, &self.file);
        let problem =
            |message: String| super::file_problem(self.file_at, format!("{}: {message}", self.uri));
        let html = match files::read_file(&path, Resources::DEFAULT_MAX_READ_BYTES) {
            Ok(Body::Text(html)) => html,
            Ok(Body::Blob(_)) => return Err(problem("the view's file is not UTF-8 text".into())),
            Err(error) => return Err(problem(error.to_string())),
        };
        let mut builder = App::builder(self.uri.as_str(), html)
            .name(self.name.as_str())
            .csp(self.csp.clone());
        if let Some(title) = &self.title {
            builder = builder.title(title.as_str());
        }
        if let Some(description) = &self.description {
            builder = builder.description(description.as_str());
        }
        for permission in &self.permissions {
            builder = builder.permission(*permission);
        }
        if let Some(prefers) = self.prefers_border {
            builder = builder.prefers_border(prefers);
        }
        if let Some(domain) = &self.domain {
            builder = builder.domain(domain.as_str());
        }
        builder.build().map_err(|error| problem(error.to_string()))
    }

    /// Adds its links to `links`.
    pub fn link_into(&self, links: &AppLinks) {
        for (tool, ui) in self.links() {
            links.insert(tool, ui);
        }
    }
}

// The section's form, for its schema: each doc comment is a description.

/// An MCP Apps view: HTML served at a ui:// URI, and the tools whose
/// results it shows.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[allow(
    dead_code,
    reason = "a form for the schema: entries are read from the YAML"
)]
struct AppForm {
    /// Its URI, such as ui://counter/view.
    uri: String,
    /// Its HTML file, relative to the registry file's folder.
    file: String,
    /// Its name (default: the URI).
    name: Option<String>,
    /// A title for people.
    title: Option<String>,
    /// What it shows.
    description: Option<String>,
    /// The origins it may reach (scheme://host[:port], *. for every
    /// subdomain); nothing beyond itself by default.
    csp: Option<CspForm>,
    /// The browser capabilities it asks for.
    permissions: Option<Vec<PermissionForm>>,
    /// Whether it wants the host to draw a border around it.
    prefers_border: Option<bool>,
    /// The origin it asks the host to give its sandbox, in the host's form.
    domain: Option<String>,
    /// Tools the model and the view call, whose results it shows.
    tools: Option<Vec<String>>,
    /// Tools only the view calls (hidden from the model).
    app_tools: Option<Vec<String>>,
    /// Tools only the model calls (the view shows their results).
    model_tools: Option<Vec<String>>,
}

/// The origins a view may reach.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[allow(
    dead_code,
    reason = "a form for the schema: entries are read from the YAML"
)]
struct CspForm {
    /// Origins of its fetch, XHR and WebSocket requests.
    connect_domains: Option<Vec<String>>,
    /// Origins of its images, scripts, stylesheets, fonts and media.
    resource_domains: Option<Vec<String>>,
    /// Origins of the frames it nests.
    frame_domains: Option<Vec<String>>,
    /// Origins its base URI may be.
    base_uri_domains: Option<Vec<String>>,
}

/// A browser capability.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(
    dead_code,
    reason = "a form for the schema: entries are read from the YAML"
)]
enum PermissionForm {
    Camera,
    Microphone,
    Geolocation,
    ClipboardWrite,
}
