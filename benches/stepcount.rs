//! Counts the instructions a program retires on this CPU, by single-stepping it with
//! `ptrace`: one trap per instruction, every instruction the CPU runs (AVX-512
//! included, which valgrind cannot run), on a machine without hardware counters.
//!
//!   stepcount [--markers] PROGRAM [ARGS...]
//!
//! Prints the count of the program's main thread, address-space randomisation off (so
//! that two runs of the same job take the same paths). With `--markers`, only from the
//! program's first `SIGSTOP` to its second: the `instructions` bench stops itself so
//! around its measured call when `STEPCOUNT_MARKERS` is set. `benches/stepcount.sh`
//! runs it for N and 2N jobs and divides the difference by N, so that the markers' own
//! instructions cancel out. Slow (a trap and two context switches an instruction).

use std::ffi::CString;
use std::process::exit;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let markers = args.first().is_some_and(|a| a == "--markers");
    if markers {
        args.remove(0);
    }
    let mut markers_seen = 0;
    let args: Vec<CString> = args
        .into_iter()
        .map(|a| CString::new(a).expect("an argument without NUL"))
        .collect();
    if args.is_empty() {
        eprintln!("usage: stepcount [--markers] PROGRAM [ARGS...]");
        exit(2);
    }
    let mut argv: Vec<*const libc::c_char> = args.iter().map(|a| a.as_ptr()).collect();
    argv.push(std::ptr::null());
    // SAFETY: fork in a single-threaded program; the child calls only async-signal-safe
    // functions (ptrace, personality, execvp, _exit) before it execs.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        eprintln!("stepcount: fork failed");
        exit(1);
    }
    if pid == 0 {
        // SAFETY: the child asks to be traced, turns randomisation off and execs `argv`,
        // a NUL-terminated array of NUL-terminated strings that outlive the call.
        unsafe {
            libc::ptrace(libc::PTRACE_TRACEME, 0, 0, 0);
            libc::personality(libc::ADDR_NO_RANDOMIZE as libc::c_ulong);
            libc::execvp(argv[0], argv.as_ptr());
            libc::_exit(127);
        }
    }
    let mut status = 0;
    // SAFETY: waits for the child just forked; `status` is a valid out-pointer.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    // Stopped at its exec. With `--markers`, it runs free to its first `SIGSTOP`
    // (the `instructions` bench's marker), is stepped to the next, and runs free to its
    // end; without, every instruction from the exec on is a step.
    let mut stepping = !markers;
    let mut steps: u64 = 0;
    let mut signal = 0;
    loop {
        let request = if stepping {
            libc::PTRACE_SINGLESTEP
        } else {
            libc::PTRACE_CONT
        };
        // SAFETY: `pid` is our stopped tracee; the signal (0, or one of its own it
        // stopped with) is delivered as it resumes.
        unsafe { libc::ptrace(request, pid, 0, signal) };
        // SAFETY: as above.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        if libc::WIFEXITED(status) {
            let code = libc::WEXITSTATUS(status);
            if code != 0 {
                eprintln!("stepcount: the program exited with {code}");
                exit(1);
            }
            break;
        }
        if libc::WIFSIGNALED(status) {
            eprintln!(
                "stepcount: the program died of signal {}",
                libc::WTERMSIG(status)
            );
            exit(1);
        }
        signal = 0;
        match libc::WSTOPSIG(status) {
            libc::SIGTRAP if stepping => steps += 1,
            libc::SIGSTOP if markers => {
                // A marker, swallowed: the first starts the count, the second ends it.
                stepping = !stepping;
                markers_seen += 1;
            }
            // A signal of the program's own: passed on, not counted.
            other => signal = other,
        }
    }
    if markers && markers_seen != 2 {
        eprintln!("stepcount: {markers_seen} markers, not 2");
        exit(1);
    }
    println!("{steps}");
}
