mod tools {
    pub(crate) mod text {
        use tool_runtime::tool;

        /// Shouts a word.
        #[tool]
        pub(crate) fn shout(
            /// The word to shout
            word: String,
        ) -> String {
            word.to_uppercase()
        }
    }
}

fn main() {
    use tools::text::{ShoutTool, shout};

    assert_eq!(shout("hi".to_owned()), "HI");
    assert_eq!(ShoutTool::SPEC.name, "shout");
    assert_eq!(ShoutTool::SPEC.params.len(), 1);
}
