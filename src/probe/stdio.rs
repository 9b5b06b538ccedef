//! stdio-only checks, observed from the spawn to the final shutdown and scored under
//! `protocol`.

use crate::report::check::spec_url;
use crate::transport::process::ProcessConfig;

crate::checks! { phase: Protocol;
    PROCESS = "stdio.process", Critical, "The server process starts and stays up", spec_url::S26,
        "The command is started without a shell, in its own process group, with the base environment; it must still be running before the first request.",
        "Run the command by hand with the same arguments; the server's stderr (in this report) usually says why it exited.";
    ENVIRONMENT = "stdio.environment", Minor, "What the child process was handed", spec_url::S26,
        "A statement, not a judgement: the environment variable names the child received (values only for variables set with --stdio-set) and its working directory.",
        "Forward a variable the server needs with --stdio-env NAME or set it with --stdio-set NAME=value.";
    STDOUT_CLEAN = "stdio.stdout_clean", Major, "Stdout carries only JSON-RPC messages", spec_url::S26,
        "Over stdio, stdout is the wire: every line must be exactly one JSON-RPC message. Banners, prints, progress bars or pretty-printed JSON corrupt the stream; the offending line is quoted. A server that wrote no line at all is not assessed.",
        "Send logs and banners to stderr and write exactly one JSON object per line to stdout.";
    STDERR = "stdio.stderr", Minor, "What the server logged on stderr", spec_url::S26,
        "Logging to stderr is correct behaviour. scout keeps the output (bounded) and reports it.",
        "Nothing to fix: stderr is where logs belong.";
    ALIVE = "stdio.alive", Major, "The server is still running at the end", spec_url::S26,
        "After every probe the process must still be running; a server that died mid-run is reported with its exit status and stderr.",
        "Look at the stderr kept in this report to see why the process exited.";
    SHUTDOWN = "stdio.shutdown", Minor, "The server exits when its stdin closes", spec_url::S26,
        "scout closes stdin and waits; a server should exit promptly. One that needs SIGTERM or SIGKILL, or whose stdout stays open through a child process, is reported.",
        "Exit when stdin reaches end of file, and do not leave child processes holding stdout.";
}

use std::sync::Arc;
use std::time::Duration;

use crate::probe::Session;
use crate::probe::discovery::tail;
use crate::report::exchange::{Direction, ExchangeKind};
use crate::report::finding::SkipReason;
use crate::transport::process::Ending;
use crate::transport::stdio::StdioWire;

/// `stdio.process` when the command could not be started or exited at once: `why` says
/// which, with the tail of its stderr.
pub fn process_failed(why: &str) -> crate::report::finding::FindingBuilder {
    PROCESS.fail(why.to_string()).without_exchange()
}

/// `stdio.process` when the command started and was still running `settle` later.
pub fn process_running(
    pid: u32,
    settle: std::time::Duration,
) -> crate::report::finding::FindingBuilder {
    PROCESS
        .pass(format!(
            "started without a shell in its own process group (pid {pid}) and still running after {} ms",
            settle.as_millis()
        ))
        .without_exchange()
}

/// How much of an offending stdout line is quoted.
const QUOTE: usize = 200;
/// How much stderr is kept in the `stdio.stderr` finding.
const STDERR_SHOWN: usize = 4000;

/// The recorder sequence numbers of every line the server(s) wrote to stdout.
fn stdout_lines(s: &Session) -> Vec<crate::report::exchange::Seq> {
    s.recorder
        .snapshot()
        .into_iter()
        .filter(|e| matches!(&e.kind, ExchangeKind::Stdio(m) if m.direction == Direction::Received))
        .map(|e| e.seq)
        .collect()
}

/// Closes every wire: ends HTTP sessions and stops a `start` command; shuts stdio servers
/// down (closing stdin, then signals), reaps them and records the stdio checks. Runs on
/// every path out of `run_server`, deadline and cancel included.
pub async fn finish(s: &mut Session) {
    let Some(connector) = s.connector.clone() else {
        return;
    };
    let grace = s.spec.timeout.min(Duration::from_secs(2));
    for w in s.wires.clone() {
        if w.stdio().is_none() {
            let _ = tokio::time::timeout(s.spec.timeout, w.close()).await;
        }
    }
    connector.stop_started(grace).await;
    let wires = connector.stdio_wires();
    let Some(primary) = wires.first().cloned() else {
        return;
    };

    stdout_clean(s, &wires);
    alive(s, &primary).await;
    environment(s, &primary);

    // Shut every process down; the first one is reported in detail.
    let mut endings = Vec::new();
    for w in &wires {
        endings.push(w.close(grace).await);
    }
    stderr(s, &primary);
    shutdown(s, &primary, &endings, grace);
}

/// `stdio.stdout_clean`: over every process of the run, judged only on lines that came.
/// Past the recorder's caps, stray lines are counted but not kept: the count is every line,
/// the evidence what was kept.
fn stdout_clean(s: &mut Session, wires: &[Arc<StdioWire>]) {
    let violations: Vec<_> = wires.iter().flat_map(|w| w.violations()).collect();
    let total: usize = wires.iter().map(|w| w.violation_count()).sum();
    let lines = stdout_lines(s);
    if total == 0 && lines.is_empty() {
        s.add(STDOUT_CLEAN.skip(
            SkipReason::NotAssessed,
            "the server wrote no line to stdout, so there was nothing to judge",
        ));
    } else if total == 0 {
        s.add(
            STDOUT_CLEAN
                .pass(format!(
                    "each of the {} stdout line(s) was one JSON-RPC message",
                    lines.len()
                ))
                .evidence(lines),
        );
    } else {
        let kept = if violations.len() < total {
            format!(
                " ({} of them kept in this report: scout's recorder cap, see resilience.output_volume)",
                violations.len()
            )
        } else {
            String::new()
        };
        let f = match violations.first() {
            Some(v) => {
                let quoted: String = v.line.chars().take(QUOTE).collect();
                let more = if v.line.chars().count() > QUOTE {
                    "…"
                } else {
                    ""
                };
                STDOUT_CLEAN
                    .fail(format!(
                        "{total} stdout line(s) were not JSON-RPC{kept}, first: \"{quoted}{more}\""
                    ))
                    .evidence(violations.iter().map(|v| v.seq))
            }
            None => STDOUT_CLEAN
                .fail(format!("{total} stdout line(s) were not JSON-RPC{kept}"))
                .without_exchange(),
        };
        s.add(f);
    }
}

/// `stdio.alive`: still running before scout shut it down?
async fn alive(s: &mut Session, primary: &StdioWire) {
    match primary.process.try_exit().await {
        None => s.add(
            ALIVE
                .pass("the process was still running after the last probe")
                .without_exchange(),
        ),
        Some(status) => {
            // Tied to the last line it read, the message it most likely died of.
            let cause = primary.exited_after().filter(|seq| *seq > 0);
            let after = cause
                .map(|seq| format!(" after req#{seq}"))
                .unwrap_or_default();
            let f = ALIVE.fail(format!(
                "the process exited during the run{after} ({status}); stderr:\n{}",
                tail(&primary.process.stderr(), 2000)
            ));
            s.add(match cause {
                Some(seq) => f.evidence([seq]),
                None => f.without_exchange(),
            })
        }
    }
}

/// `stdio.environment`: what the process was started with (names only for what was
/// forwarded).
fn environment(s: &mut Session, primary: &StdioWire) {
    let env = &primary.process.env;
    let mut parts = vec![format!("base: {}", env.base.join(", "))];
    if !env.forwarded.is_empty() {
        parts.push(format!(
            "forwarded (names only): {}",
            env.forwarded.join(", ")
        ));
    }
    if !env.missing.is_empty() {
        parts.push(format!(
            "asked to forward but unset: {}",
            env.missing.join(", ")
        ));
    }
    if !env.set.is_empty() {
        let set: Vec<_> = env.set.iter().map(|(k, v)| format!("{k}={v}")).collect();
        parts.push(format!("set: {}", set.join(", ")));
    }
    if let crate::spec::TargetSpec::Stdio(ProcessConfig { dir: Some(d), .. }) = &s.spec.target {
        parts.push(format!("working directory: {}", d.display()));
    }
    s.add(ENVIRONMENT.info(parts.join("; ")).without_exchange());
}

/// `stdio.stderr`: what the server wrote to stderr, kept for the reader.
fn stderr(s: &mut Session, primary: &StdioWire) {
    let stderr = primary.process.stderr();
    if stderr.trim().is_empty() {
        s.add(
            STDERR
                .info("the server wrote nothing to stderr")
                .without_exchange(),
        );
    } else {
        s.add(
            STDERR
                .info(format!(
                    "stderr (last {STDERR_SHOWN} bytes kept):\n{}",
                    tail(&stderr, STDERR_SHOWN)
                ))
                .without_exchange(),
        );
    }
}

/// `stdio.shutdown`: how the first process ended when scout closed its stdin (the others
/// are counted in the detail).
fn shutdown(
    s: &mut Session,
    primary: &StdioWire,
    endings: &[crate::transport::stdio::Shutdown],
    grace: Duration,
) {
    let others = endings
        .iter()
        .skip(1)
        .filter(|e| {
            !matches!(
                e.ending,
                Ending::ExitedOnStdinClose(_) | Ending::AlreadyExited(_)
            ) || e.stdout_held_open
        })
        .count();
    let note = if others > 0 {
        format!(" ({others} other process(es) of this run needed the same)")
    } else {
        String::new()
    };
    let Some(first) = endings.first() else { return };
    let held = if first.stdout_held_open {
        "; its stdout stayed open after it exited (a child process holds it), so scout stopped waiting and killed the process group"
    } else {
        ""
    };
    // The detail names the command (the finding's subject); the note about other processes
    // goes in the detail too, so that the subject stays the same from run to run.
    let cmd = primary.process.command.join(" ");
    let b = match &first.ending {
        Ending::ExitedOnStdinClose(st) if !first.stdout_held_open => SHUTDOWN.pass(format!(
            "`{cmd}` exited ({st}) {} ms after stdin was closed{note}",
            first.elapsed.as_millis()
        )),
        Ending::ExitedOnStdinClose(st) => SHUTDOWN.warn(format!(
            "`{cmd}` exited ({st}) after stdin was closed{held}{note}"
        )),
        Ending::NeededSigterm(st) => SHUTDOWN.warn(format!(
            "`{cmd}` did not exit within {} ms of stdin closing; exited on SIGTERM ({st}){held}{note}",
            grace.as_millis()
        )),
        Ending::NeededSigkill(st) => SHUTDOWN.fail(format!(
            "`{cmd}` ignored stdin closing and SIGTERM; killed with SIGKILL ({st}){held}{note}"
        )),
        Ending::AlreadyExited(st) => {
            s.add(SHUTDOWN.skip(
                SkipReason::NotAssessed,
                format!("the process had already exited ({st})"),
            ));
            return;
        }
    };
    s.add(b.without_exchange().subject(cmd));
}
