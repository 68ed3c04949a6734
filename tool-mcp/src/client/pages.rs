//! A list of a server's resources, resource templates or prompts, paged
//! within the limits: paging stops once the list is over its count limit
//! or [`McpLimits::max_list_bytes`](super::McpLimits::max_list_bytes).

use rmcp::model::{ClientRequest, Cursor, PaginatedRequestParams, ServerResult};
use serde::Serialize;
use tokio::time::Instant;
use tool_runtime::ToolContext;

use super::{McpClient, McpClientError, McpClientErrorKind, limits};

/// A page's items and next cursor.
pub(crate) type Page<T> = (Vec<T>, Option<Cursor>);

/// What one kind of list is: its items' name, its count limit, its
/// request and how its pages read.
pub(crate) struct ListKind<T> {
    /// What the items are called: "resources", "prompts".
    pub(crate) items: &'static str,
    /// The method, for messages.
    pub(crate) method: &'static str,
    /// The count limit's name and value.
    pub(crate) limit: (&'static str, usize),
    /// The request for the page at a cursor.
    pub(crate) request: fn(PaginatedRequestParams) -> ClientRequest,
    /// A page's items and next cursor; `None` when the answer is no page
    /// of this list.
    pub(crate) page: fn(ServerResult) -> Option<Page<T>>,
}

impl McpClient {
    /// Every page of the list `kind`, within the limits and the call
    /// timeout (the whole list).
    pub(crate) async fn list_all<T: Serialize>(
        &self,
        kind: ListKind<T>,
    ) -> Result<Vec<T>, McpClientError> {
        let deadline = Instant::now() + self.inner.options.call_timeout;
        let ctx = ToolContext::new();
        let live = self.live(&ctx, deadline).await?;
        let shared = &self.inner.shared;
        let max_bytes = shared.limits.max_list_bytes;
        let (limit_name, max) = kind.limit;
        let what = format!("listing its {} (`{}`)", kind.items, kind.method);
        let mut items = Vec::new();
        let (mut size, mut pages) = (0usize, 0usize);
        let mut cursor = None;
        loop {
            let params = PaginatedRequestParams::default().with_cursor(cursor.take());
            let end = live
                .once(shared, (kind.request)(params), &ctx, deadline)
                .await;
            let answer = self.answer_of(&live, end, (&what, "the server"))?;
            let Some((page, next)) = (kind.page)(answer) else {
                return Err(self.error(
                    McpClientErrorKind::Protocol,
                    format!("{what} failed: the answer is not a page of the list"),
                ));
            };
            pages += 1;
            if items.len().saturating_add(page.len()) > max || pages > max.max(1) {
                return Err(self.error(
                    McpClientErrorKind::Limit,
                    format!(
                        "it lists more than {max} {}, the limit `{limit_name}`; the listing \
                         stopped at page {pages}",
                        kind.items
                    ),
                ));
            }
            for item in page {
                match limits::json_size(&item, max_bytes.saturating_sub(size)) {
                    Some(bytes) => size += bytes,
                    None => {
                        return Err(self.error(
                            McpClientErrorKind::Limit,
                            format!(
                                "its list of {} is larger than {}, the limit `max_list_bytes`; \
                                 the listing stopped at page {pages}",
                                kind.items,
                                limits::bytes(max_bytes)
                            ),
                        ));
                    }
                }
                items.push(item);
            }
            cursor = next.filter(|cursor| !cursor.is_empty());
            if cursor.is_none() {
                return Ok(items);
            }
        }
    }
}
