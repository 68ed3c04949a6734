//! Compile-fail and compile-pass cases for `#[tool]` and `#[toolset]`: the
//! test `ui` (`ui.rs`) builds each file of `macro/`, `types/` and `pass/`
//! with trybuild. The library is empty.
