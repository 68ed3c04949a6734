//! Collects every error found, so the user sees all mistakes at once.

use proc_macro2::Span;
use std::fmt::Display;

/// Errors found so far, each at its own span.
#[derive(Default)]
pub struct Errors {
    combined: Option<syn::Error>,
}

impl Errors {
    /// Records an error at `span`.
    pub fn push(&mut self, span: Span, message: impl Display) {
        self.push_syn(syn::Error::new(span, message));
    }

    /// Records an error covering all of `tokens`, from their first token to
    /// their last.
    pub fn push_spanned(&mut self, tokens: impl quote::ToTokens, message: impl Display) {
        self.push_syn(syn::Error::new_spanned(tokens, message));
    }

    /// Records a syn error.
    pub fn push_syn(&mut self, error: syn::Error) {
        match &mut self.combined {
            Some(combined) => combined.combine(error),
            None => self.combined = Some(error),
        }
    }

    /// Records a darling error (which may hold several).
    pub fn push_darling(&mut self, error: darling::Error) {
        self.push_syn(syn::Error::from(error));
    }

    /// `Ok` when nothing was recorded, else every error combined.
    pub fn finish(self) -> syn::Result<()> {
        match self.combined {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}
