//! The steps of `cargo xtask test`: one at a time, or two side by side with each one's output
//! held back until it ends, so that two steps' lines never mix.
//!
//! Why side by side: on two cores the suites on GL, downlevel limits and SwiftShader kept the
//! processor 69-82% busy (a test binary's last long test runs alone, and the drivers compile a
//! kernel on one thread), so two of them at once finish sooner than one after the other; and a
//! soak lasts its set time whatever runs beside it.

use std::cell::RefCell;
use std::ffi::OsString;
use std::fs::File;
use std::io::Write;
use std::process::{Command, ExitCode};
use std::sync::Mutex;
use std::time::Instant;

use crate::{CLI, Error, LIBRARY_ALONE, Result, cargo, check_dependency_tree, cli, merged_arguments, workspace_root};

/// One cargo run of `cargo xtask test`: what it checks, its arguments, whether the user's test
/// arguments apply to it, and its environment.
pub(crate) struct Step<'a> {
    pub(crate) what: &'a str,
    pub(crate) args: Vec<&'a str>,
    pub(crate) takes_extra: bool,
    pub(crate) env: &'a [(&'a str, &'a str)],
}

thread_local! {
    /// The file that the commands of a step run beside another write to ([`route_output`]).
    static STEP_LOG: RefCell<Option<File>> = const { RefCell::new(None) };
}

/// Sends `cmd`'s output, and the line naming it, to this thread's step log when its step runs
/// beside another; otherwise the line goes to standard output and the command inherits ours.
pub(crate) fn route_output(cmd: &mut Command, line: &str) -> Result<()> {
    let held = STEP_LOG.with_borrow(|log| log.as_ref().map(|file| (file.try_clone(), file.try_clone())));
    match held {
        None => println!("xtask: running: {line}"),
        Some((Ok(mut out), Ok(err))) => {
            let _ = writeln!(out, "xtask: running: {line}");
            cmd.stdout(out).stderr(err);
        }
        Some(_) => return Err(Error("could not share the step's log with its command".into())),
    }
    Ok(())
}

/// Runs one step with the user's `extra` test arguments where it takes them.
fn run_step(step: &Step, extra: &[OsString]) -> Result<ExitCode> {
    let no_extra: &[OsString] = &[];
    match step.args.split_first() {
        Some((&CLI, args)) => cli(args, step.env),
        _ => cargo(&[], &merged_arguments(&step.args, if step.takes_extra { extra } else { no_extra }), step.env),
    }
}

/// Runs `steps` in order; the first failure ends the run.
pub(crate) fn one_at_a_time(steps: Vec<Step>, extra: &[OsString], suite_started: Instant) -> Result<()> {
    for step in steps {
        println!("xtask: == {}", step.what);
        let started = Instant::now();
        let code = run_step(&step, extra)?;
        // The times tell which step to trim when the suite nears CI's limit.
        println!("xtask: -- {} took {}", step.what, timing(started, suite_started));
        if code != ExitCode::SUCCESS {
            return Err(Error(format!("{} failed", step.what)));
        }
        if step.what == LIBRARY_ALONE {
            check_dependency_tree()?;
        }
    }
    Ok(())
}

/// Runs `steps` two at a time, in the order given (put the longest first), each one's output in
/// `target/xtask-steps/` until it ends and then printed whole. After a failure no further step
/// starts; the run fails with the first.
pub(crate) fn two_at_a_time(steps: Vec<Step>, extra: &[OsString], suite_started: Instant) -> Result<()> {
    let logs = workspace_root().join("target").join("xtask-steps");
    std::fs::create_dir_all(&logs).map_err(|e| Error(format!("could not create {}: {e}", logs.display())))?;
    let queue = Mutex::new(steps.into_iter().enumerate());
    let failures: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let lane = || {
        loop {
            let next = queue.lock().map(|mut q| q.next()).unwrap_or(None);
            let Some((index, step)) = next else { break };
            if !failures.lock().is_ok_and(|f| f.is_empty()) {
                break;
            }
            let log = logs.join(format!("{index:02}.log"));
            println!(
                "xtask: == {} (beside another step: its output, in {}, follows when it ends)",
                step.what,
                log.display()
            );
            let started = Instant::now();
            let outcome = File::create(&log).map_err(|e| Error(format!("{}: {e}", log.display()))).and_then(|file| {
                STEP_LOG.set(Some(file));
                let code = run_step(&step, extra);
                STEP_LOG.set(None);
                code
            });
            let output = std::fs::read(&log).unwrap_or_default();
            {
                let mut stdout = std::io::stdout().lock();
                let _ = writeln!(stdout, "xtask: == output of {}", step.what);
                let _ = stdout.write_all(&output);
                let _ = writeln!(stdout, "xtask: -- {} took {}", step.what, timing(started, suite_started));
            }
            let failure = match outcome {
                Ok(code) if code == ExitCode::SUCCESS => None,
                Ok(_) => Some(format!("{} failed", step.what)),
                Err(e) => Some(e.0),
            };
            if let (Some(failure), Ok(mut failures)) = (failure, failures.lock()) {
                failures.push(failure);
            }
        }
    };
    std::thread::scope(|scope| {
        scope.spawn(lane);
        lane();
    });
    let failures = failures.into_inner().map_err(|_| Error("a step's lane panicked".into()))?;
    failures.into_iter().next().map_or(Ok(()), |first| Err(Error(first)))
}

fn timing(started: Instant, suite_started: Instant) -> String {
    format!("{:.0} s ({:.0} s so far)", started.elapsed().as_secs_f64(), suite_started.elapsed().as_secs_f64())
}
