//! The `requestState` of an `input_required` result (revision
//! 2026-07-28): what a call learnt in its earlier rounds (the client's
//! answers), bound to the call it belongs to (the tool, a digest of its
//! arguments) and to a time after which it is refused, signed with
//! HMAC-SHA256 so that the client can carry it but not change it.
//!
//! The text is `PAYLOAD.TAG`, both base64url without padding: the payload
//! JSON and the HMAC of a domain label and the payload. A state whose tag
//! does not verify (altered, or signed with another server's key), one
//! past its expiry, or one issued for another call is refused with
//! `-32602`.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::wire::RpcError;

/// Mixed into each tag, so that no other HMAC made with the same key
/// passes for a request state.
const DOMAIN: &[u8] = b"tool-mcp requestState v1\0";

/// The key request states are signed with.
#[derive(Clone)]
pub(super) struct StateKey(Hmac<Sha256>);

impl StateKey {
    /// A key of the program's (any length; 32 random bytes or more is
    /// right), shared by every instance that may see a client's retry.
    pub(super) fn new(key: &[u8]) -> Self {
        Self(Hmac::new_from_slice(key).expect("HMAC takes a key of any length"))
    }

    /// A key of 32 bytes from the operating system's random source.
    pub(super) fn generate() -> Self {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).expect("the operating system gives random bytes");
        Self::new(&key)
    }

    fn mac(&self, payload: &[u8]) -> Hmac<Sha256> {
        let mut mac = self.0.clone();
        mac.update(DOMAIN);
        mac.update(payload);
        mac
    }

    /// `state`, signed, as the text of a `requestState`.
    pub(super) fn seal(&self, state: &State) -> String {
        let payload = serde_json::to_vec(state).unwrap_or_default();
        let tag = self.mac(&payload).finalize().into_bytes();
        format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(&payload),
            URL_SAFE_NO_PAD.encode(tag)
        )
    }

    /// The state `text` holds, when this key signed it; else the error to
    /// answer with.
    pub(super) fn open(&self, text: &str) -> Result<State, RpcError> {
        let forged = || {
            RpcError::invalid_params(
                "invalid requestState: it is not one this server issued, or it was altered; \
                 call the tool again without it",
            )
        };
        let (payload, tag) = text.split_once('.').ok_or_else(forged)?;
        let payload = URL_SAFE_NO_PAD.decode(payload).map_err(|_| forged())?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| forged())?;
        self.mac(&payload)
            .verify_slice(&tag)
            .map_err(|_| forged())?;
        serde_json::from_slice(&payload).map_err(|_| forged())
    }
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
    /// The digest of the request it answers; none for an answer that came
    /// without a state (the request it answers is not known).
    #[serde(rename = "d", default, skip_serializing_if = "Option::is_none")]
    pub(super) request: Option<String>,
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
