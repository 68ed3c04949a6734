//! The built-in tools through a registry, as an agent calls them.

mod calculator;
#[cfg(all(unix, feature = "code-mode"))]
mod code_mode;
mod current_time;
mod files;
mod http;
mod python;

use serde_json::Value;
use tool_runtime::{Registry, ToolContext, ToolUse, registry::Linked};

/// A registry with one built-in tool, configured with `config` (the
/// environment is ignored, so `TOOL_*` variables cannot change the tests).
pub fn registry(tool: &str, config: Value) -> Registry {
    Registry::builder()
        .catalog(tool_builtin::ALL)
        .linked(Linked::named([tool]))
        .configure(tool, config)
        .config_from_env(false)
        .build()
        .unwrap_or_else(|error| panic!("{tool}: {error}"))
}

/// Calls `tool` through the agent path: the JSON value of a success, or the
/// text of an error result.
pub async fn call(registry: &Registry, tool: &str, args: Value) -> Result<Value, String> {
    let result = registry
        .invoke(ToolUse::new("t", tool, args), &ToolContext::new())
        .await;
    let text = result.text_content();
    if result.is_error() {
        Err(text)
    } else {
        Ok(serde_json::from_str(&text).unwrap_or(Value::String(text)))
    }
}

/// The error text of a call that must fail.
pub async fn refused(registry: &Registry, tool: &str, args: Value) -> String {
    match call(registry, tool, args.clone()).await {
        Ok(value) => panic!("{tool} {args} succeeded: {value}"),
        Err(text) => text,
    }
}

#[test]
fn every_builtin_tool_is_linked_and_configurable_by_default() {
    let names = [
        "calculator",
        "current_time",
        "file_read",
        "file_write",
        "file_list",
        "http_request",
        "python_exec",
    ];
    let registry = Registry::builder()
        .catalog(tool_builtin::ALL)
        .linked(Linked::named(names))
        .config_from_env(false)
        .build()
        .expect("every tool works with its default configuration");
    for name in names {
        let spec = registry.get(name).expect(name).spec();
        let config = spec
            .config
            .expect("every built-in tool has a configuration");
        assert!(
            config.defaults().is_ok(),
            "{name}: every field has a default"
        );
        assert!(!spec.description.is_empty());
    }
    let read = registry.get("file_read").unwrap().spec();
    assert_eq!(read.annotations.read_only, Some(true));
    let write = registry.get("file_write").unwrap().spec();
    assert_eq!(write.annotations.destructive, Some(true));
    let http = registry.get("http_request").unwrap().spec();
    assert_eq!(http.annotations.open_world, Some(true));
}

#[test]
fn unknown_configuration_fields_are_rejected() {
    let error = Registry::builder()
        .catalog(tool_builtin::ALL)
        .linked(Linked::named(["file_read"]))
        .configure("file_read", serde_json::json!({"rot": "/tmp"}))
        .config_from_env(false)
        .build()
        .unwrap_err()
        .to_string();
    assert!(error.contains("unknown field \"rot\""), "{error}");
}

/// Whether `python3` runs here; when not, says that the tests of `tool`
/// are skipped.
pub fn have_python(tool: &str) -> bool {
    let found = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success());
    if !found {
        eprintln!("python3 is not installed: skipping this {tool} test");
    }
    found
}

/// Whether this process may create user, PID, mount and network
/// namespaces, as `python_exec`'s sandbox does: tried in a child, which
/// then runs `true`. The reason when not.
#[cfg(target_os = "linux")]
pub fn namespaces() -> Result<(), String> {
    use std::os::unix::process::CommandExt;
    let mut command = std::process::Command::new("true");
    // SAFETY: unshare is a plain system call.
    unsafe {
        command.pre_exec(|| {
            let flags =
                libc::CLONE_NEWUSER | libc::CLONE_NEWPID | libc::CLONE_NEWNS | libc::CLONE_NEWNET;
            if libc::unshare(flags) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    match command.status() {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(format!("`true` in new namespaces ended with {status}")),
        Err(error) => Err(format!(
            "the kernel does not let this process create user, PID, mount and network namespaces ({error})"
        )),
    }
}
