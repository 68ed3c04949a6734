//! `python_exec`. Skipped, with a notice, where no Python 3 is installed.

use std::time::Duration;

use serde_json::{Value, json};

use crate::{call, refused, registry};

#[cfg(target_os = "linux")]
mod isolation;

fn have_python() -> bool {
    crate::have_python("python_exec")
}

async fn run(config: Value, code: &str) -> Value {
    let registry = registry("python_exec", config);
    call(&registry, "python_exec", json!({"code": code}))
        .await
        .unwrap_or_else(|error| panic!("python_exec failed: {error}"))
}

/// Whether the process `pid` is gone (or a zombie waiting for its parent,
/// which runs no code).
#[cfg(target_os = "linux")]
fn is_gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X'])),
    }
}

#[cfg(all(unix, not(target_os = "linux")))]
fn is_gone(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    unsafe { libc::kill(pid, 0) != 0 }
}

/// Waits (a bounded number of times) for `pid` to be gone: a killed
/// process may take a moment to be reaped by init.
fn wait_gone(pid: i32) -> bool {
    for _ in 0..200 {
        if is_gone(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

fn pids(stdout: &Value) -> Vec<i32> {
    stdout
        .as_str()
        .unwrap()
        .split_whitespace()
        .filter_map(|word| word.parse().ok())
        .collect()
}

#[tokio::test]
async fn runs_code_with_the_default_configuration() {
    if !have_python() {
        return;
    }
    let out = run(json!({}), "print(2**10)").await;
    assert_eq!(out["stdout"], "1024\n");
    assert_eq!(out["exit_code"], 0);
    assert_eq!(out["killed"], false);
    assert_eq!(out["limit"], Value::Null);
}

#[tokio::test]
async fn errors_and_exit_codes_are_reported() {
    if !have_python() {
        return;
    }
    let out = run(
        json!({}),
        "import sys\nprint('partial')\nsys.stderr.write('oops\\n')\nsys.exit(3)",
    )
    .await;
    assert_eq!(out["stdout"], "partial\n");
    assert_eq!(out["stderr"], "oops\n");
    assert_eq!(out["exit_code"], 3);
    let out = run(json!({}), "1 / 0").await;
    assert_eq!(out["exit_code"], 1);
    assert!(
        out["stderr"]
            .as_str()
            .unwrap()
            .contains("ZeroDivisionError")
    );
}

#[tokio::test]
async fn the_code_runs_in_a_fresh_directory_with_a_clean_environment() {
    if !have_python() {
        return;
    }
    let out = run(
        json!({"env": {"GREETING": "hi"}}),
        "import os\nprint(os.listdir('.'))\nprint(os.environ['GREETING'])\nprint(' '.join(os.environ))",
    )
    .await;
    let stdout = out["stdout"].as_str().unwrap();
    let mut lines = stdout.lines();
    assert_eq!(lines.next(), Some("['snippet.py']"));
    assert_eq!(lines.next(), Some("hi"));
    let seen: Vec<&str> = lines.next().unwrap().split(' ').collect();
    // None of this process's variables reaches the code, apart from the
    // ones passed on purpose (and those a shell wrapper such as pyenv's
    // shim sets itself).
    let passed = [
        "PATH", "HOME", "TMPDIR", "LANG", "GREETING", "PWD", "OLDPWD", "SHLVL", "_",
    ];
    for (name, _) in std::env::vars() {
        if passed.contains(&name.as_str()) || name.starts_with("PYENV") {
            continue;
        }
        assert!(
            !seen.contains(&name.as_str()),
            "{name} leaked into the code's environment"
        );
    }
}

#[tokio::test]
async fn an_infinite_loop_is_killed_at_the_timeout() {
    if !have_python() {
        return;
    }
    let out = run(
        json!({"timeout_ms": 2000}),
        "print('started', flush=True)\nwhile True:\n    pass",
    )
    .await;
    assert_eq!(out["killed"], true);
    assert_eq!(out["limit"], "timeout");
    assert_eq!(out["signal"], 9);
    assert_eq!(out["exit_code"], Value::Null);
    assert_eq!(out["stdout"], "started\n", "output before the kill is kept");
}

#[tokio::test]
async fn the_cpu_limit_stops_busy_code() {
    if !have_python() {
        return;
    }
    let out = run(
        json!({"cpu_seconds": 1, "timeout_ms": 20000}),
        "while True:\n    pass",
    )
    .await;
    assert_eq!(out["killed"], true);
    assert_eq!(out["limit"], "cpu");
}

#[tokio::test]
async fn a_memory_hog_is_stopped_by_the_memory_limit() {
    if !have_python() {
        return;
    }
    let out = run(
        json!({"memory_mb": 200}),
        "chunks = []\nwhile True:\n    chunks.append(bytearray(16 * 1024 * 1024))",
    )
    .await;
    assert_ne!(out["exit_code"], 0);
    assert_eq!(out["limit"], "memory");
    assert!(out["stderr"].as_str().unwrap().contains("MemoryError"));
}

#[cfg(unix)]
#[tokio::test]
async fn child_processes_die_with_the_code() {
    if !have_python() {
        return;
    }
    // A child left running in the background when the code exits normally.
    let out = run(
        json!({}),
        "import subprocess\np = subprocess.Popen(['sleep', '100'])\nprint(p.pid, flush=True)",
    )
    .await;
    assert_eq!(out["exit_code"], 0);
    let [sleeper] = pids(&out["stdout"])[..] else {
        panic!("no pid in {out}");
    };
    assert!(
        wait_gone(sleeper),
        "the background sleep {sleeper} is still running"
    );

    // Children of code that is killed at the timeout.
    let out = run(
        json!({"timeout_ms": 2000}),
        "import os, subprocess\n\
         a = subprocess.Popen(['sleep', '100'])\n\
         b = subprocess.Popen(['sleep', '100'], stdout=subprocess.DEVNULL)\n\
         print(os.getpid(), a.pid, b.pid, flush=True)\n\
         while True:\n    pass",
    )
    .await;
    assert_eq!(out["limit"], "timeout");
    let all = pids(&out["stdout"]);
    assert_eq!(all.len(), 3, "{out}");
    for pid in all {
        assert!(wait_gone(pid), "process {pid} is still running");
    }
}

#[tokio::test]
async fn output_is_capped_but_drained() {
    if !have_python() {
        return;
    }
    let out = run(
        json!({"max_output_bytes": 1000}),
        "import sys\nsys.stdout.write('x' * 1000000)\nsys.stderr.write('e' * 5000)\nprint('done', file=sys.stderr)",
    )
    .await;
    assert_eq!(out["exit_code"], 0, "the writer was never blocked: {out}");
    assert_eq!(out["stdout"].as_str().unwrap().len(), 1000);
    assert_eq!(out["stdout_truncated"], true);
    assert_eq!(out["stderr"].as_str().unwrap().len(), 1000);
    assert_eq!(out["stderr_truncated"], true);
}

#[tokio::test]
async fn a_missing_interpreter_is_refused_clearly() {
    let registry = registry("python_exec", json!({"python": "/nonexistent/python3"}));
    let text = refused(&registry, "python_exec", json!({"code": "print(1)"})).await;
    assert!(text.contains("no Python interpreter found"), "{text}");
    let registry = crate::registry("python_exec", json!({"python": "no-such-python-here"}));
    let text = refused(&registry, "python_exec", json!({"code": "print(1)"})).await;
    assert!(
        text.contains("no-such-python-here") && text.contains("on PATH"),
        "{text}"
    );
}

#[tokio::test]
async fn code_size_is_limited() {
    let registry = registry("python_exec", json!({"max_code_bytes": 10}));
    let text = refused(
        &registry,
        "python_exec",
        json!({"code": "print('a long line')"}),
    )
    .await;
    assert!(text.contains("more than the limit of 10 bytes"), "{text}");
}
