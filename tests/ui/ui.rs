//! Compile-fail and compile-pass cases for `#[tool]`, `#[toolset]` and
//! tool-mcp's `#[resource]` and `#[prompt]`.
//!
//! `macro/` holds misuses the macro itself reports, and cases where it
//! must add nothing to an error of rustc's own (a syntax error in a body)
//! or to its own one error (a tool whose struct is used elsewhere);
//! `types/` holds misuses rustc reports as unmet trait bounds, whose
//! wording can change between compiler versions. Regenerate the expected
//! output with `TRYBUILD=overwrite cargo test -p ui`.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("macro/*.rs");
    cases.compile_fail("types/*.rs");
    cases.pass("pass/*.rs");
}
