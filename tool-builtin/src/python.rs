//! `python_exec`: Python code in a child process, with limits.
//!
//! Never in-process: the code runs in `python3 -I` (isolated mode) in a
//! fresh temporary directory, in a process group of its own, with a cleaned
//! environment and resource limits set in the child before `exec`
//! (`RLIMIT_CPU`, `RLIMIT_AS`, `RLIMIT_FSIZE`, no core files). A wall-clock
//! limit is kept by the parent, which kills the whole process group when it
//! passes, and again after every run, so background processes the code
//! started do not outlive it. The output is read until the code's process
//! exits, then for a short moment more: a process that left the group
//! cannot hold the call.
//!
//! On Linux the agent's process is made non-dumpable and the code starts
//! without capabilities, so the code cannot read the agent's environment or
//! memory through `/proc`; with the `sandbox` setting it also runs in new
//! user, PID, mount and network namespaces. See `docs/security.md` for what
//! these guards do and do not cover.

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
    /// Runs the code in new user, PID, mount and network namespaces (Linux
    /// only): no network, a private tmpfs on `/tmp` (also the working
    /// directory), a `/proc` showing only the code's processes, and every
    /// process the code started ended with the call. Where the kernel does
    /// not allow these namespaces every call is refused, saying why.
    pub sandbox: bool,
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
            sandbox: false,
        }
    }
}

/// A [`ToolContext`] extension that makes `python_exec` run its code in
/// the sandbox whatever its `sandbox` setting says: where the kernel does
/// not allow the sandbox's namespaces, the call is refused rather than run
/// without them.
///
/// A sandboxed `code_mode` (feature `code-mode`) makes its script's calls
/// with it, so that `python_exec` offered to a sandboxed script runs
/// sandboxed too. A caller may add it to any context
/// ([`ToolContext::with_extension`]); a tool of its own that runs code may
/// read it the same way.
///
/// ```
/// use tool_builtin::python::SandboxRequired;
/// use tool_runtime::ToolContext;
///
/// let ctx = ToolContext::new().with_extension(SandboxRequired);
/// assert!(ctx.extension::<SandboxRequired>().is_some());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SandboxRequired;

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
#[tool(register = false, config = PythonConfig, destructive, open_world, blocking)]
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
    if ctx.extension::<SandboxRequired>().is_some() && !config.sandbox {
        let config = PythonConfig {
            sandbox: true,
            ..PythonConfig::clone(&config)
        };
        return run(&code, &config, &|| ctx.is_cancelled(), None);
    }
    run(&code, &config, &|| ctx.is_cancelled(), None)
}

/// Runs `code` as `python_exec` does, with the descriptor `channel` of
/// this process left open in the code's process under the same number (it
/// is closed on exec everywhere else): code mode's bridge to the tools.
#[cfg(all(unix, feature = "code-mode"))]
pub(crate) fn run_with_channel(
    code: &str,
    config: &PythonConfig,
    cancelled: &dyn Fn() -> bool,
    channel: std::os::fd::RawFd,
) -> Result<PythonRun, ToolError> {
    run(code, config, cancelled, Some(channel))
}

#[cfg(unix)]
use unix::run;

#[cfg(target_os = "linux")]
mod linux;

#[cfg(not(unix))]
fn run(
    _code: &str,
    _config: &PythonConfig,
    _cancelled: &dyn Fn() -> bool,
    _channel: Option<i32>,
) -> Result<PythonRun, ToolError> {
    Err(ToolError::new(
        "python_exec is not supported on this platform (it needs Unix process groups and resource limits)",
    ))
}

#[cfg(unix)]
mod unix {
    use std::ffi::OsString;
    use std::io::Read;
    use std::os::fd::{AsRawFd, RawFd};
    use std::os::unix::process::CommandExt;
    use std::path::{Path, PathBuf};
    use std::process::{ChildStderr, ChildStdout, Command, Stdio};
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

    /// How long the output is still read once the code's process has
    /// exited and its group was killed: enough for the dying processes'
    /// pipes to close, short enough that a process which left the group
    /// and keeps a pipe open does not hold the call.
    const DRAIN: Duration = Duration::from_millis(50);

    /// How long a sandbox's supervisor may take to end the sandbox once
    /// told to, before it is killed itself.
    #[cfg(target_os = "linux")]
    const SANDBOX_STOP_GRACE: Duration = Duration::from_secs(1);

    #[cfg(target_os = "linux")]
    type Sandbox = super::linux::Sandbox;

    /// Stands for the sandbox where there is none.
    #[cfg(not(target_os = "linux"))]
    struct Sandbox;

    #[cfg(not(target_os = "linux"))]
    impl Sandbox {
        fn new(_code: &str, _config: &PythonConfig) -> Result<Self, ToolError> {
            Err(ToolError::new(
                "the sandbox is not available here: python_exec's `sandbox` setting needs Linux namespaces, and this system is not Linux",
            ))
        }
        fn install(&mut self, _command: &mut Command) {}
        fn spawned(&mut self) {}
        fn failure(&self) -> Option<String> {
            None
        }
        fn stop(&mut self) {}
    }

    pub(super) fn run(
        code: &str,
        config: &PythonConfig,
        cancelled: &dyn Fn() -> bool,
        channel: Option<RawFd>,
    ) -> Result<PythonRun, ToolError> {
        let python = find_python(config)?;
        #[cfg(target_os = "linux")]
        super::linux::make_undumpable()?;

        // The working directory is kept until the run ends: the temporary
        // directory is deleted then.
        let (mut command, _workdir, mut sandbox) = command(&python, code, config, channel)?;
        let started = Instant::now();
        let spawned = command.spawn();
        if let Some(sandbox) = &mut sandbox {
            sandbox.spawned();
        }
        let mut child =
            spawned.map_err(|error| match sandbox.as_ref().and_then(Sandbox::failure) {
                Some(failure) => ToolError::new(failure),
                None => ToolError::new(format!("could not start {}: {error}", python.display())),
            })?;
        let pid = child.id() as libc::pid_t;
        let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
            kill_group(pid);
            return Err(ToolError::internal("the output pipes are missing"));
        };
        let mut output = match Output::new(stdout, stderr, config.max_output_bytes) {
            Ok(output) => output,
            Err(error) => {
                kill_group(pid);
                return Err(ToolError::internal(format!(
                    "cannot read the output: {error}"
                )));
            }
        };

        let deadline = started + Duration::from_millis(config.timeout_ms);
        let (reaped, stopped_by) = watch(pid, deadline, cancelled, &mut sandbox, &mut output)?;
        // On Linux the group leader is not reaped yet, so its process group
        // id cannot have been reused: kill everything still in the group
        // (after a timeout, or background processes after a normal exit).
        // A sandbox's processes are gone already: its init process has
        // exited, and the supervisor after it.
        if let Some(sandbox) = &mut sandbox {
            sandbox.stop();
        }
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

        // What the code wrote is in the pipes; the pipes end once every
        // process holding them is gone, or the drain's time is up.
        output.drain(DRAIN);
        let [(stdout, stdout_truncated), (stderr, stderr_truncated)] = output.finish();

        let exit_code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
        let signal = libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status));
        let limit = match stopped_by {
            Some(reason) => Some(reason),
            None => match signal {
                Some(libc::SIGXCPU) => Some("cpu"),
                Some(libc::SIGKILL) if cpu_used + 0.05 >= config.cpu_seconds as f64 => Some("cpu"),
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

    /// The command that runs `code` with `python`: in the sandbox when the
    /// configuration asks for one (returned, to be told of the spawn),
    /// else in a temporary working directory (returned, to be kept until
    /// the run ends); with a clean environment, piped output, a process
    /// group of its own and the resource limits; `channel` is left open
    /// across the exec.
    fn command(
        python: &Path,
        code: &str,
        config: &PythonConfig,
        channel: Option<RawFd>,
    ) -> Result<(Command, Option<tempfile::TempDir>, Option<Sandbox>), ToolError> {
        let mut command = Command::new(python);
        command.arg("-I").arg("snippet.py").env_clear().env(
            "PATH",
            std::env::var_os("PATH").unwrap_or_else(|| OsString::from("/usr/bin:/bin")),
        );
        let mut workdir = None;
        let mut sandbox = None;
        if config.sandbox {
            let mut prepared = Sandbox::new(code, config)?;
            // The sandbox's hook comes first: the later ones run in the
            // sandbox's init process.
            prepared.install(&mut command);
            command.env("HOME", "/tmp").env("TMPDIR", "/tmp");
            sandbox = Some(prepared);
        } else {
            let dir = tempfile::Builder::new()
                .prefix("python-exec-")
                .tempdir()
                .map_err(|error| ToolError::internal(format!("no temporary directory: {error}")))?;
            std::fs::write(dir.path().join("snippet.py"), code)
                .map_err(|error| ToolError::internal(format!("cannot write the code: {error}")))?;
            command
                .current_dir(dir.path())
                .env("HOME", dir.path())
                .env("TMPDIR", dir.path());
            workdir = Some(dir);
        }
        command
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
        // (setrlimit, prctl, capset, fcntl) are made, and nothing is
        // allocated.
        unsafe {
            command.pre_exec(move || {
                apply_limits(cpu, memory, file_size)?;
                if let Some(fd) = channel
                    && libc::fcntl(fd, libc::F_SETFD, 0) != 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                #[cfg(target_os = "linux")]
                super::linux::drop_privileges()?;
                Ok(())
            });
        }
        Ok((command, workdir, sandbox))
    }

    /// What ended the run, and its exit status and CPU time when it was
    /// reaped already.
    type Ended = (Option<(libc::c_int, f64)>, Option<&'static str>);

    /// Reads the output until the process `pid` has exited: stopping it
    /// (through the sandbox when there is one) at the `deadline` or when
    /// `cancelled`, and killing a sandbox that does not stop in time.
    /// Returns the exit status and CPU time when the process was reaped,
    /// and why it was stopped, if it was.
    fn watch(
        pid: libc::pid_t,
        deadline: Instant,
        cancelled: &dyn Fn() -> bool,
        sandbox: &mut Option<Sandbox>,
        output: &mut Output,
    ) -> Result<Ended, ToolError> {
        let mut pause = Duration::from_millis(1);
        let mut reaped = None;
        let mut stopped_by = None;
        // When a sandbox told to stop has not: its supervisor is killed.
        let mut overdue = None;
        loop {
            match check(pid) {
                Ok(State::Running) => {}
                Ok(State::Exited) => break,
                Ok(State::Reaped(status, cpu_used)) => {
                    reaped = Some((status, cpu_used));
                    break;
                }
                Err(error) => {
                    kill_group(pid);
                    return Err(ToolError::internal(format!(
                        "waiting for python failed: {error}"
                    )));
                }
            }
            let now = Instant::now();
            if stopped_by.is_none() {
                if cancelled() {
                    stopped_by = Some("cancelled");
                } else if now >= deadline {
                    stopped_by = Some("timeout");
                }
                if stopped_by.is_some() {
                    match sandbox {
                        Some(sandbox) => {
                            sandbox.stop();
                            overdue = Some(now + sandbox_stop_grace());
                        }
                        None => kill_group(pid),
                    }
                    pause = Duration::from_millis(1);
                }
            } else if overdue.is_some_and(|overdue| now >= overdue) {
                kill_group(pid);
                overdue = None;
            }
            let timeout = if stopped_by.is_none() {
                pause.min(deadline.saturating_duration_since(now))
            } else {
                pause
            };
            output.read_for(timeout);
            pause = (pause * 2).min(Duration::from_millis(20));
        }
        Ok((reaped, stopped_by))
    }

    #[cfg(target_os = "linux")]
    fn sandbox_stop_grace() -> Duration {
        SANDBOX_STOP_GRACE
    }

    #[cfg(not(target_os = "linux"))]
    fn sandbox_stop_grace() -> Duration {
        Duration::ZERO
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
    enum State {
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
    fn check(pid: libc::pid_t) -> std::io::Result<State> {
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
                return Ok(if exited {
                    State::Exited
                } else {
                    State::Running
                });
            }
            let error = std::io::Error::last_os_error();
            if error.kind() != std::io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
    }

    /// Whether the process has exited (reaping it if so).
    #[cfg(not(target_os = "linux"))]
    fn check(pid: libc::pid_t) -> std::io::Result<State> {
        Ok(match wait(pid, libc::WNOHANG)? {
            Some((status, cpu)) => State::Reaped(status, cpu),
            None => State::Running,
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

    /// One output pipe: the bytes kept, and whether more were dropped.
    struct Stream<P> {
        /// `None` once the pipe reached its end.
        pipe: Option<P>,
        kept: Vec<u8>,
        truncated: bool,
    }

    impl<P: Read + AsRawFd> Stream<P> {
        fn new(pipe: P) -> std::io::Result<Self> {
            // SAFETY: fcntl on a descriptor owned by `pipe`.
            unsafe {
                let fd = pipe.as_raw_fd();
                let flags = libc::fcntl(fd, libc::F_GETFL);
                if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(Self {
                pipe: Some(pipe),
                kept: Vec::new(),
                truncated: false,
            })
        }

        /// Reads what the pipe holds now (a bounded amount), keeping up to
        /// `cap` bytes in all and dropping the rest.
        fn read_available(&mut self, cap: usize, buffer: &mut [u8]) {
            for _ in 0..16 {
                let Some(pipe) = &mut self.pipe else { return };
                match pipe.read(buffer) {
                    Ok(0) => self.pipe = None,
                    Ok(n) => {
                        let room = cap.saturating_sub(self.kept.len());
                        self.kept.extend_from_slice(&buffer[..n.min(room)]);
                        if n > room {
                            self.truncated = true;
                        }
                    }
                    Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => return,
                    Err(_) => self.pipe = None,
                }
            }
        }
    }

    /// The code's standard output and error, read without threads: the
    /// pipes are polled while the code runs, and closed when the run ends,
    /// whoever still holds their other ends.
    struct Output {
        stdout: Stream<ChildStdout>,
        stderr: Stream<ChildStderr>,
        cap: usize,
        buffer: Box<[u8]>,
    }

    impl Output {
        fn new(stdout: ChildStdout, stderr: ChildStderr, cap: u64) -> std::io::Result<Self> {
            Ok(Self {
                stdout: Stream::new(stdout)?,
                stderr: Stream::new(stderr)?,
                cap: usize::try_from(cap).unwrap_or(usize::MAX),
                buffer: vec![0; 64 * 1024].into_boxed_slice(),
            })
        }

        fn is_open(&self) -> bool {
            self.stdout.pipe.is_some() || self.stderr.pipe.is_some()
        }

        /// Waits up to `timeout` for output, and reads what there is.
        fn read_for(&mut self, timeout: Duration) {
            let mut fds = Vec::with_capacity(2);
            for fd in [
                self.stdout.pipe.as_ref().map(AsRawFd::as_raw_fd),
                self.stderr.pipe.as_ref().map(AsRawFd::as_raw_fd),
            ]
            .into_iter()
            .flatten()
            {
                fds.push(libc::pollfd {
                    fd,
                    events: libc::POLLIN,
                    revents: 0,
                });
            }
            if fds.is_empty() {
                std::thread::sleep(timeout);
                return;
            }
            // Rounded up, so that a wait is never a busy loop.
            let millis = timeout.as_micros().div_ceil(1000);
            let millis = libc::c_int::try_from(millis).unwrap_or(libc::c_int::MAX);
            // SAFETY: poll reads and writes the array passed with its length.
            let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, millis) };
            if ready > 0 {
                self.stdout.read_available(self.cap, &mut self.buffer);
                self.stderr.read_available(self.cap, &mut self.buffer);
            }
        }

        /// Reads until both pipes end or `limit` has passed.
        fn drain(&mut self, limit: Duration) {
            let end = Instant::now() + limit;
            self.stdout.read_available(self.cap, &mut self.buffer);
            self.stderr.read_available(self.cap, &mut self.buffer);
            while self.is_open() {
                let left = end.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                self.read_for(left);
            }
        }

        /// The text of each stream and whether it was cut at the limit; the
        /// pipes are closed.
        fn finish(self) -> [(String, bool); 2] {
            let text = |kept: Vec<u8>| String::from_utf8_lossy(&kept).into_owned();
            [
                (text(self.stdout.kept), self.stdout.truncated),
                (text(self.stderr.kept), self.stderr.truncated),
            ]
        }
    }
}
