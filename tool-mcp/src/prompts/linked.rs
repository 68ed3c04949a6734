//! The prompts `#[prompt]` links into the program, which
//! [`Prompts::global`](super::Prompts::global) collects.

use futures_util::future::BoxFuture;
use tool_runtime::__private::inventory;
use tool_runtime::ToolContext;

use super::{GetPrompt, Prompt, PromptArguments, PromptError, PromptSpec};
use crate::completion::{CompleteRequest, Completion};

/// The link-time registration `#[prompt]` emits.
pub struct PromptRegistration(&'static dyn Prompt);

impl PromptRegistration {
    /// The registration of `prompt`.
    pub const fn new(prompt: &'static dyn Prompt) -> Self {
        Self(prompt)
    }
}

inventory::collect!(PromptRegistration);

/// Every linked `#[prompt]`.
pub(super) fn linked() -> Vec<Linked> {
    inventory::iter::<PromptRegistration>
        .into_iter()
        .map(|registration| Linked(registration.0))
        .collect()
}

/// A linked prompt, held by the collection as any other.
pub(super) struct Linked(&'static dyn Prompt);

impl Prompt for Linked {
    fn spec(&self) -> &PromptSpec {
        self.0.spec()
    }

    fn get(
        &self,
        arguments: PromptArguments,
        ctx: ToolContext,
    ) -> BoxFuture<'_, Result<GetPrompt, PromptError>> {
        self.0.get(arguments, ctx)
    }

    fn complete(&self, request: CompleteRequest) -> BoxFuture<'_, Result<Completion, PromptError>> {
        self.0.complete(request)
    }
}
