//! A server's resources: listed, read, and their templates' variables
//! completed.

use std::collections::BTreeMap;

use base64::Engine as _;
use rmcp::model::{
    ArgumentInfo, ClientRequest, CompleteRequest, CompleteRequestParams, CompletionContext,
    ListResourceTemplatesRequest, ListResourcesRequest, ReadResourceRequestParams, Reference,
    ResourceContents, ServerResult,
};
use tokio::time::Instant;
use tool_runtime::ToolContext;

use super::error::untrusted;
use super::pages::ListKind;
use super::{McpClient, McpClientError, McpClientErrorKind, McpResource, McpResourceTemplate};
use crate::completion::Completion;
use crate::resources::{Body, Contents};

impl McpClient {
    /// Asks the server for its resources (`resources/list`, every page),
    /// within the [`McpLimits`](super::McpLimits): a list over
    /// `max_resources` or `max_list_bytes` fails with
    /// [`McpClientErrorKind::Limit`]. URIs and names are as the server
    /// wrote them (they name the resources back to it).
    pub async fn list_resources(&self) -> Result<Vec<McpResource>, McpClientError> {
        let limit = self.inner.shared.limits.max_resources;
        let listed = self
            .list_all(ListKind {
                items: "resources",
                method: "resources/list",
                limit: ("max_resources", limit),
                request: |params| {
                    ClientRequest::ListResourcesRequest(ListResourcesRequest::with_param(params))
                },
                page: |answer| match answer {
                    ServerResult::ListResourcesResult(page) => {
                        Some((page.resources, page.next_cursor))
                    }
                    _ => None,
                },
            })
            .await?;
        Ok(listed.into_iter().map(McpResource::from_rmcp).collect())
    }

    /// Asks the server for its resource templates
    /// (`resources/templates/list`, every page), within the
    /// [`McpLimits`](super::McpLimits) (`max_resource_templates`,
    /// `max_list_bytes`), as [`list_resources`](Self::list_resources).
    pub async fn list_resource_templates(
        &self,
    ) -> Result<Vec<McpResourceTemplate>, McpClientError> {
        let limit = self.inner.shared.limits.max_resource_templates;
        let listed = self
            .list_all(ListKind {
                items: "resource templates",
                method: "resources/templates/list",
                limit: ("max_resource_templates", limit),
                request: |params| {
                    ClientRequest::ListResourceTemplatesRequest(
                        ListResourceTemplatesRequest::with_param(params),
                    )
                },
                page: |answer| match answer {
                    ServerResult::ListResourceTemplatesResult(page) => {
                        Some((page.resource_templates, page.next_cursor))
                    }
                    _ => None,
                },
            })
            .await?;
        Ok(listed
            .into_iter()
            .map(McpResourceTemplate::from_rmcp)
            .collect())
    }

    /// Reads the resource at `uri` (`resources/read`): a listed one, or any
    /// URI of a listed template. Its contents as the server gave them (text
    /// as it is, a blob's base64 decoded).
    ///
    /// Runs as [`call`](Self::call) does: cancelled with `ctx`, within
    /// [`call_timeout`](super::McpClientOptions::call_timeout), bounded by
    /// [`max_result_bytes`](super::McpLimits::max_result_bytes) (else
    /// [`McpClientErrorKind::Limit`]); a server of revision 2026-07-28 that
    /// answers `input_required` has its requests answered by `ctx`'s
    /// client. A URI the server does not know fails with
    /// [`McpClientErrorKind::Protocol`] and the server's words (escaped and
    /// cut short), as does a blob that is not base64.
    pub async fn read_resource(
        &self,
        uri: &str,
        ctx: &ToolContext,
    ) -> Result<Vec<Contents>, McpClientError> {
        let deadline = Instant::now() + self.inner.options.call_timeout;
        let live = self.live(ctx, deadline).await?;
        let params = ReadResourceRequestParams::new(uri);
        let end = live.ask(&self.inner.shared, params, ctx, deadline).await;
        let what = format!("reading `{}`", untrusted(uri, 200));
        let read = match self.answer_of(&live, end, (&what, "the server"))? {
            ServerResult::ReadResourceResult(read) => read,
            _ => {
                return Err(self.error(
                    McpClientErrorKind::Protocol,
                    format!("{what} failed: the answer is not a resource's contents"),
                ));
            }
        };
        read.contents
            .into_iter()
            .map(contents)
            .collect::<Result<_, _>>()
            .map_err(|why| {
                self.error(
                    McpClientErrorKind::Protocol,
                    format!("{what} failed: {why}"),
                )
            })
    }

    /// The values the server offers for the variable `argument` of its
    /// resource template `template` (as listed), from what was typed of it
    /// (`value`) and the other variables' values (`context`):
    /// `completion/complete` of a `ref/resource`. At most
    /// [`Completion::MAX_VALUES`] values are kept (with `has_more`).
    pub async fn complete_resource(
        &self,
        template: &str,
        argument: &str,
        value: &str,
        context: &BTreeMap<String, String>,
        ctx: &ToolContext,
    ) -> Result<Completion, McpClientError> {
        let what = format!(
            "completing `{}` of `{}`",
            untrusted(argument, 100),
            untrusted(template, 200)
        );
        let reference = Reference::for_resource(template);
        self.complete(reference, (argument, value), context, ctx, &what)
            .await
    }

    /// `completion/complete` of `reference`'s `argument` (its name and
    /// value so far), about `what`.
    pub(crate) async fn complete(
        &self,
        reference: Reference,
        (argument, value): (&str, &str),
        context: &BTreeMap<String, String>,
        ctx: &ToolContext,
        what: &str,
    ) -> Result<Completion, McpClientError> {
        let deadline = Instant::now() + self.inner.options.call_timeout;
        let live = self.live(ctx, deadline).await?;
        let argument = ArgumentInfo::new(argument, value);
        let mut params = CompleteRequestParams::new(reference, argument);
        if !context.is_empty() {
            let arguments = context.clone().into_iter().collect();
            params = params.with_context(CompletionContext::with_arguments(arguments));
        }
        let request = ClientRequest::CompleteRequest(CompleteRequest::new(params));
        let end = live.once(&self.inner.shared, request, ctx, deadline).await;
        match self.answer_of(&live, end, (what, "the server"))? {
            ServerResult::CompleteResult(result) => {
                let info = result.completion;
                let all = info.values.len();
                let mut values = info.values;
                values.truncate(Completion::MAX_VALUES);
                Ok(Completion {
                    total: info
                        .total
                        .map(u64::from)
                        .or((all > values.len()).then_some(all as u64)),
                    has_more: info.has_more == Some(true) || all > values.len(),
                    values,
                })
            }
            _ => Err(self.error(
                McpClientErrorKind::Protocol,
                format!("{what} failed: the answer is not a completion"),
            )),
        }
    }
}

/// One item of a read, as the server model's [`Contents`]; or why it
/// cannot be one (a blob that is not base64).
fn contents(item: ResourceContents) -> Result<Contents, String> {
    let (uri, mime_type, body, meta) = match item {
        ResourceContents::TextResourceContents {
            uri,
            mime_type,
            text,
            meta,
        } => (uri, mime_type, Body::Text(text), meta),
        ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            meta,
        } => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(blob.as_bytes())
                .map_err(|_| format!("the blob of `{}` is not base64", untrusted(&uri, 200)))?;
            (uri, mime_type, Body::Blob(bytes), meta)
        }
        _ => return Err("the server sent contents that are neither text nor a blob".to_owned()),
    };
    Ok(Contents {
        uri,
        mime_type,
        body,
        meta: meta.map(|meta| meta.0),
    })
}
