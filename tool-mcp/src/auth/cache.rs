//! Tokens already checked, so that a client sending the same access token
//! with every request has it checked once: signature, claims and key
//! lookup for a JWT, a round trip for an introspected token.
//!
//! An entry is found by the SHA-256 digest of the token (the token itself
//! is not kept) and holds the [`Caller`] it was checked for. It is used
//! until the first of: the token's `exp`, the cache's lifetime after the
//! check, and, for a JWT, the end of the freshness of the authorization
//! server's keys it was checked against, or any new fetch of those keys
//! (a key withdrawn from the JWKS stops its tokens as soon as the resource
//! server has fetched the JWKS again, as without the cache). Only accepted
//! tokens are kept. A full cache first drops what has expired, then the
//! entry that would have expired first.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use sha2::{Digest, Sha256};

use super::{Caller, lock};

/// A token's digest.
pub(crate) type TokenDigest = [u8; 32];

/// The digest of `token`.
pub(crate) fn digest(token: &str) -> TokenDigest {
    Sha256::digest(token.as_bytes()).into()
}

/// What a check of a token found, and how long it holds.
pub(crate) struct Checked {
    pub(crate) caller: Caller,
    /// The end of the freshness of the keys that checked it (a JWT's), and
    /// their generation: see [`KeyStore::generation`](super::keys::KeyStore::generation).
    pub(crate) keys: Option<(Instant, u64)>,
}

struct Entry {
    caller: Arc<Caller>,
    until: Instant,
    /// The generation of the keys that checked it, for a JWT.
    generation: Option<u64>,
}

/// The tokens checked, up to a number of them.
pub(crate) struct VerifiedCache {
    entries: Mutex<HashMap<TokenDigest, Entry>>,
    capacity: usize,
    lifetime: Duration,
}

impl VerifiedCache {
    pub(crate) fn new(capacity: usize, lifetime: Duration) -> Self {
        Self {
            entries: Mutex::new(HashMap::new()),
            capacity,
            lifetime,
        }
    }

    /// The caller a token of digest `digest` was checked for, if that
    /// still holds with the keys of generation `generation`.
    pub(crate) fn get(&self, digest: &TokenDigest, generation: u64) -> Option<Arc<Caller>> {
        if self.capacity == 0 {
            return None;
        }
        let mut entries = lock(&self.entries);
        let entry = entries.get(digest)?;
        let holds = entry.until > Instant::now()
            && entry.generation.is_none_or(|checked| checked == generation);
        if holds {
            return Some(Arc::clone(&entry.caller));
        }
        entries.remove(digest);
        None
    }

    /// Keeps what checking the token of digest `digest` found, for as long
    /// as it holds.
    pub(crate) fn insert(&self, digest: TokenDigest, checked: &Checked) {
        if self.capacity == 0 {
            return;
        }
        let now = Instant::now();
        let mut until = now + self.lifetime;
        if let Some(expires_at) = checked.caller.expires_at {
            let left = expires_at
                .duration_since(SystemTime::now())
                .unwrap_or_default();
            until = until.min(now + left);
        }
        if let Some((fresh_until, _)) = checked.keys {
            until = until.min(fresh_until);
        }
        if until <= now {
            return;
        }
        let mut entries = lock(&self.entries);
        if entries.len() >= self.capacity && !entries.contains_key(&digest) {
            entries.retain(|_, entry| entry.until > now);
            if entries.len() >= self.capacity
                && let Some(first) = entries
                    .iter()
                    .min_by_key(|(_, entry)| entry.until)
                    .map(|(digest, _)| *digest)
            {
                entries.remove(&first);
            }
        }
        entries.insert(
            digest,
            Entry {
                caller: Arc::new(checked.caller.clone()),
                until,
                generation: checked.keys.map(|(_, generation)| generation),
            },
        );
    }
}
