//! What a view may reach beyond itself: the origins of its Content
//! Security Policy ([`Csp`]) and the browser permissions it asks for
//! ([`Permission`]), with the check that each origin is one.

use serde_json::{Map, Value};

/// The origins a view may reach, which the host turns into its iframe's
/// Content Security Policy. Every list is empty by default, the secure
/// default: no network requests, no resources but inline ones, no nested
/// frames, `base-uri 'self'`.
///
/// Each origin is `scheme://host` with an optional `:port`, and a host may
/// start with `*.` for every subdomain (`https://*.example.com`);
/// [`AppBuilder::build`](super::AppBuilder::build) refuses anything else,
/// naming it.
///
/// ```
/// use tool_mcp::apps::Csp;
///
/// let csp = Csp::new()
///     .connect_domains(["https://api.example.com", "wss://live.example.com"])
///     .resource_domains(["https://*.cdn.example.com"]);
/// assert_eq!(csp.connect.len(), 2);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Csp {
    /// Origins of the view's `fetch`, XHR and WebSocket requests
    /// (`connectDomains`, CSP `connect-src`).
    pub connect: Vec<String>,
    /// Origins of its images, scripts, stylesheets, fonts and media
    /// (`resourceDomains`).
    pub resources: Vec<String>,
    /// Origins of the frames it nests (`frameDomains`, `frame-src`).
    pub frames: Vec<String>,
    /// Origins its document's base URI may be (`baseUriDomains`,
    /// `base-uri`).
    pub base_uri: Vec<String>,
}

impl Csp {
    /// A policy that allows nothing beyond the view itself.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds origins of the view's network requests (`connectDomains`).
    pub fn connect_domains<S: Into<String>>(
        mut self,
        origins: impl IntoIterator<Item = S>,
    ) -> Self {
        self.connect.extend(origins.into_iter().map(Into::into));
        self
    }

    /// Adds origins of its static resources (`resourceDomains`).
    pub fn resource_domains<S: Into<String>>(
        mut self,
        origins: impl IntoIterator<Item = S>,
    ) -> Self {
        self.resources.extend(origins.into_iter().map(Into::into));
        self
    }

    /// Adds origins of the frames it nests (`frameDomains`).
    pub fn frame_domains<S: Into<String>>(mut self, origins: impl IntoIterator<Item = S>) -> Self {
        self.frames.extend(origins.into_iter().map(Into::into));
        self
    }

    /// Adds origins its base URI may be (`baseUriDomains`).
    pub fn base_uri_domains<S: Into<String>>(
        mut self,
        origins: impl IntoIterator<Item = S>,
    ) -> Self {
        self.base_uri.extend(origins.into_iter().map(Into::into));
        self
    }

    /// Each list with its key on the wire.
    fn keyed(&self) -> [(&'static str, &[String]); 4] {
        [
            ("connectDomains", &self.connect),
            ("resourceDomains", &self.resources),
            ("frameDomains", &self.frames),
            ("baseUriDomains", &self.base_uri),
        ]
    }

    /// The first origin that is not one, with the key of its list and why.
    pub(super) fn invalid(&self) -> Option<(&'static str, &str, &'static str)> {
        self.keyed().into_iter().find_map(|(key, origins)| {
            origins
                .iter()
                .find_map(|origin| origin_problem(origin).map(|why| (key, origin.as_str(), why)))
        })
    }

    /// `_meta.ui.csp`: the lists that are not empty.
    pub(super) fn to_json(&self) -> Value {
        let mut csp = Map::new();
        for (key, origins) in self.keyed() {
            if !origins.is_empty() {
                csp.insert(key.into(), origins.into());
            }
        }
        Value::Object(csp)
    }
}

/// A browser capability a view asks for; the host may grant it (through
/// its iframe's `allow` attribute) or not, so a view detects it before use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Permission {
    /// The camera (`camera`).
    Camera,
    /// The microphone (`microphone`).
    Microphone,
    /// The device's location (`geolocation`).
    Geolocation,
    /// Writing to the clipboard (`clipboardWrite`).
    ClipboardWrite,
}

impl Permission {
    /// Its key in `_meta.ui.permissions`.
    pub fn as_str(self) -> &'static str {
        match self {
            Permission::Camera => "camera",
            Permission::Microphone => "microphone",
            Permission::Geolocation => "geolocation",
            Permission::ClipboardWrite => "clipboardWrite",
        }
    }
}

/// Why `origin` is not `scheme://host[:port]` (with an optional `*.` before
/// the host), or `None` when it is.
fn origin_problem(origin: &str) -> Option<&'static str> {
    let Some((scheme, rest)) = origin.split_once("://") else {
        return Some("it has no scheme://");
    };
    let mut chars = scheme.chars();
    let scheme_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !scheme_ok {
        return Some("its scheme is not one");
    }
    if rest.contains(['/', '?', '#']) {
        return Some("it has a path, query or fragment");
    }
    if rest.contains('@') {
        return Some("it has a user name");
    }
    // The port follows the last `:`, unless that `:` is inside an IPv6
    // address (`[::1]`).
    let (host, port) = match rest.rsplit_once(':') {
        Some((host, port)) if !host.contains('[') || host.ends_with(']') => (host, Some(port)),
        _ => (rest, None),
    };
    if let Some(port) = port {
        let valid = !port.is_empty()
            && port.len() <= 5
            && port.bytes().all(|b| b.is_ascii_digit())
            && port.parse::<u32>().is_ok_and(|p| (1..=65535).contains(&p));
        if !valid {
            return Some("its port is not a number from 1 to 65535");
        }
    }
    let host = host.strip_prefix("*.").unwrap_or(host);
    if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        let valid = !v6.is_empty() && v6.chars().all(|c| c.is_ascii_hexdigit() || c == ':');
        return (!valid).then_some("its IPv6 address is not one");
    }
    let label_ok = |label: &str| {
        !label.is_empty()
            && label.len() <= 63
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    };
    if host.is_empty() || !host.split('.').all(label_ok) {
        return Some("its host is not a host name (letters, digits and `-` between dots)");
    }
    None
}
