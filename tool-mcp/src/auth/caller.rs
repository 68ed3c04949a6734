//! [`Caller`]: who a validated access token says is calling.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

/// The client an access token was validated for: what its claims (or its
/// introspection) say.
///
/// The server puts it on the [`ToolContext`](tool_runtime::ToolContext) of
/// each call it serves for that token, as a typed extension:
///
/// ```
/// use tool_mcp::auth::Caller;
/// use tool_runtime::ToolContext;
///
/// fn who(ctx: &ToolContext) -> String {
///     match ctx.extension::<Caller>() {
///         Some(caller) => format!("{:?} with {:?}", caller.subject, caller.scopes),
///         None => "anonymous".to_owned(),
///     }
/// }
/// assert_eq!(who(&ToolContext::new()), "anonymous");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Caller {
    /// The `sub` claim: the user, or for the client-credentials grant
    /// usually the client itself. Some servers leave it out of machine
    /// tokens.
    pub subject: Option<String>,
    /// The `client_id` claim (RFC 9068, RFC 7662), or `azp` when only that
    /// is there: the OAuth client the token was issued to.
    pub client_id: Option<String>,
    /// The scopes granted: the space-separated `scope` claim, or the `scp`
    /// claim (a list or a string) some servers use instead.
    pub scopes: Vec<String>,
    /// The `iss` claim: the authorization server (the configured issuer).
    pub issuer: String,
    /// The `aud` claim, as a list (it names this server's resource).
    pub audience: Vec<String>,
    /// When the token expires (`exp`), if it says.
    pub expires_at: Option<SystemTime>,
    /// Every claim of the token (or member of the introspection answer),
    /// for anything the fields above do not carry.
    pub claims: Map<String, Value>,
}

impl Caller {
    /// The caller the claims of a validated token describe.
    pub(crate) fn from_claims(claims: Map<String, Value>) -> Self {
        let text = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
        let scopes = match (claims.get("scope"), claims.get("scp")) {
            (Some(Value::String(scope)), _) | (None, Some(Value::String(scope))) => {
                split_scopes(scope)
            }
            (None, Some(Value::Array(list))) => list
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        };
        let audience = match claims.get("aud") {
            Some(Value::String(aud)) => vec![aud.clone()],
            Some(Value::Array(list)) => list
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        };
        let expires_at = claims
            .get("exp")
            .and_then(Value::as_u64)
            .map(|exp| UNIX_EPOCH + Duration::from_secs(exp));
        Caller {
            subject: text("sub"),
            client_id: text("client_id").or_else(|| text("azp")),
            scopes,
            issuer: text("iss").unwrap_or_default(),
            audience,
            expires_at,
            claims,
        }
    }

    /// Whether the token grants `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|granted| granted == scope)
    }
}

/// The scopes of a space-separated `scope` value.
pub(crate) fn split_scopes(scope: &str) -> Vec<String> {
    scope.split_ascii_whitespace().map(str::to_owned).collect()
}
