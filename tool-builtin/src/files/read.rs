//! `file_read`: a file, or a part of it, as text or base64.

use std::io::{Read, Seek, SeekFrom};

use base64::Engine as _;
use cap_std::fs::{Dir, OpenOptions};
use schemars::JsonSchema;
use serde::Serialize;
use std::path::Path;
use tool_runtime::config::Config;
use tool_runtime::{ToolError, tool};

use super::config::FileConfig;
use super::guard::{as_target, checked_path, display, io_error, open_root};

/// What `file_read` returns.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct FileContent {
    /// The path, relative to the root.
    pub path: String,
    /// The file's size in bytes.
    pub size: u64,
    /// Where the returned part starts, in bytes.
    pub offset: u64,
    /// How many bytes of the file were returned.
    pub bytes: u64,
    /// The content: text, or base64 when `encoding` is "base64".
    pub content: String,
    /// "text" or "base64".
    pub encoding: String,
    /// Whether the returned part reaches the end of the file; when false,
    /// read on from `offset + bytes`.
    pub eof: bool,
}

/// Read a file under the tool's root directory.
///
/// Paths are relative to the root ("notes/todo.txt"). A file larger than the
/// read limit is read in parts: give `offset` and `length` in bytes, and read
/// on from `offset + bytes` until `eof` is true.
#[tool(
    register = false,
    config = FileConfig,
    read_only,
    idempotent,
    open_world = false,
    blocking,
    timeout = "30s"
)]
pub fn file_read(
    /// The file's path, relative to the root, e.g. "notes/todo.txt"
    #[tool(length(min = 1, max = 4096))]
    path: String,
    /// Where to start reading, in bytes; 0 when absent
    offset: Option<u64>,
    /// How many bytes to read at most; up to the end of the file (within the read limit) when absent
    #[tool(range(min = 1))]
    length: Option<u64>,
    /// "text" (UTF-8, the default) or "base64" for binary files
    #[tool(one_of = ["text", "base64"])]
    encoding: Option<String>,
    config: Config<FileConfig>,
) -> Result<FileContent, ToolError> {
    let relative = checked_path(&path, &config.root)?;
    let Some(root) = open_root(&config, false)? else {
        return Err(ToolError::new(format!(
            "no file {path:?}: the file directory is empty (it does not exist yet)"
        )));
    };
    let target = as_target(&relative);
    let metadata = root
        .metadata(target)
        .map_err(|error| io_error(&path, "read", error))?;
    if metadata.is_dir() {
        return Err(ToolError::new(format!(
            "{path:?} is a directory; list it with file_list"
        )));
    }
    if !metadata.is_file() {
        return Err(ToolError::new(format!("{path:?} is not a regular file")));
    }
    let size = metadata.len();
    let (offset, wanted) = part(&path, size, offset, length, config.max_read_bytes)?;
    let bytes = read_part(&root, target, &path, offset, wanted)?;

    let base64 = encoding.as_deref() == Some("base64");
    let content = if base64 {
        base64::engine::general_purpose::STANDARD.encode(&bytes)
    } else {
        text(bytes, &path, offset, wanted, size)?
    };
    let returned = if base64 { wanted } else { content.len() as u64 };
    Ok(FileContent {
        path: display(&relative),
        size,
        offset,
        bytes: returned,
        content,
        encoding: if base64 { "base64" } else { "text" }.into(),
        eof: offset + returned >= size,
    })
}

/// The part of a file of `size` bytes to read, as `(offset, bytes)`: all
/// of it when no range is given, which must fit the read `limit`.
fn part(
    path: &str,
    size: u64,
    offset: Option<u64>,
    length: Option<u64>,
    limit: u64,
) -> Result<(u64, u64), ToolError> {
    let ranged = offset.is_some() || length.is_some();
    if !ranged && size > limit {
        return Err(ToolError::new(format!(
            "{path:?} is {size} bytes, more than the read limit of {limit} bytes; read it in parts with offset and length (at most {limit} bytes each)"
        )));
    }
    if let Some(length) = length.filter(|length| *length > limit) {
        return Err(ToolError::new(format!(
            "length {length} is more than the read limit of {limit} bytes; read at most {limit} bytes per call"
        )));
    }
    let offset = offset.unwrap_or(0);
    if offset > size {
        return Err(ToolError::new(format!(
            "offset {offset} is past the end of {path:?}, which is {size} bytes"
        )));
    }
    let wanted = length
        .unwrap_or(size - offset)
        .min(size - offset)
        .min(limit);
    Ok((offset, wanted))
}

/// `wanted` bytes of the regular file `target` from `offset`.
fn read_part(
    root: &Dir,
    target: &Path,
    path: &str,
    offset: u64,
    wanted: u64,
) -> Result<Vec<u8>, ToolError> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt as _;
        // A FIFO swapped in after the check must not block the open.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let mut file = root
        .open_with(target, &options)
        .map_err(|error| io_error(path, "read", error))?;
    if !file
        .metadata()
        .map_err(|error| io_error(path, "read", error))?
        .is_file()
    {
        return Err(ToolError::new(format!("{path:?} is not a regular file")));
    }
    file.seek(SeekFrom::Start(offset))
        .map_err(|error| io_error(path, "read", error))?;
    let mut bytes = Vec::with_capacity(usize::try_from(wanted).unwrap_or(0));
    file.take(wanted)
        .read_to_end(&mut bytes)
        .map_err(|error| io_error(path, "read", error))?;
    Ok(bytes)
}

/// The part read as UTF-8 text: a part that ends inside a character gives
/// the whole characters before it; other invalid bytes are an error that
/// asks for base64.
fn text(
    bytes: Vec<u8>,
    path: &str,
    offset: u64,
    wanted: u64,
    size: u64,
) -> Result<String, ToolError> {
    match String::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(error) => {
            let utf8 = error.utf8_error();
            let cut_at_end = utf8.error_len().is_none() && offset + wanted < size;
            if cut_at_end && utf8.valid_up_to() == 0 {
                return Err(ToolError::new(format!(
                    "{wanted} bytes at offset {offset} of {path:?} do not hold a whole character; read at least 4 bytes"
                )));
            }
            if cut_at_end {
                // The part ends inside a character: return the whole
                // characters, the next read starts at the cut one.
                let mut bytes = error.into_bytes();
                bytes.truncate(utf8.valid_up_to());
                String::from_utf8(bytes).map_err(ToolError::internal)
            } else {
                Err(ToolError::new(format!(
                    "{path:?} is not UTF-8 text (invalid byte at offset {}); read it with encoding \"base64\"",
                    offset + utf8.valid_up_to() as u64
                )))
            }
        }
    }
}
