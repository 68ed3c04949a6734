//! A server's prompts: listed, got with arguments, and their arguments
//! completed.

use std::collections::BTreeMap;

use rmcp::model::{
    ClientRequest, GetPromptRequestParams, ListPromptsRequest, Reference, ServerResult,
};
use tokio::time::Instant;
use tool_runtime::ToolContext;

use super::pages::ListKind;
use super::{McpClient, McpClientError, McpClientErrorKind, McpPrompt};
use crate::completion::Completion;
use crate::prompts::{GetPrompt, PromptArguments, PromptMessage};

impl McpClient {
    /// Asks the server for its prompts (`prompts/list`, every page),
    /// within the [`McpLimits`](super::McpLimits): a list over
    /// `max_prompts` or `max_list_bytes` fails with
    /// [`McpClientErrorKind::Limit`].
    pub async fn list_prompts(&self) -> Result<Vec<McpPrompt>, McpClientError> {
        let limit = self.inner.shared.limits.max_prompts;
        let listed = self
            .list_all(ListKind {
                items: "prompts",
                method: "prompts/list",
                limit: ("max_prompts", limit),
                request: |params| {
                    ClientRequest::ListPromptsRequest(ListPromptsRequest::with_param(params))
                },
                page: |answer| match answer {
                    ServerResult::ListPromptsResult(page) => Some((page.prompts, page.next_cursor)),
                    _ => None,
                },
            })
            .await?;
        Ok(listed.into_iter().map(McpPrompt::from_rmcp).collect())
    }

    /// The prompt `name` with `arguments` (`prompts/get`): its messages,
    /// each block as the runtime's content (as a call's result's are), and
    /// its description.
    ///
    /// Runs as [`call`](Self::call) does: cancelled with `ctx`, within
    /// [`call_timeout`](super::McpClientOptions::call_timeout), bounded by
    /// [`max_result_bytes`](super::McpLimits::max_result_bytes) (else
    /// [`McpClientErrorKind::Limit`]); a server of revision 2026-07-28 that
    /// answers `input_required` has its requests answered by `ctx`'s
    /// client. A prompt the server does not have, or arguments it refuses,
    /// fail with [`McpClientErrorKind::Protocol`] and the server's words
    /// (escaped and cut short).
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: &PromptArguments,
        ctx: &ToolContext,
    ) -> Result<GetPrompt, McpClientError> {
        let deadline = Instant::now() + self.inner.options.call_timeout;
        let live = self.live(ctx, deadline).await?;
        let mut params = GetPromptRequestParams::new(name);
        let given: serde_json::Map<String, serde_json::Value> = arguments
            .iter()
            .map(|(name, value)| (name.to_owned(), value.into()))
            .collect();
        if !given.is_empty() {
            params = params.with_arguments(given);
        }
        let end = live.ask(&self.inner.shared, params, ctx, deadline).await;
        let what = format!(
            "the prompt `{}`",
            tool_runtime::__private::quote::name(name)
        );
        match self.answer_of(&live, end, (&what, "the server"))? {
            ServerResult::GetPromptResult(got) => {
                let messages = got
                    .messages
                    .iter()
                    .map(|message| {
                        let content = crate::content::from_mcp(&message.content);
                        match message.role {
                            rmcp::model::Role::Assistant => PromptMessage::assistant(content),
                            rmcp::model::Role::User => PromptMessage::user(content),
                        }
                    })
                    .collect();
                let mut prompt = GetPrompt::new(messages);
                prompt.description = got.description;
                Ok(prompt)
            }
            _ => Err(self.error(
                McpClientErrorKind::Protocol,
                format!("{what} failed: the answer is not a prompt"),
            )),
        }
    }

    /// The values the server offers for the argument `argument` of its
    /// prompt `prompt`, from what was typed of it (`value`) and the other
    /// arguments' values (`context`): `completion/complete` of a
    /// `ref/prompt`. At most [`Completion::MAX_VALUES`] values are kept
    /// (with `has_more`).
    pub async fn complete_prompt(
        &self,
        prompt: &str,
        argument: &str,
        value: &str,
        context: &BTreeMap<String, String>,
        ctx: &ToolContext,
    ) -> Result<Completion, McpClientError> {
        let what = format!(
            "completing `{}` of the prompt `{}`",
            tool_runtime::__private::quote::name(argument),
            tool_runtime::__private::quote::name(prompt)
        );
        let reference = Reference::for_prompt(prompt);
        self.complete(reference, (argument, value), context, ctx, &what)
            .await
    }
}
