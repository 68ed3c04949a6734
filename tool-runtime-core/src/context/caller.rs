//! [`Caller`]: who is calling, as the server that took the call knows it.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

use super::{FromToolContext, ToolContext};
use crate::spec::tool_spec::ToolSpec;
use crate::spec::{ToolError, ToolErrorKind};

/// Who is calling: the principal a server authenticated, with what it was
/// granted.
///
/// A server puts it on the context of each call it serves for an
/// authenticated client (an MCP server from the client's access token, a
/// program from its own environment), and a tool, a policy or an approver
/// reads it with [`ToolContext::caller`]. A call with no caller is
/// anonymous: its server authenticates no one, and the deployer chose to
/// trust whoever reaches it.
///
/// A tool can also take it as a parameter, `#[tool(inject)] caller:
/// Option<&Caller>` (or `&Caller`, which refuses an anonymous call).
///
/// ```
/// use tool_runtime::ToolContext;
/// use tool_runtime::context::Caller;
///
/// fn who(ctx: &ToolContext) -> String {
///     match ctx.caller() {
///         Some(caller) => format!("{:?} with {:?}", caller.subject, caller.scopes),
///         None => "anonymous".to_owned(),
///     }
/// }
/// assert_eq!(who(&ToolContext::new()), "anonymous");
///
/// let ada = Caller::new("ada").with_scopes(["files:read"]);
/// let ctx = ToolContext::new().with_caller(ada);
/// assert_eq!(who(&ctx), r#"Some("ada") with ["files:read"]"#);
/// assert!(ctx.caller().unwrap().has_scope("files:read"));
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct Caller {
    /// The subject: for a token, its `sub` claim (the user, or for the
    /// client-credentials grant usually the client itself). Some
    /// authorization servers leave it out of machine tokens.
    pub subject: Option<String>,
    /// The OAuth client the token was issued to: its `client_id` claim
    /// (RFC 9068, RFC 7662), or `azp` when only that is there.
    pub client_id: Option<String>,
    /// The scopes granted: a token's space-separated `scope` claim, or the
    /// `scp` claim (a list or a string) some servers use instead.
    pub scopes: Vec<String>,
    /// Who vouches for the subject: a token's `iss` claim (its
    /// authorization server), when there is one.
    pub issuer: Option<String>,
    /// A token's `aud` claim, as a list (it names the server's resource).
    pub audience: Vec<String>,
    /// When the credential expires (a token's `exp`), if it says.
    pub expires_at: Option<SystemTime>,
    /// Every claim of the token (or member of its introspection), for
    /// anything the fields above do not carry.
    pub claims: Map<String, Value>,
}

impl Caller {
    /// A caller known by its subject alone, granted nothing yet: for a
    /// program that takes identity from its environment (a stdio server's
    /// user), and for tests.
    pub fn new(subject: impl Into<String>) -> Self {
        Self {
            subject: Some(subject.into()),
            ..Self::default()
        }
    }

    /// The caller the claims of a validated access token (or an
    /// introspection answer) describe: `sub`, `client_id` or `azp`, `scope`
    /// or `scp`, `iss`, `aud` and `exp`, and every claim kept in
    /// [`claims`](Self::claims).
    ///
    /// It trusts what it is given: validate the token first.
    pub fn from_claims(claims: Map<String, Value>) -> Self {
        let text = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
        let scopes = match (claims.get("scope"), claims.get("scp")) {
            (Some(Value::String(scope)), _) | (None, Some(Value::String(scope))) => {
                split_scopes(scope)
            }
            (None, Some(Value::Array(list))) => strings(list),
            _ => Vec::new(),
        };
        let audience = match claims.get("aud") {
            Some(Value::String(aud)) => vec![aud.clone()],
            Some(Value::Array(list)) => strings(list),
            _ => Vec::new(),
        };
        let expires_at = claims
            .get("exp")
            .and_then(Value::as_u64)
            .map(|exp| UNIX_EPOCH + Duration::from_secs(exp));
        Self {
            subject: text("sub"),
            client_id: text("client_id").or_else(|| text("azp")),
            scopes,
            issuer: text("iss"),
            audience,
            expires_at,
            claims,
        }
    }

    /// Grants `scopes` besides those already granted.
    pub fn with_scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Names the OAuth client the caller came through.
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// Names who vouches for the subject.
    pub fn with_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Whether `scope` was granted.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|granted| granted == scope)
    }

    /// The first of `scopes` that was not granted, if any.
    pub fn missing_scope<'a>(&self, scopes: &[&'a str]) -> Option<&'a str> {
        scopes.iter().copied().find(|scope| !self.has_scope(scope))
    }
}

/// The scopes of a space-separated `scope` value.
fn split_scopes(scope: &str) -> Vec<String> {
    scope.split_ascii_whitespace().map(str::to_owned).collect()
}

fn strings(list: &[Value]) -> Vec<String> {
    list.iter()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

impl<'a> FromToolContext<'a> for &'a Caller {
    fn from_tool_context(ctx: &'a ToolContext) -> Result<Self, ToolError> {
        ctx.caller().ok_or_else(|| {
            ToolError::with_kind(
                ToolErrorKind::MissingContext,
                "this tool needs an authenticated caller, and the call came from no one \
                 the server authenticated",
            )
        })
    }
}

/// Whether the caller on `ctx` may call, and see, the tool with `spec`: it
/// was granted every one of the tool's [scopes](ToolSpec::scopes), or the
/// call is anonymous (no caller), which is not checked.
pub(crate) fn may_call(ctx: &ToolContext, spec: &ToolSpec) -> bool {
    spec.scopes.is_empty()
        || ctx
            .caller()
            .is_none_or(|caller| spec.scopes.iter().all(|scope| caller.has_scope(scope)))
}

/// The error that ends a call of the tool with `spec` when the caller on
/// `ctx` lacks any of its scopes, naming every one it lacks; `None` when it
/// [`may_call`].
pub(crate) fn scope_refusal(ctx: &ToolContext, spec: &ToolSpec) -> Option<ToolError> {
    if may_call(ctx, spec) {
        return None;
    }
    let caller = ctx.caller()?;
    let missing: Vec<String> = spec
        .scopes
        .iter()
        .filter(|scope| !caller.has_scope(scope))
        .map(|scope| format!("\"{scope}\""))
        .collect();
    let needs = match missing.as_slice() {
        [one] => format!("the scope {one}"),
        [first @ .., last] => format!("the scopes {} and {last}", first.join(", ")),
        [] => return None,
    };
    Some(ToolError::with_kind(
        ToolErrorKind::InsufficientScope,
        format!(
            "the call to {} needs {needs}, which the caller was not granted, so it was not run",
            spec.name
        ),
    ))
}
