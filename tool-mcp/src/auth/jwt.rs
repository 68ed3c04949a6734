//! JWT access tokens (RFC 9068) checked locally: the header's algorithm
//! must be one the server allows and fit the key its `kid` names in the
//! authorization server's JWKS; then the signature, `iss` (exactly the
//! issuer), `aud` (exactly this resource, required), `exp` (required) and
//! `nbf` with the leeway, and `typ`.

use jsonwebtoken::{DecodingKey, Validation, decode, decode_header};
use serde_json::{Map, Value};

use super::Caller;
use super::ResourceServer;
use super::cache::Checked;
use super::error::AuthError;
use super::keys::family_of;

/// The `typ` values accepted in a token's header, compared without regard
/// to case: RFC 9068's `at+jwt` (with or without `application/`), and
/// `JWT`, which several authorization servers put on access tokens. A
/// token without `typ` is accepted too; any other `typ` (an ID token's
/// `id+jwt`, a DPoP proof's `dpop+jwt`, a logout token's) is refused.
const ACCEPTED_TYPES: [&str; 3] = ["at+jwt", "application/at+jwt", "jwt"];

/// Whether `token` has the shape of a JWS (three base64url parts): those
/// are checked here, anything else is an opaque token.
pub(crate) fn looks_like_jwt(token: &str) -> bool {
    token.split('.').count() == 3
}

fn invalid(text: impl Into<String>) -> AuthError {
    AuthError::InvalidToken(text.into())
}

/// Checks the JWT `token` as `server` is configured to.
pub(crate) async fn validate(server: &ResourceServer, token: &str) -> Result<Checked, AuthError> {
    let config = &server.inner.config;
    // An unknown `alg` (`none` included) does not parse.
    let header = decode_header(token).map_err(|error| {
        invalid(format!(
            "the token's header cannot be read, or names an algorithm that is not supported: \
             {error}"
        ))
    })?;
    if !config.algorithms.contains(&header.alg) {
        return Err(invalid(format!(
            "the token is signed with {:?}, which this server does not accept",
            header.alg
        )));
    }
    if let Some(typ) = &header.typ
        && !ACCEPTED_TYPES
            .iter()
            .any(|accepted| typ.eq_ignore_ascii_case(accepted))
    {
        return Err(invalid(format!(
            "the token's type {typ:?} is not that of an access token"
        )));
    }
    let found = server
        .inner
        .keys
        .key(header.kid.as_deref(), header.alg)
        .await?;
    let jwk = &found.jwk;
    if family_of(jwk) != Some(header.alg.family()) {
        return Err(invalid(format!(
            "the key the token names does not sign with {:?}",
            header.alg
        )));
    }
    if let Some(key_alg) = jwk.common.key_algorithm
        && key_alg.to_string() != format!("{:?}", header.alg)
    {
        return Err(invalid(format!(
            "the key the token names is for {key_alg}, not {:?}",
            header.alg
        )));
    }
    let key = DecodingKey::from_jwk(jwk).map_err(|error| {
        invalid(format!(
            "the authorization server's key is unusable: {error}"
        ))
    })?;
    let mut validation = Validation::new(header.alg);
    validation.leeway = config.leeway.as_secs();
    validation.validate_nbf = true;
    validation.set_required_spec_claims(&["exp", "iss", "aud"]);
    validation.set_issuer(&[&config.issuer]);
    validation.set_audience(&[&config.resource]);
    let data = decode::<Map<String, Value>>(token, &key, &validation)
        .map_err(|error| invalid(describe(&error)))?;
    Ok(Checked {
        caller: Caller::from_claims(data.claims),
        keys: Some((found.fresh_until, found.generation)),
    })
}

/// What a failed check says to the client.
fn describe(error: &jsonwebtoken::errors::Error) -> String {
    use jsonwebtoken::errors::ErrorKind;
    match error.kind() {
        ErrorKind::ExpiredSignature => "the token has expired".to_owned(),
        ErrorKind::ImmatureSignature => "the token is not valid yet (nbf)".to_owned(),
        ErrorKind::InvalidIssuer => "the token was issued by another issuer".to_owned(),
        ErrorKind::InvalidAudience => "the token was not issued for this resource (aud)".to_owned(),
        ErrorKind::MissingRequiredClaim(claim) => format!("the token has no {claim:?} claim"),
        ErrorKind::InvalidSignature => "the token's signature does not verify".to_owned(),
        _ => format!("the token is not valid: {error}"),
    }
}
