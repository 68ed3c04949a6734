//! The `requestState` of an `input_required` result (revision
//! 2026-07-28): what a call learnt in its earlier rounds (the client's
//! answers), bound to the call it belongs to (the tool, a digest of its
//! arguments), to its owner (the caller its access token showed) and to a
//! time after which it is refused, encrypted with XChaCha20-Poly1305 so
//! that the client carries it but can neither read nor change it.
//!
//! The text is one base64url string without padding: a random nonce of
//! 24 bytes, then the payload JSON encrypted, then its 16-byte tag. The
//! key is derived with HKDF-SHA256 from the program's key (or one drawn
//! at random); the associated data is a domain label and the owner's key,
//! so a state sealed for one owner does not open for another. Only its
//! length shows what it holds. A state that does not decrypt (altered,
//! sealed with another server's key, or for another owner), one past its
//! expiry, or one issued for another call is refused with `-32602`.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chacha20poly1305::aead::{Aead, Payload};
use chacha20poly1305::{Key, KeyInit, XChaCha20Poly1305, XNonce};
use hkdf::Hkdf;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use tool_runtime::context::Owner;

use super::wire::{INTERNAL_ERROR, RpcError};

/// The HKDF `info` of the encryption key: no other key derived from the
/// program's key is this one.
const KEY_INFO: &[u8] = b"tool-mcp requestState v2 XChaCha20-Poly1305 key";

/// The associated data of each state: no other text sealed with the same
/// key passes for a request state.
const DOMAIN: &[u8] = b"tool-mcp requestState v2";

/// The bytes of a nonce (XChaCha20's 192 bits: random nonces never meet,
/// however many states a long-lived shared key seals).
const NONCE: usize = 24;

/// The bytes of a tag (Poly1305's).
const TAG: usize = 16;

/// The key request states are sealed with.
pub(super) struct StateKey(XChaCha20Poly1305);

impl StateKey {
    /// The key derived from one of the program's (any length; 32 random
    /// bytes or more is right), shared by every instance that may see a
    /// client's retry.
    pub(super) fn new(key: &[u8]) -> Self {
        let mut derived = [0u8; 32];
        Hkdf::<Sha256>::new(None, key)
            .expand(KEY_INFO, &mut derived)
            .expect("HKDF-SHA256 gives 32 bytes");
        Self(XChaCha20Poly1305::new(&Key::from(derived)))
    }

    /// A key of 32 bytes from the operating system's random source.
    pub(super) fn generate() -> Self {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).expect("the operating system gives random bytes");
        Self::new(&key)
    }

    /// `state`, encrypted for `owner`, as the text of a `requestState`;
    /// the error to answer with when the operating system gives no random
    /// nonce.
    pub(super) fn seal(&self, state: &State, owner: Option<&Owner>) -> Result<String, RpcError> {
        let payload = serde_json::to_vec(state).unwrap_or_default();
        let mut nonce = [0u8; NONCE];
        getrandom::fill(&mut nonce).map_err(|error| {
            RpcError::new(
                INTERNAL_ERROR,
                format!("the requestState could not be sealed: no random nonce ({error})"),
            )
        })?;
        let sealed = self
            .0
            .encrypt(
                &XNonce::from(nonce),
                Payload {
                    msg: &payload,
                    aad: &associated(owner),
                },
            )
            .map_err(|_| RpcError::new(INTERNAL_ERROR, "the requestState could not be sealed"))?;
        let mut bytes = Vec::with_capacity(NONCE + sealed.len());
        bytes.extend_from_slice(&nonce);
        bytes.extend_from_slice(&sealed);
        Ok(URL_SAFE_NO_PAD.encode(bytes))
    }

    /// The state `text` holds, when this key sealed it for `owner`; else
    /// the error to answer with (the same for a state of another owner's as
    /// for one this server never issued).
    pub(super) fn open(&self, text: &str, owner: Option<&Owner>) -> Result<State, RpcError> {
        let forged = || {
            RpcError::invalid_params(
                "invalid requestState: it is not one this server issued, or it was altered; \
                 call the tool again without it",
            )
        };
        let bytes = URL_SAFE_NO_PAD.decode(text).map_err(|_| forged())?;
        if bytes.len() < NONCE + TAG {
            return Err(forged());
        }
        let (nonce, sealed) = bytes.split_at(NONCE);
        let nonce = XNonce::try_from(nonce).map_err(|_| forged())?;
        let payload = self
            .0
            .decrypt(
                &nonce,
                Payload {
                    msg: sealed,
                    aad: &associated(owner),
                },
            )
            .map_err(|_| forged())?;
        serde_json::from_slice(&payload).map_err(|_| forged())
    }
}

/// The associated data of a state of `owner`: the domain label, then, for
/// an owner, a zero byte and its key.
fn associated(owner: Option<&Owner>) -> Vec<u8> {
    let mut data = DOMAIN.to_vec();
    if let Some(owner) = owner {
        data.push(0);
        data.extend_from_slice(owner.as_str().as_bytes());
    }
    data
}

/// What a call carries from one round to the next.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct State {
    /// The tool called.
    #[serde(rename = "t")]
    pub(super) tool: String,
    /// A digest of the call's arguments.
    #[serde(rename = "a")]
    pub(super) arguments: String,
    /// When the state stops being accepted, in milliseconds since the Unix
    /// epoch.
    #[serde(rename = "e")]
    pub(super) expires: u64,
    /// The client's answers the call used, by request key.
    #[serde(rename = "r", default)]
    pub(super) answers: BTreeMap<String, Answer>,
    /// The requests of the last round, by key: the digest of each.
    #[serde(rename = "q", default)]
    pub(super) asked: BTreeMap<String, String>,
}

/// The client's answer to one of the server's requests.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Answer {
    /// The digest of the request it answers.
    #[serde(rename = "d")]
    pub(super) request: String,
    /// The answer: an `ElicitResult`, `CreateMessageResult` or
    /// `ListRootsResult`.
    #[serde(rename = "v")]
    pub(super) value: Value,
}

impl State {
    /// The state's checks against the call that presents it: the same tool
    /// and arguments, and not expired.
    pub(super) fn check(&self, tool: &str, arguments: &str) -> Result<(), RpcError> {
        if self.tool != tool || self.arguments != arguments {
            return Err(RpcError::invalid_params(
                "invalid requestState: it was issued for another call (another tool or other \
                 arguments); send a retry with the call's own arguments",
            ));
        }
        if self.expires < now_ms() {
            return Err(RpcError::invalid_params(
                "invalid requestState: it expired; call the tool again without it",
            ));
        }
        Ok(())
    }
}

/// Milliseconds since the Unix epoch.
fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        })
}

/// The expiry of a state made now that lives `ttl`.
pub(super) fn expiry(ttl: Duration) -> u64 {
    now_ms().saturating_add(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX))
}

/// A short digest of `parts`: the first 16 bytes of their SHA-256, in hex.
pub(super) fn digest(parts: &[&[u8]]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part);
    }
    hasher.finalize()[..16]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}
