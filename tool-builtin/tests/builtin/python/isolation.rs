//! What keeps the code away from the agent: its environment and memory, its
//! threads and descriptors, and the `sandbox` setting (Linux).
//!
//! Some tests run an ignored test of this binary in a process of its own
//! ([`rerun`]): one whose initial environment holds a secret, one whose
//! threads and descriptors no other test disturbs, one where namespaces are
//! forbidden. The sandbox's tests are skipped, saying why, only where the
//! kernel does not let this process create the namespaces.

use std::ffi::{CStr, CString};
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{have_python, run};

/// The name of the variable that holds the secret in [`rerun`]'s processes.
const SECRET: &str = "PYTHON_EXEC_TEST_SECRET";

/// The interpreter a rerun process passes as the `python` setting (for a
/// process without access to the one on PATH).
const PYTHON: &str = "PYTHON_EXEC_TEST_PYTHON";

/// Runs the ignored test `name` of this binary in a new process, set up by
/// `setup`, and checks that it ran and passed; its output.
fn rerun(name: &str, setup: impl FnOnce(&mut Command)) -> String {
    let mut command = Command::new(std::env::current_exe().expect("the test binary"));
    command.args([
        name,
        "--exact",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ]);
    setup(&mut command);
    let output = command.output().expect("the test binary runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success() && text.contains("1 passed"),
        "{name} failed in its own process:\n{text}"
    );
    eprintln!("{text}");
    text
}

/// Whether this test runs in a process set up by [`rerun`] (an ignored
/// test run directly just returns).
fn rerun_by(variable: &str) -> bool {
    let set = std::env::var_os(variable).is_some();
    if !set {
        eprintln!("this test runs in a process of its own, started by another test");
    }
    set
}

/// The configuration for this process: the `python` of [`PYTHON`] when
/// set, and `extra`.
fn config(extra: Value) -> Value {
    let mut config = extra;
    if let Ok(python) = std::env::var(PYTHON) {
        config["python"] = json!(python);
    }
    config
}

/// Whether this process may create user, PID, mount and network
/// namespaces: tried in a child, which then runs `true`.
fn namespaces_allowed() -> bool {
    crate::namespaces()
        .map_err(|reason| eprintln!("{reason}: skipping this sandbox test"))
        .is_ok()
}

/// Python code that looks for [`SECRET`] where the agent keeps it: the
/// environment and memory of its parent process (the agent, outside the
/// sandbox), and every `/proc/*/environ` it can read. Prints JSON.
const SCAN: &str = r#"
import json, os
name = b'PYTHON_EXEC_TEST_SECRET='
found, readable, parent = [], 0, {}
ppid = os.getppid()
for what in ('environ', 'maps', 'mem'):
    path = f'/proc/{ppid}/{what}'
    try:
        with open(path, 'rb') as f:
            data = f.read() if what != 'mem' else b''
        parent[what] = 'read'
        if name in data:
            found.append(path)
    except OSError as error:
        parent[what] = error.strerror
for pid in os.listdir('/proc'):
    if not pid.isdigit():
        continue
    paths = [f'/proc/{pid}/environ']
    try:
        paths += [f'/proc/{pid}/task/{tid}/environ' for tid in os.listdir(f'/proc/{pid}/task')]
    except OSError:
        pass
    for path in paths:
        try:
            with open(path, 'rb') as f:
                data = f.read()
        except OSError:
            continue
        readable += 1
        if name in data:
            found.append(path)
print(json.dumps({'ppid': ppid, 'parent': parent, 'readable': readable, 'found': found}))
"#;

fn scan_result(out: &Value) -> Value {
    serde_json::from_str(out["stdout"].as_str().unwrap_or_default())
        .unwrap_or_else(|error| panic!("no scan result ({error}) in {out}"))
}

#[tokio::test]
#[ignore = "run by the_agents_environment_is_out_of_the_codes_reach"]
async fn scan_for_the_secret() {
    if !rerun_by(SECRET) {
        return;
    }
    let secret = std::env::var(SECRET).unwrap();
    let environ = std::fs::read("/proc/self/environ").expect("this process's environ");
    assert!(
        String::from_utf8_lossy(&environ).contains(&secret),
        "the secret is in this process's initial environment"
    );

    // Without the guards the scan finds the secret: a child of this process
    // with a clean environment, started before the first call.
    let python = std::env::var(PYTHON).unwrap_or_else(|_| "python3".to_owned());
    let control = Command::new(&python)
        .args(["-I", "-c", SCAN])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .output()
        .expect("python runs");
    let control: Value = serde_json::from_slice(&control.stdout).expect("a scan result");
    assert!(
        !control["found"].as_array().unwrap().is_empty(),
        "the unguarded scan finds the secret: {control}"
    );
    assert_eq!(control["parent"]["environ"], "read", "{control}");

    let out = run(config(json!({})), SCAN).await;
    let scan = scan_result(&out);
    println!("plain: {scan}");
    assert_eq!(scan["found"], json!([]), "the secret leaked: {scan}");
    assert_eq!(scan["ppid"], std::process::id(), "{scan}");
    for what in ["environ", "maps", "mem"] {
        assert_eq!(
            scan["parent"][what], "Permission denied",
            "the agent's {what}: {scan}"
        );
    }
    assert!(scan["readable"].as_u64().unwrap() >= 1, "{scan}");

    if namespaces_allowed() {
        let out = run(config(json!({"sandbox": true})), SCAN).await;
        let scan = scan_result(&out);
        println!("sandbox: {scan}");
        assert_eq!(scan["found"], json!([]), "the secret leaked: {scan}");
        // The agent's process is outside the sandbox's PID namespace.
        assert_eq!(scan["ppid"], 0, "{scan}");
        assert!(scan["readable"].as_u64().unwrap() >= 1, "{scan}");
    }
}

/// A value nobody guesses.
fn unique() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("{}{nanos:09}", std::process::id())
}

#[test]
fn the_agents_environment_is_out_of_the_codes_reach() {
    if !have_python() {
        return;
    }
    let secret = format!("sk-{}", unique());
    let output = rerun("python::isolation::scan_for_the_secret", |command| {
        command.env(SECRET, &secret);
    });
    assert!(!output.contains("leaked"), "{output}");
}

#[test]
fn the_agents_environment_is_out_of_reach_of_an_unprivileged_account() {
    // SAFETY: plain system call.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("not root: the other test runs as an unprivileged account already");
        return;
    }
    let python = "/usr/bin/python3";
    if !std::path::Path::new(python).exists() {
        eprintln!("no {python} for the account nobody: skipping this test");
        return;
    }
    let secret = format!("sk-{}", unique());
    rerun("python::isolation::scan_for_the_secret", |command| {
        command
            .env(SECRET, &secret)
            .env(PYTHON, python)
            .env("TMPDIR", "/tmp")
            .uid(65534)
            .gid(65534);
    });
}

/// This process's thread count.
fn threads() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("Threads:"))
        .and_then(|count| count.trim().parse().ok())
        .expect("a thread count")
}

/// This process's open file descriptors.
fn descriptors() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

/// Code whose grandchild leaves the process group and keeps standard
/// output open for a minute, writing its pid to `pid_file` when there is
/// one.
fn escapee(pid_file: Option<&std::path::Path>) -> String {
    let write_pid = match pid_file {
        Some(path) => format!(
            "    open({:?}, 'w').write(str(os.getpid()))\n",
            path.display().to_string()
        ),
        None => String::new(),
    };
    format!(
        "import os, time\nif os.fork() == 0:\n  os.setsid()\n  if os.fork() == 0:\n{write_pid}    time.sleep(60)\n  os._exit(0)\nos.wait()\nprint(1)"
    )
}

#[test]
#[ignore = "run by escaped_processes_do_not_hold_the_call"]
fn ten_escapees() {
    const FLAG: &str = "PYTHON_EXEC_TEST_ESCAPEES";
    if !rerun_by(FLAG) {
        return;
    }
    // One blocking thread at most: the runtime's own thread count stays put
    // (a new call may otherwise start before the last one's thread is
    // idle, and get another thread).
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(1)
        .build()
        .unwrap()
        .block_on(escapees());
}

async fn escapees() {
    let pids = tempfile::tempdir().unwrap();
    let mut modes = vec![json!({})];
    if namespaces_allowed() {
        modes.push(json!({"sandbox": true}));
    }
    for mode in modes {
        let sandbox = mode["sandbox"] == true;
        // The first call starts the runtime's blocking thread.
        run(config(mode.clone()), "print(0)").await;
        let before = (threads(), descriptors());
        for n in 0..10 {
            // The sandbox hides the host's /tmp, so no pid file there.
            let pid_file = pids.path().join(n.to_string());
            let code = escapee((!sandbox).then_some(pid_file.as_path()));
            let started = Instant::now();
            let out = run(config(mode.clone()), &code).await;
            let held = started
                .elapsed()
                .saturating_sub(Duration::from_millis(out["duration_ms"].as_u64().unwrap()));
            assert_eq!(out["stdout"], "1\n", "{mode}: {out}");
            assert_eq!(out["exit_code"], 0, "{mode}: {out}");
            assert_eq!(out["stdout_truncated"], false, "{mode}: {out}");
            assert_eq!(out["stderr_truncated"], false, "{mode}: {out}");
            assert!(
                held < Duration::from_millis(500),
                "{mode}: the call was held {held:?} after the code exited"
            );
        }
        let after = (threads(), descriptors());
        assert_eq!(
            before, after,
            "{mode}: (threads, descriptors) before and after ten escapees"
        );
    }
    // The escapees of the plain runs are still there: end them.
    for n in 0..10 {
        let path = pids.path().join(n.to_string());
        let mut pid = None;
        for _ in 0..500 {
            pid = std::fs::read_to_string(&path)
                .ok()
                .and_then(|text| text.parse::<i32>().ok());
            if pid.is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let pid = pid.unwrap_or_else(|| panic!("escapee {n} wrote no pid"));
        // SAFETY: plain system call.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
}

#[test]
fn escaped_processes_do_not_hold_the_call() {
    if !have_python() {
        return;
    }
    rerun("python::isolation::ten_escapees", |command| {
        command.env("PYTHON_EXEC_TEST_ESCAPEES", "1");
    });
}

#[tokio::test]
async fn the_code_has_no_capabilities() {
    if !have_python() {
        return;
    }
    let code = "for line in open('/proc/self/status'):\n    if line.startswith(('Cap', 'NoNewPrivs')): print(line.strip())";
    let mut modes = vec![json!({})];
    if namespaces_allowed() {
        modes.push(json!({"sandbox": true}));
    }
    for mode in modes {
        let out = run(mode.clone(), code).await;
        let status = out["stdout"].as_str().unwrap();
        for set in ["CapInh", "CapPrm", "CapEff", "CapAmb"] {
            assert!(
                status.contains(&format!("{set}:\t0000000000000000")),
                "{mode}: {set} in {status}"
            );
        }
        assert!(status.contains("NoNewPrivs:\t1"), "{mode}: {status}");
        // SAFETY: plain system call.
        if mode["sandbox"] == true || unsafe { libc::geteuid() } == 0 {
            assert!(
                status.contains("CapBnd:\t0000000000000000"),
                "{mode}: {status}"
            );
        }
    }
}

#[tokio::test]
async fn the_sandbox_has_no_network() {
    if !have_python() || !namespaces_allowed() {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let code = format!(
        "import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), timeout=5).close()\n    print('connected')\nexcept OSError as error:\n    print('refused:', error)"
    );
    // Without the sandbox the listener is reached: the test can tell.
    let out = run(json!({}), &code).await;
    assert_eq!(out["stdout"], "connected\n", "{out}");
    let out = run(json!({"sandbox": true}), &code).await;
    assert!(
        out["stdout"].as_str().unwrap().starts_with("refused:"),
        "{out}"
    );
    let out = run(
        json!({"sandbox": true}),
        "import socket\nprint(socket.if_nameindex())",
    )
    .await;
    assert_eq!(out["stdout"], "[(1, 'lo')]\n", "only a loopback: {out}");
}

#[tokio::test]
async fn the_sandbox_has_its_own_tmp_and_proc() {
    if !have_python() || !namespaces_allowed() {
        return;
    }
    let outside = tempfile::Builder::new()
        .prefix("python-exec-outside-")
        .tempfile_in("/tmp")
        .unwrap();
    let left = format!("/tmp/python-exec-left-{}", unique());
    let code = format!(
        "import json, os\n\
         print(json.dumps({{'tmp': sorted(os.listdir('/tmp')), 'cwd': os.getcwd(), 'home': os.environ['HOME'], 'tmpdir': os.environ['TMPDIR'], 'pid': os.getpid(), 'processes': sorted(p for p in os.listdir('/proc') if p.isdigit())}}))\n\
         open({left:?}, 'w').write('written in the sandbox')"
    );
    for _ in 0..2 {
        let out = run(json!({"sandbox": true}), &code).await;
        assert_eq!(out["exit_code"], 0, "{out}");
        let seen: Value = serde_json::from_str(out["stdout"].as_str().unwrap()).unwrap();
        // Nothing of the host's /tmp, nothing of an earlier call.
        assert_eq!(seen["tmp"], json!(["snippet.py"]), "{seen}");
        assert_eq!(seen["cwd"], "/tmp", "{seen}");
        assert_eq!(seen["home"], "/tmp", "{seen}");
        assert_eq!(seen["tmpdir"], "/tmp", "{seen}");
        // Python is the init process of a PID namespace of its own.
        assert_eq!(seen["pid"], 1, "{seen}");
        assert_eq!(seen["processes"], json!(["1"]), "{seen}");
    }
    assert!(outside.path().exists());
    assert!(
        !std::path::Path::new(&left).exists(),
        "the sandbox's /tmp reached the host's"
    );
}

/// Whether a process whose command line contains `marker` runs on this
/// machine (zombies aside).
fn running_with(marker: &str) -> Vec<i32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|p| p.parse().ok()) else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        if String::from_utf8_lossy(&cmdline).contains(marker) && !super::is_gone(pid) {
            found.push(pid);
        }
    }
    found
}

#[tokio::test]
async fn the_sandbox_ends_every_process_with_the_call() {
    if !have_python() || !namespaces_allowed() {
        return;
    }
    // A grandchild that leaves the process group and runs `sleep` with an
    // argument found nowhere else.
    let marker = format!("3000.{}", unique());
    let code = format!(
        "import os, time\n\
         if os.fork() == 0:\n\
         \x20 os.setsid()\n\
         \x20 if os.fork() == 0:\n\
         \x20   os.execvp('sleep', ['sleep', '{marker}'])\n\
         \x20 os._exit(0)\n\
         os.wait()\n\
         def running():\n\
         \x20 for pid in os.listdir('/proc'):\n\
         \x20   try:\n\
         \x20     if b'{marker}' in open(f'/proc/{{pid}}/cmdline', 'rb').read(): return True\n\
         \x20   except OSError: pass\n\
         for _ in range(500):\n\
         \x20 if running(): print('running'); break\n\
         \x20 time.sleep(0.01)"
    );
    let out = run(json!({"sandbox": true}), &code).await;
    assert_eq!(out["stdout"], "running\n", "{out}");
    assert_eq!(
        running_with(&marker),
        Vec::<i32>::new(),
        "the escaped sleep outlived the sandboxed call"
    );

    // Without the sandbox it outlives the call (and the test can tell).
    let out = run(json!({}), &code).await;
    assert_eq!(out["stdout"], "running\n", "{out}");
    let left = running_with(&marker);
    for pid in &left {
        // SAFETY: plain system call.
        unsafe {
            libc::kill(*pid, libc::SIGKILL);
        }
    }
    assert_eq!(left.len(), 1, "the escaped sleep of the plain run");
}

#[tokio::test]
async fn the_sandbox_keeps_the_limits() {
    if !have_python() || !namespaces_allowed() {
        return;
    }
    let out = run(
        json!({"sandbox": true}),
        "import sys\nprint('partial')\nsys.stderr.write('oops\\n')\nsys.exit(3)",
    )
    .await;
    assert_eq!(out["stdout"], "partial\n");
    assert_eq!(out["stderr"], "oops\n");
    assert_eq!(out["exit_code"], 3);
    assert_eq!(out["killed"], false);

    let out = run(
        json!({"sandbox": true, "timeout_ms": 1500}),
        "print('started', flush=True)\nwhile True:\n    pass",
    )
    .await;
    assert_eq!(out["limit"], "timeout", "{out}");
    assert_eq!(out["killed"], true, "{out}");
    assert_eq!(out["signal"], 9, "{out}");
    assert_eq!(out["stdout"], "started\n", "{out}");

    let out = run(
        json!({"sandbox": true, "cpu_seconds": 1, "timeout_ms": 20000}),
        "while True:\n    pass",
    )
    .await;
    assert_eq!(out["limit"], "cpu", "{out}");

    let out = run(
        json!({"sandbox": true, "memory_mb": 200}),
        "chunks = []\nwhile True:\n    chunks.append(bytearray(16 * 1024 * 1024))",
    )
    .await;
    assert_eq!(out["limit"], "memory", "{out}");

    let out = run(
        json!({"sandbox": true, "max_output_bytes": 1000}),
        "import sys\nsys.stdout.write('x' * 1000000)",
    )
    .await;
    assert_eq!(out["exit_code"], 0, "{out}");
    assert_eq!(out["stdout"].as_str().unwrap().len(), 1000);
    assert_eq!(out["stdout_truncated"], true);

    // No nested user namespace either (where the kernel has the setting).
    let out = run(
        json!({"sandbox": true}),
        "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nprint(libc.unshare(0x10000000), os.strerror(ctypes.get_errno()))",
    )
    .await;
    assert_eq!(out["stdout"], "-1 No space left on device\n", "{out}");
}

#[tokio::test]
#[ignore = "run by the_sandbox_is_refused_where_namespaces_are_forbidden"]
async fn sandbox_without_namespaces() {
    if !rerun_by("PYTHON_EXEC_TEST_NO_NAMESPACES") {
        return;
    }
    let registry = crate::registry("python_exec", json!({"sandbox": true}));
    let text = crate::refused(&registry, "python_exec", json!({"code": "print(1)"})).await;
    println!("{text}");
    assert!(
        text.contains("the sandbox is not available here")
            && text.contains("creating user, PID, mount and network namespaces failed")
            && text.contains("No space left on device"),
        "{text}"
    );
    // Without the sandbox the code still runs.
    let out = run(json!({}), "print(1)").await;
    assert_eq!(out["stdout"], "1\n", "{out}");
}

#[test]
fn the_sandbox_is_refused_where_namespaces_are_forbidden() {
    if !have_python() || !namespaces_allowed() {
        return;
    }
    // SAFETY: plain system calls.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    let output = rerun("python::isolation::sandbox_without_namespaces", |command| {
        command.env("PYTHON_EXEC_TEST_NO_NAMESPACES", "1");
        let uid_map = CString::new(format!("0 {uid} 1")).unwrap();
        let gid_map = CString::new(format!("0 {gid} 1")).unwrap();
        // SAFETY: system calls only, on data prepared before the fork.
        unsafe {
            command.pre_exec(move || {
                if libc::unshare(libc::CLONE_NEWUSER) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                write_file(c"/proc/self/setgroups", c"deny")?;
                write_file(c"/proc/self/uid_map", &uid_map)?;
                write_file(c"/proc/self/gid_map", &gid_map)?;
                // This namespace may hold no nested one.
                write_file(c"/proc/sys/user/max_user_namespaces", c"0")
            });
        }
    });
    assert!(
        output.contains("the sandbox is not available here"),
        "{output}"
    );
}

/// Writes `text` to the file `path` with system calls only (between fork
/// and exec).
fn write_file(path: &CStr, text: &CStr) -> std::io::Result<()> {
    // SAFETY: system calls on a descriptor opened here.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let bytes = text.to_bytes();
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        let result = if written == bytes.len() as isize {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        };
        libc::close(fd);
        result
    }
}
