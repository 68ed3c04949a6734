//! `file_list`: the entries of a directory, with their kinds and sizes.

use schemars::JsonSchema;
use serde::Serialize;
use tool_runtime::config::Config;
use tool_runtime::{ToolError, tool};

use super::config::FileConfig;
use super::guard::{as_target, checked_path, display, io_error, open_root};

/// One entry of a `file_list` answer.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ListEntry {
    /// The path, relative to the root, with `/` separators.
    pub path: String,
    /// "file", "dir", "symlink" or "other".
    pub kind: String,
    /// The size in bytes (of the link itself for a symbolic link).
    pub size: u64,
}

/// What `file_list` returns.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Listing {
    /// The directory listed, relative to the root.
    pub path: String,
    /// The entries, sorted by path.
    pub entries: Vec<ListEntry>,
    /// Whether entries were left out because of the entry limit.
    pub truncated: bool,
}

/// List a directory under the tool's root directory: names, kinds and sizes.
///
/// The root itself is "." (the default). With `recursive`, subdirectories are
/// listed too (symbolic links are reported, not followed). Long listings are
/// cut at the entry limit, with `truncated` set.
#[tool(
    register = false,
    config = FileConfig,
    read_only,
    idempotent,
    open_world = false,
    blocking,
    timeout = "30s"
)]
pub fn file_list(
    /// The directory, relative to the root; "." (the root) when absent
    #[tool(length(min = 1, max = 4096))]
    path: Option<String>,
    /// Whether to list subdirectories too; false when absent
    #[tool(default)]
    recursive: bool,
    config: Config<FileConfig>,
) -> Result<Listing, ToolError> {
    let path = path.unwrap_or_else(|| ".".into());
    let relative = checked_path(&path, &config.root)?;
    let Some(root) = open_root(&config, false)? else {
        if relative.as_os_str().is_empty() {
            return Ok(Listing {
                path: ".".into(),
                entries: Vec::new(),
                truncated: false,
            });
        }
        return Err(ToolError::new(format!(
            "no directory {path:?}: the file directory is empty (it does not exist yet)"
        )));
    };
    let limit = config.max_list_entries as usize;
    let mut entries = Vec::new();
    let mut truncated = false;
    let mut pending = vec![relative.clone()];
    while let Some(directory) = pending.pop() {
        let reader = root
            .read_dir(as_target(&directory))
            .map_err(|error| io_error(&display(&directory), "list", error))?;
        let mut found = Vec::new();
        for entry in reader {
            let entry = entry.map_err(|error| io_error(&display(&directory), "list", error))?;
            let file_type = entry
                .file_type()
                .map_err(|error| io_error(&display(&directory), "list", error))?;
            let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
            let kind = if file_type.is_symlink() {
                "symlink"
            } else if file_type.is_dir() {
                "dir"
            } else if file_type.is_file() {
                "file"
            } else {
                "other"
            };
            found.push((directory.join(entry.file_name()), kind, size));
        }
        found.sort_by(|a, b| a.0.cmp(&b.0));
        for (entry_path, kind, size) in found {
            if entries.len() == limit {
                truncated = true;
                break;
            }
            if recursive && kind == "dir" {
                pending.push(entry_path.clone());
            }
            entries.push(ListEntry {
                path: display(&entry_path),
                kind: kind.into(),
                size,
            });
        }
        if truncated {
            break;
        }
        // `pending` pops from the end: the first subdirectory by name next.
        pending.sort_by(|a, b| b.cmp(a));
    }
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(Listing {
        path: display(&relative),
        entries,
        truncated,
    })
}
