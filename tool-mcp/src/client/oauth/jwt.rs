//! `private_key_jwt` (RFC 7523, OpenID Connect Core §9): the client proves
//! who it is to the token endpoint with a JWT it signs with its private key.
//! Signed with jsonwebtoken on the RustCrypto crates, as the server checks
//! tokens; rmcp's own signer needs jsonwebtoken 11 on aws-lc (a C build).

use std::time::{SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use pkcs8::der::asn1::ObjectIdentifier;
use pkcs8::{PrivateKeyInfoRef, SecretDocument};
use serde_json::json;

/// How long an assertion is valid: five minutes.
const LIFETIME_SECS: u64 = 300;

const RSA: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.1");
const EC: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.2.1");
const P256: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.3.1.7");
const P384: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.132.0.34");
const ED25519: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.101.112");

/// A private key that signs client assertions, with its algorithm.
pub(crate) struct SigningKey {
    key: EncodingKey,
    algorithm: Algorithm,
}

impl SigningKey {
    /// The key in `pem` (PKCS#8, `BEGIN PRIVATE KEY`, of an RSA, P-256,
    /// P-384 or Ed25519 key; or PKCS#1, `BEGIN RSA PRIVATE KEY`), signing
    /// with `algorithm` (a JWS name; by default RS256, ES256, ES384 or
    /// EdDSA, as the key is).
    pub(crate) fn from_pem(pem: &str, algorithm: Option<&str>) -> Result<Self, String> {
        let (label, document) = SecretDocument::from_pem(pem)
            .map_err(|error| format!("the private key is not PEM: {error}"))?;
        let (key, natural) = match label {
            "RSA PRIVATE KEY" => (
                EncodingKey::from_rsa_der(document.as_bytes()),
                Algorithm::RS256,
            ),
            "PRIVATE KEY" => {
                let info = PrivateKeyInfoRef::try_from(document.as_bytes())
                    .map_err(|error| format!("the private key is not PKCS#8: {error}"))?;
                let curve = info.algorithm.parameters_oid().ok();
                match (info.algorithm.oid, curve) {
                    (RSA, _) => (
                        EncodingKey::from_rsa_der(info.private_key.as_bytes()),
                        Algorithm::RS256,
                    ),
                    (EC, Some(P256)) => (
                        EncodingKey::from_ec_der(document.as_bytes()),
                        Algorithm::ES256,
                    ),
                    (EC, Some(P384)) => (
                        EncodingKey::from_ec_der(document.as_bytes()),
                        Algorithm::ES384,
                    ),
                    (ED25519, _) => (
                        EncodingKey::from_ed_der(document.as_bytes()),
                        Algorithm::EdDSA,
                    ),
                    (oid, _) => {
                        return Err(format!(
                            "the private key's algorithm ({oid}) cannot sign: RSA, P-256, P-384 \
                             and Ed25519 keys can"
                        ));
                    }
                }
            }
            other => {
                return Err(format!(
                    "the private key is a PEM `{other}`: a PKCS#8 `PRIVATE KEY` (or an \
                     `RSA PRIVATE KEY`) is needed"
                ));
            }
        };
        let algorithm = match algorithm {
            None => natural,
            Some(name) => {
                let algorithm: Algorithm = name
                    .parse()
                    .map_err(|_| format!("`{name}` is not a JWS algorithm"))?;
                if algorithm.family() != natural.family() {
                    return Err(format!("`{name}` does not go with the private key's type"));
                }
                algorithm
            }
        };
        Ok(Self { key, algorithm })
    }

    /// A client assertion of `client_id` for the authorization server
    /// `audience` (its issuer identifier): `iss` and `sub` the client,
    /// `aud` the server, valid five minutes, with a random `jti`.
    pub(crate) fn assertion(&self, client_id: &str, audience: &str) -> Result<String, String> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_secs());
        let mut jti = [0u8; 16];
        getrandom::fill(&mut jti)
            .map_err(|error| format!("no randomness for the assertion: {error}"))?;
        let jti: String = jti.iter().map(|b| format!("{b:02x}")).collect();
        let claims = json!({
            "iss": client_id,
            "sub": client_id,
            "aud": audience,
            "iat": now,
            "exp": now + LIFETIME_SECS,
            "jti": jti,
        });
        jsonwebtoken::encode(&Header::new(self.algorithm), &claims, &self.key)
            .map_err(|error| format!("could not sign the client assertion: {error}"))
    }
}
