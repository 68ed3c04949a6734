//! MCP resources: what a server offers clients to read, by URI
//! (`resources/list`, `resources/templates/list`, `resources/read`), served
//! with [`McpServer::with_resources`](crate::server::McpServer::with_resources).
//!
//! A resource is any [`Resource`]: its [`ResourceSpec`] (a fixed URI or a
//! [`UriTemplate`], a name, a media type) and how it is read. The
//! [builder](Resources::builder) takes them, and makes the common ones
//! from values and closures; the collection may change while the server
//! runs ([`insert`](Resources::insert), [`remove`](Resources::remove)),
//! and [`updated`](Resources::updated) tells subscribed clients a
//! resource's contents changed.

mod annotations;
mod contents;
mod error;
pub(crate) mod linked;
#[cfg(feature = "skills")]
pub mod skills;
mod spec;
mod template;

use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;
use futures_util::future::BoxFuture;
use tokio::sync::{broadcast, watch};
use tool_runtime::ToolContext;

pub use annotations::{InvalidPriority, ResourceAnnotations};
pub use contents::{Body, Contents};
pub use error::{DuplicateUri, ResourceError};
pub use spec::{CacheHint, ResourceSpec, ResourceUri};
pub use template::{TemplateError, UriParams, UriTemplate};

use crate::completion::{CompleteRequest, Completion};

/// A resource: its description, and how it is read.
pub trait Resource: Send + Sync + 'static {
    /// Its description (URI or URI template, name, media type).
    fn spec(&self) -> &ResourceSpec;

    /// Reads it: the contents at `request.uri` (one of a template's URIs,
    /// whose variables are `request.params`). Contents must not be empty.
    fn read(&self, request: ReadRequest) -> BoxFuture<'_, Result<Vec<Contents>, ResourceError>>;

    /// The values of a template's variable as far as the client typed it;
    /// by default none.
    fn complete(
        &self,
        request: CompleteRequest,
    ) -> BoxFuture<'_, Result<Completion, ResourceError>> {
        let _ = request;
        Box::pin(async { Ok(Completion::none()) })
    }

    /// A template's members, listed in `resources/list` after the
    /// resources at fixed URIs: each a spec at a fixed URI the template
    /// answers for (its name, media type, size, annotations). By default
    /// none; a fixed resource's are not asked for.
    ///
    /// At most [`max_listed`](ResourcesBuilder::max_listed) of a template's
    /// are listed (the rest are left out with a warning), and one whose URI
    /// is a template, or is listed already, is left out; a template whose
    /// listing fails lists none (with a warning), and the rest of the list
    /// is given. `ctx` is the request's: its caller, its cancellation.
    fn list(&self, ctx: ToolContext) -> BoxFuture<'_, Result<Vec<ResourceSpec>, ResourceError>> {
        let _ = ctx;
        Box::pin(async { Ok(Vec::new()) })
    }
}

/// A shared resource is a resource: one of another collection (from
/// [`Resources::get`]) may be [inserted](Resources::insert) in this one.
impl<R: Resource + ?Sized> Resource for Arc<R> {
    fn spec(&self) -> &ResourceSpec {
        (**self).spec()
    }

    fn read(&self, request: ReadRequest) -> BoxFuture<'_, Result<Vec<Contents>, ResourceError>> {
        (**self).read(request)
    }

    fn complete(
        &self,
        request: CompleteRequest,
    ) -> BoxFuture<'_, Result<Completion, ResourceError>> {
        (**self).complete(request)
    }

    fn list(&self, ctx: ToolContext) -> BoxFuture<'_, Result<Vec<ResourceSpec>, ResourceError>> {
        (**self).list(ctx)
    }
}

/// A `resources/read` of a [`Resource`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ReadRequest {
    /// The URI read.
    pub uri: String,
    /// The values the URI gives the template's variables (none for a fixed
    /// URI).
    pub params: UriParams,
    /// The context of the request: its caller, its cancellation, the
    /// client's capabilities.
    pub ctx: ToolContext,
}

impl ReadRequest {
    /// A read of `uri` with `params`, in `ctx`.
    pub fn new(uri: impl Into<String>, params: UriParams, ctx: ToolContext) -> Self {
        Self {
            uri: uri.into(),
            params,
            ctx,
        }
    }
}

/// The resources a server offers: a cheap-clone handle whose clones share
/// them, so the program may change them while the server runs.
///
/// ```
/// use tool_mcp::resources::{Contents, ResourceSpec, Resources, UriTemplate};
///
/// let resources = Resources::builder()
///     .text(
///         ResourceSpec::fixed("test://static-text", "static-text").with_mime_type("text/plain"),
///         "This is the content of the static text resource.",
///     )
///     .template(
///         ResourceSpec::template(UriTemplate::parse("test://template/{id}/data").unwrap(), "data")
///             .with_mime_type("application/json"),
///         |request| async move {
///             let id = request.params.get("id").unwrap_or_default().to_owned();
///             Ok(vec![Contents::text(request.uri, "application/json", format!("{{\"id\":\"{id}\"}}"))])
///         },
///     )
///     .build()
///     .unwrap();
/// assert!(resources.resolves("test://template/7/data"));
/// assert!(!resources.resolves("test://elsewhere"));
/// ```
#[derive(Clone)]
pub struct Resources {
    shared: Arc<Shared>,
}

struct Shared {
    /// Every resource, in registration order.
    entries: ArcSwap<Vec<Arc<dyn Resource>>>,
    /// Held while the entries change.
    write: Mutex<()>,
    /// Counts the changes to the entries.
    version: watch::Sender<u64>,
    /// The URIs whose contents changed.
    updates: broadcast::Sender<String>,
    max_read_bytes: usize,
    max_listed: usize,
    /// The skills served, their files read as resources.
    #[cfg(feature = "skills")]
    skills: Option<crate::resources::skills::Skills>,
}

impl Resources {
    /// The most bytes a read gives unless
    /// [`max_read_bytes`](ResourcesBuilder::max_read_bytes) says otherwise:
    /// 16 MiB. A read of more is answered with an error (`-32603`).
    pub const DEFAULT_MAX_READ_BYTES: usize = 16 << 20;

    /// How many of a template's members `resources/list` lists unless
    /// [`max_listed`](ResourcesBuilder::max_listed) says otherwise: 1,000.
    /// The rest are left out, with a warning.
    pub const DEFAULT_MAX_LISTED: usize = 1000;

    /// How many [`updated`](Self::updated) URIs wait for a slow session
    /// before it is told the whole list changed instead: 256.
    pub const UPDATE_BUFFER: usize = 256;

    /// A builder of resources.
    pub fn builder() -> ResourcesBuilder {
        ResourcesBuilder {
            entries: Vec::new(),
            max_read_bytes: Self::DEFAULT_MAX_READ_BYTES,
            max_listed: Self::DEFAULT_MAX_LISTED,
            #[cfg(feature = "skills")]
            skills: None,
        }
    }

    /// Every `#[resource]` linked into this program (those not written
    /// `register = false`), ordered by URI: built at the first call, and
    /// shared by every later one, so what is
    /// [inserted](Self::insert) in it stays.
    ///
    /// # Panics
    ///
    /// When two linked resources have the same URI (or template), with
    /// both named: a mistake in the program, as two `#[tool]`s of one name
    /// are for `Registry::global`.
    pub fn global() -> &'static Resources {
        static GLOBAL: std::sync::OnceLock<Resources> = std::sync::OnceLock::new();
        GLOBAL.get_or_init(|| {
            let builder = linked::linked()
                .into_iter()
                .fold(Self::builder(), ResourcesBuilder::resource);
            match builder.build() {
                Ok(resources) => resources,
                Err(error) => panic!("{error}"),
            }
        })
    }

    /// Every resource, in registration order.
    pub fn list(&self) -> Vec<Arc<dyn Resource>> {
        self.shared.entries.load().as_ref().clone()
    }

    /// The resource that answers for `uri`, with the values it gives the
    /// template's variables: a fixed URI first, then a skill's file, then
    /// the templates in registration order.
    pub fn resolve(&self, uri: &str) -> Option<(Arc<dyn Resource>, UriParams)> {
        let entries = self.shared.entries.load();
        let fixed = entries.iter().find(
            |resource| matches!(&resource.spec().uri, ResourceUri::Fixed(fixed) if fixed == uri),
        );
        if let Some(resource) = fixed {
            return Some((Arc::clone(resource), UriParams::new()));
        }
        #[cfg(feature = "skills")]
        if let Some(file) = self.skills().and_then(|skills| skills.file(uri)) {
            return Some((Arc::clone(file) as Arc<dyn Resource>, UriParams::new()));
        }
        entries
            .iter()
            .find_map(|resource| match &resource.spec().uri {
                ResourceUri::Template(template) => template
                    .matches(uri)
                    .map(|params| (Arc::clone(resource), params)),
                ResourceUri::Fixed(_) => None,
            })
    }

    /// Whether some resource answers for `uri`: a tool's `resource_link`
    /// to it can be read with `resources/read`.
    pub fn resolves(&self, uri: &str) -> bool {
        self.resolve(uri).is_some()
    }

    /// The resource whose URI or template is written `uri` (as listed).
    pub fn get(&self, uri: &str) -> Option<Arc<dyn Resource>> {
        self.shared
            .entries
            .load()
            .iter()
            .find(|resource| key(resource.spec()) == uri)
            .cloned()
    }

    /// Adds `resource`; refused when one has its URI (or template) already.
    /// Clients that listen for changes are told.
    pub fn insert(&self, resource: impl Resource) -> Result<(), DuplicateUri> {
        let _write = self.shared.write.lock().unwrap_or_else(|e| e.into_inner());
        let mut entries = self.list();
        let uri = key(resource.spec()).to_owned();
        if entries.iter().any(|entry| key(entry.spec()) == uri) {
            return Err(DuplicateUri(uri));
        }
        entries.push(Arc::new(resource));
        self.shared.entries.store(Arc::new(entries));
        self.shared.version.send_modify(|version| *version += 1);
        Ok(())
    }

    /// Takes out the resource whose URI or template is written `uri`;
    /// whether there was one. Clients that listen for changes are told.
    pub fn remove(&self, uri: &str) -> bool {
        let _write = self.shared.write.lock().unwrap_or_else(|e| e.into_inner());
        let mut entries = self.list();
        let before = entries.len();
        entries.retain(|entry| key(entry.spec()) != uri);
        if entries.len() == before {
            return false;
        }
        self.shared.entries.store(Arc::new(entries));
        self.shared.version.send_modify(|version| *version += 1);
        true
    }

    /// Tells the clients subscribed to `uri` that its contents changed
    /// (`notifications/resources/updated`).
    pub fn updated(&self, uri: impl Into<String>) {
        let _ = self.shared.updates.send(uri.into());
    }

    /// Changes with each [`insert`](Self::insert) and
    /// [`remove`](Self::remove).
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.shared.version.subscribe()
    }

    /// The URIs [`updated`](Self::updated) from now on.
    pub(crate) fn updates(&self) -> broadcast::Receiver<String> {
        self.shared.updates.subscribe()
    }

    /// The most bytes a read gives.
    pub fn max_read_bytes(&self) -> usize {
        self.shared.max_read_bytes
    }

    /// The most members of one template `resources/list` lists.
    pub fn max_listed(&self) -> usize {
        self.shared.max_listed
    }

    /// The skills served ([`ResourcesBuilder::skills`]), if any.
    #[cfg(feature = "skills")]
    pub fn skills(&self) -> Option<&crate::resources::skills::Skills> {
        self.shared.skills.as_ref()
    }
}

impl fmt::Debug for Resources {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let entries = self.shared.entries.load();
        f.debug_list()
            .entries(entries.iter().map(|resource| key(resource.spec())))
            .finish()
    }
}

/// What names a resource in its collection: its URI or template as written.
pub(crate) fn key(spec: &ResourceSpec) -> &str {
    match &spec.uri {
        ResourceUri::Fixed(uri) => uri,
        ResourceUri::Template(template) => template.as_str(),
    }
}

/// Builds [`Resources`] (see [`Resources::builder`]).
pub struct ResourcesBuilder {
    entries: Vec<Arc<dyn Resource>>,
    max_read_bytes: usize,
    max_listed: usize,
    #[cfg(feature = "skills")]
    skills: Option<crate::resources::skills::Skills>,
}

impl ResourcesBuilder {
    /// Adds `resource`.
    pub fn resource(mut self, resource: impl Resource) -> Self {
        self.entries.push(Arc::new(resource));
        self
    }

    /// Adds a resource whose contents are `text` (of the spec's media type,
    /// else `text/plain`), the same on each read; its reads may be cached
    /// as [`CacheHint::STATIC`] unless the spec says otherwise.
    pub fn text(self, spec: ResourceSpec, text: impl Into<String>) -> Self {
        self.fixed(spec, Body::Text(text.into()), "text/plain")
    }

    /// Adds a resource whose contents are `bytes` (of the spec's media
    /// type, else `application/octet-stream`), the same on each read;
    /// cached as [`text`](Self::text) is.
    pub fn blob(self, spec: ResourceSpec, bytes: impl Into<Vec<u8>>) -> Self {
        self.fixed(spec, Body::Blob(bytes.into()), "application/octet-stream")
    }

    fn fixed(self, mut spec: ResourceSpec, body: Body, mime: &'static str) -> Self {
        if spec.mime_type.is_none() {
            spec.mime_type = Some(mime.into());
        }
        if spec.cache == CacheHint::NONE {
            spec.cache = CacheHint::STATIC;
        }
        if spec.size.is_none() {
            spec.size = Some(body.len() as u64);
        }
        self.resource(Static { spec, body })
    }

    /// Adds a resource read by `read`: typically for a URI template, whose
    /// variables are the request's `params`.
    pub fn template<F, Fut>(self, spec: ResourceSpec, read: F) -> Self
    where
        F: Fn(ReadRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<Contents>, ResourceError>> + Send + 'static,
    {
        self.resource(ReadFn { spec, read })
    }

    /// Adds a template read by `read`, whose members `list` gives for
    /// `resources/list` (see [`Resource::list`]), as the specs of their
    /// fixed URIs.
    ///
    /// ```
    /// use tool_mcp::resources::{Contents, ResourceSpec, Resources, UriTemplate};
    ///
    /// let template = UriTemplate::parse("notes://{name}").unwrap();
    /// let resources = Resources::builder()
    ///     .template_with_list(
    ///         ResourceSpec::template(template, "note").with_mime_type("text/plain"),
    ///         |request| async move { Ok(vec![Contents::text(request.uri, "text/plain", "...")]) },
    ///         |_ctx| async {
    ///             Ok(["todo", "ideas"]
    ///                 .map(|name| ResourceSpec::fixed(format!("notes://{name}"), name))
    ///                 .to_vec())
    ///         },
    ///     )
    ///     .build()
    ///     .unwrap();
    /// assert!(resources.resolves("notes://todo"));
    /// ```
    pub fn template_with_list<F, Fut, L, LFut>(self, spec: ResourceSpec, read: F, list: L) -> Self
    where
        F: Fn(ReadRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<Contents>, ResourceError>> + Send + 'static,
        L: Fn(ToolContext) -> LFut + Send + Sync + 'static,
        LFut: Future<Output = Result<Vec<ResourceSpec>, ResourceError>> + Send + 'static,
    {
        self.resource(Listed {
            inner: ReadFn { spec, read },
            list,
        })
    }

    /// The most members of one template `resources/list` lists (see
    /// [`Resource::list`]); the rest are left out, with a warning. The
    /// default is [`Resources::DEFAULT_MAX_LISTED`].
    pub fn max_listed(mut self, members: usize) -> Self {
        self.max_listed = members;
        self
    }

    /// Serves `skills` (feature `skills`, see [`crate::resources::skills`]): their
    /// files read as resources (each `SKILL.md` listed), `skills/list`,
    /// `skills/get` and `resources/directory/read` answered, and the
    /// extension declared. A second call replaces the first's skills (a
    /// [`SkillsBuilder`](crate::resources::skills::SkillsBuilder) takes several
    /// directories).
    #[cfg(feature = "skills")]
    pub fn skills(mut self, skills: crate::resources::skills::Skills) -> Self {
        self.skills = Some(skills);
        self
    }

    /// The most bytes a read gives (its contents' text and bytes together);
    /// a read of more is answered with an error (`-32603`, with `{uri,
    /// bytes, limit}`). The default is
    /// [`Resources::DEFAULT_MAX_READ_BYTES`].
    pub fn max_read_bytes(mut self, bytes: usize) -> Self {
        self.max_read_bytes = bytes;
        self
    }

    /// The resources; refused when two have the same URI (or template),
    /// a skill's file among them.
    pub fn build(self) -> Result<Resources, DuplicateUri> {
        for (at, entry) in self.entries.iter().enumerate() {
            let uri = key(entry.spec());
            if self.entries[..at].iter().any(|e| key(e.spec()) == uri) {
                return Err(DuplicateUri(uri.to_owned()));
            }
            #[cfg(feature = "skills")]
            if self.skills.iter().any(|skills| skills.file(uri).is_some()) {
                return Err(DuplicateUri(uri.to_owned()));
            }
        }
        let (updates, _) = broadcast::channel(Resources::UPDATE_BUFFER);
        Ok(Resources {
            shared: Arc::new(Shared {
                entries: ArcSwap::from_pointee(self.entries),
                write: Mutex::new(()),
                version: watch::Sender::new(0),
                updates,
                max_read_bytes: self.max_read_bytes,
                max_listed: self.max_listed,
                #[cfg(feature = "skills")]
                skills: self.skills,
            }),
        })
    }
}

/// A resource whose contents never change.
struct Static {
    spec: ResourceSpec,
    body: Body,
}

impl Resource for Static {
    fn spec(&self) -> &ResourceSpec {
        &self.spec
    }

    fn read(&self, request: ReadRequest) -> BoxFuture<'_, Result<Vec<Contents>, ResourceError>> {
        let contents = Contents {
            uri: request.uri,
            mime_type: self.spec.mime_type.as_deref().map(str::to_owned),
            body: self.body.clone(),
            meta: None,
        };
        Box::pin(async move { Ok(vec![contents]) })
    }
}

/// A resource read by a closure.
struct ReadFn<F> {
    spec: ResourceSpec,
    read: F,
}

impl<F, Fut> Resource for ReadFn<F>
where
    F: Fn(ReadRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Vec<Contents>, ResourceError>> + Send + 'static,
{
    fn spec(&self) -> &ResourceSpec {
        &self.spec
    }

    fn read(&self, request: ReadRequest) -> BoxFuture<'_, Result<Vec<Contents>, ResourceError>> {
        Box::pin((self.read)(request))
    }
}

/// A resource whose members a closure lists.
struct Listed<R, L> {
    inner: R,
    list: L,
}

impl<R, L, LFut> Resource for Listed<R, L>
where
    R: Resource,
    L: Fn(ToolContext) -> LFut + Send + Sync + 'static,
    LFut: Future<Output = Result<Vec<ResourceSpec>, ResourceError>> + Send + 'static,
{
    fn spec(&self) -> &ResourceSpec {
        self.inner.spec()
    }

    fn read(&self, request: ReadRequest) -> BoxFuture<'_, Result<Vec<Contents>, ResourceError>> {
        self.inner.read(request)
    }

    fn complete(
        &self,
        request: CompleteRequest,
    ) -> BoxFuture<'_, Result<Completion, ResourceError>> {
        self.inner.complete(request)
    }

    fn list(&self, ctx: ToolContext) -> BoxFuture<'_, Result<Vec<ResourceSpec>, ResourceError>> {
        Box::pin((self.list)(ctx))
    }
}
