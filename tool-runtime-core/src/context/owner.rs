//! [`Owner`]: whom what a call leaves behind belongs to.

use std::fmt;
use std::sync::Arc;

use super::Caller;

/// Whom what a call leaves behind belongs to: a task it started, a full
/// result kept for it, a request state sealed for it, a session it opened.
/// Only the same owner finds it again; to anyone else it is unknown, as an
/// id never given out is.
///
/// An owner is a key, compared whole:
///
/// - a caller's ([`Owner::of_caller`]): the issuer and subject of the
///   caller, or the issuer and the OAuth client when the caller names no
///   subject. The same key in every process, so a task kept in a store
///   that several processes share is its caller's wherever it is read.
/// - one a server gives what no caller owns ([`Owner::session`]: an
///   anonymous client's session).
///
/// [`ToolContext::owner`](super::ToolContext::owner) gives the owner of the
/// calls made with a context: their caller's, else the one
/// [`ToolContext::with_owner`](super::ToolContext::with_owner) set.
///
/// ```
/// use tool_runtime::context::{Caller, Owner};
/// use tool_runtime::ToolContext;
///
/// let ada = Caller::new("ada").with_issuer("https://auth.example.com");
/// let owner = Owner::of_caller(&ada).unwrap();
/// assert_eq!(owner.as_str(), r#"caller:sub:["https://auth.example.com","ada"]"#);
///
/// // A caller is the owner, whatever session it calls from.
/// let ctx = ToolContext::new()
///     .with_owner(Owner::session("5f0c"))
///     .with_caller(ada);
/// assert_eq!(ctx.owner(), Some(&owner));
///
/// // Without a caller, the session is.
/// let anonymous = ToolContext::new().with_owner(Owner::session("5f0c"));
/// assert_eq!(anonymous.owner().unwrap().as_str(), "session:5f0c");
/// assert_eq!(ToolContext::new().owner(), None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Owner(Arc<str>);

impl Owner {
    /// The owner `caller` is: `caller:sub:` and the JSON array of its
    /// issuer and subject, or `caller:client:` and that of its issuer and
    /// client id when it names no subject (an empty issuer when it names
    /// none). `None` when the caller names neither a subject nor a client:
    /// it owns nothing of its own, and what it makes belongs to its
    /// session, if any.
    pub fn of_caller(caller: &Caller) -> Option<Self> {
        fn named(name: &Option<String>) -> Option<&str> {
            name.as_deref().filter(|name| !name.is_empty())
        }
        let (kind, name) = match (named(&caller.subject), named(&caller.client_id)) {
            (Some(subject), _) => ("sub", subject),
            (None, Some(client)) => ("client", client),
            (None, None) => return None,
        };
        let issuer = caller.issuer.as_deref().unwrap_or("");
        // JSON strings, quoted and escaped: no two pairs give one key.
        let pair = serde_json::to_string(&[issuer, name]).unwrap_or_default();
        Some(Self(format!("caller:{kind}:{pair}").into()))
    }

    /// The owner a server gives a session no caller owns: `session:` and
    /// `id`, which should be hard to guess and never given out twice.
    pub fn session(id: &str) -> Self {
        Self(format!("session:{id}").into())
    }

    /// An owner of the key `key`, as [`as_str`](Self::as_str) gave it (read
    /// back from a store). Keys of different kinds should not meet: prefix
    /// them, as `caller:` and `session:` are.
    pub fn new(key: impl Into<Arc<str>>) -> Self {
        Self(key.into())
    }

    /// The key.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Owner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for Owner {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<Owner> for Arc<str> {
    fn from(owner: Owner) -> Self {
        owner.0
    }
}

impl From<&Owner> for Arc<str> {
    fn from(owner: &Owner) -> Self {
        Arc::clone(&owner.0)
    }
}
