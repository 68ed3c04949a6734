//! How much of a result a model sees: the [`ResultLimit`] a tool or a
//! registry sets, the [`TokenCounter`] that measures text against it, and
//! the [`ResultHandle`] a cut result is kept under.

pub use crate::spec::limit::{
    BadResultLimit, ByteEstimate, MissingResult, ResultHandle, ResultLimit, TokenCounter,
};
