//! The reached servers' resources, resource templates and prompts, served
//! by `serve` beside its own ([`Offers`]).
//!
//! - Each server is asked for its lists once reached, and again when it
//!   says they changed (`notifications/resources/list_changed`,
//!   `notifications/prompts/list_changed`) or is started again; the served
//!   collections change with them, and `serve`'s clients are told.
//! - Prompts take the server entry's `prefix`, as its tools do. Resource
//!   URIs (and templates) are not rewritten, so that links in results and
//!   prompts stay valid: a URI listed by two servers is the first one's (in
//!   the registry file's order), a URI no server lists is read through the
//!   first server whose template matches it, and any other URI is not
//!   found (`-32602`, as the server answers). A prompt name, URI or
//!   template already served is left out, with a warning on stderr, once.
//! - Reads, prompts and completions are forwarded to the server that
//!   offers them, with the caller's context (its cancellation, and the
//!   questions a server asks); their answers are bounded by the entry's
//!   limits (`max_result_bytes`, and the list limits `max_resources`,
//!   `max_resource_templates`, `max_prompts`, `max_list_bytes`), as its
//!   tools' are. A server that fails to answer is the request's error.
//! - Subscriptions to one resource (`resources/subscribe`, a listen's
//!   `resourceSubscriptions`) are not passed on to the servers: their
//!   resources' updates do not reach `serve`'s clients.

use std::collections::{BTreeSet, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

use futures_util::future::BoxFuture;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tool_mcp::client::{McpClient, McpClientError, McpClientErrorKind};
use tool_mcp::completion::{CompleteRequest, Completion};
use tool_mcp::prompts::{GetPrompt, Prompt, PromptArguments, PromptError, PromptSpec, Prompts};
use tool_mcp::resources::{
    Contents, ReadRequest, Resource, ResourceError, ResourceSpec, ResourceUri, Resources,
    UriTemplate,
};
use tool_runtime::__private::quote;
use tool_runtime::ToolContext;

use super::Remote;

/// What the reached servers offer, by their place in the registry file,
/// and the collections `serve` serves them in.
pub(crate) struct Offers {
    state: Mutex<State>,
    /// Whether `serve` serves the offers: until it does, no server is
    /// asked for them.
    serving: watch::Sender<bool>,
}

struct State {
    /// Each server's offer once reached, in the registry file's order.
    offers: Vec<Option<Offer>>,
    /// The collections served, once `serve` gives them.
    target: Option<(Resources, Prompts)>,
    /// What of the offers is in them: URIs, templates (in the order they
    /// match) and prompts.
    served: [Vec<Entry>; 3],
    /// The warnings given already.
    warned: HashSet<String>,
}

impl Offers {
    /// No offers yet, of `servers` servers.
    pub(crate) fn new(servers: usize) -> Self {
        Self {
            state: Mutex::new(State {
                offers: (0..servers).map(|_| None).collect(),
                target: None,
                served: Default::default(),
                warned: HashSet::new(),
            }),
            serving: watch::Sender::new(false),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Serves the offers in `resources` and `prompts` (which may hold
    /// entries of their own, which keep their names), now and as they
    /// change.
    pub(crate) fn serve_into(&self, resources: Resources, prompts: Prompts) {
        let mut state = self.state();
        state.withdraw();
        state.target = Some((resources, prompts));
        state.sync();
        self.serving.send_replace(true);
    }

    /// Takes every offer out of the served collections (the servers are
    /// being stopped).
    pub(crate) fn withdraw(&self) {
        let mut state = self.state();
        state.withdraw();
        state.target = None;
    }

    /// The server at `index` offers `listed`: served, with its warnings.
    fn offered(&self, index: usize, listed: Listed) {
        let mut state = self.state();
        state.offers[index] = Some(listed.offer);
        for warning in &listed.warnings {
            state.warn(index, warning);
        }
        state.sync();
    }

    /// Once the offers are served ([`serve_into`](Self::serve_into)),
    /// lists what the server at `index` (`remote`, reached by `client`)
    /// offers, serves it, and does again whenever the server says its
    /// lists changed, until the task is aborted.
    pub(crate) fn follow(
        self: &Arc<Self>,
        index: usize,
        remote: &Remote,
        client: McpClient,
    ) -> JoinHandle<()> {
        let offers = Arc::clone(self);
        let remote = remote.clone();
        let mut changes = client.watch_content();
        let mut serving = self.serving.subscribe();
        tokio::spawn(async move {
            // Nothing is asked of the server before its offers are served.
            if serving.wait_for(|serving| *serving).await.is_err() {
                return;
            }
            loop {
                changes.borrow_and_update();
                let listed = list(&remote, &client).await;
                offers.offered(index, listed);
                if changes.changed().await.is_err() {
                    return;
                }
            }
        })
    }
}

/// One server's lists (as served), and the client that reaches it.
struct Offer {
    client: McpClient,
    /// `FILE:LINE:COLUMN` of its entry, and its name, for warnings.
    at: String,
    name: String,
    resources: Vec<ResourceSpec>,
    templates: Vec<ResourceSpec>,
    /// Each prompt as served (its name prefixed), with its name on the
    /// server.
    prompts: Vec<(PromptSpec, String)>,
}

/// One entry of a server's (at its place in the file) in the served
/// collections.
#[derive(Clone, PartialEq)]
enum Entry {
    /// A resource at a URI, or a template.
    Resource(usize, ResourceSpec),
    /// A prompt, with its name on the server.
    Prompt(usize, PromptSpec, String),
}

impl Entry {
    fn server(&self) -> usize {
        match self {
            Entry::Resource(index, _) | Entry::Prompt(index, ..) => *index,
        }
    }

    /// What names it in its collection, escaped, for messages.
    fn shown(&self) -> String {
        match self {
            Entry::Resource(_, spec) => format!("resource `{}`", quote::name(key(spec))),
            Entry::Prompt(_, spec, _) => format!("prompt `{}`", quote::name(&spec.name)),
        }
    }
}

/// What names a resource in its collection: its URI or template.
fn key(spec: &ResourceSpec) -> &str {
    match &spec.uri {
        ResourceUri::Fixed(uri) => uri,
        ResourceUri::Template(template) => template.as_str(),
    }
}

impl State {
    /// Says `message` about the server at `index` on stderr, once.
    fn warn(&mut self, index: usize, message: &str) {
        let Some(offer) = &self.offers[index] else {
            return;
        };
        let line = format!(
            "warning: {}: MCP server `{}`: {message}",
            offer.at, offer.name
        );
        if self.warned.insert(line.clone()) {
            eprintln!("{line}");
        }
    }

    /// Takes what is served of the offers out of the collections.
    fn withdraw(&mut self) {
        let served = std::mem::take(&mut self.served);
        for entry in served.iter().flatten() {
            self.remove(entry);
        }
    }

    /// The entries the offers make, in the file's order, each group
    /// without two of one name (the later one left out, with why).
    fn wanted(&self) -> ([Vec<Entry>; 3], Vec<(usize, String)>) {
        let mut wanted: [Vec<Entry>; 3] = Default::default();
        let mut left_out = Vec::new();
        let mut names: [BTreeSet<String>; 3] = Default::default();
        let offers = self.offers.iter().enumerate();
        for (index, offer) in offers.filter_map(|(index, offer)| Some((index, offer.as_ref()?))) {
            let resources = offer.resources.iter().map(|spec| (0, spec));
            let templates = offer.templates.iter().map(|spec| (1, spec));
            for (group, spec) in resources.chain(templates) {
                let entry = Entry::Resource(index, spec.clone());
                if names[group].insert(key(spec).to_owned()) {
                    wanted[group].push(entry);
                } else {
                    left_out.push((
                        index,
                        format!("{} is left out: an earlier server offers it", entry.shown()),
                    ));
                }
            }
            for (spec, remote) in &offer.prompts {
                let entry = Entry::Prompt(index, spec.clone(), remote.clone());
                if names[2].insert(spec.name.to_string()) {
                    wanted[2].push(entry);
                } else {
                    let why = "an earlier server offers it (give the server a `prefix`)";
                    left_out.push((index, format!("{} is left out: {why}", entry.shown())));
                }
            }
        }
        (wanted, left_out)
    }

    /// Brings the served collections in step with the offers: what went
    /// out of them is taken out, what is new put in (refused when the
    /// collection has its name already: served beside, say); the
    /// templates, which match in order, are all served again when any
    /// changed.
    fn sync(&mut self) {
        if self.target.is_none() {
            return;
        }
        let (wanted, mut warnings) = self.wanted();
        for (group, wanted) in wanted.into_iter().enumerate() {
            let mut served = std::mem::take(&mut self.served[group]);
            if group == 1 && served != wanted {
                for entry in served.drain(..) {
                    self.remove(&entry);
                }
            }
            served.retain(|entry| {
                let kept = wanted.contains(entry);
                if !kept {
                    self.remove(entry);
                }
                kept
            });
            for entry in wanted {
                if served.contains(&entry) {
                    continue;
                }
                if self.insert(&entry) {
                    served.push(entry);
                } else {
                    warnings.push((
                        entry.server(),
                        format!(
                            "{} is left out: the proxy serves one of its name already",
                            entry.shown()
                        ),
                    ));
                }
            }
            self.served[group] = served;
        }
        for (index, message) in warnings {
            self.warn(index, &message);
        }
    }

    /// Puts `entry` in its collection; whether it went in.
    fn insert(&self, entry: &Entry) -> bool {
        let (Some((resources, prompts)), Some(offer)) =
            (&self.target, self.offers[entry.server()].as_ref())
        else {
            return false;
        };
        let client = offer.client.clone();
        match entry {
            Entry::Resource(_, spec) => resources
                .insert(RemoteResource {
                    spec: spec.clone(),
                    client,
                })
                .is_ok(),
            Entry::Prompt(_, spec, remote) => prompts
                .insert(RemotePrompt {
                    spec: spec.clone(),
                    remote: remote.clone(),
                    client,
                })
                .is_ok(),
        }
    }

    /// Takes `entry` out of its collection.
    fn remove(&self, entry: &Entry) {
        if let Some((resources, prompts)) = &self.target {
            match entry {
                Entry::Resource(_, spec) => resources.remove(key(spec)),
                Entry::Prompt(_, spec, _) => prompts.remove(&spec.name),
            };
        }
    }
}

/// What one listing of a server made: its offer, and warnings about it.
struct Listed {
    offer: Offer,
    warnings: Vec<String>,
}

/// Lists what `remote` offers through `client`: a list it does not serve
/// (`method not found`) is empty; one that fails otherwise is empty too,
/// with a warning.
async fn list(remote: &Remote, client: &McpClient) -> Listed {
    let (resources, templates, prompts) = futures_util::join!(
        client.list_resources(),
        client.list_resource_templates(),
        client.list_prompts()
    );
    let mut warnings = Vec::new();
    let mut listed = |what: &str, error: McpClientError| {
        let unserved = error.kind() == McpClientErrorKind::Protocol
            && error
                .message()
                .to_ascii_lowercase()
                .contains("method not found");
        if !unserved {
            warnings.push(format!("its {what} are not served: {}", error.message()));
        }
    };
    let resources = resources
        .map_err(|error| listed("resources", error))
        .unwrap_or_default();
    let templates = templates
        .map_err(|error| listed("resource templates", error))
        .unwrap_or_default();
    let prompts = prompts
        .map_err(|error| listed("prompts", error))
        .unwrap_or_default();
    let resources = resources
        .into_iter()
        .map(|resource| {
            let mut spec = ResourceSpec::fixed(resource.uri, resource.name);
            spec.title = resource.title.map(Into::into);
            spec.description = resource.description.map(Into::into);
            spec.mime_type = resource.mime_type.map(Into::into);
            spec.size = resource.size;
            spec.meta = resource.meta;
            spec
        })
        .collect();
    let templates = templates
        .into_iter()
        .filter_map(
            |template| match UriTemplate::parse(&template.uri_template) {
                Ok(parsed) => {
                    let mut spec = ResourceSpec::template(parsed, template.name);
                    spec.title = template.title.map(Into::into);
                    spec.description = template.description.map(Into::into);
                    spec.mime_type = template.mime_type.map(Into::into);
                    spec.meta = template.meta;
                    Some(spec)
                }
                Err(error) => {
                    warnings.push(format!(
                        "resource template `{}` is left out: {error}",
                        quote::name(&template.uri_template)
                    ));
                    None
                }
            },
        )
        .collect();
    let prompts = prompts
        .into_iter()
        .map(|prompt| {
            let mut spec = PromptSpec::new(format!("{}{}", remote.import.prefix, prompt.name));
            spec.title = prompt.title.map(Into::into);
            spec.description = prompt.description.map(Into::into);
            spec.arguments = prompt.arguments;
            spec.meta = prompt.meta;
            (spec, prompt.name)
        })
        .collect();
    Listed {
        offer: Offer {
            client: client.clone(),
            at: remote.at.clone(),
            name: remote.name.clone(),
            resources,
            templates,
            prompts,
        },
        warnings,
    }
}

/// A server's resource (or template): read (and completed) by the server.
struct RemoteResource {
    spec: ResourceSpec,
    client: McpClient,
}

impl Resource for RemoteResource {
    fn spec(&self) -> &ResourceSpec {
        &self.spec
    }

    fn read(&self, request: ReadRequest) -> BoxFuture<'_, Result<Vec<Contents>, ResourceError>> {
        Box::pin(async move {
            self.client
                .read_resource(&request.uri, &request.ctx)
                .await
                .map_err(|error| ResourceError::Failed(error.to_string()))
        })
    }

    fn complete(
        &self,
        request: CompleteRequest,
    ) -> BoxFuture<'_, Result<Completion, ResourceError>> {
        Box::pin(async move {
            let ResourceUri::Template(template) = &self.spec.uri else {
                return Ok(Completion::none());
            };
            self.client
                .complete_resource(
                    template.as_str(),
                    &request.argument,
                    &request.value,
                    &request.context,
                    &request.ctx,
                )
                .await
                .map_err(|error| ResourceError::Failed(error.to_string()))
        })
    }
}

/// A server's prompt, served under its prefixed name: got (and completed)
/// by the server, by its own name.
struct RemotePrompt {
    spec: PromptSpec,
    remote: String,
    client: McpClient,
}

impl Prompt for RemotePrompt {
    fn spec(&self) -> &PromptSpec {
        &self.spec
    }

    fn get(
        &self,
        arguments: PromptArguments,
        ctx: ToolContext,
    ) -> BoxFuture<'_, Result<GetPrompt, PromptError>> {
        Box::pin(async move {
            self.client
                .get_prompt(&self.remote, &arguments, &ctx)
                .await
                .map_err(|error| PromptError::Failed(error.to_string()))
        })
    }

    fn complete(&self, request: CompleteRequest) -> BoxFuture<'_, Result<Completion, PromptError>> {
        Box::pin(async move {
            self.client
                .complete_prompt(
                    &self.remote,
                    &request.argument,
                    &request.value,
                    &request.context,
                    &request.ctx,
                )
                .await
                .map_err(|error| PromptError::Failed(error.to_string()))
        })
    }
}
