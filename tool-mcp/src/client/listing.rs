//! A server's tool list, paged within the limits: paging stops once the
//! list is over [`McpLimits::max_tools`] or [`McpLimits::max_list_bytes`],
//! and a tool whose schema is over the limits is left out.

use rmcp::RoleClient;
use rmcp::model::{
    ClientRequest, ListToolsRequest, PaginatedRequestParams, RequestId, ServerResult, Tool,
};
use rmcp::service::{Peer, PeerRequestOptions, ServiceError};

use super::convert::McpTool;
use super::error::untrusted;
use super::import::LeftOut;
use super::limits::{self, McpLimits};
use super::shared::Shared;

/// A server's tools, and those of its list left out for the limits.
pub(crate) struct Listing {
    pub(crate) tools: Vec<McpTool>,
    pub(crate) left_out: Vec<LeftOut>,
}

/// Why a listing (or a call) failed.
pub(crate) enum Failure {
    /// Over a limit: the message says which.
    Limit(String),
    /// Anything else (the server's own words escaped and cut short).
    Failed(String),
}

impl Failure {
    pub(crate) fn into_message(self) -> String {
        match self {
            Failure::Limit(message) | Failure::Failed(message) => message,
        }
    }
}

/// Lists the server's tools, every page, within `limits`.
pub(crate) async fn list(peer: &Peer<RoleClient>, shared: &Shared) -> Result<Listing, Failure> {
    let limits = &shared.limits;
    let mut listing = Listing {
        tools: Vec::new(),
        left_out: Vec::new(),
    };
    let mut count = 0usize;
    let mut size = 0usize;
    let mut pages = 0usize;
    let mut cursor = None;
    loop {
        let params = PaginatedRequestParams::default().with_cursor(cursor.take());
        let request = ClientRequest::ListToolsRequest(ListToolsRequest::with_param(params));
        let handle = peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
            .map_err(|error| failure(shared, None, &error, "a page of its tool list"))?;
        let id = handle.id.clone();
        let page = match handle.await_response().await {
            Ok(ServerResult::ListToolsResult(page)) => page,
            Ok(_) => {
                return Err(Failure::Failed(
                    "the answer to `tools/list` is not a tool list".into(),
                ));
            }
            Err(error) => {
                return Err(failure(
                    shared,
                    Some(&id),
                    &error,
                    "a page of its tool list",
                ));
            }
        };
        pages += 1;
        count = count.saturating_add(page.tools.len());
        if count > limits.max_tools || pages > limits.max_tools.max(1) {
            return Err(Failure::Limit(format!(
                "it lists more than {} tools, the limit `max_tools`; the listing stopped at page {pages}",
                limits.max_tools
            )));
        }
        for tool in page.tools {
            let room = limits.max_list_bytes.saturating_sub(size);
            match limits::json_size(&tool, room) {
                Some(bytes) => size += bytes,
                None => {
                    return Err(Failure::Limit(format!(
                        "its tool list is larger than {}, the limit `max_list_bytes`; \
                         the listing stopped at page {pages}",
                        limits::bytes(limits.max_list_bytes)
                    )));
                }
            }
            match checked(tool, limits) {
                Ok(tool) => listing.tools.push(tool),
                Err(left_out) => listing.left_out.push(left_out),
            }
        }
        cursor = page.next_cursor.filter(|cursor| !cursor.is_empty());
        if cursor.is_none() {
            return Ok(listing);
        }
    }
}

/// `tool` as an [`McpTool`], or why it is left out.
fn checked(tool: Tool, limits: &McpLimits) -> Result<McpTool, LeftOut> {
    let problem = limits::schema_problem(&tool.input_schema, "input", limits).or_else(|| {
        tool.output_schema
            .as_ref()
            .and_then(|schema| limits::schema_problem(schema, "output", limits))
    });
    match problem {
        None => Ok(McpTool::from_rmcp(tool)),
        Some(reason) => Err(LeftOut {
            tool: tool.name.into_owned(),
            reason,
        }),
    }
}

/// What the failure of a request for `what` (a call's answer, a page of
/// the tool list) says: the transport's refusal (a limit) when there was
/// one, else the error, escaped and cut short.
pub(crate) fn failure(
    shared: &Shared,
    id: Option<&RequestId>,
    error: &ServiceError,
    what: &str,
) -> Failure {
    let limits = &shared.limits;
    if let Some(refusal) = id.and_then(|id| shared.take_refusal(id)) {
        return Failure::Limit(refusal);
    }
    let text = match error {
        ServiceError::McpError(error) => error.message.to_string(),
        // rmcp's HTTP transport closes on a response over its size limit.
        ServiceError::TransportClosed if shared.http => {
            return Failure::Failed(format!(
                "the connection closed before {what} came (did the server go away, or send \
                 more than {}, the limit `max_result_bytes`?)",
                limits::bytes(limits.max_result_bytes)
            ));
        }
        other => other.to_string(),
    };
    // The HTTP transport's own bounds, set from `max_result_bytes`.
    if text.contains("exceeded the maximum size") {
        return Failure::Limit(format!(
            "{what} is larger than {}, the limit `max_result_bytes`; it was not read",
            limits::bytes(limits.max_result_bytes)
        ));
    }
    Failure::Failed(untrusted(&text, 500))
}
