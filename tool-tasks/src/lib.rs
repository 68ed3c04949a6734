//! Tool calls that run as tasks.
