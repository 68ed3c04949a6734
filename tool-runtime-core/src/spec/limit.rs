//! How much of a result the model may see: [`ResultLimit`]
//! (`#[tool(result_limit = "64KB")]`, `RegistryBuilder::result_limit`).

/// A limit on the size of the result the model sees, in bytes of text or
/// in tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResultLimit {
    /// At most this many bytes of UTF-8 text.
    Bytes(usize),
    /// At most this many tokens (counted as [`tokens`](crate::tokens) does).
    Tokens(usize),
}
