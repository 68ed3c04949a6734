//! The sections of a registry file `--registry` reads besides `tools`:
//! `mcp_servers` (feature `mcp-client`, tool-mcp's reader), `http_tools`
//! and `openapi` (feature `http-tools`, tool-builtin's readers), `code_mode`
//! (feature `code-mode`, tool-builtin's reader), `auth` (feature `auth`,
//! `serve --http`'s authorization server), and `resources`, `prompts`,
//! `skills` and `apps` (tool-mcp's readers, which `serve` serves); a section
//! whose feature is off is refused at its line and column, naming the
//! feature. The file's JSON Schema is assembled from the same sections.

use serde_json::Value;
use tool_manifest::{
    AnySection, Manifest, ManifestProblem, Node, Section, SectionReader, schema_with,
};
use tool_mcp::apps::AppLinks;
use tool_mcp::prompts::Prompts;
use tool_mcp::resources::Resources;
use tool_mcp::sections::{AppsSection, Loaded, PromptsSection, ResourcesSection, SkillsSection};
use tool_mcp::server::McpServer;

/// The sections of a registry file the command line reads besides `tools`,
/// in the order the messages list them: those of the features this build
/// has ([`tool_mcp::client::McpServers`] with `mcp-client`,
/// [`tool_builtin::http_tools::HttpTools`] and
/// [`tool_builtin::http_tools::OpenApi`] with `http-tools`,
/// `tool_builtin::code_mode::CodeModeSection` with `code-mode`, the
/// `auth` section of `serve --http`'s authorization server with `auth`),
/// and always [`tool_mcp::sections::ResourcesSection`],
/// [`tool_mcp::sections::PromptsSection`],
/// [`tool_mcp::sections::SkillsSection`] and
/// [`tool_mcp::sections::AppsSection`].
pub fn registry_sections() -> Vec<&'static dyn AnySection> {
    vec![
        #[cfg(feature = "mcp-client")]
        &tool_mcp::client::McpServers,
        #[cfg(feature = "http-tools")]
        &tool_builtin::http_tools::HttpTools,
        #[cfg(feature = "http-tools")]
        &tool_builtin::http_tools::OpenApi,
        #[cfg(feature = "code-mode")]
        &tool_builtin::code_mode::CodeModeSection,
        #[cfg(feature = "auth")]
        &crate::auth::AuthSection,
        &ResourcesSection,
        &PromptsSection,
        &SkillsSection,
        &AppsSection,
    ]
}

/// What the registry file's `resources`, `prompts` and `skills` sections
/// make, their files found beside it, and the mistakes finding them.
pub(crate) fn content(manifest: &Manifest) -> (Loaded, Vec<ManifestProblem>) {
    match tool_mcp::sections::load(manifest) {
        Ok(loaded) => (loaded, Vec::new()),
        Err(error) => (Loaded::default(), error.problems),
    }
}

/// The resources and prompts `serve` serves: the linked `#[resource]`s
/// and `#[prompt]`s (`Resources::global()`, `Prompts::global()`) and
/// those of the registry file's sections (`content`); each `None` when
/// there are none, unless `always` (for collections others add to, such
/// as a proxy's servers). The error is the message to print: two
/// resources with one URI, or two prompts with one name.
pub(crate) fn collections(
    content: &Loaded,
    always: bool,
) -> Result<(Option<Resources>, Option<Prompts>), String> {
    let global = Resources::global().list();
    let resources = if always || content.has_resources() || !global.is_empty() {
        let builder = global
            .into_iter()
            .fold(Resources::builder(), |builder, resource| {
                builder.resource(resource)
            });
        let built = content.resources(builder).build();
        Some(built.map_err(|error| format!("the registry file's resources: {error}"))?)
    } else {
        None
    };
    let global = Prompts::global().list();
    let prompts = if always || content.has_prompts() || !global.is_empty() {
        let builder = global
            .into_iter()
            .fold(Prompts::builder(), |builder, prompt| builder.prompt(prompt));
        let built = content.prompts(builder).build();
        Some(built.map_err(|error| format!("the registry file's prompts: {error}"))?)
    } else {
        None
    };
    Ok((resources, prompts))
}

/// `server` serving `resources` and `prompts`, those given.
pub(crate) fn serve_collections(
    mut server: McpServer,
    (resources, prompts): (Option<Resources>, Option<Prompts>),
) -> McpServer {
    if let Some(resources) = resources {
        server = server.with_resources(resources);
    }
    if let Some(prompts) = prompts {
        server = server.with_prompts(prompts);
    }
    server
}

/// `server` linking tools to their MCP Apps views: the linked
/// `#[tool(ui = ..)]`s (`AppLinks::global()`, the server's own unless told
/// otherwise) and the registry file's `apps` section, whose links win.
pub(crate) fn serve_app_links(server: McpServer, content: &Loaded) -> McpServer {
    if content.app_links().is_empty() {
        return server;
    }
    let links = AppLinks::from_iter(AppLinks::global().list());
    content.link_into(&links);
    server.with_app_links(links)
}

/// The JSON Schema of the registry files the command line reads:
/// `tools` and [`registry_sections`]. With the default features and
/// `code-mode` it is the one published as `docs/registry-file.schema.json`.
///
/// ```
/// let schema = tool_cli::registry_file_schema();
/// assert!(schema["properties"]["tools"].is_object());
/// assert_eq!(schema["additionalProperties"], false);
/// ```
pub fn registry_file_schema() -> Value {
    schema_with(&registry_sections())
}

/// The sections `--registry` reads: [`registry_sections`], and one that
/// refuses each section whose feature this build does not have.
pub(crate) fn read_with() -> Vec<&'static dyn AnySection> {
    #[cfg_attr(
        all(
            feature = "mcp-client",
            feature = "http-tools",
            feature = "code-mode",
            feature = "auth"
        ),
        allow(unused_mut)
    )]
    let mut sections = registry_sections();
    #[cfg(not(feature = "code-mode"))]
    sections.push(&Refused {
        key: "code_mode",
        description: "a `code_mode` mapping",
        feature: "code-mode",
        reason: "so it cannot offer a code_mode tool",
    });
    #[cfg(not(feature = "auth"))]
    sections.push(&Refused {
        key: "auth",
        description: "an `auth` mapping",
        feature: "auth",
        reason: "so it cannot ask for access tokens",
    });
    #[cfg(not(feature = "mcp-client"))]
    sections.push(&Refused {
        key: "mcp_servers",
        description: "an `mcp_servers` mapping",
        feature: "mcp-client",
        reason: "so it cannot reach MCP servers",
    });
    #[cfg(not(feature = "http-tools"))]
    sections.extend([
        &Refused {
            key: "http_tools",
            description: "an `http_tools` list",
            feature: "http-tools",
            reason: "so it cannot make tools of HTTP requests",
        } as &dyn AnySection,
        &Refused {
            key: "openapi",
            description: "an `openapi` mapping",
            feature: "http-tools",
            reason: "so it cannot make tools of HTTP requests",
        },
    ]);
    sections
}

/// A section this build cannot use: the file that has it is refused, the
/// message naming the feature that reads it.
#[cfg_attr(
    all(
        feature = "mcp-client",
        feature = "http-tools",
        feature = "code-mode",
        feature = "auth"
    ),
    allow(dead_code)
)]
struct Refused {
    key: &'static str,
    description: &'static str,
    feature: &'static str,
    reason: &'static str,
}

impl Section for Refused {
    type Entries = ();

    fn key(&self) -> &'static str {
        self.key
    }

    fn description(&self) -> &'static str {
        self.description
    }

    fn schema(&self) -> Value {
        Value::Bool(false)
    }

    fn read(&self, node: Node<'_>, reader: &mut SectionReader<'_>) {
        reader.problem(
            Some(node.location()),
            format!(
                "`{}`: this program is built without tool-cli's `{}` feature, {}",
                self.key, self.feature, self.reason
            ),
        );
    }
}

/// The `code_mode` tool a registry file's `code_mode` section asks for
/// over `registry`, with the section's options (each key not written at
/// its default), and how it is offered; with `forced` (`serve
/// --code-mode`) one is made without a section, in place of the tools.
/// `sandbox` (`serve --sandbox`) turns the sandbox on. `None`: no code
/// mode. `serve` and `call` both make it here, so that a file's section
/// means the same to both. The error is the message to print.
#[cfg(feature = "code-mode")]
pub(crate) fn code_mode_tool(
    registry: tool_runtime::Registry,
    setting: Option<&tool_builtin::code_mode::CodeModeSetting>,
    forced: bool,
    sandbox: bool,
) -> Result<
    Option<(
        tool_builtin::code_mode::CodeModeTool,
        tool_builtin::code_mode::CodeModeOffer,
    )>,
    String,
> {
    use tool_builtin::code_mode::CodeMode;
    if !forced && setting.is_none() {
        return Ok(None);
    }
    let (mut options, offer) = setting
        .map(|setting| (setting.options.clone(), setting.offer))
        .unwrap_or_default();
    if sandbox {
        options.python.sandbox = true;
    }
    let tool = CodeMode::new(registry)
        .options(options)
        .build()
        .map_err(|error| format!("code mode: {error}"))?;
    Ok(Some((tool, offer)))
}

#[cfg(test)]
mod tests {
    use std::process::ExitCode;

    use tool_runtime::Registry;

    /// The tools of the registry file `text`, written in a folder of its
    /// own with `files` (name, contents) beside it.
    fn load(text: &str, files: &[(&str, &str)]) -> Result<crate::Tools, ExitCode> {
        static FOLDERS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = FOLDERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("tool-cli-sections-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (name, contents) in files {
            std::fs::write(dir.join(name), contents).unwrap();
        }
        let path = dir.join("tools.yaml");
        std::fs::write(&path, text).unwrap();
        let program = Registry::builder().build().unwrap();
        let tools = crate::load(&path, &program);
        let _ = std::fs::remove_dir_all(&dir);
        tools
    }

    #[test]
    fn a_registry_files_resources_and_prompts_are_the_served_collections() {
        let text = "resources:\n  - uri: docs://readme\n    file: README.md\nprompts:\n  - name: hi\n    \
                    messages: [{role: user, text: Hi}]\n";
        let tools = load(text, &[("README.md", "# Readme\n")]).unwrap();
        let (resources, prompts) = super::collections(&tools.content, false).unwrap();
        assert!(resources.unwrap().resolves("docs://readme"));
        assert!(prompts.unwrap().get("hi").is_some());

        // Nothing to serve: no collections, unless asked for.
        let tools = load("tools: []\n", &[]).unwrap();
        let (resources, prompts) = super::collections(&tools.content, false).unwrap();
        assert!(resources.is_none() && prompts.is_none());
        let (resources, prompts) = super::collections(&tools.content, true).unwrap();
        assert!(resources.unwrap().list().is_empty() && prompts.unwrap().list().is_empty());
    }

    #[test]
    fn a_registry_files_apps_are_views_served_with_their_tools_linked() {
        let text = "apps:\n  - uri: ui://counter/view\n    file: counter.html\n    \
                    tools: [counter_show]\n    app_tools: [counter_add]\n";
        let tools = load(text, &[("counter.html", "<p>0</p>")]).unwrap();
        let (resources, _) = super::collections(&tools.content, false).unwrap();
        let view = resources.unwrap().get("ui://counter/view").unwrap();
        assert_eq!(
            view.spec().mime_type.as_deref(),
            Some(tool_mcp::apps::MIME_TYPE)
        );
        let links = tool_mcp::apps::AppLinks::new();
        tools.content.link_into(&links);
        assert_eq!(
            links.get("counter_show").unwrap().resource_uri,
            "ui://counter/view"
        );
        assert_eq!(
            links.get("counter_add").unwrap().visibility,
            tool_mcp::apps::Visibility::App
        );

        // A view whose file is missing refuses the registry file.
        assert_eq!(
            load(text, &[]).err(),
            Some(ExitCode::from(crate::EXIT_USAGE))
        );
    }

    #[test]
    fn a_missing_file_refuses_the_registry_file() {
        let text = "resources:\n  - uri: docs://readme\n    file: README.md\n";
        assert_eq!(
            load(text, &[]).err(),
            Some(ExitCode::from(crate::EXIT_USAGE))
        );
    }
}
