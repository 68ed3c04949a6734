//! The path guard: every path is checked by its text, and the file system
//! is reached only through a `cap_std::fs::Dir` opened on the root (see
//! the [module documentation](super)); the messages a refused path or an
//! I/O error gives the model.

use std::io;
use std::path::{Component, Path, PathBuf};

use cap_std::fs::Dir;
use tool_runtime::ToolError;

use super::config::FileConfig;

/// Checks a path by its text and returns it relative to the root: refuses
/// NUL bytes, percent-encoded dots and separators, `..` components and
/// absolute paths outside the root. The empty result is the root itself.
pub(super) fn checked_path(input: &str, root: &Path) -> Result<PathBuf, ToolError> {
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
pub(super) fn open_root(config: &FileConfig, create: bool) -> Result<Option<Dir>, ToolError> {
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

pub(super) fn as_target(relative: &Path) -> &Path {
    if relative.as_os_str().is_empty() {
        Path::new(".")
    } else {
        relative
    }
}

pub(super) fn display(relative: &Path) -> String {
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
pub(super) fn io_error(path: &str, action: &str, error: io::Error) -> ToolError {
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
