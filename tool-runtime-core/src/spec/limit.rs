//! How much of a result the model may see: [`ResultLimit`]
//! (`#[tool(result_limit = "64KB")]`, `RegistryBuilder::result_limit`),
//! and the [`ResultHandle`] a result cut to its limit is kept under.
//!
//! A registry applies no limit unless one is set: on the registry
//! (`RegistryBuilder::result_limit`) for every tool, or on a tool
//! (`ToolSpec::result_limit`), which wins over the registry's.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// A limit on the size of the result the model sees, in bytes of text or
/// in tokens.
///
/// What is measured is the text the model reads: text blocks as they are,
/// JSON blocks as compact JSON text, and a structured value kept beside a
/// formatted text (see [`ToolFormat`](crate::format::ToolFormat)) as compact JSON
/// too, the larger of the two counting. Images, audio and resources are not
/// counted.
///
/// Tokens are counted by the registry's [`TokenCounter`]
/// ([`RegistryBuilder::token_counter`](crate::RegistryBuilder::token_counter)).
/// By default that is [`ByteEstimate`]: a text of `n` bytes counts as
/// `n / 4` tokens (rounded up), the usual rule of thumb for English text
/// and code. The `tool-tokens` crate's `O200kBase` counts real tokens, in
/// OpenAI's `o200k_base` encoding. Bytes are always bytes.
///
/// It reads from text as `#[tool(result_limit = "..")]` takes it: `"65536"`
/// or `"65536 bytes"`, `"64KB"`, `"64 KiB"` (×1024), `"2MB"`, `"2 MiB"`
/// (×1024²), `"8000 tokens"`:
///
/// ```
/// use tool_runtime::limits::ResultLimit;
///
/// assert_eq!("64KB".parse(), Ok(ResultLimit::Bytes(65_536)));
/// assert_eq!("8000 tokens".parse(), Ok(ResultLimit::Tokens(8_000)));
/// assert!("0".parse::<ResultLimit>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResultLimit {
    /// At most this many bytes of UTF-8 text.
    Bytes(usize),
    /// At most this many tokens, as the registry's [`TokenCounter`] counts
    /// them ([`ByteEstimate`] unless the builder was given another).
    Tokens(usize),
}

impl ResultLimit {
    /// The size of `text` in this limit's unit: its bytes, or its tokens
    /// as `counter` counts them.
    pub fn measure(self, text: &str, counter: &dyn TokenCounter) -> usize {
        match self {
            ResultLimit::Bytes(_) => text.len(),
            ResultLimit::Tokens(_) => counter.count(text),
        }
    }

    /// Whether `text` is within the limit, its tokens counted by `counter`.
    ///
    /// ```
    /// use tool_runtime::{limits::ByteEstimate, limits::ResultLimit};
    ///
    /// let words = |text: &str| text.split_whitespace().count();
    /// let limit = ResultLimit::Tokens(4);
    /// // Six words in 11 bytes: 6 tokens counted a word a token, 3 estimated.
    /// assert!(!limit.admits("a b c d e f", &words));
    /// assert!(limit.admits("a b c d e f", &ByteEstimate));
    /// ```
    pub fn admits(self, text: &str, counter: &dyn TokenCounter) -> bool {
        match self {
            ResultLimit::Bytes(max) => text.len() <= max,
            // A token is at least one byte: a text no longer than the limit
            // in bytes needs no count.
            ResultLimit::Tokens(max) => text.len() <= max || counter.count(text) <= max,
        }
    }

    /// The limit's number, in its own unit.
    pub fn amount(self) -> usize {
        match self {
            ResultLimit::Bytes(n) | ResultLimit::Tokens(n) => n,
        }
    }

    /// About how many bytes of text the limit lets through: the bytes
    /// themselves, or four bytes a token.
    pub fn approximate_bytes(self) -> usize {
        match self {
            ResultLimit::Bytes(n) => n,
            ResultLimit::Tokens(n) => n.saturating_mul(4),
        }
    }
}

/// How a registry counts the tokens of a result held to a
/// [`ResultLimit::Tokens`]: given to
/// [`RegistryBuilder::token_counter`](crate::RegistryBuilder::token_counter),
/// [`ByteEstimate`] when none is.
///
/// A closure `Fn(&str) -> usize` is a counter, and so is `tool-tokens`'s
/// `O200kBase` (OpenAI's `o200k_base` encoding), named in one line:
///
/// ```
/// use tool_runtime::{Registry, limits::ResultLimit};
///
/// // Words, for a model billed by the word.
/// let registry = Registry::builder()
///     .result_limit(ResultLimit::Tokens(2_000))
///     .token_counter(|text: &str| text.split_whitespace().count())
///     .build()?;
/// assert_eq!(registry.token_counter().count("three short words"), 3);
/// # Ok::<(), tool_runtime::registry::RegistryError>(())
/// ```
///
/// A counter is called on the text of each result larger in bytes than a
/// token limit (a text no longer in bytes than the limit is within it
/// uncounted: a token is taken to be at least one byte), and again on the
/// shortened text while it is cut to fit, on the thread that runs the call:
/// it should be quick. Where a counter panics, the registry counts that
/// text as [`ByteEstimate`] does and logs a warning, so a call never fails
/// for its counter.
pub trait TokenCounter: Send + Sync + 'static {
    /// The tokens `text` takes.
    fn count(&self, text: &str) -> usize;
}

impl<F> TokenCounter for F
where
    F: Fn(&str) -> usize + Send + Sync + 'static,
{
    fn count(&self, text: &str) -> usize {
        self(text)
    }
}

/// The default [`TokenCounter`]: a text of `n` bytes is `n / 4` tokens,
/// rounded up, the usual rule of thumb for English text and code. It needs
/// no tokenizer; for a model's real count give the registry another counter
/// (`tool-tokens`'s `O200kBase`).
///
/// ```
/// use tool_runtime::{limits::ByteEstimate, limits::TokenCounter};
///
/// assert_eq!(ByteEstimate.count("hello world"), 3);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ByteEstimate;

impl TokenCounter for ByteEstimate {
    fn count(&self, text: &str) -> usize {
        text.len().div_ceil(4)
    }
}

/// A registry's [`TokenCounter`], shared by its settings and its
/// `read_result`; [`ByteEstimate`] by default. A count that panics is
/// [`ByteEstimate`]'s instead.
#[derive(Clone)]
pub(crate) struct Counter(Arc<dyn TokenCounter>);

impl Counter {
    /// The registry's counter, `counter`.
    pub(crate) fn new(counter: impl TokenCounter) -> Self {
        Counter(Arc::new(counter))
    }
}

impl Default for Counter {
    fn default() -> Self {
        Counter::new(ByteEstimate)
    }
}

impl TokenCounter for Counter {
    fn count(&self, text: &str) -> usize {
        let counted = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.0.count(text)));
        counted.unwrap_or_else(|_| {
            crate::trace::warning!(
                "the registry's token counter panicked: the text was counted as bytes / 4"
            );
            ByteEstimate.count(text)
        })
    }
}

/// Shows the limit as it reads: `65,536 bytes`, `8,000 tokens`.
impl fmt::Display for ResultLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResultLimit::Bytes(n) => write!(f, "{} bytes", grouped(*n)),
            ResultLimit::Tokens(n) => write!(f, "{} tokens", grouped(*n)),
        }
    }
}

/// Text that does not read as a [`ResultLimit`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadResultLimit {
    /// The text given.
    pub text: String,
}

impl fmt::Display for BadResultLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "\"{}\" is not a result limit; write a positive size such as \"65536\", \"64KB\", \
             \"2 MiB\" or \"8000 tokens\"",
            crate::quote::name(&self.text)
        )
    }
}

impl std::error::Error for BadResultLimit {}

impl FromStr for ResultLimit {
    type Err = BadResultLimit;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || BadResultLimit {
            text: text.to_owned(),
        };
        let trimmed = text.trim();
        let digits = trimmed
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(trimmed.len());
        let number: usize = trimmed[..digits].parse().map_err(|_| bad())?;
        let unit = trimmed[digits..].trim();
        let (scale, tokens) = match unit.to_ascii_lowercase().as_str() {
            "" | "b" | "byte" | "bytes" => (1, false),
            "kb" | "kib" => (1 << 10, false),
            "mb" | "mib" => (1 << 20, false),
            "token" | "tokens" => (1, true),
            _ => return Err(bad()),
        };
        match number.checked_mul(scale) {
            Some(0) | None => Err(bad()),
            Some(n) if tokens => Ok(ResultLimit::Tokens(n)),
            Some(n) => Ok(ResultLimit::Bytes(n)),
        }
    }
}

/// `n` with its thousands grouped by commas: `1,984,512`.
pub(crate) fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The handle a full result is kept under when the model was given less
/// of it (see [`ResultLimit`]): `r-` and 32 hex digits, hard to guess.
///
/// [`ToolResult::full_result`](crate::ToolResult::full_result) and
/// [`ToolCallRecord::full_result`](crate::events::ToolCallRecord::full_result)
/// carry it; [`Registry::full_result`](crate::Registry::full_result) reads
/// the full result back, and the registry's `read_result` tool
/// ([`RegistryBuilder::read_result`](crate::RegistryBuilder::read_result))
/// reads it in pages.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ResultHandle(Box<str>);

impl ResultHandle {
    /// A handle with this text, as a model or a log gives it back.
    pub fn new(text: impl Into<String>) -> Self {
        ResultHandle(text.into().into_boxed_str())
    }

    /// The handle's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ResultHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A [`ResultHandle`] under which no full result is kept: the result was
/// dropped to make room for newer ones, or there never was one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingResult {
    /// The handle asked for.
    pub handle: ResultHandle,
    /// How many full results the registry keeps at most.
    pub max_results: usize,
    /// How many bytes of full results the registry keeps at most.
    pub max_bytes: usize,
}

impl fmt::Display for MissingResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no full result is kept under the handle \"{}\": it was dropped to make room for \
             newer results (the {} most recent are kept, {} bytes at most, the oldest dropped \
             first) or there never was one",
            crate::quote::name(self.handle.as_str()),
            grouped(self.max_results),
            grouped(self.max_bytes),
        )
    }
}

impl std::error::Error for MissingResult {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_sizes_and_rejects_the_rest() {
        assert_eq!("65536".parse(), Ok(ResultLimit::Bytes(65_536)));
        assert_eq!(" 10 bytes ".parse(), Ok(ResultLimit::Bytes(10)));
        assert_eq!("64 KiB".parse(), Ok(ResultLimit::Bytes(65_536)));
        assert_eq!("2MB".parse(), Ok(ResultLimit::Bytes(2 << 20)));
        assert_eq!("1 token".parse(), Ok(ResultLimit::Tokens(1)));
        for bad in [
            "",
            "0KB",
            "-1",
            "12 parsecs",
            "KB",
            "99999999999999999999999",
        ] {
            assert!(bad.parse::<ResultLimit>().is_err(), "{bad}");
        }
    }

    #[test]
    fn groups_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_984_512), "1,984,512");
        assert_eq!(ResultLimit::Bytes(65_536).to_string(), "65,536 bytes");
    }
}
