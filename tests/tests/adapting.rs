//! What adapts a tool to its caller: its own formatting, transforms of its
//! arguments, versions and deprecation, prerequisites, result limits and
//! sequential calls; each through `Registry::invoke`, a provider rendering
//! and the MCP server.

mod adapting {
    mod formatting;
    mod limits;
    mod macros;
    mod mcp;
    mod requires;
    mod sequencing;
    mod transforms;
    mod versions;
}
