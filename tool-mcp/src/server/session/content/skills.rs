//! The skills extension's methods (`skills/list`, `skills/get`,
//! `resources/directory/read`) for the [`Skills`] of the served
//! [`Resources`](crate::resources::Resources), and what the extension adds
//! to `resources/list` and the capabilities. Each is answered at once
//! (the skills are in memory), shaped for its era, with caching hints in
//! revision 2026-07-28 (`public`, the server's list lifetime: the skills
//! are the same for every client).

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::{refuse_cursor, shape, string_param, uri_data};
use crate::resources::Resource as _;
use crate::resources::skills::{DIRECTORY_MIME_TYPE, Skills};
use crate::server::McpServer;
use crate::server::output::Outbox;
use crate::server::revision::Caching;
use crate::server::session::Session;
use crate::server::wire::{self, Id, METHOD_NOT_FOUND, RpcError, quoted};

/// Whether `method` is one of the extension's.
pub(super) fn serves(method: &str) -> bool {
    matches!(
        method,
        "skills/list" | "skills/get" | "resources/directory/read"
    )
}

/// The skills `server` serves, if any.
fn skills(server: &McpServer) -> Option<&Skills> {
    server.resources.as_ref()?.skills()
}

/// Each skill's `SKILL.md`, for `resources/list`: named and described by
/// its frontmatter, `text/markdown`, with its size.
pub(super) fn listed(server: &McpServer) -> Vec<Value> {
    let Some(skills) = skills(server) else {
        return Vec::new();
    };
    skills
        .list()
        .iter()
        .filter_map(|skill| skills.file(skill.uri()))
        .map(|file| file.spec().to_json())
        .collect()
}

/// The result of the extension's `method` with `params`.
fn answer(
    skills: &Skills,
    method: &str,
    params: Option<&Map<String, Value>>,
) -> Result<Value, RpcError> {
    match method {
        "skills/list" => {
            refuse_cursor(method, params)?;
            let entries: Vec<Value> = skills.list().iter().map(|skill| skill.to_json()).collect();
            Ok(json!({"skills": entries}))
        }
        "skills/get" => {
            let uri = string_param(method, params, "uri")?;
            let skill = skills.get(uri).ok_or_else(|| {
                RpcError::invalid_params(format!("unknown skill: {}", quoted(uri)))
                    .with_data(uri_data(uri))
            })?;
            Ok(json!({"skill": skill.to_json()}))
        }
        _ => {
            refuse_cursor(method, params)?;
            let uri = string_param(method, params, "uri")?;
            let children = skills.directory(uri).ok_or_else(|| {
                RpcError::invalid_params(format!(
                    "not a directory: {} is neither a skill's folder nor one of its subfolders \
                     (a folder's entries have mimeType {DIRECTORY_MIME_TYPE})",
                    quoted(uri)
                ))
                .with_data(uri_data(uri))
            })?;
            Ok(json!({"resources": children}))
        }
    }
}

impl<O: Outbox> Session<O> {
    /// A request of the extension's `method` ([`serves`]), of revision
    /// 2026-07-28 when `stateless`: not found (`-32601`) unless the server
    /// serves skills.
    pub(super) async fn skills_request(
        self: &Arc<Self>,
        id: Id,
        method: &str,
        params: Option<Map<String, Value>>,
        stateless: bool,
    ) {
        let server = &self.server;
        let result = match skills(server) {
            None => Err(RpcError::new(
                METHOD_NOT_FOUND,
                format!(
                    "method not found: {} (the server serves no skills)",
                    quoted(method)
                ),
            )),
            Some(skills) => answer(skills, method, params.as_ref())
                .map(|result| shape(server, result, stateless, Some(Caching::of(server)))),
        };
        let line = match result {
            Ok(result) => wire::result_line(&id, result),
            Err(error) => error.line(&id),
        };
        self.answer(line, &id).await;
    }
}
