//! The `ptc` binary's process entry on Linux with glibc: a C `main` that glibc calls in place
//! of std's (main.rs is `#![no_main]` there), doing the parts of std's start-up that `ptc`
//! needs and skipping the one that costs.
//!
//! Why: on the main thread, std's start-up asks glibc for the stack's bounds to place a
//! stack-overflow handler, and glibc learns them by opening and `sscanf`-parsing
//! `/proc/self/maps`; the handler then gets an alternate signal stack (mmap, mprotect,
//! sigaltstack, and munmap at exit). For a trivial `ptc run` that was 45 k of 532 k
//! instructions and 17 of 48 system calls (benches/README.md, "Session 15").
//!
//! Kept, as std does them:
//! - standard descriptors 0-2 that are closed are opened on `/dev/null`, so no file the run
//!   opens can become its stdout;
//! - SIGPIPE is ignored, so a write to a closed pipe is an `EPIPE` error, which `emit` turns
//!   into the documented exit status 141 (child processes get the default back: std's
//!   `Command` resets it);
//! - a panic that reaches the entry ends the process with status 101 after the panic hook
//!   has run, and every exit goes through [`std::process::exit`], which flushes stdout.
//!
//! Dropped: the stack-overflow message. An overflow of the main stack still stops at the
//! guard page, as SIGSEGV rather than std's "has overflowed its stack" and SIGABRT; ptc
//! bounds its own recursion (the compiler's depth guard, the iterative VM and printers), so
//! none is expected. The main thread also has no name (`ptc`'s panic hook prints none).
//!
//! Only on `*-linux-gnu`: there glibc hands `argc`/`argv` to std through `.init_array`, so
//! [`std::env::args`] works without std's start-up; on other targets std's own `main` runs.
//!
//! Audit: this module is the binary's only `unsafe`: the unmangled `main` symbol, one
//! `poll` (or `fcntl` per descriptor if `poll` fails), `open` of a constant path and
//! `signal` with `SIG_IGN`, each with arguments valid for the call.

#![allow(unsafe_code)]

/// The C entry glibc's `__libc_start_main` calls with the process's arguments (which std
/// has already captured through `.init_array`).
#[unsafe(no_mangle)]
extern "C" fn main(_argc: libc::c_int, _argv: *const *const libc::c_char) -> libc::c_int {
    open_closed_standard_descriptors();
    // SAFETY: SIG_IGN installs no handler; it only sets the signal's disposition.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    // Unwinding out of an `extern "C"` function aborts: stop a panic here, after the hook
    // has reported it, with std's status for a panicking `main`.
    let status = std::panic::catch_unwind(crate::cli_main).unwrap_or(101);
    std::process::exit(i32::from(status))
}

/// Opens `/dev/null` on each of descriptors 0, 1 and 2 that is closed, lowest first, so
/// each open lands on the closed one (what std's start-up does).
fn open_closed_standard_descriptors() {
    let mut fds = [0, 1, 2].map(|fd| libc::pollfd {
        fd,
        events: 0,
        revents: 0,
    });
    // SAFETY: `fds` is a valid array of three `pollfd` for the call's duration; a zero
    // timeout returns at once.
    let polled = unsafe { libc::poll(fds.as_mut_ptr(), 3, 0) };
    for pollfd in fds {
        let closed = if polled == -1 {
            // SAFETY: F_GETFD on any integer descriptor only reads its flags.
            let flags = unsafe { libc::fcntl(pollfd.fd, libc::F_GETFD) };
            flags == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EBADF)
        } else {
            pollfd.revents & libc::POLLNVAL != 0
        };
        // SAFETY: the path is a valid NUL-terminated string; the descriptor is kept open
        // for the process's life, as a standard descriptor.
        if closed && unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) } == -1 {
            // As std: a process that cannot have its standard descriptors does not start.
            std::process::abort();
        }
    }
}
