//! The terminal views, driven in a real pseudo-terminal (portable-pty) whose screen is read
//! back with a terminal emulator (vt100): `scout check` draws its live phase list and then the
//! same report as the plain output; Ctrl-C stops a run of a slow server with every process it
//! started gone; the `scout tools` selector calls a read-only tool through the policy and is
//! refused a mutating one. Off a terminal, and with `--no-tui`, the output is the plain one.

use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

use crate::common::{Scout, fixture, is_scrubbed};

/// Screen size: wide enough that no report line wraps, tall enough for a whole report.
const ROWS: u16 = 100;
const COLS: u16 = 220;

/// How long a condition may take before the test gives up (a hang, not a speed limit).
const PATIENCE: Duration = Duration::from_secs(90);

/// What the terminal showed.
#[derive(Default)]
struct Seen {
    parser: Option<vt100::Parser>,
    /// Phase names seen on a live phase line (`  ⠋ protocol    3 pass · 0 warn · 0 fail`).
    phase_lines: std::collections::BTreeSet<String>,
    /// Phase names seen on a pending phase line (`  · security    pending`).
    pending_lines: std::collections::BTreeSet<String>,
    /// Every byte scout wrote to the terminal, as written.
    raw: Vec<u8>,
    ended: bool,
}

/// `scout` running in a pseudo-terminal.
struct Pty {
    seen: Arc<Mutex<Seen>>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
    master: Box<dyn portable_pty::MasterPty + Send>,
    /// The terminal's local mode flags before scout started (raw mode must be undone).
    cooked: String,
}

/// The rows of the screen, trailing blanks removed.
fn rows(p: &vt100::Parser) -> Vec<String> {
    p.screen()
        .rows(0, COLS)
        .map(|r| r.trim_end().to_string())
        .collect()
}

/// A line of the live view for a phase: indentation, a spinner or mark, the phase, counts.
fn phase_line(line: &str) -> Option<String> {
    let rest = line.strip_prefix("  ")?;
    let mut words = rest.split_whitespace();
    let _mark = words.next()?;
    let phase = words.next()?;
    let counts: Vec<&str> = words.collect();
    let shaped = counts.len() >= 8
        && counts[1] == "pass"
        && counts[4] == "warn"
        && counts[7] == "fail"
        && [0, 3, 6].iter().all(|i| counts[*i].parse::<u32>().is_ok());
    (shaped && scout::report::finding::Phase::parse(phase).is_some()).then(|| phase.to_string())
}

/// The phase of a pending phase line (`  · security    pending`).
fn pending_line(line: &str) -> Option<String> {
    let mut words = line.strip_prefix("  ")?.split_whitespace();
    let (_mark, phase, state) = (words.next()?, words.next()?, words.next()?);
    (state == "pending"
        && words.next().is_none()
        && scout::report::finding::Phase::parse(phase).is_some())
    .then(|| phase.to_string())
}

impl Pty {
    fn spawn(args: &[&str], dir: &Path) -> Pty {
        Pty::spawn_with(args, dir, &[])
    }

    /// [`Pty::spawn`] with extra environment variables.
    fn spawn_with(args: &[&str], dir: &Path, env: &[(&str, &str)]) -> Pty {
        Pty::spawn_sized(args, dir, env, COLS)
    }

    /// [`Pty::spawn_with`] on a terminal `cols` columns wide.
    fn spawn_sized(args: &[&str], dir: &Path, env: &[(&str, &str)], cols: u16) -> Pty {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pseudo-terminal");
        let cooked = pair
            .master
            .get_termios()
            .map(|t| format!("{:?}", t.local_flags))
            .unwrap_or_default();
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_scout"));
        cmd.args(args);
        cmd.cwd(dir);
        for (name, _) in std::env::vars_os() {
            if is_scrubbed(&name.to_string_lossy()) {
                cmd.env_remove(&name);
            }
        }
        cmd.env("TERM", "xterm-256color");
        cmd.env("PYTHONDONTWRITEBYTECODE", "1");
        for (name, value) in env {
            cmd.env(name, value);
        }
        let child = pair.slave.spawn_command(cmd).expect("scout starts");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("reader");
        let writer = pair.master.take_writer().expect("writer");
        let seen = Arc::new(Mutex::new(Seen {
            parser: Some(vt100::Parser::new(
                std::num::NonZeroU16::new(ROWS).expect("rows"),
                std::num::NonZeroU16::new(cols).expect("cols"),
                0,
            )),
            ..Seen::default()
        }));
        let into = seen.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            loop {
                // EOF or EIO: every process holding the terminal is gone.
                let n = match reader.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                let mut s = into.lock().expect("lock");
                s.raw.extend_from_slice(&buf[..n]);
                let Seen {
                    parser,
                    phase_lines,
                    pending_lines,
                    ..
                } = &mut *s;
                if let Some(p) = parser {
                    p.process(&buf[..n]);
                    let rows = rows(p);
                    phase_lines.extend(rows.iter().filter_map(|r| phase_line(r)));
                    pending_lines.extend(rows.iter().filter_map(|r| pending_line(r)));
                }
            }
            into.lock().expect("lock").ended = true;
        });
        Pty {
            seen,
            writer,
            child,
            master: pair.master,
            cooked,
        }
    }

    /// The screen's rows, one a line. (Not `contents()`: it joins a row that filled the
    /// whole width with the next one, and the live view's lines fill it.)
    fn screen(&self) -> String {
        let s = self.seen.lock().expect("lock");
        s.parser.as_ref().map(rows).unwrap_or_default().join("\n")
    }

    /// Waits until the screen satisfies `cond` (panics with the screen after [`PATIENCE`]).
    fn wait_for(&self, what: &str, cond: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if cond(&screen) {
                return screen;
            }
            assert!(
                start.elapsed() < PATIENCE,
                "the terminal never showed {what}; it shows:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).expect("write to the terminal");
        self.writer.flush().expect("flush");
    }

    /// Waits for scout to exit; its exit code.
    fn exit_code(&mut self) -> u32 {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                // Let the reader take in the last bytes.
                while !self.seen.lock().expect("lock").ended && start.elapsed() < PATIENCE {
                    std::thread::sleep(Duration::from_millis(20));
                }
                return status.exit_code();
            }
            if start.elapsed() > PATIENCE {
                let _ = self.child.kill();
                panic!("scout did not exit; the terminal shows:\n{}", self.screen());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The terminal is as scout found it: main screen, cursor shown, line mode back on.
    fn assert_restored(&self) {
        let s = self.seen.lock().expect("lock");
        let screen = s.parser.as_ref().expect("parser").screen();
        assert!(!screen.alternate_screen(), "left on the alternate screen");
        assert!(!screen.hide_cursor(), "the cursor is still hidden");
        let now = self
            .master
            .get_termios()
            .map(|t| format!("{:?}", t.local_flags))
            .unwrap_or_default();
        assert_eq!(now, self.cooked, "the terminal's modes were not restored");
    }
}

/// The lines of a text report that say what was found: each category's score and counts,
/// each failing or warning check (status, id, subject, era, title), and the gate.
fn findings(report: &str) -> Vec<String> {
    report
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            let phase = t.split_whitespace().next().unwrap_or_default();
            (l.starts_with("  ")
                && !l.starts_with("   ")
                && scout::report::finding::Phase::parse(phase).is_some()
                && !t.contains(" pass · "))
                || t.starts_with("FAIL ")
                || t.starts_with("WARN ")
                || t.starts_with("gate: ")
        })
        .map(|l| l.trim_end().to_string())
        .collect()
}

/// `scout check` on a terminal: the phase list appears while the run goes, then the report
/// lists the same findings as the plain report of the same server (`--no-tui`, same terminal)
/// and as the output off a terminal.
#[test]
fn check_shows_the_phase_list_then_the_same_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = fixture("poisoned_tool.py").display().to_string();
    let check = ["check", "--stdio", "--", "python3", server.as_str()];

    let mut live = Pty::spawn(&check, dir.path());
    let live_code = live.exit_code();
    let live_screen = live.screen();
    let phases = live.seen.lock().expect("lock").phase_lines.clone();
    assert!(
        phases.len() >= 2 && phases.contains("security"),
        "the live phase list showed too few phases ({phases:?}); the screen ends as:\n{live_screen}"
    );
    // The phases not begun yet are listed from the start, as pending: the last one at least.
    let pending = live.seen.lock().expect("lock").pending_lines.clone();
    assert!(
        pending.contains("security"),
        "no phase was shown pending ({pending:?}); the screen ends as:\n{live_screen}"
    );
    // The server's line stays, folded, with the report's score and counts.
    let folded = live_screen
        .lines()
        .find(|l| l.contains("poisoned_tool score ") && l.contains(" fail"))
        .unwrap_or_else(|| panic!("no folded server line:\n{live_screen}"));
    let score = |text: &str| {
        text.split("score ")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .map(str::to_string)
    };
    let headline = live_screen
        .lines()
        .find(|l| l.contains(" exchanges in "))
        .unwrap_or_default();
    assert!(score(folded).is_some(), "{folded}");
    assert_eq!(score(folded), score(headline), "{folded}\n{headline}");
    assert!(folded.contains(" 8 fail"), "{folded}");

    let mut plain = Pty::spawn(
        &[
            "--no-tui",
            "check",
            "--stdio",
            "--",
            "python3",
            server.as_str(),
        ],
        dir.path(),
    );
    let plain_code = plain.exit_code();
    let plain_screen = plain.screen();
    assert!(
        plain.seen.lock().expect("lock").phase_lines.is_empty()
            && !plain_screen.contains(" pass · "),
        "--no-tui drew a live view:\n{plain_screen}"
    );

    let piped = Scout::new().dir(dir.path()).args(check).run();
    assert_eq!(live_code, plain_code);
    assert_eq!(piped.code, Some(i32::try_from(live_code).expect("code")));

    let found = findings(&live_screen);
    assert!(
        found
            .iter()
            .any(|l| l.contains("FAIL major  security.tool_poisoning")),
        "no failing check in the live report:\n{live_screen}"
    );
    assert_eq!(found, findings(&plain_screen), "live vs --no-tui");
    assert_eq!(found, findings(&piped.stdout), "live vs off a terminal");
}

/// What scout wrote, without colour and cursor codes, split into the lines a terminal
/// starts anew (a carriage return or a line feed).
fn written_lines(raw: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(raw);
    let csi = regex::Regex::new(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>78]")
        .expect("regex");
    csi.replace_all(&text, "")
        .split(['\n', '\r'])
        .map(str::to_string)
        .collect()
}

/// At 80 columns the final report is wrapped by scout at word boundaries, with a hanging
/// indent, so the terminal never breaks a word: no line scout wrote is wider than the
/// terminal unless it is one word (a URL longer than the screen), and the words of the
/// report are those of the same report off a terminal, in the same order.
#[test]
fn at_80_columns_no_word_of_the_report_is_broken() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = fixture("poisoned_tool.py").display().to_string();
    let check = [
        "--no-tui",
        "check",
        "--stdio",
        "--",
        "python3",
        server.as_str(),
    ];
    let mut pty = Pty::spawn_sized(&check, dir.path(), &[], 80);
    pty.exit_code();
    let raw = pty.seen.lock().expect("lock").raw.clone();
    let lines = written_lines(&raw);
    let wide: Vec<&String> = lines
        .iter()
        .filter(|l| l.chars().count() > 80 && l.split_whitespace().count() > 1)
        .collect();
    assert!(
        wide.is_empty(),
        "lines wider than the terminal, which it would break mid-word:\n{}",
        wide.iter()
            .map(|l| l.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    // Wrapped, not cut: the same words as the unwrapped report.
    let piped = Scout::new().dir(dir.path()).args(check).run();
    let words = |text: &str| -> Vec<String> {
        text.split_whitespace()
            // Timings and counts of exchanges differ from run to run.
            .filter(|w| !w.chars().any(|c| c.is_ascii_digit()))
            .map(str::to_string)
            .collect()
    };
    // The report is the end of what the terminal showed (a progress line may come first).
    let (shown, plain) = (words(&lines.join("\n")), words(&piped.stdout));
    assert!(
        plain.len() > 50 && shown.ends_with(&plain),
        "the terminal report has other words than the plain one:\n{}\n---\n{}",
        lines.join("\n"),
        piped.stdout
    );
    assert!(
        piped.stdout.lines().any(|l| l.chars().count() > 80),
        "the plain report has no line over 80 columns, so this test would prove nothing"
    );
}

/// Ctrl-C in the middle of a run of a slow server: the run stops (exit 3, a partial report,
/// as documented), the terminal is usable, and the server and its own child are gone.
#[test]
fn ctrl_c_stops_the_run_and_reaps_the_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pid_file = dir.path().join("pids");
    let set_pid = format!("SCOUT_TEST_PID_FILE={}", pid_file.display());
    let server = fixture("slow_answers.py").display().to_string();
    let mut pty = Pty::spawn(
        &[
            "check",
            "--stdio",
            "--stdio-set",
            &set_pid,
            "--stdio-set",
            "SLOW_ANSWER_SECONDS=0.1",
            "--",
            "python3",
            &server,
        ],
        dir.path(),
    );
    // The run is under way: the handshake is done and the protocol phase is running.
    let screen = pty.wait_for(
        "a finished handshake line and a running protocol line",
        |s| {
            s.lines()
                .any(|l| phase_line(l).as_deref() == Some("handshake") && l.contains("13 pass"))
                && s.lines()
                    .any(|l| phase_line(l).as_deref() == Some("protocol"))
        },
    );
    assert!(screen.contains("slow_answers"), "{screen}");
    let pids: Vec<i32> = std::fs::read_to_string(&pid_file)
        .expect("the fixture wrote its pids")
        .split_whitespace()
        .map(|p| p.parse().expect("a pid"))
        .collect();
    assert_eq!(pids.len(), 2, "the server and its child");
    assert!(pids.iter().all(|p| alive(*p)), "both run before Ctrl-C");

    pty.send(b"\x03");
    let code = pty.exit_code();
    let screen = pty.screen();
    assert_eq!(code, 3, "interrupted = scout could not finish:\n{screen}");
    assert!(screen.contains("scout: interrupted"), "{screen}");
    assert!(
        screen.contains("interrupted: the run stopped before every phase finished"),
        "the partial report follows:\n{screen}"
    );
    pty.assert_restored();
    // The server is scout's child and reaped by it; its own child is killed with its process
    // group (and reaped by whoever adopted it).
    let start = Instant::now();
    while pids.iter().any(|p| alive(*p)) && start.elapsed() < PATIENCE {
        std::thread::sleep(Duration::from_millis(50));
    }
    for p in pids {
        assert!(!alive(p), "process {p} still runs after scout stopped");
    }
}

/// True while `pid` runs (a zombie has stopped running; it only waits to be reaped).
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => false,
        // `pid (comm) S …`: the state follows the last `)`.
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
    }
}

/// The `scout tools` selector: the catalogue with the policy's verdicts; a read-only tool is
/// called with an argument typed into its form and its result shown; a mutating tool is
/// refused by the policy before any form opens and never reaches the server; the list box
/// fits its rows with the details right under it; Esc goes back, Ctrl-C quits (130) and the
/// terminal is restored.
#[test]
fn tools_selector_calls_through_the_policy() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("calls.log");
    let set_log = format!("SCOUT_TEST_CALL_LOG={}", log.display());
    let server = fixture("destructive_tools.py").display().to_string();
    let mut pty = Pty::spawn(
        &[
            "tools",
            "--stdio",
            "--stdio-set",
            &set_log,
            "--",
            "python3",
            &server,
        ],
        dir.path(),
    );
    pty.wait_for("the tool list with the policy's verdicts", |s| {
        s.lines()
            .any(|l| l.contains("> echo") && l.contains("may call"))
            && s.lines()
                .any(|l| l.contains("add_note") && l.contains("refused"))
    });
    pty.send(b"\r");
    pty.wait_for("the form of echo", |s| {
        s.contains("call echo") && s.contains("message* (string)")
    });
    pty.send(b"hello from a pty\r");
    pty.wait_for("echo's result", |s| {
        s.contains("echo — result") && s.contains("Echo: hello from a pty")
    });

    // Back to the form, back to the list, down to add_note.
    pty.send(b"\x1b");
    pty.wait_for("the form again", |s| s.contains("call echo"));
    pty.send(b"\x1b");
    pty.wait_for("the list again", |s| s.contains("↑/↓ pick"));
    pty.send(b"j");
    pty.wait_for("add_note picked", |s| s.contains("> add_note"));
    // The list box fits its rows and the details sit right under it.
    let list = pty.wait_for("add_note's details", |s| s.contains("policy: refused"));
    let lines: Vec<&str> = list.lines().collect();
    // The box's bottom border.
    let last_row = lines
        .iter()
        .position(|l| l.trim_start().starts_with('└'))
        .expect("the list's bottom border");
    assert!(
        lines[last_row - 1].contains("delete_all_notes"),
        "the box ends after its last row:\n{list}"
    );
    let details = lines
        .iter()
        .position(|l| l.contains("policy: refused"))
        .expect("the details");
    assert!(
        details > last_row && details <= last_row + 2,
        "the details are not right under the list:\n{list}"
    );
    // A refused tool says so before any form opens, in the table's words.
    pty.send(b"\r");
    let screen = pty.wait_for("the refusal", |s| {
        s.contains("refused by the safety policy")
    });
    assert!(
        screen.contains("start scout again with --allow-mutations"),
        "{screen}"
    );
    assert!(!screen.contains("(* required)"), "no form opened: {screen}");
    pty.send(b"\r");
    pty.wait_for("the list again", |s| s.contains("↑/↓ pick"));

    pty.send(b"\x03");
    assert_eq!(pty.exit_code(), 130);
    pty.assert_restored();
    let calls = std::fs::read_to_string(&log).expect("the call log");
    assert_eq!(
        calls.lines().collect::<Vec<_>>(),
        ["echo"],
        "add_note never reached the server"
    );
}

/// Off a terminal nothing changes: `--no-tui`, `SCOUT_NO_TUI` and `CI` give the same bytes
/// as no flag at all (the run's duration aside), with no terminal control codes; `scout tools`
/// prints its table.
#[test]
fn plain_output_off_a_terminal_is_unchanged() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = fixture("minimal_server.py").display().to_string();
    let check = [
        "check",
        "--only",
        "discovery,handshake,catalog",
        "--stdio",
        "--",
        "python3",
        server.as_str(),
    ];
    // The one line that changes from run to run: "… N exchanges in N ms …".
    let timing = regex::Regex::new(r"in \d+ ms").expect("regex");
    let run = |scout: Scout| {
        let r = scout.dir(dir.path()).args(check).run();
        (
            r.code,
            timing.replace_all(&r.stdout, "in N ms").into_owned(),
            r.stderr,
        )
    };
    let reference = run(Scout::new());
    assert!(
        !reference.1.contains('\x1b') && !reference.2.contains('\x1b'),
        "control codes off a terminal: {reference:?}"
    );
    assert!(
        reference.1.starts_with("minimal_server  python3 ") && reference.1.contains("gate: passed"),
        "{}",
        reference.1
    );
    for (what, scout) in [
        ("--no-tui", Scout::new().args(["--no-tui"])),
        ("SCOUT_NO_TUI=1", Scout::new().env("SCOUT_NO_TUI", "1")),
        ("CI=true", Scout::new().env("CI", "true")),
    ] {
        assert_eq!(run(scout), reference, "{what}");
    }

    let tools = |extra: &[&str]| {
        Scout::new()
            .dir(dir.path())
            .args(extra)
            .args(["tools", "--stdio", "--", "python3", server.as_str()])
            .run()
    };
    let table = tools(&[]);
    assert_eq!(table.code, Some(0), "{}", table.stderr);
    assert!(table.stdout.contains("may call"), "{}", table.stdout);
    assert_eq!(tools(&["--no-tui"]).stdout, table.stdout);
}

/// On a terminal too, `-q` and CI draw no live view (and `-q` no report).
#[test]
fn quiet_and_ci_draw_no_view_on_a_terminal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = fixture("minimal_server.py").display().to_string();
    let args = |quiet: bool| {
        let mut a = vec![
            "check",
            "--only",
            "discovery,handshake,catalog",
            "--stdio",
            "--",
            "python3",
        ];
        if quiet {
            a.insert(0, "-q");
        }
        a.push(server.as_str());
        a.into_iter().map(str::to_string).collect::<Vec<_>>()
    };
    let quiet = args(true);
    let quiet: Vec<&str> = quiet.iter().map(String::as_str).collect();
    let mut q = Pty::spawn(&quiet, dir.path());
    assert_eq!(q.exit_code(), 0);
    let plain = args(false);
    let plain: Vec<&str> = plain.iter().map(String::as_str).collect();
    let mut ci = Pty::spawn_with(&plain, dir.path(), &[("CI", "true")]);
    assert_eq!(ci.exit_code(), 0);
    for (what, pty) in [("-q", &q), ("CI=true", &ci)] {
        let screen = pty.screen();
        assert!(
            pty.seen.lock().expect("lock").phase_lines.is_empty() && !screen.contains(" pass · "),
            "{what} drew a live view:\n{screen}"
        );
    }
    assert!(!q.screen().contains("gate:"), "-q prints no report");
    assert!(ci.screen().contains("gate: passed"), "{}", ci.screen());
}
