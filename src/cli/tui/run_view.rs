//! The live phase list of `scout check` on a terminal, drawn on stderr with indicatif from the
//! run's [`RunEvent`]s: per running server a line with its progress and, below it, one line
//! per phase that has started — a spinner while it runs, then a mark — with the pass / warn /
//! fail counts of its findings as they come. Phases may overlap and several servers may run
//! at once (`--jobs`); each has its own lines. When a server finishes, its phase lines fold
//! into its one summary line, so a long fleet run leaves one line per server, and the report
//! follows on stdout exactly as without the view.
//!
//! While the run goes, the counts are of findings as recorded; when it ends, each server's
//! line is settled on the finished report's score and counts (after the rules over every
//! server, `[checks] ignore` and the baseline), so it agrees with the report below it.

use std::collections::BTreeMap;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use tokio::sync::mpsc::UnboundedReceiver;

use crate::report::Report;
use crate::report::finding::{Phase, Status};
use crate::telemetry::events::RunEvent;

/// How often the spinners turn (indicatif itself draws at most 20 times a second).
const TICK: Duration = Duration::from_millis(100);

/// Spinner frames; the last string is what a finished line shows (replaced by its mark).
const FRAMES: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// Findings counted by status.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub pass: u32,
    pub info: u32,
    pub warn: u32,
    pub fail: u32,
    pub skip: u32,
}

impl Counts {
    /// Counts one more finding.
    pub fn add(&mut self, status: Status) {
        let n = match status {
            Status::Pass => &mut self.pass,
            Status::Info => &mut self.info,
            Status::Warn => &mut self.warn,
            Status::Fail => &mut self.fail,
            Status::Skip => &mut self.skip,
        };
        *n += 1;
    }

    /// `3 pass · 1 warn · 0 fail`, then info and skip when there are any.
    pub fn describe(&self) -> String {
        let mut s = format!(
            "{} pass · {} warn · {} fail",
            self.pass, self.warn, self.fail
        );
        if self.info > 0 {
            s.push_str(&format!(" · {} info", self.info));
        }
        if self.skip > 0 {
            s.push_str(&format!(" · {} skip", self.skip));
        }
        s
    }

    /// The mark a finished line gets.
    pub fn mark(&self) -> Mark {
        if self.fail > 0 {
            Mark::Fail
        } else if self.warn > 0 {
            Mark::Warn
        } else if self.pass + self.info > 0 {
            Mark::Pass
        } else {
            Mark::Nothing
        }
    }
}

/// How a finished line is marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// Something failed.
    Fail,
    /// Warnings, no failures.
    Warn,
    /// Only passes and observations.
    Pass,
    /// Nothing was assessed (all skipped, or interrupted before any finding).
    Nothing,
}

impl Mark {
    fn glyph(self) -> &'static str {
        match self {
            Mark::Fail => "✗",
            Mark::Warn => "!",
            Mark::Pass => "✓",
            Mark::Nothing => "·",
        }
    }

    /// An indicatif colour name.
    fn color(self) -> &'static str {
        match self {
            Mark::Fail => "red",
            Mark::Warn => "yellow",
            Mark::Pass => "green",
            Mark::Nothing => "dim",
        }
    }
}

/// A phase that has not started: a dim dot, no spinner.
fn pending_style() -> ProgressStyle {
    ProgressStyle::with_template(PHASE_PENDING)
        .unwrap_or_else(|_| ProgressStyle::default_spinner())
        .tick_strings(&["·", "·"])
}

/// A template for a running line (a spinner) or a finished one (its mark in its colour).
fn style(template: &str, mark: Option<Mark>) -> ProgressStyle {
    let (color, frames): (&str, Vec<&str>) = match mark {
        None => ("cyan", FRAMES.iter().copied().chain([" "]).collect()),
        Some(m) => (m.color(), vec![m.glyph(), m.glyph()]),
    };
    // The templates are constants; a bad one would be a bug shown as a plain spinner.
    ProgressStyle::with_template(&template.replace("COLOR", color))
        .unwrap_or_else(|_| ProgressStyle::default_spinner())
        .tick_strings(&frames)
}

// `wide_msg` fills the line and is cut to fit it: a line never wraps.
const SERVER_RUNNING: &str = "{spinner:.COLOR} {prefix:.bold} {wide_msg} {elapsed:.dim}";
const SERVER_DONE: &str = "{spinner:.COLOR} {prefix:.bold} {wide_msg}";
const PHASE_LINE: &str = "  {spinner:.COLOR} {prefix:<12} {wide_msg}";
const PHASE_PENDING: &str = "  {spinner:.dim} {prefix:<12} {wide_msg:.dim}";
const TOTAL_LINE: &str = "{spinner:.COLOR} {wide_msg}";

/// The longest server name shown (longer ones are cut: a line must fit the terminal).
const NAME_WIDTH: usize = 40;

/// Where a phase of one server is: every phase has its line from the server's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PhaseState {
    Pending,
    Running,
    Done,
}

/// One phase of one server.
struct PhaseLine {
    bar: ProgressBar,
    counts: Counts,
    state: PhaseState,
}

impl PhaseLine {
    /// From pending to running (a spinner and its counts); a running or done line stays.
    fn start(&mut self) {
        if self.state == PhaseState::Pending {
            self.state = PhaseState::Running;
            self.bar.set_style(style(PHASE_LINE, None));
            self.bar.set_message(self.counts.describe());
        }
    }
}

/// One server: its summary line and its phases' lines.
struct ServerLine {
    header: ProgressBar,
    phases: BTreeMap<Phase, PhaseLine>,
    counts: Counts,
    phases_done: usize,
    done: bool,
}

impl ServerLine {
    fn header_message(&self) -> String {
        format!(
            "{}/{} phases · {}",
            self.phases_done,
            Phase::ALL.len(),
            self.counts.describe()
        )
    }
}

/// Everything drawn, and how to update it for each event.
struct Board {
    multi: MultiProgress,
    total: usize,
    finished: usize,
    /// `total > 1`: a first line with the run's progress.
    summary: Option<ProgressBar>,
    /// In the order the servers started.
    servers: Vec<(String, ServerLine)>,
}

impl Board {
    fn new(multi: MultiProgress, total: usize) -> Board {
        let summary = (total > 1).then(|| {
            let bar = multi.add(ProgressBar::new_spinner().with_style(style(TOTAL_LINE, None)));
            bar.set_message(format!("0/{total} servers checked"));
            bar
        });
        Board {
            multi,
            total,
            finished: 0,
            summary,
            servers: Vec::new(),
        }
    }

    fn server(&mut self, name: &str) -> &mut ServerLine {
        let at = match self.servers.iter().position(|(n, _)| n == name) {
            Some(i) => i,
            None => {
                let header = self.multi.add(
                    ProgressBar::new_spinner()
                        .with_style(style(SERVER_RUNNING, None))
                        .with_prefix(name.chars().take(NAME_WIDTH).collect::<String>()),
                );
                // Every phase is listed from the start, pending until it runs.
                let mut phases = BTreeMap::new();
                let mut after = header.clone();
                for phase in Phase::ALL {
                    let bar = self.multi.insert_after(
                        &after,
                        ProgressBar::new_spinner()
                            .with_style(pending_style())
                            .with_prefix(phase.as_str()),
                    );
                    bar.set_message("pending");
                    after = bar.clone();
                    phases.insert(
                        phase,
                        PhaseLine {
                            bar,
                            counts: Counts::default(),
                            state: PhaseState::Pending,
                        },
                    );
                }
                let line = ServerLine {
                    header,
                    phases,
                    counts: Counts::default(),
                    phases_done: 0,
                    done: false,
                };
                line.header.set_message(line.header_message());
                self.servers.push((name.to_string(), line));
                self.servers.len() - 1
            }
        };
        &mut self.servers[at].1
    }

    fn phase<'a>(
        multi: &MultiProgress,
        server: &'a mut ServerLine,
        phase: Phase,
    ) -> &'a mut PhaseLine {
        // In phase order under the server's line, whatever order they started in.
        let after = server
            .phases
            .range(..phase)
            .next_back()
            .map(|(_, p)| p.bar.clone())
            .unwrap_or_else(|| server.header.clone());
        server.phases.entry(phase).or_insert_with(|| {
            let bar = multi.insert_after(
                &after,
                ProgressBar::new_spinner()
                    .with_style(style(PHASE_LINE, None))
                    .with_prefix(phase.as_str()),
            );
            bar.set_message(Counts::default().describe());
            PhaseLine {
                bar,
                counts: Counts::default(),
                state: PhaseState::Running,
            }
        })
    }

    fn apply(&mut self, event: RunEvent) {
        match event {
            RunEvent::ServerStarted { server } => {
                self.server(&server);
                self.update_summary();
            }
            RunEvent::PhaseStarted { server, phase } => {
                let multi = self.multi.clone();
                let s = self.server(&server);
                if !s.done {
                    Self::phase(&multi, s, phase).start();
                }
            }
            RunEvent::Finding {
                server,
                phase,
                status,
                ..
            } => {
                let multi = self.multi.clone();
                let s = self.server(&server);
                s.counts.add(status);
                if s.done {
                    return;
                }
                s.header.set_message(s.header_message());
                // stdio.* findings of a finished protocol phase still count on its line.
                let p = Self::phase(&multi, s, phase);
                p.counts.add(status);
                p.start();
                p.bar.set_message(p.counts.describe());
            }
            RunEvent::PhaseFinished { server, phase } => {
                let multi = self.multi.clone();
                let s = self.server(&server);
                if s.done {
                    return;
                }
                s.phases_done += 1;
                let p = Self::phase(&multi, s, phase);
                if p.state != PhaseState::Done {
                    p.state = PhaseState::Done;
                    p.bar.set_style(style(PHASE_LINE, Some(p.counts.mark())));
                    p.bar.finish();
                }
                s.header.set_message(s.header_message());
            }
            RunEvent::ServerFinished { server, score } => {
                let multi = self.multi.clone();
                let s = self.server(&server);
                if s.done {
                    return;
                }
                s.done = true;
                // Fold the phases into the server's one line.
                for p in s.phases.values() {
                    multi.remove(&p.bar);
                }
                s.phases.clear();
                let score = match score {
                    Some(n) => format!("score {n}"),
                    None => "not assessed".to_string(),
                };
                // A server without a score is not shown as passed, whatever ran.
                let mark = match s.counts.mark() {
                    Mark::Pass if score == "not assessed" => Mark::Nothing,
                    m => m,
                };
                s.header.set_style(style(SERVER_DONE, Some(mark)));
                s.header
                    .finish_with_message(format!("{score} · {}", s.counts.describe()));
                self.finished += 1;
                self.update_summary();
            }
        }
    }

    fn update_summary(&self) {
        if let Some(bar) = &self.summary {
            let running = self.servers.iter().filter(|(_, s)| !s.done).count();
            bar.set_message(format!(
                "{}/{} servers checked · {running} running",
                self.finished, self.total
            ));
        }
    }

    fn tick(&self) {
        for bar in self.running_bars() {
            bar.tick();
        }
    }

    fn running_bars(&self) -> impl Iterator<Item = &ProgressBar> {
        self.summary
            .iter()
            .chain(self.servers.iter().flat_map(|(_, s)| {
                std::iter::once(&s.header).filter(|_| !s.done).chain(
                    s.phases
                        .values()
                        .filter(|p| p.state == PhaseState::Running)
                        .map(|p| &p.bar),
                )
            }))
    }

    /// The finished report is the authority: each server's line is redrawn with its final
    /// score and counts (after the rules over every server, `[checks] ignore` and the
    /// baseline), so the view never disagrees with the report below it.
    fn settle(&mut self, finals: Vec<Final>) {
        for f in finals {
            let Some((_, s)) = self.servers.iter_mut().find(|(n, _)| *n == f.server) else {
                continue;
            };
            s.counts = f.counts;
            let score = match f.score {
                Some(n) => format!("score {n}"),
                None => "not assessed".to_string(),
            };
            let mark = match f.counts.mark() {
                Mark::Pass if f.score.is_none() => Mark::Nothing,
                m => m,
            };
            s.header.set_style(style(SERVER_DONE, Some(mark)));
            s.header
                .finish_with_message(format!("{score} · {}", f.counts.describe()));
        }
    }

    /// The run is over: whatever still spins (an interrupted server that sent no end) stops
    /// where it is; the run's progress line goes.
    fn close(&mut self) {
        for (_, s) in &self.servers {
            for p in s.phases.values() {
                if !p.bar.is_finished() {
                    p.bar.abandon();
                }
            }
            if !s.header.is_finished() {
                s.header.abandon();
            }
        }
        if let Some(bar) = &self.summary {
            bar.finish_and_clear();
        }
    }
}

/// A server's result as the finished report has it.
#[derive(Debug, Clone, PartialEq)]
struct Final {
    server: String,
    score: Option<u8>,
    counts: Counts,
}

/// Each server's final score and counts (suppressed findings do not count, as in the report).
fn finals(report: &Report) -> Vec<Final> {
    report
        .servers
        .iter()
        .map(|s| {
            let mut counts = Counts::default();
            for f in s.findings.iter().filter(|f| f.suppressed.is_none()) {
                counts.add(f.status);
            }
            Final {
                server: s.name.clone(),
                score: s.score,
                counts,
            }
        })
        .collect()
}

/// The live view of a running check.
pub struct RunView {
    task: tokio::task::JoinHandle<()>,
    stop: tokio::sync::oneshot::Sender<Vec<Final>>,
    _no_echo: super::NoEcho,
}

impl RunView {
    /// Starts drawing the events of a run of `total` servers on stderr. Must be called inside
    /// the run's tokio runtime.
    pub fn start(total: usize, mut events: UnboundedReceiver<RunEvent>) -> RunView {
        let no_echo = super::NoEcho::start();
        let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
        super::set_active(Some(multi.clone()));
        let (stop, mut stopped) = tokio::sync::oneshot::channel::<Vec<Final>>();
        let task = tokio::spawn(async move {
            let mut board = Board::new(multi, total);
            let mut ticker = tokio::time::interval(TICK);
            loop {
                tokio::select! {
                    event = events.recv() => match event {
                        Some(e) => board.apply(e),
                        None => break,
                    },
                    _ = ticker.tick() => board.tick(),
                    finals = &mut stopped => {
                        // Everything the run sent is queued by now: draw it, then stop
                        // (without waiting for every observer clone to be dropped).
                        while let Ok(e) = events.try_recv() {
                            board.apply(e);
                        }
                        board.settle(finals.unwrap_or_default());
                        break;
                    }
                }
            }
            board.close();
        });
        RunView {
            task,
            stop,
            _no_echo: no_echo,
        }
    }

    /// The run is over and `report` is its result: draws the last events, settles each
    /// server's line on the report's score and counts, and leaves the lines on the terminal,
    /// above what is printed next.
    pub async fn finish(self, report: &Report) {
        let _ = self.stop.send(finals(report));
        // A panic in the view is not worth failing the run for; the report still follows.
        let _ = self.task.await;
        super::set_active(None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_describe_and_mark() {
        let mut c = Counts::default();
        assert_eq!(c.describe(), "0 pass · 0 warn · 0 fail");
        assert_eq!(c.mark(), Mark::Nothing);
        c.add(Status::Pass);
        c.add(Status::Info);
        assert_eq!(c.mark(), Mark::Pass);
        c.add(Status::Warn);
        c.add(Status::Skip);
        c.add(Status::Skip);
        assert_eq!(c.describe(), "1 pass · 1 warn · 0 fail · 1 info · 2 skip");
        assert_eq!(c.mark(), Mark::Warn);
        c.add(Status::Fail);
        assert_eq!(c.mark(), Mark::Fail);
    }

    fn finding(server: &str, phase: Phase, status: Status) -> RunEvent {
        RunEvent::Finding {
            server: server.into(),
            phase,
            id: format!("{phase}.x"),
            status,
            subject: None,
        }
    }

    /// Overlapping phases of two servers each keep their own counts, phase lines sit in
    /// phase order under their server, and a finished server folds into one line.
    #[test]
    fn overlapping_phases_and_servers() {
        let mut b = Board::new(
            MultiProgress::with_draw_target(ProgressDrawTarget::hidden()),
            2,
        );
        for e in [
            RunEvent::ServerStarted { server: "a".into() },
            RunEvent::ServerStarted { server: "b".into() },
            RunEvent::PhaseStarted {
                server: "a".into(),
                phase: Phase::Catalog,
            },
            RunEvent::PhaseStarted {
                server: "a".into(),
                phase: Phase::Protocol,
            },
            finding("a", Phase::Catalog, Status::Warn),
            finding("a", Phase::Protocol, Status::Pass),
            finding("a", Phase::Protocol, Status::Pass),
            finding("b", Phase::Protocol, Status::Fail),
            RunEvent::PhaseFinished {
                server: "a".into(),
                phase: Phase::Protocol,
            },
        ] {
            b.apply(e);
        }
        let a = &b.servers[0].1;
        // Every phase is listed from the start; the ones not begun say so.
        assert_eq!(a.phases.keys().copied().collect::<Vec<_>>(), Phase::ALL);
        assert_eq!(a.phases[&Phase::Protocol].counts.pass, 2);
        assert_eq!(a.phases[&Phase::Protocol].state, PhaseState::Done);
        assert_eq!(a.phases[&Phase::Catalog].state, PhaseState::Running);
        assert_eq!(a.phases[&Phase::Security].state, PhaseState::Pending);
        assert_eq!(a.phases[&Phase::Security].bar.message(), "pending");
        assert_eq!(a.phases[&Phase::Catalog].counts.warn, 1);
        assert_eq!(a.counts.describe(), "2 pass · 1 warn · 0 fail");
        assert_eq!(a.header.message(), "1/12 phases · 2 pass · 1 warn · 0 fail");
        assert_eq!(b.servers[1].1.counts.fail, 1);
        // The running bars: the run's line, both servers, a's catalog and b's protocol.
        assert_eq!(b.running_bars().count(), 5);

        b.apply(RunEvent::ServerFinished {
            server: "a".into(),
            score: Some(95),
        });
        let a = &b.servers[0].1;
        assert!(a.done && a.phases.is_empty());
        assert_eq!(a.header.message(), "score 95 · 2 pass · 1 warn · 0 fail");
        assert_eq!(
            b.summary.as_ref().map(ProgressBar::message).as_deref(),
            Some("1/2 servers checked · 1 running")
        );
        // A late event of a finished server changes nothing drawn.
        b.apply(finding("a", Phase::Security, Status::Fail));
        assert!(b.servers[0].1.phases.is_empty());
        // The report has the last word: a's line takes its score and counts.
        let mut counts = Counts::default();
        counts.add(Status::Pass);
        b.settle(vec![Final {
            server: "a".into(),
            score: Some(90),
            counts,
        }]);
        assert_eq!(
            b.servers[0].1.header.message(),
            "score 90 · 1 pass · 0 warn · 0 fail"
        );
        b.close();
    }
}
