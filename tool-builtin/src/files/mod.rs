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

//! Each tool is in a file of its own (`read.rs`, `write.rs`, `list.rs`),
//! with what it returns; all three go through the path guard
//! (`guard.rs`), and share their configuration (`config.rs`).

mod config;
mod guard;
mod list;
mod read;
mod write;

pub use config::FileConfig;
pub use list::{FileListTool, ListEntry, Listing, file_list};
pub use read::{FileContent, FileReadTool, file_read};
pub use write::{FileWriteTool, WriteReport, file_write};
