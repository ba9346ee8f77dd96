//! `LocalShellBackend.execute`: a command line run by `/bin/sh -c` in the backend's root,
//! with its own environment, stdin closed, in a session of its own; stdout and stderr
//! captured until both close and the shell exits, or until the timeout (then the shell is
//! killed, as `subprocess.run` kills it). The reply is deepagents' combined text: stdout,
//! then each stderr line tagged `[stderr] `, cut at the byte limit, the exit code appended
//! when it is not zero.

use std::fs::File;
use std::io::Read;
use std::os::fd::AsRawFd;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::middleware::py_text::{py_rstrip, py_strip};

/// What `timeout(1)` exits with; deepagents reports a timed-out command with it.
pub const TIMEOUT_EXIT_CODE: i64 = 124;

/// deepagents' timeout messages: the caller's own timeout, or the backend's default.
pub fn timed_out_message(seconds: &str, custom: bool) -> String {
    use crate::middleware::filesystem::texts::{LOCAL_SHELL_TIMEOUT, LOCAL_SHELL_TIMEOUT_CUSTOM};
    let text = if custom {
        LOCAL_SHELL_TIMEOUT_CUSTOM
    } else {
        LOCAL_SHELL_TIMEOUT
    };
    text.replace("{timeout}", seconds)
}

/// A finished command's raw output.
pub struct Finished {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// The exit code, or minus the signal that ended the shell (Python's `returncode`).
    pub code: i64,
}

/// Why the command gave no `Finished`.
pub enum RunError {
    /// It did not start: the error and the path it concerns (the working directory when
    /// that is not a directory one can enter, else the shell).
    Spawn(std::io::Error, String),
    /// The timeout passed first; the shell was killed.
    TimedOut,
}

/// Python's `returncode` from a `waitpid` status: the exit code, or minus the signal.
fn returncode(status: libc::c_int) -> i64 {
    if libc::WIFSIGNALED(status) {
        -(libc::WTERMSIG(status) as i64)
    } else {
        libc::WEXITSTATUS(status) as i64
    }
}

/// A started shell: its pid and the read ends of its stdout and stderr.
struct Proc {
    pid: libc::pid_t,
    stdout: File,
    stderr: File,
}

/// Runs `command` with `/bin/sh -c` in `cwd` with exactly `env`, for at most `timeout`.
pub fn run(
    command: &str,
    cwd: &str,
    env: &[(String, String)],
    timeout: Duration,
) -> Result<Finished, RunError> {
    let deadline = Instant::now() + timeout;
    let spawned = match spawn::spawn(command, cwd, env) {
        Some(r) => r,
        None => fork(command, cwd, env),
    };
    let mut proc = spawned.map_err(|e| {
        let cwd_ok = std::fs::metadata(cwd).is_ok_and(|m| m.is_dir());
        let about = if cwd_ok { "/bin/sh" } else { cwd };
        RunError::Spawn(e, about.to_owned())
    })?;
    let Some((stdout, stderr)) = collect(&mut proc, deadline) else {
        return Err(kill(proc.pid));
    };
    // Both streams closed; the shell may still be running. Polled as Python's `wait(timeout)`
    // polls: from half a millisecond, doubling up to 50 ms.
    let mut delay = Duration::from_micros(500);
    loop {
        let mut status = 0;
        // SAFETY: waits for our own child, reaped here only.
        let got = unsafe { libc::waitpid(proc.pid, &mut status, libc::WNOHANG) };
        if got == proc.pid {
            return Ok(Finished {
                stdout,
                stderr,
                code: returncode(status),
            });
        }
        if got < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return Err(kill(proc.pid));
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(kill(proc.pid));
        }
        std::thread::sleep(delay.min(deadline - now));
        delay = (delay * 2).min(Duration::from_millis(50));
    }
}

/// The shell started with `fork` (where `posix_spawn` lacks what is needed): a new session,
/// stdin from `/dev/null`, SIGPIPE back to its default.
fn fork(command: &str, cwd: &str, env: &[(String, String)]) -> std::io::Result<Proc> {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg(command)
        .current_dir(cwd)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: setsid is async-signal-safe and touches no memory of the parent.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn()?;
    let (Some(out), Some(err)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(std::io::Error::other("no pipes"));
    };
    Ok(Proc {
        pid: child.id() as libc::pid_t,
        stdout: File::from(std::os::fd::OwnedFd::from(out)),
        stderr: File::from(std::os::fd::OwnedFd::from(err)),
    })
}

/// Stops the shell as `subprocess.run` does on a timeout (SIGKILL to the shell alone), and
/// reaps it.
fn kill(pid: libc::pid_t) -> RunError {
    let mut status = 0;
    // SAFETY: our own child, not yet reaped.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
        while libc::waitpid(pid, &mut status, 0) < 0
            && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
        {}
    }
    RunError::TimedOut
}

/// Reads stdout and stderr until both close, or `None` when the deadline passes first.
fn collect(proc: &mut Proc, deadline: Instant) -> Option<(Vec<u8>, Vec<u8>)> {
    let mut open = [true, true];
    let mut out = [Vec::new(), Vec::new()];
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let files = [&proc.stdout, &proc.stderr];
        let mut fds: Vec<(usize, libc::pollfd)> = (0..2)
            .filter(|i| open[*i])
            .map(|i| {
                let fd = files[i].as_raw_fd();
                (
                    i,
                    libc::pollfd {
                        fd,
                        events: libc::POLLIN,
                        revents: 0,
                    },
                )
            })
            .collect();
        if fds.is_empty() {
            let [o, e] = out;
            return Some((o, e));
        }
        let now = Instant::now();
        if now >= deadline {
            return None;
        }
        let wait = (deadline - now).as_millis().clamp(1, i32::MAX as u128) as i32;
        let mut raw: Vec<libc::pollfd> = fds.iter_mut().map(|(_, p)| *p).collect();
        // SAFETY: `raw` is a live array of `raw.len()` pollfd structs.
        let n = unsafe { libc::poll(raw.as_mut_ptr(), raw.len() as libc::nfds_t, wait) };
        if n < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return None;
        }
        for ((which, _), polled) in fds.iter().zip(&raw) {
            if polled.revents == 0 {
                continue;
            }
            let mut file = if *which == 0 {
                &proc.stdout
            } else {
                &proc.stderr
            };
            match file.read(&mut buf) {
                Ok(0) => open[*which] = false,
                Ok(k) => out[*which].extend_from_slice(&buf[..k]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => open[*which] = false,
            }
        }
    }
}

/// Starting the shell with `posix_spawn` (a `vfork`, as Python's `subprocess` starts it):
/// far cheaper than `fork` from a large process. The glibc extensions it needs (`chdir` in
/// the child, and closing inherited descriptors as `close_fds=True` does) are looked up at
/// run time, so an older C library falls back to `fork` instead of failing to load.
mod spawn {
    use std::ffi::{CString, c_char, c_int, c_void};
    use std::fs::File;
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::sync::OnceLock;

    use super::Proc;

    type AddChdir =
        unsafe extern "C" fn(*mut libc::posix_spawn_file_actions_t, *const c_char) -> c_int;
    type AddCloseFrom = unsafe extern "C" fn(*mut libc::posix_spawn_file_actions_t, c_int) -> c_int;

    fn symbol(name: &std::ffi::CStr) -> Option<*mut c_void> {
        // SAFETY: a lookup in the process's own symbol table.
        let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
        (!p.is_null()).then_some(p)
    }

    fn extensions() -> Option<(AddChdir, Option<AddCloseFrom>)> {
        static FOUND: OnceLock<Option<(usize, Option<usize>)>> = OnceLock::new();
        let (chdir, closefrom) = (*FOUND.get_or_init(|| {
            let chdir = symbol(c"posix_spawn_file_actions_addchdir_np")? as usize;
            let closefrom = symbol(c"posix_spawn_file_actions_addclosefrom_np").map(|p| p as usize);
            Some((chdir, closefrom))
        }))?;
        // SAFETY: the symbols have these C signatures (glibc 2.29 and 2.34).
        unsafe {
            Some((
                std::mem::transmute::<usize, AddChdir>(chdir),
                closefrom.map(|c| std::mem::transmute::<usize, AddCloseFrom>(c)),
            ))
        }
    }

    fn check(rc: c_int) -> std::io::Result<()> {
        if rc == 0 {
            Ok(())
        } else {
            Err(std::io::Error::from_raw_os_error(rc))
        }
    }

    fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
        let mut fds = [0; 2];
        // SAFETY: `fds` has room for the two descriptors.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: both are fresh descriptors we own.
        Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
    }

    fn cstring(s: &str) -> std::io::Result<CString> {
        CString::new(s).map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))
    }

    /// `None` where `posix_spawn` cannot do it here (use `fork`).
    pub(super) fn spawn(
        command: &str,
        cwd: &str,
        env: &[(String, String)],
    ) -> Option<std::io::Result<Proc>> {
        let (add_chdir, add_closefrom) = extensions()?;
        Some(start(command, cwd, env, add_chdir, add_closefrom))
    }

    fn start(
        command: &str,
        cwd: &str,
        env: &[(String, String)],
        add_chdir: AddChdir,
        add_closefrom: Option<AddCloseFrom>,
    ) -> std::io::Result<Proc> {
        use std::os::fd::AsRawFd;
        let argv_owned = [cstring("/bin/sh")?, cstring("-c")?, cstring(command)?];
        let env_owned = env
            .iter()
            .map(|(k, v)| cstring(&format!("{k}={v}")))
            .collect::<std::io::Result<Vec<_>>>()?;
        let (cwd, devnull) = (cstring(cwd)?, cstring("/dev/null")?);
        let mut argv: Vec<*mut c_char> = argv_owned
            .iter()
            .map(|c| c.as_ptr() as *mut c_char)
            .collect();
        argv.push(std::ptr::null_mut());
        let mut envp: Vec<*mut c_char> = env_owned
            .iter()
            .map(|c| c.as_ptr() as *mut c_char)
            .collect();
        envp.push(std::ptr::null_mut());
        let (out_r, out_w) = pipe()?;
        let (err_r, err_w) = pipe()?;
        // SAFETY: the attribute and action objects live on this frame and are destroyed
        // below; every pointer handed over outlives the `posix_spawn` call.
        unsafe {
            let mut actions: libc::posix_spawn_file_actions_t = std::mem::zeroed();
            let mut attr: libc::posix_spawnattr_t = std::mem::zeroed();
            check(libc::posix_spawn_file_actions_init(&mut actions))?;
            check(libc::posix_spawnattr_init(&mut attr)).inspect_err(|_| {
                libc::posix_spawn_file_actions_destroy(&mut actions);
            })?;
            let result = (|| -> std::io::Result<libc::pid_t> {
                check(libc::posix_spawn_file_actions_addopen(
                    &mut actions,
                    0,
                    devnull.as_ptr(),
                    libc::O_RDONLY,
                    0,
                ))?;
                check(libc::posix_spawn_file_actions_adddup2(
                    &mut actions,
                    out_w.as_raw_fd(),
                    1,
                ))?;
                check(libc::posix_spawn_file_actions_adddup2(
                    &mut actions,
                    err_w.as_raw_fd(),
                    2,
                ))?;
                check(add_chdir(&mut actions, cwd.as_ptr()))?;
                if let Some(closefrom) = add_closefrom {
                    check(closefrom(&mut actions, 3))?;
                }
                // Its own session (`start_new_session=True`), and SIGPIPE and SIGXFSZ back to
                // their defaults (`restore_signals=True`): Python ignores them.
                let mut defaults: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut defaults);
                libc::sigaddset(&mut defaults, libc::SIGPIPE);
                libc::sigaddset(&mut defaults, libc::SIGXFSZ);
                check(libc::posix_spawnattr_setsigdefault(&mut attr, &defaults))?;
                check(libc::posix_spawnattr_setflags(
                    &mut attr,
                    libc::POSIX_SPAWN_SETSID | libc::POSIX_SPAWN_SETSIGDEF as libc::c_short,
                ))?;
                let mut pid: libc::pid_t = 0;
                check(libc::posix_spawn(
                    &mut pid,
                    argv_owned[0].as_ptr(),
                    &actions,
                    &attr,
                    argv.as_ptr(),
                    envp.as_ptr(),
                ))?;
                Ok(pid)
            })();
            libc::posix_spawn_file_actions_destroy(&mut actions);
            libc::posix_spawnattr_destroy(&mut attr);
            let pid = result?;
            drop((out_w, err_w));
            Ok(Proc {
                pid,
                stdout: File::from(out_r),
                stderr: File::from(err_r),
            })
        }
    }
}

/// The combined text: stdout as is, then each stderr line tagged `[stderr] `; `<no output>`
/// when both are empty.
pub fn merge_streams(stdout: &str, stderr: &str) -> String {
    let mut pieces: Vec<String> = Vec::new();
    if !stdout.is_empty() {
        pieces.push(stdout.to_owned());
    }
    if !stderr.is_empty() {
        pieces.extend(
            py_strip(stderr)
                .split('\n')
                .map(|l| format!("[stderr] {l}")),
        );
    }
    if pieces.is_empty() {
        return "<no output>".to_owned();
    }
    pieces.join("\n")
}

/// `output` cut to `max_bytes` of UTF-8 (never mid-character, as Python's `raw[:max]`
/// decoded with `errors="ignore"`), with deepagents' notice, and whether it was cut.
pub fn clip(output: String, max_bytes: i64) -> (String, bool) {
    let raw = output.as_bytes();
    let len = raw.len() as i64;
    if len <= max_bytes {
        return (output, false);
    }
    let keep = if max_bytes < 0 {
        (len + max_bytes).max(0)
    } else {
        max_bytes
    } as usize;
    let cut = &raw[..keep];
    let kept = match std::str::from_utf8(cut) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&cut[..e.valid_up_to()]).unwrap_or_default(),
    };
    (
        format!("{kept}\n\n... Output truncated at {max_bytes} bytes."),
        true,
    )
}

/// deepagents' reply for a finished command: `(output, exit_code, truncated)`.
pub fn response(stdout: &str, stderr: &str, code: i64, max_bytes: i64) -> (String, i64, bool) {
    let (mut output, truncated) = clip(merge_streams(stdout, stderr), max_bytes);
    if code != 0 {
        output = format!("{}\n\nExit code: {code}", py_rstrip(&output));
    }
    (output, code, truncated)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_and_clips_as_deepagents() {
        assert_eq!(merge_streams("", ""), "<no output>");
        assert_eq!(
            merge_streams("out\n", "e1\ne2\n"),
            "out\n\n[stderr] e1\n[stderr] e2"
        );
        assert_eq!(
            clip("héllo".into(), 2),
            ("h\n\n... Output truncated at 2 bytes.".into(), true)
        );
        assert_eq!(response("x\n", "", 3, 100).0, "x\n\nExit code: 3");
    }

    #[test]
    fn runs_and_times_out() {
        let env = vec![("PATH".to_owned(), "/usr/bin:/bin".to_owned())];
        let done = run(
            "echo hi; echo err >&2; exit 3",
            "/",
            &env,
            Duration::from_secs(5),
        )
        .ok()
        .unwrap();
        assert_eq!(
            (done.stdout.as_slice(), done.stderr.as_slice(), done.code),
            (&b"hi\n"[..], &b"err\n"[..], 3)
        );
        let started = Instant::now();
        assert!(matches!(
            run("sleep 5", "/", &env, Duration::from_millis(200)),
            Err(RunError::TimedOut)
        ));
        assert!(started.elapsed() < Duration::from_secs(3));
    }
}
