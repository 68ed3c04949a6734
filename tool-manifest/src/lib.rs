//! Registry files.
