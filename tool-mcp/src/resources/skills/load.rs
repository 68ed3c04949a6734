//! Skills read from a directory: every folder below it with a `SKILL.md`,
//! its files read through cap-std, beneath the directory only.

use std::collections::{BTreeSet, HashMap};
use std::io::{self, Read as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cap_std::ambient_authority;
use cap_std::fs::{Dir, OpenOptions};

use super::manifest::{Limits, Pending, skip};
use super::{SKILL_MD, SkillsError, Skipped};

/// What an entry below the directory is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    File,
    Folder,
    /// Not served: why.
    Refused(&'static str),
}

/// An entry below the directory: its path from it (`/`-separated), what it
/// is, its size when a file.
struct Entry {
    path: String,
    kind: Kind,
    size: u64,
}

/// The skills below `root`, read within `limits`, and those left out.
pub(super) fn read_dir(
    root: &Path,
    limits: Limits,
) -> Result<(Vec<Pending>, Vec<Skipped>), SkillsError> {
    let io_error = |path: &str| {
        let path = root.join(path);
        move |source| SkillsError::Io { path, source }
    };
    let dir = Dir::open_ambient_dir(root, ambient_authority()).map_err(io_error(""))?;
    let tree = walk(&dir).map_err(|(path, source)| io_error(&path)(source))?;
    let folders: BTreeSet<&str> = tree
        .iter()
        .filter(|entry| entry.kind != Kind::Folder && name_of(&entry.path) == SKILL_MD)
        .map(|entry| parent_of(&entry.path))
        .collect();
    if folders.contains("") {
        return Err(SkillsError::Entry {
            path: root.join(SKILL_MD).display().to_string(),
            reason: "a skill is a folder below the directory (its name the folder's): give the \
                     directory that holds the skill's folder"
                .into(),
        });
    }
    let mut bytes_of: HashMap<&str, Arc<[u8]>> = HashMap::new();
    let mut pending = Vec::new();
    let mut skipped = Vec::new();
    for folder in folders {
        let prefix = format!("{folder}/");
        let inside: Vec<&Entry> = tree
            .iter()
            .filter(|entry| entry.path.starts_with(&prefix))
            .collect();
        if let Some(refused) = inside.iter().find_map(|entry| match entry.kind {
            Kind::Refused(reason) => Some((entry, reason)),
            _ => None,
        }) {
            return Err(SkillsError::Entry {
                path: root.join(&refused.0.path).display().to_string(),
                reason: refused.1.into(),
            });
        }
        let files: Vec<&Entry> = inside
            .into_iter()
            .filter(|entry| entry.kind == Kind::File)
            .collect();
        let size = files.iter().map(|entry| entry.size).sum();
        if let Some(reason) = limits.exceeded(files.len(), size) {
            skipped.push(skip(folder, reason));
            continue;
        }
        let mut budget = limits.bytes;
        let mut read = Vec::with_capacity(files.len());
        for entry in files {
            let bytes = match bytes_of.get(entry.path.as_str()) {
                Some(bytes) => Arc::clone(bytes),
                None => {
                    let bytes: Arc<[u8]> = read_file(&dir, &entry.path, budget)
                        .map_err(io_error(&entry.path))?
                        .into();
                    bytes_of.insert(&entry.path, Arc::clone(&bytes));
                    bytes
                }
            };
            // A file that grew since the walk may take the skill over.
            budget = budget.saturating_sub(bytes.len() as u64);
            let relative = entry.path[prefix.len()..].to_owned();
            read.push((relative, bytes));
        }
        let total: u64 = read.iter().map(|(_, bytes)| bytes.len() as u64).sum();
        if let Some(reason) = limits.exceeded(read.len(), total) {
            skipped.push(skip(folder, reason));
            continue;
        }
        pending.push(Pending {
            path: folder.to_owned(),
            files: read,
            origin: Some(root.join(folder)),
        });
    }
    Ok((pending, skipped))
}

/// Every entry below `root` but those whose names start with `.`, by
/// path; a folder's entries after it. Symbolic links are not followed.
fn walk(root: &Dir) -> Result<Vec<Entry>, (String, io::Error)> {
    let mut tree = Vec::new();
    let top = root.try_clone().map_err(|error| (String::new(), error))?;
    let mut folders = vec![(top, String::new())];
    while let Some((dir, path)) = folders.pop() {
        let failed = |error| (path.clone(), error);
        let mut entries = dir
            .entries()
            .map_err(failed)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(failed)?;
        entries.sort_by_key(|entry| entry.file_name());
        for entry in entries {
            let name = entry.file_name();
            let name_text = name.to_string_lossy();
            if name_text.starts_with('.') {
                continue;
            }
            let child = if path.is_empty() {
                name_text.into_owned()
            } else {
                format!("{path}/{name_text}")
            };
            // The entry itself, a symbolic link not followed.
            let metadata = entry.metadata().map_err(|error| (child.clone(), error))?;
            let (kind, size) = if name.to_str().is_none() {
                (Kind::Refused("its name is not UTF-8 text"), 0)
            } else if metadata.is_symlink() {
                (
                    Kind::Refused(
                        "a symbolic link: links are not followed, put the file itself in the \
                         skill",
                    ),
                    0,
                )
            } else if metadata.is_dir() {
                let opened = entry.open_dir().map_err(|error| (child.clone(), error))?;
                folders.push((opened, child.clone()));
                (Kind::Folder, 0)
            } else if metadata.is_file() {
                (Kind::File, metadata.len())
            } else {
                (Kind::Refused("not a file nor a folder"), 0)
            };
            tree.push(Entry {
                path: child,
                kind,
                size,
            });
        }
    }
    tree.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(tree)
}

/// The file at `path` below `root`, at most `budget` bytes and one more
/// (which takes its skill over the limit); refused unless a regular file.
fn read_file(root: &Dir, path: &str, budget: u64) -> io::Result<Vec<u8>> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt as _;
        // A FIFO swapped in since the walk must not block the open.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = root.open_with(PathBuf::from(path), &options)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "not a regular file any more",
        ));
    }
    let mut bytes = Vec::new();
    file.take(budget.saturating_add(1))
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn name_of(path: &str) -> &str {
    path.rsplit_once('/').map_or(path, |(_, name)| name)
}

fn parent_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(parent, _)| parent)
}
