//! The Linux-only guards of `python_exec`.
//!
//! - [`make_undumpable`] keeps the code out of this process's memory and
//!   environment: a non-dumpable process's `/proc/<pid>/environ`, `mem`,
//!   `maps` and so on can be opened, and the process traced, only by a
//!   process with `CAP_SYS_PTRACE`.
//! - [`drop_privileges`] makes sure the code has no such capability, even
//!   when the agent runs as root, and cannot gain one through a set-user-ID
//!   program.
//! - [`Sandbox`] runs the code in new user, PID, mount and network
//!   namespaces.
//!
//! # The sandbox's processes
//!
//! `Command::spawn` forks a process, the *supervisor*, which runs the hook
//! that [`Sandbox::install`] registers: it enters new user, mount and
//! network namespaces and maps only the agent's own user and group, as root
//! of the user namespace. Root may write its own maps; another account may
//! not, because the `/proc` files of a non-dumpable process belong to root,
//! so a helper process of the namespace execs `/bin/sh` (which makes it
//! dumpable, with a memory of its own) and the maps are written through
//! its files, after which it is killed. Then the supervisor enters a new
//! PID namespace for its children, forks the *init* process, pid 1 of that
//! namespace, and never returns to `Command`'s code: it closes every file
//! descriptor but a control pipe and a signalfd, waits for the init process
//! and exits as it did. The init process mounts a tmpfs on `/tmp` (and
//! `/dev/shm`) and a `/proc` of its own, writes the code into `/tmp`, sets
//! the limits, drops every capability and returns to `Command`, which execs
//! Python in it. So Python is pid 1: when it ends, the kernel kills every
//! other process of the namespace before its parent learns that it did.
//!
//! When the agent closes the control pipe (the call's time is up, it was
//! cancelled, or the agent process died), the supervisor kills the init
//! process, and with it the namespace. The supervisor is a copy of the
//! agent's memory, but it is outside the sandbox's PID namespace, so the
//! code cannot name it, and non-dumpable like the agent.
//!
//! Everything between `fork` and `exec` uses system calls only: no
//! allocation, no lock, no `fork()` from the C library (whose handlers may
//! wait for locks held by threads that do not exist in the child).

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::Command;

use tool_runtime::ToolError;

use super::PythonConfig;

/// Makes this process non-dumpable (`PR_SET_DUMPABLE` 0), for the rest of
/// its life: processes started by the code may outlive the call, so the
/// setting is never turned back.
pub(super) fn make_undumpable() -> Result<(), ToolError> {
    // SAFETY: plain system call on this process.
    if unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) } != 0 {
        return Err(ToolError::internal(format!(
            "cannot make the process non-dumpable, which keeps its environment from the code: {}",
            io::Error::last_os_error()
        )));
    }
    Ok(())
}

/// `struct __user_cap_header_struct` of `capset(2)`.
#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

/// `struct __user_cap_data_struct` of `capset(2)`.
#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// `_LINUX_CAPABILITY_VERSION_3`: 64-bit capability sets.
const CAPABILITY_VERSION_3: u32 = 0x2008_0522;

/// Leaves the calling process without capabilities, now or after `exec`
/// (runs between fork and exec): the ambient and inheritable sets are
/// cleared, the bounding set too where the process may (root may), then
/// the effective and permitted sets; and `no_new_privs` is set, so neither
/// a set-user-ID program nor file capabilities give any back.
pub(super) fn drop_privileges() -> io::Result<()> {
    // SAFETY: prctl and capset read only their integer arguments and the
    // structs passed by pointer, which live on this stack.
    unsafe {
        // EINVAL: a kernel without ambient capabilities (before 4.3).
        if libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        ) != 0
            && errno() != libc::EINVAL
        {
            return Err(io::Error::last_os_error());
        }
        for capability in 0..64 {
            if libc::prctl(libc::PR_CAPBSET_DROP, capability, 0, 0, 0) != 0 {
                match errno() {
                    // Past the last capability this kernel knows.
                    libc::EINVAL => break,
                    // Without CAP_SETPCAP (not root): there is nothing to
                    // drop, and no_new_privs keeps it so.
                    libc::EPERM => break,
                    _ => return Err(io::Error::last_os_error()),
                }
            }
        }
        let header = CapHeader {
            version: CAPABILITY_VERSION_3,
            pid: 0,
        };
        let none = [CapData {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        }; 2];
        if libc::syscall(libc::SYS_capset, &header as *const CapHeader, none.as_ptr()) != 0 {
            return Err(io::Error::last_os_error());
        }
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The steps of the sandbox's setup, as reported when one fails.
#[derive(Clone, Copy)]
#[repr(u32)]
enum Step {
    Unshare = 1,
    Map,
    Start,
    MountPrivate,
    MountTmp,
    MountShm,
    MountProc,
    Code,
}

impl Step {
    fn from_code(code: u32) -> Option<Self> {
        Some(match code {
            1 => Self::Unshare,
            2 => Self::Map,
            3 => Self::Start,
            4 => Self::MountPrivate,
            5 => Self::MountTmp,
            6 => Self::MountShm,
            7 => Self::MountProc,
            8 => Self::Code,
            _ => return None,
        })
    }

    fn describe(self) -> &'static str {
        match self {
            Self::Unshare => "creating user, PID, mount and network namespaces",
            Self::Map => "mapping the account into the new user namespace",
            Self::Start => "starting the sandbox's first process",
            Self::MountPrivate => "making the sandbox's mounts private",
            Self::MountTmp => "mounting a tmpfs on /tmp",
            Self::MountShm => "mounting a tmpfs on /dev/shm",
            Self::MountProc => "mounting a /proc of the new PID namespace",
            Self::Code => "writing the code into the sandbox's /tmp",
        }
    }
}

/// What the processes between fork and exec need, made beforehand (they
/// may not allocate).
struct Setup {
    /// `/proc/self/uid_map`'s text: root of the namespace is the agent's
    /// user.
    uid_map: CString,
    /// `/proc/self/gid_map`'s text.
    gid_map: CString,
    /// The mount options of the tmpfs on `/tmp`.
    tmp_options: CString,
    /// The code, written to `/tmp/snippet.py`.
    code: Vec<u8>,
    /// The read end of the control pipe (the supervisor's).
    control: RawFd,
    /// The write end of the report pipe.
    report: RawFd,
}

/// A sandboxed run, seen from the agent.
pub(super) struct Sandbox {
    /// The write end of the control pipe: closing it ends the sandbox.
    control: Option<OwnedFd>,
    /// The read end of the report pipe: which setup step failed.
    report: OwnedFd,
    /// The ends the supervisor uses, closed here once it is started.
    child_ends: Option<(OwnedFd, OwnedFd)>,
    /// Moved into the hook by [`Sandbox::install`].
    setup: Option<Setup>,
}

impl Sandbox {
    /// Prepares a sandbox for `code` under `config`'s limits (a tmpfs of
    /// `memory_mb` on `/tmp`).
    pub(super) fn new(code: &str, config: &PythonConfig) -> Result<Self, ToolError> {
        let internal =
            |error: io::Error| ToolError::internal(format!("cannot prepare the sandbox: {error}"));
        let (control_read, control_write) = pipe().map_err(internal)?;
        let (report_read, report_write) = pipe().map_err(internal)?;
        // Read only after `spawn` returned, when what was written is there:
        // without waiting for other processes to close their copies.
        // SAFETY: fcntl on a descriptor owned here.
        unsafe {
            let fd = report_read.as_raw_fd();
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
                return Err(internal(io::Error::last_os_error()));
            }
        }
        // SAFETY: plain system calls without arguments.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        let text = |text: String| CString::new(text).expect("no NUL in numbers");
        let setup = Setup {
            uid_map: text(format!("0 {uid} 1\n")),
            gid_map: text(format!("0 {gid} 1\n")),
            tmp_options: text(format!("mode=1777,size={}m", config.memory_mb)),
            code: code.as_bytes().to_vec(),
            control: control_read.as_raw_fd(),
            report: report_write.as_raw_fd(),
        };
        Ok(Self {
            control: Some(control_write),
            report: report_read,
            child_ends: Some((control_read, report_write)),
            setup: Some(setup),
        })
    }

    /// Registers the sandbox's setup as `command`'s first `pre_exec` hook:
    /// the hooks registered after it run in the sandbox's init process,
    /// just before Python.
    pub(super) fn install(&mut self, command: &mut Command) {
        let Some(setup) = self.setup.take() else {
            return;
        };
        // SAFETY: the hook makes system calls only (see the module's
        // documentation) on data prepared before the fork.
        unsafe {
            command.pre_exec(move || supervise(&setup));
        }
    }

    /// Closes, in this process, the pipe ends the supervisor uses: call it
    /// once `spawn` returned, whether it succeeded or not.
    pub(super) fn spawned(&mut self) {
        self.child_ends = None;
    }

    /// Why the sandbox could not be set up, when a failed `spawn` was the
    /// sandbox's doing.
    pub(super) fn failure(&self) -> Option<String> {
        let mut record = [0u8; 8];
        let mut filled = 0;
        while filled < record.len() {
            // SAFETY: reads into the rest of `record`.
            let read = unsafe {
                libc::read(
                    self.report.as_raw_fd(),
                    record[filled..].as_mut_ptr().cast(),
                    record.len() - filled,
                )
            };
            match read {
                n if n > 0 => filled += n as usize,
                0 => break,
                _ if errno() == libc::EINTR => {}
                _ => break,
            }
        }
        if filled < record.len() {
            return None;
        }
        let step = Step::from_code(u32::from_ne_bytes(record[..4].try_into().ok()?))?;
        let code = i32::from_ne_bytes(record[4..].try_into().ok()?);
        let error = io::Error::from_raw_os_error(code);
        let hint = match (step, code) {
            (
                Step::Unshare,
                libc::EPERM | libc::ENOSPC | libc::EINVAL | libc::ENOSYS | libc::EUSERS,
            ) => {
                " (this kernel, its configuration or a seccomp filter such as a container's does not let this process create them: see `user.max_user_namespaces`, and `kernel.unprivileged_userns_clone` or `kernel.apparmor_restrict_unprivileged_userns` where they exist)"
            }
            _ => "",
        };
        Some(format!(
            "the sandbox is not available here: {} failed: {error}{hint}; python_exec's `sandbox` setting needs Linux user, PID, mount and network namespaces",
            step.describe()
        ))
    }

    /// Ends the sandbox: the supervisor kills its init process, and the
    /// kernel every other process in it.
    pub(super) fn stop(&mut self) {
        self.control = None;
    }
}

/// A pipe whose both ends are closed on exec.
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills in the two descriptors, which are then owned.
    unsafe {
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok((OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])))
    }
}

fn errno() -> libc::c_int {
    io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// Reports that `step` failed with `error` on the report pipe, and returns
/// the error (between fork and exec).
fn fail(setup: &Setup, step: Step, error: io::Error) -> io::Error {
    let mut record = [0u8; 8];
    record[..4].copy_from_slice(&(step as u32).to_ne_bytes());
    record[4..].copy_from_slice(&error.raw_os_error().unwrap_or(0).to_ne_bytes());
    // SAFETY: writes the record from this stack; a pipe write this small is
    // atomic. A failed report leaves the plain error.
    unsafe {
        libc::write(setup.report, record.as_ptr().cast(), record.len());
    }
    error
}

/// Writes `data` to the existing file `path` (between fork and exec).
fn write_file(path: &CStr, data: &[u8]) -> io::Result<()> {
    // SAFETY: plain system calls on a descriptor opened here.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let result = write_all(fd, data);
        libc::close(fd);
        result
    }
}

fn write_all(fd: RawFd, mut data: &[u8]) -> io::Result<()> {
    while !data.is_empty() {
        // SAFETY: writes from the slice.
        let written = unsafe { libc::write(fd, data.as_ptr().cast(), data.len()) };
        if written < 0 {
            if errno() == libc::EINTR {
                continue;
            }
            return Err(io::Error::last_os_error());
        }
        data = &data[written as usize..];
    }
    Ok(())
}

/// `struct clone_args` of `clone3(2)`, its first version.
#[repr(C)]
#[derive(Default)]
struct CloneArgs {
    flags: u64,
    pidfd: u64,
    child_tid: u64,
    parent_tid: u64,
    exit_signal: u64,
    stack: u64,
    stack_size: u64,
    tls: u64,
}

/// `fork` as a bare system call: 0 in the child, its pid in the parent, -1
/// on failure.
fn fork() -> libc::pid_t {
    let args = CloneArgs {
        exit_signal: libc::SIGCHLD as u64,
        ..CloneArgs::default()
    };
    // SAFETY: clone3 without CLONE_VM and without a stack, like fork: the
    // child continues on a copy of this stack.
    let pid = unsafe {
        libc::syscall(
            libc::SYS_clone3,
            &args as *const CloneArgs,
            std::mem::size_of::<CloneArgs>(),
        )
    };
    if pid >= 0 || errno() != libc::ENOSYS {
        return pid as libc::pid_t;
    }
    // Before Linux 5.3: clone with fork's arguments, of which only the
    // flags are not zero (they come second on s390x).
    // SAFETY: as above.
    let pid = unsafe {
        #[cfg(target_arch = "s390x")]
        {
            libc::syscall(libc::SYS_clone, 0, libc::SIGCHLD, 0, 0, 0)
        }
        #[cfg(not(target_arch = "s390x"))]
        {
            libc::syscall(libc::SYS_clone, libc::SIGCHLD, 0, 0, 0, 0)
        }
    };
    pid as libc::pid_t
}

/// Closes every descriptor from `first` to `last` (between fork and exec).
fn close_range(first: RawFd, last: RawFd) {
    if first > last {
        return;
    }
    // SAFETY: closing descriptors this process does not use any more.
    unsafe {
        if libc::syscall(libc::SYS_close_range, first as u32, last as u32, 0) == 0 {
            return;
        }
        // Before Linux 5.9: one by one, up to the descriptor limit.
        let mut limit: libc::rlimit = std::mem::zeroed();
        let end = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
            limit.rlim_cur.min(1 << 20) as RawFd
        } else {
            1 << 16
        };
        for fd in first..last.min(end.saturating_sub(1)).saturating_add(1) {
            libc::close(fd);
        }
    }
}

/// `/proc/<pid>/<file>` (or `/proc/self/<file>`) as a C string in
/// `buffer`, without allocating.
fn proc_path<'a>(buffer: &'a mut [u8; 64], pid: Option<libc::pid_t>, file: &[u8]) -> &'a CStr {
    let mut length = 0;
    let mut push = |bytes: &[u8]| {
        for &byte in bytes {
            if length < buffer.len() - 1 {
                buffer[length] = byte;
                length += 1;
            }
        }
    };
    push(b"/proc/");
    match pid {
        None => push(b"self"),
        Some(pid) => {
            let mut digits = [0u8; 12];
            let mut start = digits.len();
            let mut rest = pid.unsigned_abs();
            loop {
                start -= 1;
                digits[start] = b'0' + (rest % 10) as u8;
                rest /= 10;
                if rest == 0 {
                    break;
                }
            }
            push(&digits[start..]);
        }
    }
    push(b"/");
    push(file);
    buffer[length] = 0;
    CStr::from_bytes_until_nul(&buffer[..=length]).unwrap_or(c"/")
}

/// Writes the user namespace's maps through the `/proc` files of `pid`
/// (this process when `None`), which must be in that namespace.
fn map(setup: &Setup, pid: Option<libc::pid_t>) -> io::Result<()> {
    let mut buffer = [0u8; 64];
    // setgroups is absent before Linux 3.19, where gid_map needs no such
    // step.
    if let Err(error) = write_file(proc_path(&mut buffer, pid, b"setgroups"), b"deny")
        && error.raw_os_error() != Some(libc::ENOENT)
    {
        return Err(error);
    }
    write_file(
        proc_path(&mut buffer, pid, b"uid_map"),
        setup.uid_map.as_bytes(),
    )?;
    write_file(
        proc_path(&mut buffer, pid, b"gid_map"),
        setup.gid_map.as_bytes(),
    )
}

/// Writes the maps through a helper process of the new user namespace
/// that runs `/bin/sh`, reading commands from a pipe to which nothing is
/// written: exec'd, it is dumpable and its `/proc` files are the
/// account's. It is ended once the maps are written.
fn map_through_helper(setup: &Setup) -> io::Result<()> {
    // SAFETY: system calls only, on this process's own descriptors and
    // child.
    unsafe {
        let mut exec = [0; 2];
        let mut input = [0; 2];
        if libc::pipe2(exec.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return Err(io::Error::last_os_error());
        }
        if libc::pipe2(input.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            let error = io::Error::last_os_error();
            libc::close(exec[0]);
            libc::close(exec[1]);
            return Err(error);
        }
        let helper = fork();
        if helper == 0 {
            // Standard input is the pipe; no output reaches the agent.
            libc::dup2(input[0], 0);
            libc::close(1);
            libc::close(2);
            let argv = [c"sh".as_ptr(), std::ptr::null()];
            let envp = [std::ptr::null()];
            libc::execve(c"/bin/sh".as_ptr(), argv.as_ptr(), envp.as_ptr());
            let code = errno().to_ne_bytes();
            libc::write(exec[1], code.as_ptr().cast(), code.len());
            libc::_exit(127);
        }
        let spawn_error = io::Error::last_os_error();
        libc::close(exec[1]);
        libc::close(input[0]);
        let result = if helper < 0 {
            Err(spawn_error)
        } else {
            // The exec pipe closes when the exec succeeded, or carries its
            // error.
            let mut code = [0u8; 4];
            let read = loop {
                let read = libc::read(exec[0], code.as_mut_ptr().cast(), code.len());
                if read >= 0 || errno() != libc::EINTR {
                    break read;
                }
            };
            if read == 0 {
                map(setup, Some(helper))
            } else if read == 4 {
                Err(io::Error::from_raw_os_error(i32::from_ne_bytes(code)))
            } else {
                Err(io::Error::last_os_error())
            }
        };
        libc::close(exec[0]);
        libc::close(input[1]);
        if helper > 0 {
            libc::kill(helper, libc::SIGKILL);
            let mut status = 0;
            while libc::waitpid(helper, &mut status, 0) < 0 && errno() == libc::EINTR {}
        }
        result
    }
}

/// The supervisor: enters the namespaces and starts the init process,
/// which returns (to exec Python); the supervisor itself never returns.
fn supervise(setup: &Setup) -> io::Result<()> {
    // SAFETY: system calls only, on data prepared before the fork.
    unsafe {
        if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWNET) != 0 {
            return Err(fail(setup, Step::Unshare, io::Error::last_os_error()));
        }
        // Root may write its own maps. Another account may not: the files
        // of a non-dumpable process belong to root. A process of the new
        // namespace that has exec'd a program (so is dumpable, with a
        // memory of its own) lends its files instead.
        if let Err(error) = map(setup, None) {
            let denied = matches!(error.raw_os_error(), Some(libc::EACCES | libc::EPERM));
            let mapped = if denied {
                map_through_helper(setup)
            } else {
                Err(error)
            };
            if let Err(error) = mapped {
                return Err(fail(setup, Step::Map, error));
            }
        }
        // The PID namespace is for the children made from here on.
        if libc::unshare(libc::CLONE_NEWPID) != 0 {
            return Err(fail(setup, Step::Unshare, io::Error::last_os_error()));
        }
        // SIGCHLD is read through a signalfd, blocked from before the
        // init process exists so that its exit cannot be missed.
        let mut chld: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut chld);
        libc::sigaddset(&mut chld, libc::SIGCHLD);
        if libc::sigprocmask(libc::SIG_BLOCK, &chld, std::ptr::null_mut()) != 0 {
            return Err(fail(setup, Step::Start, io::Error::last_os_error()));
        }
        let signals = libc::signalfd(-1, &chld, libc::SFD_CLOEXEC);
        if signals < 0 {
            return Err(fail(setup, Step::Start, io::Error::last_os_error()));
        }
        let init = fork();
        if init < 0 {
            return Err(fail(setup, Step::Start, io::Error::last_os_error()));
        }
        if init == 0 {
            let mut none: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut none);
            libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
            libc::close(signals);
            return prepare_init(setup);
        }

        // The supervisor keeps only the control pipe and the signalfd: in
        // particular not the pipe through which `Command` learns that the
        // exec succeeded, nor the code's output.
        let (low, high) = if setup.control < signals {
            (setup.control, signals)
        } else {
            (signals, setup.control)
        };
        close_range(0, low - 1);
        close_range(low + 1, high - 1);
        close_range(high + 1, RawFd::MAX);

        let status = watch(init, setup.control, signals);
        exit_as(status)
    }
}

/// Waits until the init process exits, or the control pipe is closed
/// (then kills it): its wait status.
fn watch(init: libc::pid_t, control: RawFd, signals: RawFd) -> libc::c_int {
    let mut status = 0;
    // SAFETY: system calls on this process's own descriptors and child.
    unsafe {
        loop {
            let mut fds = [
                libc::pollfd {
                    fd: control,
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: signals,
                    events: libc::POLLIN,
                    revents: 0,
                },
            ];
            if libc::poll(fds.as_mut_ptr(), 2, -1) < 0 {
                if errno() == libc::EINTR {
                    continue;
                }
                break;
            }
            if fds[1].revents != 0 {
                let mut info = [0u8; std::mem::size_of::<libc::signalfd_siginfo>()];
                libc::read(signals, info.as_mut_ptr().cast(), info.len());
                if libc::waitpid(init, &mut status, libc::WNOHANG) == init {
                    return status;
                }
            }
            if fds[0].revents != 0 {
                break;
            }
        }
        // The agent is done with the run (or gone): the init process is
        // still this process's child, so its pid cannot have been reused.
        libc::kill(init, libc::SIGKILL);
        loop {
            let reaped = libc::waitpid(init, &mut status, 0);
            if reaped == init || (reaped < 0 && errno() != libc::EINTR) {
                return status;
            }
        }
    }
}

/// Exits as `status` says the init process did: with its exit code, or
/// killed by its signal (without a core dump).
fn exit_as(status: libc::c_int) -> ! {
    // SAFETY: system calls on this process only.
    unsafe {
        if libc::WIFSIGNALED(status) {
            let signal = libc::WTERMSIG(status);
            let none = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::setrlimit(libc::RLIMIT_CORE, &none);
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(signal, &action, std::ptr::null_mut());
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, signal);
            libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            libc::kill(libc::getpid(), signal);
            libc::_exit(128 + signal);
        }
        libc::_exit(if libc::WIFEXITED(status) {
            libc::WEXITSTATUS(status)
        } else {
            1
        })
    }
}

/// The init process, pid 1 of the new PID namespace: its own mounts and
/// the code, then back to `Command` (and the later hooks) to exec Python.
fn prepare_init(setup: &Setup) -> io::Result<()> {
    // SAFETY: system calls only, on data prepared before the fork.
    unsafe {
        // Killed if the supervisor is.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        let none = std::ptr::null::<libc::c_void>();
        if libc::mount(
            std::ptr::null(),
            c"/".as_ptr(),
            std::ptr::null(),
            libc::MS_REC | libc::MS_PRIVATE,
            none,
        ) != 0
        {
            return Err(fail(setup, Step::MountPrivate, io::Error::last_os_error()));
        }
        let tmpfs = c"tmpfs".as_ptr();
        if libc::mount(
            tmpfs,
            c"/tmp".as_ptr(),
            tmpfs,
            libc::MS_NOSUID | libc::MS_NODEV,
            setup.tmp_options.as_ptr().cast(),
        ) != 0
        {
            return Err(fail(setup, Step::MountTmp, io::Error::last_os_error()));
        }
        if libc::mount(
            tmpfs,
            c"/dev/shm".as_ptr(),
            tmpfs,
            libc::MS_NOSUID | libc::MS_NODEV,
            setup.tmp_options.as_ptr().cast(),
        ) != 0
            && errno() != libc::ENOENT
        {
            return Err(fail(setup, Step::MountShm, io::Error::last_os_error()));
        }
        if libc::mount(
            c"proc".as_ptr(),
            c"/proc".as_ptr(),
            c"proc".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            none,
        ) != 0
        {
            return Err(fail(setup, Step::MountProc, io::Error::last_os_error()));
        }
        // No nested user namespaces, where the kernel has the setting
        // (Linux 4.9): fewer kernel interfaces within the code's reach.
        let _ = write_file(c"/proc/sys/user/max_user_namespaces", b"0");

        let fd = libc::open(
            c"/tmp/snippet.py".as_ptr(),
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_CLOEXEC,
            0o644,
        );
        if fd < 0 {
            return Err(fail(setup, Step::Code, io::Error::last_os_error()));
        }
        let written = write_all(fd, &setup.code);
        libc::close(fd);
        if let Err(error) = written {
            return Err(fail(setup, Step::Code, error));
        }
        if libc::chdir(c"/tmp".as_ptr()) != 0 {
            return Err(fail(setup, Step::Code, io::Error::last_os_error()));
        }
    }
    Ok(())
}
