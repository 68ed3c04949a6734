//! The files a `resources` section serves: read at each `resources/read`,
//! bounded, a folder's only by a plain file name.

use std::io::{self, Read};
use std::path::Path;

use cap_std::ambient_authority;
use cap_std::fs::{Dir, OpenOptions};

use crate::resources::{Body, ResourceError};

/// How many of a folder's entries completion looks at: 1000.
pub(super) const MAX_LISTED: usize = 1000;

/// The contents of the file at `path`: text when it is UTF-8, bytes
/// otherwise; more than `limit` bytes is an error.
pub(super) fn read_file(path: &Path, limit: usize) -> Result<Body, ResourceError> {
    let file =
        open(std::fs::OpenOptions::new().read(true), path).map_err(|error| failed(path, &error))?;
    read_bounded(file, path, limit)
}

/// The file `name` of the folder `dir`: `NotFound` unless `name` is a
/// plain file name (no `/`, `\` or NUL, not `.` or `..`) of a regular file
/// there (a symbolic link is not one).
pub(super) fn read_in(dir: &Path, name: &str, limit: usize) -> Result<Body, ResourceError> {
    if !is_plain_name(name) {
        return Err(ResourceError::NotFound);
    }
    let root = Dir::open_ambient_dir(dir, ambient_authority()).map_err(|e| failed(dir, &e))?;
    match root.symlink_metadata(name) {
        Ok(metadata) if metadata.is_file() => {}
        Ok(_) => return Err(ResourceError::NotFound),
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            return Err(ResourceError::NotFound);
        }
        Err(error) => return Err(failed(&dir.join(name), &error)),
    }
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt as _;
        // A link or a FIFO swapped in since the check is neither followed
        // nor waited on.
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW);
    }
    let path = dir.join(name);
    let file = root
        .open_with(name, &options)
        .map_err(|error| failed(&path, &error))?;
    let metadata = file.metadata().map_err(|error| failed(&path, &error))?;
    if !metadata.is_file() {
        return Err(ResourceError::NotFound);
    }
    read_bounded(file.into_std(), &path, limit)
}

/// The names of the regular files of the folder `dir` (of the first
/// [`MAX_LISTED`] entries) that start with `prefix`, sorted.
pub(super) fn names_in(dir: &Path, prefix: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .take(MAX_LISTED)
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_file()))
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| is_plain_name(name) && name.starts_with(prefix))
        .collect();
    names.sort();
    names
}

/// Whether `name` names a file in a folder and nothing else.
pub(super) fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\', '\0'])
}

/// The media type of a file named `name`, by its extension; `None` when
/// the extension is not a known one.
pub(super) fn mime_of(name: &str) -> Option<&'static str> {
    let extension = Path::new(name).extension()?.to_str()?.to_ascii_lowercase();
    Some(match extension.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" | "text" => "text/plain",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "js" | "mjs" => "text/javascript",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "xml" => "application/xml",
        "pdf" => "application/pdf",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        _ => return None,
    })
}

fn open(options: &mut std::fs::OpenOptions, path: &Path) -> io::Result<std::fs::File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        // A FIFO named by the file must not block the read.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok(file)
}

/// At most `limit` bytes of `file`, as text when they are UTF-8.
fn read_bounded(file: std::fs::File, path: &Path, limit: usize) -> Result<Body, ResourceError> {
    let mut bytes = Vec::new();
    let budget = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    file.take(budget)
        .read_to_end(&mut bytes)
        .map_err(|error| failed(path, &error))?;
    if bytes.len() > limit {
        let bytes = std::fs::metadata(path).map_or(bytes.len(), |m| {
            usize::try_from(m.len()).unwrap_or(usize::MAX)
        });
        return Err(ResourceError::TooLarge { bytes, limit });
    }
    Ok(match String::from_utf8(bytes) {
        Ok(text) => Body::Text(text),
        Err(error) => Body::Blob(error.into_bytes()),
    })
}

fn failed(path: &Path, error: &io::Error) -> ResourceError {
    ResourceError::Failed(format!("{}: {error}", path.display()))
}
