//! Token counts of tool definitions and results.
