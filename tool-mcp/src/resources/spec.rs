//! What a resource says of itself: its URI (or URI template), name, media
//! type and how its reads may be cached.

use std::borrow::Cow;
use std::time::Duration;

use serde_json::{Map, Value};

use super::annotations::ResourceAnnotations;
use super::template::UriTemplate;

/// The URI a resource answers for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceUri {
    /// One URI (`test://static-text`), listed in `resources/list`.
    Fixed(Cow<'static, str>),
    /// Every URI of a template (`test://template/{id}/data`), listed in
    /// `resources/templates/list`.
    Template(UriTemplate),
}

/// How the contents of a read may be cached by a client of revision
/// 2026-07-28 (`ttlMs` and `cacheScope` of a `resources/read` result).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct CacheHint {
    /// How long a read stays fresh; `None`: the server's list lifetime
    /// (`McpServer::with_list_ttl`).
    pub ttl: Option<Duration>,
    /// Whether every client may share a cached read (`public`); else each
    /// authorization context caches its own (`private`).
    pub public: bool,
}

impl CacheHint {
    /// Not cached, and private: what a resource read is unless it says
    /// otherwise, since its contents may change and depend on the caller.
    pub const NONE: CacheHint = CacheHint {
        ttl: Some(Duration::ZERO),
        public: false,
    };

    /// Fresh for the server's list lifetime, for every client: contents
    /// that do not change while the server runs (`Resources::builder().text`).
    pub const STATIC: CacheHint = CacheHint {
        ttl: None,
        public: true,
    };
}

impl Default for CacheHint {
    fn default() -> Self {
        Self::NONE
    }
}

/// A resource's description: what `resources/list` (or
/// `resources/templates/list`) gives of it.
///
/// ```
/// use tool_mcp::resources::ResourceSpec;
///
/// let spec = ResourceSpec::fixed("test://static-text", "static-text")
///     .with_description("A static text")
///     .with_mime_type("text/plain");
/// assert_eq!(spec.name, "static-text");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ResourceSpec {
    /// Its URI or URI template.
    pub uri: ResourceUri,
    /// Its name.
    pub name: Cow<'static, str>,
    /// A title for people.
    pub title: Option<Cow<'static, str>>,
    /// What it holds.
    pub description: Option<Cow<'static, str>>,
    /// The media type of its contents.
    pub mime_type: Option<Cow<'static, str>>,
    /// Its size in bytes, when known ahead of a read (listed for a fixed
    /// URI only).
    pub size: Option<u64>,
    /// Who it is for, how much it matters, when it last changed (see
    /// [`ResourceAnnotations`]).
    pub annotations: Option<ResourceAnnotations>,
    /// The `_meta` of its list entry.
    pub meta: Option<Map<String, Value>>,
    /// How its reads may be cached (see [`CacheHint`]).
    pub cache: CacheHint,
}

impl ResourceSpec {
    /// A resource at one URI, named `name`.
    pub fn fixed(uri: impl Into<Cow<'static, str>>, name: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ResourceUri::Fixed(uri.into()), name.into())
    }

    /// The resources of a URI template, named `name`.
    pub fn template(template: UriTemplate, name: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ResourceUri::Template(template), name.into())
    }

    fn new(uri: ResourceUri, name: Cow<'static, str>) -> Self {
        Self {
            uri,
            name,
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
            meta: None,
            cache: CacheHint::NONE,
        }
    }

    /// With a title for people.
    pub fn with_title(mut self, title: impl Into<Cow<'static, str>>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// With a description of what it holds.
    pub fn with_description(mut self, description: impl Into<Cow<'static, str>>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// With the media type of its contents.
    pub fn with_mime_type(mut self, mime_type: impl Into<Cow<'static, str>>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// With its size in bytes, known ahead of a read (listed for a fixed
    /// URI only: a template's members have sizes of their own).
    pub fn with_size(mut self, size: u64) -> Self {
        self.size = Some(size);
        self
    }

    /// With its `annotations`: who it is for, how much it matters, when
    /// it last changed.
    ///
    /// ```
    /// use tool_mcp::resources::{ResourceAnnotations, ResourceSpec};
    /// use tool_runtime::context::Role;
    ///
    /// let spec = ResourceSpec::fixed("test://notes", "notes").with_annotations(
    ///     ResourceAnnotations::new().with_audience([Role::Assistant]).with_priority(0.5)?,
    /// );
    /// assert_eq!(spec.annotations.unwrap().priority(), Some(0.5));
    /// # Ok::<(), tool_mcp::resources::InvalidPriority>(())
    /// ```
    pub fn with_annotations(mut self, annotations: ResourceAnnotations) -> Self {
        self.annotations = Some(annotations);
        self
    }

    /// With how its reads may be cached.
    pub fn with_cache(mut self, cache: CacheHint) -> Self {
        self.cache = cache;
        self
    }

    /// With the `_meta` of its list entry.
    pub fn with_meta(mut self, meta: Map<String, Value>) -> Self {
        self.meta = Some(meta);
        self
    }

    /// Its list entry in MCP's shape: a `Resource` (`uri`) or a
    /// `ResourceTemplate` (`uriTemplate`), with the fields it has.
    pub(crate) fn to_json(&self) -> Value {
        let mut entry = Map::new();
        match &self.uri {
            ResourceUri::Fixed(uri) => entry.insert("uri".into(), uri.as_ref().into()),
            ResourceUri::Template(template) => {
                entry.insert("uriTemplate".into(), template.as_str().into())
            }
        };
        entry.insert("name".into(), self.name.as_ref().into());
        let optional = [
            ("title", &self.title),
            ("description", &self.description),
            ("mimeType", &self.mime_type),
        ];
        for (key, value) in optional {
            if let Some(value) = value {
                entry.insert(key.into(), value.as_ref().into());
            }
        }
        if let (Some(size), ResourceUri::Fixed(_)) = (self.size, &self.uri) {
            entry.insert("size".into(), size.into());
        }
        if let Some(annotations) = self.annotations.as_ref().filter(|a| !a.is_empty()) {
            entry.insert("annotations".into(), annotations.to_json());
        }
        if let Some(meta) = &self.meta {
            entry.insert("_meta".into(), Value::Object(meta.clone()));
        }
        Value::Object(entry)
    }
}
