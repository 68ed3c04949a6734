//! [`FileConfig`]: how the three file tools are set up.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
