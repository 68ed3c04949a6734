//! Collects every error found, so the user sees all mistakes at once.

use proc_macro2::Span;
use std::fmt::Display;

/// Errors found so far, each at its own span.
///
/// Parsing and validation push into one `Errors`, and nothing returns early
/// on the first problem. It must be consumed with [`finish`](Self::finish):
/// dropping it unfinished panics, so no error can be lost on the way.
pub struct Errors {
    errors: Option<Vec<syn::Error>>,
}

impl Errors {
    /// An empty collection.
    pub fn new() -> Self {
        Self {
            errors: Some(Vec::new()),
        }
    }

    /// Records an error at `span`.
    pub fn push(&mut self, span: Span, message: impl Display) {
        self.push_syn(syn::Error::new(span, message));
    }

    /// Records an error covering all of `tokens`, from their first token to
    /// their last.
    pub fn push_spanned(&mut self, tokens: impl quote::ToTokens, message: impl Display) {
        self.push_syn(syn::Error::new_spanned(tokens, message));
    }

    /// How many errors are recorded.
    #[cfg(feature = "mcp")]
    pub fn len(&self) -> usize {
        self.errors.as_ref().map_or(0, Vec::len)
    }

    /// Records a syn error.
    pub fn push_syn(&mut self, error: syn::Error) {
        self.errors
            .as_mut()
            .expect("errors used after finish")
            .push(error);
    }

    /// Records an attribute argument error (which may hold several).
    pub fn push_meta(&mut self, error: crate::meta::Error) {
        self.push_syn(syn::Error::from(error));
    }

    /// `Ok` when nothing was recorded, else every error combined.
    pub fn finish(mut self) -> syn::Result<()> {
        let errors = self.errors.take().expect("errors finished twice");
        let mut errors = errors.into_iter();
        match errors.next() {
            None => Ok(()),
            Some(mut combined) => {
                combined.extend(errors);
                Err(combined)
            }
        }
    }
}

impl Drop for Errors {
    fn drop(&mut self) {
        if self.errors.is_some() && !std::thread::panicking() {
            panic!("errors dropped without `finish`");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combines_every_error_in_order() {
        let mut errors = Errors::new();
        errors.push(Span::call_site(), "first");
        errors.push(Span::call_site(), "second");
        let messages: Vec<String> = errors
            .finish()
            .unwrap_err()
            .into_iter()
            .map(|e| e.to_string())
            .collect();
        assert_eq!(messages, ["first", "second"]);
    }

    #[test]
    #[should_panic(expected = "without `finish`")]
    fn must_be_finished() {
        let _ = Errors::new();
    }
}
