//! Child processes of a run (g++ building a driver, the driver running a kernel): each
//! runs in its own process group with a deadline, and is killed with its group when the
//! deadline passes or when autofuse-run itself is interrupted (SIGINT, SIGTERM, SIGHUP).
//!
//! - `AUTOFUSE_KERNEL_TIMEOUT` (seconds, default 600): the deadline of one kernel run
//!   on the emulation; a run past it is killed and reported as "timed out after N s".
//! - `AUTOFUSE_BUILD_TIMEOUT` (seconds, default 1800): the deadline of one compiler run.
//!
//! A process that ends by a signal is reported by the signal's name ("killed by signal
//! SIGSEGV (11)"), not as an exit code.

use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

/// The environment variable of the kernel-run deadline (seconds).
pub const KERNEL_TIMEOUT_ENV: &str = "AUTOFUSE_KERNEL_TIMEOUT";
/// The environment variable of the compiler-run deadline (seconds).
pub const BUILD_TIMEOUT_ENV: &str = "AUTOFUSE_BUILD_TIMEOUT";
const KERNEL_TIMEOUT_DEFAULT: f64 = 600.0;
const BUILD_TIMEOUT_DEFAULT: f64 = 1800.0;

/// A deadline from `var` (seconds, fractions allowed; `0` or `none` for no deadline),
/// else `default` seconds.
fn timeout_from(var: &str, default: f64) -> Result<Option<Duration>, String> {
    match std::env::var(var) {
        Ok(text) if !text.trim().is_empty() => {
            let t = text.trim();
            if t == "none" {
                return Ok(None);
            }
            match t.parse::<f64>() {
                Ok(0.0) => Ok(None),
                Ok(s) if s.is_finite() && s > 0.0 && s < 1e9 => {
                    Ok(Some(Duration::from_secs_f64(s)))
                }
                _ => Err(format!(
                    "{var}='{text}' is not a number of seconds (0 or 'none' for no deadline)"
                )),
            }
        }
        _ => Ok(Some(Duration::from_secs_f64(default))),
    }
}

/// The deadline of one kernel run (`AUTOFUSE_KERNEL_TIMEOUT`).
pub fn kernel_timeout() -> Result<Option<Duration>, String> {
    timeout_from(KERNEL_TIMEOUT_ENV, KERNEL_TIMEOUT_DEFAULT)
}

/// The deadline of one compiler run (`AUTOFUSE_BUILD_TIMEOUT`).
pub fn build_timeout() -> Result<Option<Duration>, String> {
    timeout_from(BUILD_TIMEOUT_ENV, BUILD_TIMEOUT_DEFAULT)
}

/// What a child did.
pub struct Finished {
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// Why a child has no normal end.
pub enum RunError {
    /// It could not be started.
    Spawn(std::io::Error),
    /// It ran past the deadline and was killed with its process group.
    TimedOut(Duration),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Spawn(e) => write!(f, "cannot start: {e}"),
            RunError::TimedOut(d) => write!(f, "timed out after {} s", seconds(*d)),
        }
    }
}

fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0}")
    } else {
        format!("{s}")
    }
}

/// "exit 3", or "killed by signal SIGSEGV (11)".
pub fn describe(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit {code}"),
        (None, Some(sig)) => format!("killed by signal {} ({sig})", signal_name(sig)),
        (None, None) => "ended without an exit code".into(),
    }
}

/// The name of a POSIX signal number (Linux numbering).
pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        10 => "SIGUSR1",
        11 => "SIGSEGV",
        12 => "SIGUSR2",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        24 => "SIGXCPU",
        25 => "SIGXFSZ",
        31 => "SIGSYS",
        _ => "an unnamed signal",
    }
}

/// Process groups of running children, killed by the interrupt handler.
const SLOTS: usize = 64;
static GROUPS: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];

extern "C" fn on_interrupt(sig: libc::c_int) {
    // Only async-signal-safe calls: kill, signal, raise.
    for slot in &GROUPS {
        let pgid = slot.load(Ordering::SeqCst);
        if pgid > 0 {
            // SAFETY: kill(2) is async-signal-safe; a stale group id fails harmlessly.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
    // SAFETY: restore the default action and re-raise, so the process ends by the
    // signal as it would have without the handler.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

fn install_handler() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: installs a handler that only makes async-signal-safe calls; a
            // signal the process ignores stays ignored.
            unsafe {
                let previous = libc::signal(sig, on_interrupt as *const () as libc::sighandler_t);
                if previous == libc::SIG_IGN {
                    libc::signal(sig, libc::SIG_IGN);
                }
            }
        }
    });
}

/// Registers a running group for the interrupt handler; unregisters on drop.
struct Registered(Option<usize>);

impl Registered {
    fn new(pgid: i32) -> Registered {
        for (i, slot) in GROUPS.iter().enumerate() {
            if slot
                .compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                return Registered(Some(i));
            }
        }
        Registered(None)
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        if let Some(i) = self.0 {
            GROUPS[i].store(0, Ordering::SeqCst);
        }
    }
}

/// Asks the kernel to kill the child when the thread that spawned it dies: a SIGKILL of
/// the tool reaches no handler, and its compiler or kernel would run on. (The child's own
/// children, e.g. `cc1plus` under `g++`, end with their current job.)
fn die_with_parent(cmd: &mut Command) {
    // SAFETY: `getpid`, `prctl` and `getppid` are async-signal-safe, allocate nothing
    // and touch no lock, as code between fork and exec must.
    let parent = unsafe { libc::getpid() };
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // The parent may have died between fork and prctl.
            if libc::getppid() != parent {
                return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
}

/// Runs `cmd` to its end in a process group of its own, collecting stdout and stderr;
/// past `timeout` the whole group is killed (and `RunError::TimedOut` returned).
pub fn run(cmd: &mut Command, timeout: Option<Duration>) -> Result<Finished, RunError> {
    install_handler();
    cmd.process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    die_with_parent(cmd);
    let mut child = cmd.spawn().map_err(RunError::Spawn)?;
    let pgid = i32::try_from(child.id()).unwrap_or(0);
    let registered = Registered::new(pgid);
    let reader = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut buf);
            }
            buf
        })
    };
    let out = reader(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = reader(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    // The child is waited for on a thread; the deadline is a timed receive, so a run
    // that ends is noticed at once.
    let (done, ended) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let status = child.wait();
        let _ = done.send(());
        status
    });
    let timed_out = match timeout {
        Some(limit) => matches!(
            ended.recv_timeout(limit),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout)
        ),
        None => {
            let _ = ended.recv();
            false
        }
    };
    if timed_out {
        kill_group(pgid);
        settle(pgid);
    }
    let status = match waiter.join() {
        Ok(Ok(status)) if !timed_out => Ok(status),
        Ok(Ok(_)) => Err(RunError::TimedOut(timeout.unwrap_or_default())),
        Ok(Err(e)) => Err(RunError::Spawn(e)),
        Err(_) => Err(RunError::Spawn(std::io::Error::other(
            "the waiting thread failed",
        ))),
    };
    // Whatever the end, nothing of the group outlives the call (g++'s cc1plus, as).
    kill_group(pgid);
    drop(registered);
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    status.map(|status| Finished {
        status,
        stdout,
        stderr,
    })
}

fn kill_group(pgid: i32) {
    if pgid > 0 {
        // SAFETY: kill(2) on our own child's process group.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
}

/// Waits (up to half a second) until no process of group `pgid` is left to signal, so that
/// a killed child is gone when the caller reports it (members that are zombies nobody
/// reaps keep the group signalable: hence the bound).
fn settle(pgid: i32) {
    if pgid <= 0 {
        return;
    }
    for _ in 0..50 {
        // SAFETY: signal 0 only checks whether the group still has members.
        if unsafe { libc::kill(-pgid, 0) } != 0 {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Whether process `pid` is alive (for stale temporary folders named after their pid).
pub fn alive(pid: u32) -> bool {
    let Ok(pid) = i32::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_are_named() {
        let f = run(
            Command::new("sh").args(["-c", "kill -SEGV $$"]),
            Some(Duration::from_secs(20)),
        )
        .ok()
        .unwrap();
        assert_eq!(describe(f.status), "killed by signal SIGSEGV (11)");
        let f = run(Command::new("sh").args(["-c", "exit 3"]), None)
            .ok()
            .unwrap();
        assert_eq!(describe(f.status), "exit 3");
    }

    #[test]
    fn a_child_past_its_deadline_is_killed_with_its_group() {
        let start = std::time::Instant::now();
        // The grandchild (sleep) holds the pipes open: killing only the shell would hang.
        let r = run(
            Command::new("sh").args(["-c", "sleep 30 & sleep 30; echo done"]),
            Some(Duration::from_millis(300)),
        );
        match r {
            Err(RunError::TimedOut(d)) => assert_eq!(d, Duration::from_millis(300)),
            _ => panic!("expected a timeout"),
        }
        assert!(start.elapsed() < Duration::from_secs(10));
        assert_eq!(
            RunError::TimedOut(Duration::from_secs(2)).to_string(),
            "timed out after 2 s"
        );
    }
}
