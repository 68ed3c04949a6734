//! The Python signatures a model reads: optional parameters are `... |
//! None = None`, and what the types do not say (ranges, lengths, an
//! enumeration) is in the docstring.

use tool_builtin::code_mode::CodeMode;
use tool_runtime::{Registry, tool};

/// Greets someone, in a few words.
#[tool(register = false)]
fn greet(
    /// Who to greet.
    #[tool(length(min = 1, max = 40))]
    name: String,
    /// How many times, 1 to 5.
    #[tool(range(min = 1, max = 5))]
    times: Option<u32>,
    /// A title to put first.
    title: Option<String>,
) -> String {
    let name = match title {
        Some(title) => format!("{title} {name}"),
        None => name,
    };
    vec![format!("hello {name}"); times.unwrap_or(1) as usize].join(", ")
}

fn signature(registry: Registry, tool: &str) -> String {
    let code_mode = CodeMode::new(registry).tools([tool]).build().unwrap();
    code_mode.signatures().next().unwrap()
}

#[test]
fn optional_parameters_say_none_and_constraints_are_in_the_docstring() {
    let own = Registry::builder().tool(GreetTool).build().unwrap();
    let greet = signature(own, "greet");
    assert!(
        greet.starts_with(
            "def greet(name: str, times: int | None = None, title: str | None = None) -> Any:"
        ),
        "{greet}"
    );
    assert!(
        greet.contains("name: Who to greet. (1 to 40 characters)"),
        "{greet}"
    );
    assert!(
        greet.contains("times: How many times, 1 to 5. (>= 1, <= 5)"),
        "{greet}"
    );
    assert!(
        greet.contains("title: A title to put first.\"\"\""),
        "{greet}"
    );

    let builtins = Registry::builder()
        .tools(tool_builtin::ALL)
        .config_from_env(false)
        .build()
        .unwrap();
    let time = signature(builtins.clone(), "current_time");
    assert!(time.contains("zone: str | None = None"), "{time}");
    assert!(time.contains("(1 to 64 characters)"), "{time}");
    let read = signature(builtins, "file_read");
    assert!(read.contains("length: int | None = None"), "{read}");
    assert!(
        read.contains("encoding: Literal[\"text\", \"base64\"] | None = None"),
        "{read}"
    );
    assert!(read.contains("(>= 1"), "{read}");
}

#[tokio::test(flavor = "multi_thread")]
async fn none_for_an_optional_parameter_sends_nothing() {
    if !crate::have_python("code_mode") {
        return;
    }
    let registry = Registry::builder().tool(GreetTool).build().unwrap();
    let code_mode = CodeMode::new(registry);
    let script =
        "print(greet('ada', times=None, title=None))\nprint(greet(name='bo', times=2, title='dr'))";
    let run = super::run_with(code_mode, script).await;
    assert_eq!(
        run["stdout"], "hello ada\nhello dr bo, hello dr bo\n",
        "{run}"
    );
    assert_eq!(run["calls"][0]["status"], "completed", "{run}");
}
