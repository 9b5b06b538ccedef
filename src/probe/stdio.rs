//! stdio-only checks, observed from the spawn to the final shutdown and scored under
//! `protocol`.

use crate::report::check::spec_url;
use crate::transport::process::ProcessConfig;

crate::checks! { phase: Protocol;
    PROCESS = "stdio.process", Critical, "The server process starts and stays up", spec_url::S26,
        "The command is started without a shell, in its own process group, with the base environment; it must answer before it exits. A process that exits before it wrote a line (at once, or on its first request) fails this check and blocks the run: nothing after it could say how the server behaves.",
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
        "scout closes the stdin of the run's own process, alone, and waits; a server should exit promptly. One that needs SIGTERM or SIGKILL, or whose stdout stays open through a child process, is reported. The run's other processes (second connections, the revision matrix) are closed together after it and are not timed: one that ignores stdin closing and SIGTERM alike (killed with SIGKILL) is a warning.",
        "Exit when stdin reaches end of file, and do not leave child processes holding stdout.";
    ORDERING = "stdio.ordering", Minor, "How scout knew that a message got no answer", spec_url::S26,
        "A statement, not a judgement. Over stdio a message that may get no answer (a notification, a line that is not JSON-RPC) is followed by a `ping` of scout's own; stdio is one ordered stream, so once the ping is answered, whatever the message provoked has come. A server that answers a message after the ping behind it, or leaves a ping unanswered, cannot be asked this way: from then on scout waits a bounded quiet window instead, and the 'no answer' verdicts after that rest on the window.",
        "Nothing is wrong with answering out of order; answering each `ping` promptly, and each message before the next one is read, lets a client know sooner that no answer is coming.";
}

use std::sync::Arc;
use std::time::Duration;

use crate::probe::Session;
use crate::probe::discovery::tail;
use crate::report::exchange::{Direction, ExchangeKind};
use crate::report::finding::SkipReason;
use crate::transport::process::{Ending, STDERR_END};
use crate::transport::stdio::StdioWire;

/// `stdio.process` when the command could not be started or exited at once: `why` says
/// which, with the tail of its stderr.
pub fn process_failed(why: &str) -> crate::report::finding::FindingBuilder {
    PROCESS.fail(why.to_string()).without_exchange()
}

/// When the stdio server of `conn` exited on its own before it wrote a line: records
/// `stdio.process` failed (and `discovery.reachable`, which had only seen it start) and
/// returns why, for the handshake's blocked era.
pub async fn exited_before_answering(
    s: &mut Session,
    conn: &crate::client::Connection,
) -> Option<String> {
    exited_before_writing(s, conn.stdio()?).await
}

/// The run's stdio server ended before scout's first message reached it (the exit was seen
/// between discovery and the handshake): it was never reached, just as when discovery sees
/// the exit at once. Records the same fails and blocks the run, so that what follows is
/// "blocked", never a score over nothing. False when the run's server is not such a process.
pub async fn exited_before_the_first_message(s: &mut Session) -> bool {
    let Some(wire) = s
        .connector
        .as_ref()
        .and_then(|c| c.stdio_wires().first().cloned())
    else {
        return false;
    };
    if wire.exited_after() != Some(0) {
        return false;
    }
    if exited_before_writing(s, &wire).await.is_none() {
        return false;
    }
    s.block("the stdio server exited before scout's first message");
    true
}

async fn exited_before_writing(s: &mut Session, wire: &StdioWire) -> Option<String> {
    if !stdout_lines(s).is_empty() {
        return None;
    }
    let grace = s.spec.timeout.min(Duration::from_secs(2));
    let status = wire.ended_on_its_own(grace).await?;
    let why = format!(
        "the process exited ({status}) before it answered its first request; stderr:\n{}",
        tail(&wire.process.stderr_to_end(STDERR_END).await, 2000)
    );
    s.findings
        .retain(|f| f.id != crate::probe::discovery::REACHABLE.id);
    s.add(
        crate::probe::discovery::REACHABLE
            .fail(why.clone())
            .without_exchange(),
    );
    s.add(process_failed(&why));
    Some(why)
}

/// `stdio.process`, unless the process already failed it: started, and answered (the first
/// line it wrote is cited) or at least still running when the run ended.
fn process(s: &mut Session, primary: &StdioWire) {
    if s.findings.iter().any(|f| f.id == PROCESS.id) {
        return;
    }
    let pid = primary.process.pid();
    let started = format!("started without a shell in its own process group (pid {pid})");
    match stdout_lines(s).first() {
        Some(first) => s.add(
            PROCESS
                .pass(format!("{started}; the first line it wrote is req#{first}"))
                .evidence([*first]),
        ),
        None => s.add(
            PROCESS
                .pass(format!("{started}; it wrote nothing to stdout"))
                .without_exchange(),
        ),
    }
}

/// How much of an offending stdout line is quoted.
const QUOTE: usize = 200;
/// How much stderr is kept in the `stdio.stderr` finding.
const STDERR_SHOWN: usize = 4000;

/// The recorder sequence numbers of every line the server(s) wrote to stdout.
fn stdout_lines(s: &Session) -> Vec<crate::report::exchange::Seq> {
    s.recorder
        .shared()
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
    connector.stop_spares(grace).await;
    let wires = connector.stdio_wires();
    let Some(primary) = wires.first().cloned() else {
        return;
    };

    stdout_clean(s, &wires);
    ordering(s, &wires);
    process(s, &primary);
    alive(s, &primary, grace).await;
    environment(s, &primary);

    // The run's own process is shut down alone, and its time is what is judged: closed
    // together with every other process of the run (up to eight of one server on two
    // cores), each would take longer to exit than it does alone. The others are closed
    // together after it (each gets its own grace), and only whether they exit at all counts.
    let mut endings = vec![primary.close(grace).await];
    endings
        .extend(futures_util::future::join_all(wires.iter().skip(1).map(|w| w.close(grace))).await);
    stderr(s, &primary).await;
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
async fn alive(s: &mut Session, primary: &StdioWire, grace: Duration) {
    // A process that never got going is reported once, by `stdio.process`.
    if s.findings
        .iter()
        .any(|f| f.id == PROCESS.id && f.status == crate::report::finding::Status::Fail)
    {
        s.add(ALIVE.skip(
            SkipReason::NotAssessed,
            "the process exited before it answered its first request (see stdio.process)",
        ));
        return;
    }
    // A process whose stdout closed on its own is exiting: its status is waited for (a
    // Python server closes its streams before its interpreter exits), never taken for alive.
    match primary.ended_on_its_own(grace).await {
        // The OS says it has not exited; the last line it wrote shows it was serving to the
        // end, so the pass cites that line.
        None => s.add(match stdout_lines(s).last().copied() {
            Some(last) => ALIVE
                .pass("the process was still running after the last probe, and the last line it wrote is cited")
                .evidence([last]),
            None => ALIVE
                .pass("the process was still running after the last probe")
                .without_exchange(),
        }),
        Some(status) => {
            // Tied to the last line it read, the message it most likely died of.
            let cause = primary.exited_after().filter(|seq| *seq > 0);
            let after = cause
                .map(|seq| format!(" after req#{seq}"))
                .unwrap_or_default();
            let f = ALIVE.fail(format!(
                "the process exited during the run{after} ({status}); stderr:\n{}",
                tail(&primary.process.stderr_to_end(STDERR_END).await, 2000)
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

/// `stdio.ordering`: whether every wait for an answer that may not come ended at a sentinel's
/// answer, or some used the bounded quiet window, and what showed that they had to.
fn ordering(s: &mut Session, wires: &[Arc<StdioWire>]) {
    let orders: Vec<_> = wires.iter().map(|w| w.order()).collect();
    let sentinels: u64 = orders.iter().map(|o| o.sentinels).sum();
    let windows: u64 = orders.iter().map(|o| o.quiet_windows).sum();
    let quiet = crate::client::QUIET.as_millis();
    if windows == 0 {
        let first = orders.iter().find_map(|o| o.first_sentinel);
        match first {
            None => s.add(ORDERING.skip(
                SkipReason::NotAssessed,
                "no message that may get no answer was sent over stdio",
            )),
            Some(first) => s.add(
                ORDERING
                    .info(format!(
                        "each of the {sentinels} wait(s) for an answer that may not come ended when the server answered the ping scout sent behind the message: no wait was a fixed window"
                    ))
                    .evidence([first]),
            ),
        }
        return;
    }
    // Whichever showed it first is what made the window necessary.
    let out_of_order = orders.iter().filter_map(|o| o.out_of_order).min();
    let unanswered = orders.iter().filter_map(|o| o.unanswered).min();
    let (why, seq) = match (out_of_order, unanswered) {
        (Some(o), u) if u.is_none_or(|u| o < u) => (
            format!(
                "a reply with id null (req#{o}) came when no message was waiting for one: on this wire an answer can come after the ping sent behind its message"
            ),
            Some(o),
        ),
        (_, Some(u)) => (
            format!("the server left scout's ping (req#{u}) unanswered within the timeout"),
            Some(u),
        ),
        _ => ("a ping could not tell".to_string(), None),
    };
    let detail = format!(
        "{why}, so {windows} later wait(s) for an answer that may not come used the bounded {quiet} ms quiet window instead: the 'no answer' verdicts after it rest on that window"
    );
    match seq {
        Some(seq) => s.add(ORDERING.info(detail).evidence([seq])),
        None => s.add(ORDERING.info(detail).without_exchange()),
    }
}

/// `stdio.stderr`: what the server wrote to stderr, kept for the reader.
async fn stderr(s: &mut Session, primary: &StdioWire) {
    let stderr = primary.process.stderr_to_end(STDERR_END).await;
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

/// `stdio.shutdown`: how the run's own process ended when scout closed its stdin, closed
/// alone and timed; the other processes of the run, closed together, count only when one
/// did not exit at all (it needed SIGKILL): a warning when the run's own process exited.
fn shutdown(
    s: &mut Session,
    primary: &StdioWire,
    endings: &[crate::transport::stdio::Shutdown],
    grace: Duration,
) {
    let stuck = others_that_did_not_exit(endings);
    let note = if stuck > 0 {
        format!(
            " ({stuck} other process(es) of this run ignored stdin closing and SIGTERM and were killed with SIGKILL)"
        )
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
        Ending::ExitedOnStdinClose(st) if !first.stdout_held_open && stuck > 0 => {
            SHUTDOWN.warn(format!(
                "`{cmd}` exited ({st}) {} ms after stdin was closed{note}",
                first.elapsed.as_millis()
            ))
        }
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

/// How many of the run's other processes (every ending but the first) did not exit at all:
/// closed together, under the load of each other, they are not timed; one that ignored both
/// stdin closing and SIGTERM is a server that does not shut down.
fn others_that_did_not_exit(endings: &[crate::transport::stdio::Shutdown]) -> usize {
    endings
        .iter()
        .skip(1)
        .filter(|e| matches!(e.ending, Ending::NeededSigkill(_)))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::stdio::Shutdown;

    fn ended(ending: Ending) -> Shutdown {
        Shutdown {
            ending,
            stdout_held_open: false,
            elapsed: Duration::from_millis(1),
        }
    }

    #[test]
    fn the_other_processes_count_only_when_they_did_not_exit() {
        // Previously every process that needed SIGTERM was counted, and all were closed at
        // once, so the load of closing them slowed the run's own process too.
        let endings = [
            ended(Ending::ExitedOnStdinClose("exit 0".into())),
            ended(Ending::NeededSigterm("signal 15".into())),
            ended(Ending::AlreadyExited("exit 0".into())),
        ];
        assert_eq!(others_that_did_not_exit(&endings), 0);
        let stuck = [
            ended(Ending::NeededSigkill("signal 9".into())),
            ended(Ending::NeededSigkill("signal 9".into())),
        ];
        // The first ending is the run's own process, judged on its own.
        assert_eq!(others_that_did_not_exit(&stuck), 1);
    }
}
