//! `python_exec`: Python code in a child process, with limits.
//!
//! Never in-process: the code runs in `python3 -I` (isolated mode) in a
//! fresh temporary directory, in a process group of its own, with a cleaned
//! environment and resource limits set in the child before `exec`
//! (`RLIMIT_CPU`, `RLIMIT_AS`, `RLIMIT_FSIZE`, no core files). A wall-clock
//! limit is kept by the parent, which kills the whole process group when it
//! passes, and again after every run, so background processes the code
//! started do not outlive it. See `docs/security.md` for what these limits
//! do not cover.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tool_runtime::config::Config;
use tool_runtime::{ToolContext, ToolError, tool};

/// How the `python_exec` tool is set up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PythonConfig {
    /// The interpreter: a path, or a command name looked up on PATH. When
    /// absent, "python3" and then "python" are looked up.
    pub python: Option<String>,
    /// The wall-clock limit of one run, in milliseconds; the process group
    /// is killed when it passes.
    #[schemars(range(min = 1))]
    pub timeout_ms: u64,
    /// The CPU-time limit of each process, in seconds (`RLIMIT_CPU`).
    #[schemars(range(min = 1))]
    pub cpu_seconds: u64,
    /// The address-space limit of each process, in MiB (`RLIMIT_AS`).
    #[schemars(range(min = 16))]
    pub memory_mb: u64,
    /// The largest file the code may write, in MiB (`RLIMIT_FSIZE`).
    pub max_file_mb: u64,
    /// The most bytes kept of standard output, and of standard error; the
    /// rest is read and dropped.
    #[schemars(range(min = 1))]
    pub max_output_bytes: u64,
    /// The longest code accepted, in bytes.
    #[schemars(range(min = 1))]
    pub max_code_bytes: u64,
    /// Environment variables for the code, besides PATH, HOME, TMPDIR and
    /// LANG (the rest of the process's environment is not passed on).
    pub env: BTreeMap<String, String>,
}

impl Default for PythonConfig {
    fn default() -> Self {
        Self {
            python: None,
            timeout_ms: 10_000,
            cpu_seconds: 10,
            memory_mb: 512,
            max_file_mb: 16,
            max_output_bytes: 64 * 1024,
            max_code_bytes: 100_000,
            env: BTreeMap::new(),
        }
    }
}

/// What `python_exec` returns.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct PythonRun {
    /// What the code printed to standard output (up to the limit).
    pub stdout: String,
    /// What it printed to standard error (up to the limit), tracebacks
    /// included.
    pub stderr: String,
    /// The exit code, when the process exited by itself.
    pub exit_code: Option<i32>,
    /// The signal that ended the process, if one did.
    pub signal: Option<i32>,
    /// Whether a signal ended the process: the tool's kill at the time
    /// limit, a resource limit, or the code itself.
    pub killed: bool,
    /// The limit that stopped the code, when known: "timeout", "cpu",
    /// "memory", "file_size" or "cancelled".
    pub limit: Option<String>,
    /// Whether standard output was cut at the limit.
    pub stdout_truncated: bool,
    /// Whether standard error was cut at the limit.
    pub stderr_truncated: bool,
    /// How long the run took, in milliseconds.
    pub duration_ms: u64,
}

/// Run Python 3 code in a separate, limited process and return its output.
///
/// Each call starts a fresh interpreter in an empty temporary directory:
/// nothing is kept between calls. Print what you want to see. The run is
/// stopped at its time, CPU and memory limits, and everything it started is
/// stopped with it. Only the standard library is certain to be available.
#[tool(config = PythonConfig, destructive, open_world, blocking)]
pub fn python_exec(
    /// The Python code, e.g. "import math\nprint(math.factorial(20))"
    #[tool(length(min = 1, max = 1000000))]
    code: String,
    config: Config<PythonConfig>,
    ctx: &ToolContext,
) -> Result<PythonRun, ToolError> {
    if code.len() as u64 > config.max_code_bytes {
        return Err(ToolError::new(format!(
            "the code is {} bytes, more than the limit of {} bytes",
            code.len(),
            config.max_code_bytes
        )));
    }
    if code.contains('\0') {
        return Err(ToolError::new("the code contains a NUL byte"));
    }
    run(&code, &config, &|| ctx.is_cancelled())
}

#[cfg(unix)]
use unix::run;

#[cfg(not(unix))]
fn run(
    _code: &str,
    _config: &PythonConfig,
    _cancelled: &dyn Fn() -> bool,
) -> Result<PythonRun, ToolError> {
    Err(ToolError::new(
        "python_exec is not supported on this platform (it needs Unix process groups and resource limits)",
    ))
}

#[cfg(unix)]
mod unix {
    use std::ffi::OsString;
    use std::io::Read;
    use std::os::unix::process::CommandExt;
    use std::path::{Path, PathBuf};
    use std::process::{Command, Stdio};
    use std::sync::mpsc;
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    use tool_runtime::ToolError;

    use super::{PythonConfig, PythonRun};

    /// Sets a resource limit in the child, between fork and exec (a macro
    /// because the resource's type differs between Unix systems).
    macro_rules! set_limit {
        ($resource:expr, $soft:expr, $hard:expr) => {{
            let limit = libc::rlimit {
                rlim_cur: $soft as libc::rlim_t,
                rlim_max: $hard as libc::rlim_t,
            };
            // SAFETY: setrlimit reads the struct passed by reference.
            if unsafe { libc::setrlimit($resource, &limit) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }};
    }

    /// Sets the child's resource limits (runs between fork and exec).
    fn apply_limits(cpu: u64, memory: u64, file_size: u64) -> std::io::Result<()> {
        set_limit!(libc::RLIMIT_CPU, cpu, cpu.saturating_add(1));
        set_limit!(libc::RLIMIT_AS, memory, memory);
        set_limit!(libc::RLIMIT_FSIZE, file_size, file_size);
        set_limit!(libc::RLIMIT_CORE, 0, 0);
        Ok(())
    }

    /// How long output readers may take to finish after the process group
    /// was killed (a process that left the group may keep a pipe open).
    const DRAIN_GRACE: Duration = Duration::from_secs(1);

    pub(super) fn run(
        code: &str,
        config: &PythonConfig,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<PythonRun, ToolError> {
        let python = find_python(config)?;
        let workdir = tempfile::Builder::new()
            .prefix("python-exec-")
            .tempdir()
            .map_err(|error| ToolError::internal(format!("no temporary directory: {error}")))?;
        let script = workdir.path().join("snippet.py");
        std::fs::write(&script, code)
            .map_err(|error| ToolError::internal(format!("cannot write the code: {error}")))?;

        let mut command = Command::new(&python);
        command
            .arg("-I")
            .arg("snippet.py")
            .current_dir(workdir.path())
            .env_clear()
            .env(
                "PATH",
                std::env::var_os("PATH").unwrap_or_else(|| OsString::from("/usr/bin:/bin")),
            )
            .env("HOME", workdir.path())
            .env("TMPDIR", workdir.path())
            .env("LANG", "C.UTF-8")
            .envs(&config.env)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let cpu = config.cpu_seconds;
        let memory = config.memory_mb.saturating_mul(1024 * 1024);
        let file_size = config.max_file_mb.saturating_mul(1024 * 1024);
        // SAFETY: between fork and exec only async-signal-safe calls
        // (setrlimit) are made, and nothing is allocated.
        unsafe {
            command.pre_exec(move || apply_limits(cpu, memory, file_size));
        }
        let started = Instant::now();
        let mut child = command.spawn().map_err(|error| {
            ToolError::new(format!("could not start {}: {error}", python.display()))
        })?;
        let pid = child.id() as libc::pid_t;
        let cap = config.max_output_bytes;
        let (sender, receiver) = mpsc::channel();
        let stdout = child
            .stdout
            .take()
            .map(|pipe| capture(pipe, cap, 0, sender.clone()));
        let stderr = child
            .stderr
            .take()
            .map(|pipe| capture(pipe, cap, 1, sender));

        let deadline = started + Duration::from_millis(config.timeout_ms);
        let mut pause = Duration::from_millis(1);
        let mut reaped = None;
        let stopped_by = loop {
            match poll(pid) {
                Ok(Poll::Running) => {}
                Ok(Poll::Exited) => break None,
                Ok(Poll::Reaped(status, cpu_used)) => {
                    reaped = Some((status, cpu_used));
                    break None;
                }
                Err(error) => {
                    kill_group(pid);
                    return Err(ToolError::internal(format!(
                        "waiting for python failed: {error}"
                    )));
                }
            }
            if cancelled() {
                break Some("cancelled");
            }
            let now = Instant::now();
            if now >= deadline {
                break Some("timeout");
            }
            std::thread::sleep(pause.min(deadline - now));
            pause = (pause * 2).min(Duration::from_millis(20));
        };
        // On Linux the group leader is not reaped yet, so its process group
        // id cannot have been reused: kill everything still in the group
        // (after a timeout, or background processes after a normal exit).
        kill_group(pid);
        let (status, cpu_used) = match reaped {
            Some(reaped) => reaped,
            None => wait(pid, 0)
                .and_then(|status| {
                    status.ok_or_else(|| std::io::Error::other("the process was not reaped"))
                })
                .map_err(|error| {
                    ToolError::internal(format!("waiting for python failed: {error}"))
                })?,
        };
        drop(child);
        let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);

        // The pipes close once every process holding them is gone.
        let drain_deadline = Instant::now() + DRAIN_GRACE;
        let mut finished = [false, false];
        while !finished.iter().all(|f| *f) {
            let left = drain_deadline.saturating_duration_since(Instant::now());
            match receiver.recv_timeout(left) {
                Ok(index) => finished[index] = true,
                Err(_) => break,
            }
        }
        let (stdout, stdout_truncated) = take(stdout, finished[0]);
        let (stderr, stderr_truncated) = take(stderr, finished[1]);

        let exit_code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
        let signal = libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status));
        let limit = match stopped_by {
            Some(reason) => Some(reason),
            None => match signal {
                Some(libc::SIGXCPU) => Some("cpu"),
                Some(libc::SIGKILL) if cpu_used + 0.05 >= cpu as f64 => Some("cpu"),
                Some(libc::SIGXFSZ) => Some("file_size"),
                _ if exit_code.is_some_and(|code| code != 0) && stderr.contains("MemoryError") => {
                    Some("memory")
                }
                _ => None,
            },
        };
        Ok(PythonRun {
            stdout,
            stderr,
            exit_code,
            signal,
            killed: signal.is_some(),
            limit: limit.map(str::to_owned),
            stdout_truncated,
            stderr_truncated,
            duration_ms,
        })
    }

    /// The interpreter to run: the configured one, or `python3` / `python`
    /// on PATH.
    fn find_python(config: &PythonConfig) -> Result<PathBuf, ToolError> {
        let candidates: Vec<&str> = match &config.python {
            Some(python) => vec![python.as_str()],
            None => vec!["python3", "python"],
        };
        for candidate in &candidates {
            if candidate.contains('/') {
                if is_executable(Path::new(candidate)) {
                    return Ok(PathBuf::from(candidate));
                }
                continue;
            }
            if let Some(paths) = std::env::var_os("PATH") {
                for dir in std::env::split_paths(&paths) {
                    let path = dir.join(candidate);
                    if is_executable(&path) {
                        return Ok(path);
                    }
                }
            }
        }
        Err(ToolError::new(format!(
            "no Python interpreter found (looked for {} {}); python_exec needs Python 3 installed, or its `python` setting (TOOL_PYTHON_EXEC_PYTHON) pointing at one",
            candidates.join(" and "),
            if config.python.as_deref().is_some_and(|p| p.contains('/')) {
                "at that path"
            } else {
                "on PATH"
            }
        )))
    }

    fn is_executable(path: &Path) -> bool {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path)
            .is_ok_and(|metadata| metadata.is_file() && metadata.permissions().mode() & 0o111 != 0)
    }

    /// How a running child was found.
    enum Poll {
        Running,
        /// It exited and is not reaped yet: its process group id cannot be
        /// reused until it is.
        Exited,
        /// It exited and was reaped already (where `waitid` with `WNOWAIT`
        /// is not available): its wait status and CPU seconds.
        #[cfg_attr(target_os = "linux", allow(dead_code))]
        Reaped(libc::c_int, f64),
    }

    /// Whether the process has exited, without reaping it.
    #[cfg(target_os = "linux")]
    fn poll(pid: libc::pid_t) -> std::io::Result<Poll> {
        loop {
            // SAFETY: an all-zero siginfo_t is valid; waitid fills it in.
            let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
            // SAFETY: plain system call on our own child.
            let result = unsafe {
                libc::waitid(
                    libc::P_PID,
                    pid as libc::id_t,
                    &mut info,
                    libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
                )
            };
            if result == 0 {
                // SAFETY: waitid succeeded, so si_pid is initialised (0 when
                // the child has not exited).
                let exited = unsafe { info.si_pid() } != 0;
                return Ok(if exited { Poll::Exited } else { Poll::Running });
            }
            let error = std::io::Error::last_os_error();
            if error.kind() != std::io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
    }

    /// Whether the process has exited (reaping it if so).
    #[cfg(not(target_os = "linux"))]
    fn poll(pid: libc::pid_t) -> std::io::Result<Poll> {
        Ok(match wait(pid, libc::WNOHANG)? {
            Some((status, cpu)) => Poll::Reaped(status, cpu),
            None => Poll::Running,
        })
    }

    /// Reaps the process (`None` with `WNOHANG` when it is still running):
    /// its wait status and the CPU seconds it used.
    fn wait(pid: libc::pid_t, options: libc::c_int) -> std::io::Result<Option<(libc::c_int, f64)>> {
        loop {
            let mut status = 0;
            // SAFETY: an all-zero rusage is valid; wait4 fills it in.
            let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
            // SAFETY: plain system call on our own child.
            let result = unsafe { libc::wait4(pid, &mut status, options, &mut usage) };
            if result == pid {
                let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
                return Ok(Some((
                    status,
                    seconds(usage.ru_utime) + seconds(usage.ru_stime),
                )));
            }
            if result == 0 {
                return Ok(None);
            }
            let error = std::io::Error::last_os_error();
            if error.kind() != std::io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
    }

    /// Sends SIGKILL to every process in the group `pgid` (no error when
    /// none is left).
    fn kill_group(pgid: libc::pid_t) {
        // SAFETY: plain system call; the group is the child's own.
        unsafe {
            libc::killpg(pgid, libc::SIGKILL);
        }
    }

    /// Captured output: the bytes kept, and whether more were dropped.
    type Capture = Arc<Mutex<(Vec<u8>, bool)>>;

    /// Reads `pipe` to its end on a thread, keeping the first `cap` bytes
    /// and dropping the rest (reading on, so the writer never blocks), then
    /// sends `index` on `done`.
    fn capture(
        mut pipe: impl Read + Send + 'static,
        cap: u64,
        index: usize,
        done: mpsc::Sender<usize>,
    ) -> Capture {
        let captured: Capture = Arc::new(Mutex::new((Vec::new(), false)));
        let shared = Arc::clone(&captured);
        std::thread::spawn(move || {
            let mut buffer = [0u8; 8192];
            loop {
                match pipe.read(&mut buffer) {
                    Ok(0) => break,
                    Ok(n) => {
                        let Ok(mut guard) = shared.lock() else { break };
                        let (kept, truncated) = &mut *guard;
                        let room = usize::try_from(cap)
                            .unwrap_or(usize::MAX)
                            .saturating_sub(kept.len());
                        kept.extend_from_slice(&buffer[..n.min(room)]);
                        if n > room {
                            *truncated = true;
                        }
                    }
                    Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            let _ = done.send(index);
        });
        captured
    }

    /// The text captured so far; output not read to its end counts as
    /// truncated.
    fn take(capture: Option<Capture>, finished: bool) -> (String, bool) {
        let Some(capture) = capture else {
            return (String::new(), false);
        };
        let guard = capture
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let (bytes, truncated) = &*guard;
        (
            String::from_utf8_lossy(bytes).into_owned(),
            *truncated || !finished,
        )
    }
}
