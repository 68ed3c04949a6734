//! `file_read`, `file_write` and `file_list`: files under one root
//! directory, and nowhere else.
//!
//! Every path is checked twice. First by its text: `..`, NUL bytes,
//! percent-encoded dots and slashes, and absolute paths outside the root are
//! refused with a message that says why. Then the file system is reached
//! only through a `cap_std::fs::Dir` opened on the root, which resolves each
//! path relative to that directory handle and refuses any step out of it,
//! including through symbolic links (on Linux with `openat2` and
//! `RESOLVE_BENEATH`, elsewhere component by component). Because every
//! lookup starts from the open handle, a directory swapped for a symbolic
//! link between a check and a use cannot lead outside either.

use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use base64::Engine as _;
use cap_std::fs::{Dir, OpenOptions};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tool_runtime::config::Config;
use tool_runtime::{ToolError, tool};

/// How `file_read`, `file_write` and `file_list` are set up (each of the
/// three tools is configured separately, with this same type).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct FileConfig {
    /// The directory the tools work in. A relative path is taken from the
    /// process's working directory at each call. Nothing outside it can be
    /// read, written or listed.
    pub root: PathBuf,
    /// Whether `file_write` creates the root directory when it does not
    /// exist yet. Reading or listing a missing root never creates it.
    pub create_root: bool,
    /// The most bytes one `file_read` call returns. Larger files are read
    /// in parts (`offset` and `length`).
    #[schemars(range(min = 1))]
    pub max_read_bytes: u64,
    /// The largest file `file_write` produces (for `append`, the file after
    /// the append).
    #[schemars(range(min = 1))]
    pub max_write_bytes: u64,
    /// The most entries one `file_list` call returns.
    #[schemars(range(min = 1, max = 100000))]
    pub max_list_entries: u32,
}

impl Default for FileConfig {
    fn default() -> Self {
        Self {
            root: PathBuf::from("tool-files"),
            create_root: true,
            max_read_bytes: 256 * 1024,
            max_write_bytes: 1024 * 1024,
            max_list_entries: 1000,
        }
    }
}

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

/// What `file_write` returns.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct WriteReport {
    /// The path, relative to the root.
    pub path: String,
    /// How many bytes this call added.
    pub bytes_written: u64,
    /// The file's size afterwards.
    pub size: u64,
    /// Whether the file is new.
    pub created: bool,
}

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
    let limit = config.max_read_bytes;
    let size = metadata.len();
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
        .map_err(|error| io_error(&path, "read", error))?;
    if !file
        .metadata()
        .map_err(|error| io_error(&path, "read", error))?
        .is_file()
    {
        return Err(ToolError::new(format!("{path:?} is not a regular file")));
    }
    file.seek(SeekFrom::Start(offset))
        .map_err(|error| io_error(&path, "read", error))?;
    let mut bytes = Vec::with_capacity(usize::try_from(wanted).unwrap_or(0));
    file.take(wanted)
        .read_to_end(&mut bytes)
        .map_err(|error| io_error(&path, "read", error))?;

    let base64 = encoding.as_deref() == Some("base64");
    let content = if base64 {
        base64::engine::general_purpose::STANDARD.encode(&bytes)
    } else {
        match String::from_utf8(bytes) {
            Ok(text) => text,
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
                    String::from_utf8(bytes).map_err(ToolError::internal)?
                } else {
                    return Err(ToolError::new(format!(
                        "{path:?} is not UTF-8 text (invalid byte at offset {}); read it with encoding \"base64\"",
                        offset + utf8.valid_up_to() as u64
                    )));
                }
            }
        }
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

/// Write a file under the tool's root directory.
///
/// The write is atomic: the content goes to a temporary file that replaces
/// the old one only once it is complete, so a failed write leaves the old
/// file as it was. Modes: "overwrite" (the default), "append", and
/// "create_only" (fails when the file exists). Missing parent directories
/// are created.
#[tool(
    register = false,
    config = FileConfig,
    destructive,
    open_world = false,
    blocking,
    timeout = "30s"
)]
pub fn file_write(
    /// The file's path, relative to the root, e.g. "notes/todo.txt"
    #[tool(length(min = 1, max = 4096))]
    path: String,
    /// What to write: text, or base64 when encoding is "base64"
    content: String,
    /// "overwrite" (the default), "append" or "create_only"
    #[tool(one_of = ["overwrite", "append", "create_only"])]
    mode: Option<String>,
    /// "text" (the default) or "base64" for binary content
    #[tool(one_of = ["text", "base64"])]
    encoding: Option<String>,
    config: Config<FileConfig>,
) -> Result<WriteReport, ToolError> {
    let relative = checked_path(&path, &config.root)?;
    let mode = match mode.as_deref() {
        None | Some("overwrite") => Mode::Overwrite,
        Some("append") => Mode::Append,
        Some("create_only") => Mode::CreateOnly,
        Some(other) => {
            return Err(ToolError::new(format!(
                "unknown mode {other:?}; use \"overwrite\", \"append\" or \"create_only\""
            )));
        }
    };
    let data = if encoding.as_deref() == Some("base64") {
        base64::engine::general_purpose::STANDARD
            .decode(content.as_bytes())
            .map_err(|error| ToolError::new(format!("content is not valid base64: {error}")))?
    } else {
        content.into_bytes()
    };
    let limit = config.max_write_bytes;
    if data.len() as u64 > limit {
        return Err(ToolError::new(format!(
            "the content is {} bytes, more than the write limit of {limit} bytes",
            data.len()
        )));
    }
    let (Some(name), parent) = (relative.file_name(), relative.parent()) else {
        return Err(ToolError::new(format!(
            "{path:?} names the root directory itself; give a file path such as \"notes.txt\""
        )));
    };
    let Some(root) = open_root(&config, config.create_root)? else {
        return Err(ToolError::new(
            "the file directory does not exist and is not created automatically (create_root is false)",
        ));
    };
    let parent = parent.filter(|p| !p.as_os_str().is_empty());
    let dir = match parent {
        Some(parent) => match root.open_dir(parent) {
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                root.create_dir_all(parent)
                    .map_err(|error| io_error(&path, "create the directories of", error))?;
                root.open_dir(parent)
                    .map_err(|error| io_error(&path, "write", error))?
            }
            opened => opened.map_err(|error| io_error(&path, "write", error))?,
        },
        None => root,
    };
    let (size, created) = write_atomically(&dir, Path::new(name), &data, mode, limit).map_err(
        |error| match error {
            WriteError::Refused(message) => {
                ToolError::new(format!("cannot write {path:?}: {message}"))
            }
            WriteError::Io(error) => io_error(&path, "write", error),
        },
    )?;
    Ok(WriteReport {
        path: display(&relative),
        bytes_written: data.len() as u64,
        size,
        created,
    })
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Overwrite,
    Append,
    CreateOnly,
}

enum WriteError {
    Refused(String),
    Io(io::Error),
}

impl From<io::Error> for WriteError {
    fn from(error: io::Error) -> Self {
        Self::Io(error)
    }
}

/// Writes `data` to `name` in `dir` through a temporary file in the same
/// directory: written, synced, then renamed over the old file (or, for
/// `create_only`, hard-linked to the name, which fails if it exists). The
/// old file is untouched until the rename, so an error before it leaves it
/// as it was; the temporary file is removed on error.
///
/// Returns the file's new size and whether it was created.
fn write_atomically(
    dir: &Dir,
    name: &Path,
    data: &[u8],
    mode: Mode,
    limit: u64,
) -> Result<(u64, bool), WriteError> {
    let existing = match dir.symlink_metadata(name) {
        Ok(metadata) => Some(metadata),
        Err(error) if error.kind() == io::ErrorKind::NotFound => None,
        Err(error) => return Err(error.into()),
    };
    if let Some(metadata) = &existing {
        if metadata.file_type().is_symlink() {
            return Err(WriteError::Refused(
                "it is a symbolic link; write to the path of the file it points to".into(),
            ));
        }
        if metadata.is_dir() {
            return Err(WriteError::Refused("it is a directory".into()));
        }
        if !metadata.is_file() {
            return Err(WriteError::Refused("it is not a regular file".into()));
        }
        if mode == Mode::CreateOnly {
            return Err(WriteError::Refused(
                "it already exists (mode create_only); choose another name or mode \"overwrite\""
                    .into(),
            ));
        }
    }
    let old_size = existing.as_ref().map_or(0, |m| m.len());
    if mode == Mode::Append && old_size + data.len() as u64 > limit {
        return Err(WriteError::Refused(format!(
            "appending {} bytes to its {old_size} bytes would pass the write limit of {limit} bytes",
            data.len()
        )));
    }

    let (temp_name, mut temp) = create_temp(dir, name)?;
    let outcome = (|| -> Result<u64, WriteError> {
        let mut size = 0;
        if mode == Mode::Append && existing.is_some() {
            let mut old = dir.open(name)?;
            size += io::copy(&mut (&mut old).take(limit + 1), &mut temp)?;
            if size + data.len() as u64 > limit {
                return Err(WriteError::Refused(format!(
                    "it grew past the write limit of {limit} bytes while being appended to"
                )));
            }
        }
        write_content(&mut temp, data)?;
        size += data.len() as u64;
        if let Some(metadata) = &existing {
            temp.set_permissions(metadata.permissions())?;
        }
        temp.sync_all()?;
        drop(temp);
        if mode == Mode::CreateOnly {
            match dir.hard_link(&temp_name, dir, name) {
                Ok(()) => {
                    let _ = dir.remove_file(&temp_name);
                }
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
                    return Err(WriteError::Refused(
                        "it already exists (mode create_only); choose another name or mode \"overwrite\"".into(),
                    ));
                }
                Err(error) => return Err(error.into()),
            }
        } else {
            dir.rename(&temp_name, dir, name)?;
        }
        Ok(size)
    })();
    match outcome {
        Ok(size) => {
            sync_dir(dir);
            Ok((size, existing.is_none()))
        }
        Err(error) => {
            let _ = dir.remove_file(&temp_name);
            Err(error)
        }
    }
}

/// A new, empty temporary file beside `name`: `.NAME.tmp-PID-N`.
fn create_temp(dir: &Dir, name: &Path) -> io::Result<(PathBuf, cap_std::fs::File)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let base = name.to_string_lossy();
    let mut attempts = 0;
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp_name = PathBuf::from(format!(".{base}.tmp-{}-{n}", std::process::id()));
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        match dir.open_with(&temp_name, &options) {
            Ok(file) => return Ok((temp_name, file)),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists && attempts < 16 => {
                attempts += 1;
            }
            Err(error) => return Err(error),
        }
    }
}

fn write_content(file: &mut cap_std::fs::File, data: &[u8]) -> io::Result<()> {
    #[cfg(test)]
    if tests::FAIL_MID_WRITE.with(std::cell::Cell::get) {
        file.write_all(&data[..data.len() / 2])?;
        return Err(io::Error::other(
            "simulated failure in the middle of a write",
        ));
    }
    file.write_all(data)
}

/// Makes a rename durable by syncing the directory (best effort).
fn sync_dir(dir: &Dir) {
    if let Ok(copy) = dir.try_clone() {
        let _ = copy.into_std_file().sync_all();
    }
}

/// Checks a path by its text and returns it relative to the root: refuses
/// NUL bytes, percent-encoded dots and separators, `..` components and
/// absolute paths outside the root. The empty result is the root itself.
fn checked_path(input: &str, root: &Path) -> Result<PathBuf, ToolError> {
    let refuse = |why: &str| Err(ToolError::new(format!("refused path {input:?}: {why}")));
    if input.contains('\0') {
        return refuse("it contains a NUL byte");
    }
    if let Some(encoded) = encoded_separator(input) {
        return refuse(&format!(
            "it contains the percent-encoded {encoded}; paths are used as written, so write it plainly (and without \"..\")"
        ));
    }
    let path = Path::new(input);
    let relative = if path.is_absolute() {
        let absolute_root = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
        let canonical_root = std::fs::canonicalize(root).ok();
        let inside = canonical_root
            .iter()
            .chain(std::iter::once(&absolute_root))
            .find_map(|prefix| path.strip_prefix(prefix).ok());
        match inside {
            Some(rest) => rest.to_path_buf(),
            None => {
                return refuse(
                    "it is an absolute path outside the file directory; give a path relative to it, e.g. \"notes/todo.txt\"",
                );
            }
        }
    } else {
        path.to_path_buf()
    };
    let mut clean = PathBuf::new();
    for component in relative.components() {
        match component {
            Component::Normal(part) => clean.push(part),
            Component::CurDir => {}
            Component::ParentDir => {
                return refuse(
                    "\"..\" is not allowed; paths stay inside the file directory, give them relative to it",
                );
            }
            Component::RootDir | Component::Prefix(_) => {
                return refuse("it is not a relative path");
            }
        }
    }
    Ok(clean)
}

/// The first `%XX` escape in `input` that decodes to `.`, `/`, `\` or NUL.
fn encoded_separator(input: &str) -> Option<&str> {
    let bytes = input.as_bytes();
    (0..bytes.len().saturating_sub(2)).find_map(|i| {
        if bytes[i] != b'%' {
            return None;
        }
        let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok()?;
        let decoded = u8::from_str_radix(hex, 16).ok()?;
        matches!(decoded, b'.' | b'/' | b'\\' | 0).then(|| &input[i..i + 3])
    })
}

/// The root directory, opened; `None` when it does not exist and `create`
/// is false.
fn open_root(config: &FileConfig, create: bool) -> Result<Option<Dir>, ToolError> {
    let root = &config.root;
    let authority = cap_std::ambient_authority();
    match Dir::open_ambient_dir(root, authority) {
        Ok(dir) => Ok(Some(dir)),
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            if !create {
                return Ok(None);
            }
            Dir::create_ambient_dir_all(root, authority)
                .and_then(|()| Dir::open_ambient_dir(root, authority))
                .map(Some)
                .map_err(|error| {
                    ToolError::internal(format!(
                        "the file directory {} could not be created: {error}",
                        root.display()
                    ))
                })
        }
        Err(error) => Err(ToolError::internal(format!(
            "the file directory {} could not be opened: {error}",
            root.display()
        ))),
    }
}

fn as_target(relative: &Path) -> &Path {
    if relative.as_os_str().is_empty() {
        Path::new(".")
    } else {
        relative
    }
}

fn display(relative: &Path) -> String {
    if relative.as_os_str().is_empty() {
        return ".".into();
    }
    let parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

/// An I/O error as the model should read it; an attempt to leave the root
/// (which `cap-std` reports as a permission error with its own message) is
/// a refusal.
fn io_error(path: &str, action: &str, error: io::Error) -> ToolError {
    let escape = error.kind() == io::ErrorKind::PermissionDenied
        && error
            .get_ref()
            .is_some_and(|inner| inner.to_string().contains("outside"));
    if escape {
        return ToolError::new(format!(
            "refused path {path:?}: it leads outside the file directory (through a symbolic link)"
        ));
    }
    match error.kind() {
        io::ErrorKind::NotFound => ToolError::new(format!(
            "cannot {action} {path:?}: no such file or directory; list the files with file_list"
        )),
        io::ErrorKind::NotADirectory => ToolError::new(format!(
            "cannot {action} {path:?}: a part of the path is a file, not a directory"
        )),
        io::ErrorKind::PermissionDenied => {
            ToolError::new(format!("cannot {action} {path:?}: permission denied"))
        }
        _ => ToolError::new(format!("cannot {action} {path:?}: {error}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local! {
        /// Makes the next writes on this thread fail halfway through the
        /// content, as a full disk or a killed process would.
        pub(super) static FAIL_MID_WRITE: Cell<bool> = const { Cell::new(false) };
    }

    #[test]
    fn an_interrupted_write_leaves_the_old_file_intact() {
        let temp = tempfile::tempdir().unwrap();
        let dir = Dir::open_ambient_dir(temp.path(), cap_std::ambient_authority()).unwrap();
        std::fs::write(temp.path().join("notes.txt"), "old content").unwrap();

        for mode in [Mode::Overwrite, Mode::Append] {
            FAIL_MID_WRITE.with(|fail| fail.set(true));
            let outcome = write_atomically(
                &dir,
                Path::new("notes.txt"),
                b"new content that never fully arrives",
                mode,
                1024,
            );
            FAIL_MID_WRITE.with(|fail| fail.set(false));
            match outcome {
                Err(WriteError::Io(error)) => {
                    assert!(error.to_string().contains("simulated failure"), "{error}");
                }
                Err(WriteError::Refused(message)) => panic!("refused: {message}"),
                Ok(_) => panic!("the simulated failure did not happen"),
            }
            assert_eq!(
                std::fs::read_to_string(temp.path().join("notes.txt")).unwrap(),
                "old content",
                "{mode:?}"
            );
        }
        // No temporary file is left behind.
        let names: Vec<String> = std::fs::read_dir(temp.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["notes.txt"]);

        // The same write without the failure replaces the content.
        let (size, created) =
            write_atomically(&dir, Path::new("notes.txt"), b"new", Mode::Overwrite, 1024)
                .unwrap_or_else(|_| panic!("write failed"));
        assert_eq!((size, created), (3, false));
        assert_eq!(
            std::fs::read_to_string(temp.path().join("notes.txt")).unwrap(),
            "new"
        );
    }

    #[test]
    fn an_interrupted_create_leaves_no_file() {
        let temp = tempfile::tempdir().unwrap();
        let dir = Dir::open_ambient_dir(temp.path(), cap_std::ambient_authority()).unwrap();
        FAIL_MID_WRITE.with(|fail| fail.set(true));
        let outcome = write_atomically(
            &dir,
            Path::new("new.txt"),
            b"abcdef",
            Mode::CreateOnly,
            1024,
        );
        FAIL_MID_WRITE.with(|fail| fail.set(false));
        assert!(outcome.is_err());
        assert_eq!(std::fs::read_dir(temp.path()).unwrap().count(), 0);
    }

    #[test]
    fn path_text_checks() {
        let root = Path::new("/srv/files");
        let ok = |input: &str| checked_path(input, root).unwrap();
        let refused = |input: &str| checked_path(input, root).unwrap_err().to_string();
        assert_eq!(ok("a/b.txt"), PathBuf::from("a/b.txt"));
        assert_eq!(ok("./a//b.txt"), PathBuf::from("a/b.txt"));
        assert_eq!(ok("/srv/files/a.txt"), PathBuf::from("a.txt"));
        assert_eq!(ok("."), PathBuf::new());
        assert_eq!(ok("100%.txt"), PathBuf::from("100%.txt"));
        assert_eq!(ok("a%20b"), PathBuf::from("a%20b"));
        assert!(refused("../etc/passwd").contains("\"..\" is not allowed"));
        assert!(refused("a/../../b").contains("\"..\" is not allowed"));
        assert!(refused("a/..").contains("\"..\" is not allowed"));
        assert!(refused("/etc/passwd").contains("absolute path outside"));
        assert!(refused("/srv/filesystem/x").contains("absolute path outside"));
        assert!(refused("%2e%2e/etc/passwd").contains("percent-encoded %2e"));
        assert!(refused("..%2Fetc").contains("percent-encoded %2F"));
        assert!(refused("a%00.txt").contains("percent-encoded %00"));
        assert!(refused("a\0b").contains("NUL byte"));
    }
}
