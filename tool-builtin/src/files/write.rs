//! `file_write`: a file written atomically (overwrite, append or
//! create-only), so that a failed write leaves the old file as it was.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use base64::Engine as _;
use cap_std::fs::{Dir, OpenOptions};
use schemars::JsonSchema;
use serde::Serialize;
use tool_runtime::config::Config;
use tool_runtime::{ToolError, tool};

use super::config::FileConfig;
use super::guard::{checked_path, display, io_error, open_root};

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
}
