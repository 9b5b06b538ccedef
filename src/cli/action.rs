//! `scout action`: the entry point of scout's GitHub Actions (the container action in
//! `action.yml` and the host action in `host/action.yml`). It takes no flags: everything comes
//! from environment variables, so no input is ever spliced into a shell script.
//!
//! # The contract
//!
//! - Each input is read from `INPUT_<NAME>`, the input's name upper-cased with its hyphens
//!   kept, as GitHub's runner sets it (`INPUT_FAIL-UNDER`). The same name with underscores
//!   (`INPUT_FAIL_UNDER`) is read too, for callers that cannot set a hyphenated name; setting
//!   both to different values is an error. An empty or blank value counts as not given.
//! - [`INPUTS`] lists the inputs; [`CONTRACT`] (also `scout action --help`) says what each one
//!   becomes. Lists (`command`, `start`, `args`) hold one argument per line: each line is
//!   trimmed, blank lines are skipped, nothing is split on spaces and no shell sees them.
//! - The inputs become a `scout check` argument list, parsed by the same clap tree as the
//!   command line and run by [`check::run_with`]: a check from the action behaves exactly like
//!   one typed by hand. Bad inputs stop before anything runs, with one line naming the input
//!   and exit code 2.
//! - scout runs in `$GITHUB_WORKSPACE` when that is set, so relative paths (config, baseline,
//!   out-dir, a config's `start` and `command`) mean the same inside the container as in the
//!   repository. Reports go to `out-dir`, `scout-report` unless given.
//! - Outputs (`$GITHUB_OUTPUT`, written when `GITHUB_ACTIONS=true`, as on every runner):
//!   `score` (the lowest server score), `passed` (`true`/`false`), and for each report written
//!   its path relative to the workspace under the format's name (`json`, `junit`, `sarif`,
//!   `markdown`, `gitlab`, `events`, and `har` for the HAR folder). The Markdown summary is
//!   appended to `$GITHUB_STEP_SUMMARY` when that is set; annotations go to stdout.
//! - Exit codes are `scout check`'s: 0 gate passed, 1 gate failed, 2 bad input or config,
//!   3 scout could not finish.

use std::collections::BTreeMap;
use std::ffi::OsString;

use clap::{Args, Parser};

use crate::cli::args::{Verbosity, parse_category_threshold, parse_severity};
use crate::cli::check::{self, Extra};
use crate::cli::{Cli, CliError, Command};
use crate::emit::outputs::Format;

/// The action's inputs, by the names `action.yml` declares.
pub const INPUTS: [&str; 15] = [
    "url",
    "command",
    "start",
    "server-json",
    "mcpb",
    "config",
    "profile",
    "fail-under",
    "fail-under-category",
    "fail-on",
    "baseline",
    "out-dir",
    "formats",
    "token-env",
    "args",
];

/// Where reports go when `out-dir` is not given (relative to the workspace).
pub const DEFAULT_OUT_DIR: &str = "scout-report";

/// What `scout action --help` shows after the usage: the contract, input by input.
pub const CONTRACT: &str = "\
Inputs come from INPUT_<NAME> variables, as GitHub's runner sets them: the input's name in
capitals with its hyphens (INPUT_FAIL-UNDER); INPUT_FAIL_UNDER is read too. Empty = not given.
Lists take one argument per line; lines are trimmed, blank lines skipped, and no shell is used.

  url                   HTTP(S) URL of the server to check
  command               a stdio server to start: program and arguments, one per line
  start                 start the HTTP server at `url` first: program and arguments, one per line
  server-json           a registry server.json: check each remote and package it publishes
  mcpb                  an MCPB bundle (.mcpb file, or folder with manifest.json) to start and check
  config                config file (default: scout.toml in the workspace, if present)
  profile               profile of the config file
  fail-under            fail when a server's score is below N (0-100)
  fail-under-category   PHASE=N thresholds, one per line or comma-separated
  fail-on               fail on any failing check at or above critical|major|minor
  baseline              baseline file: findings listed there do not count
  out-dir               folder for the reports [default: scout-report]
  formats               reports to write, comma-separated (json, junit, sarif, markdown,
                        gitlab, har, events) [default: all, or the config's `formats`]
  token-env             environment variable holding the HTTP server's bearer token
  args                  more `scout check` arguments, one per line (e.g. --only, then
                        protocol,catalog on the next line)

scout runs in $GITHUB_WORKSPACE. Under GitHub Actions it writes the outputs score, passed and
each report's workspace-relative path (json, junit, sarif, markdown, gitlab, events, har) to
$GITHUB_OUTPUT, and the summary to $GITHUB_STEP_SUMMARY.

Exit codes: 0 gate passed · 1 gate failed · 2 bad input or config · 3 scout could not finish.";

/// `scout action`: no flags, only `INPUT_*` variables.
#[derive(Debug, Clone, Default, Args)]
#[command(after_long_help = CONTRACT)]
pub struct ActionArgs {}

/// Flags that have an input of their own: in `args` they would clash with it.
const OWNED_FLAGS: [(&str, &str); 12] = [
    ("--config", "config"),
    ("--profile", "profile"),
    ("--fail-under", "fail-under"),
    ("--fail-under-category", "fail-under-category"),
    ("--fail-on", "fail-on"),
    ("--baseline", "baseline"),
    ("--out-dir", "out-dir"),
    ("--token-env", "token-env"),
    ("--start", "start"),
    ("--stdio", "command"),
    ("--server-json", "server-json"),
    ("--mcpb", "mcpb"),
];

/// The given inputs (blank ones dropped), by input name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Inputs {
    values: BTreeMap<&'static str, String>,
    /// `INPUT_*` variables that name no input of the action.
    pub unknown: Vec<String>,
}

impl Inputs {
    /// Collects the inputs from `INPUT_*` variables (both spellings of a name).
    pub fn from_vars(
        vars: impl IntoIterator<Item = (OsString, OsString)>,
    ) -> Result<Inputs, CliError> {
        let mut inputs = Inputs::default();
        let mut seen: BTreeMap<&'static str, String> = BTreeMap::new();
        for (key, value) in vars {
            let Some(key) = key.to_str() else { continue };
            let Some(raw) = key.strip_prefix("INPUT_") else {
                continue;
            };
            let normalized = raw.to_ascii_lowercase().replace('_', "-");
            let Some(name) = INPUTS.iter().copied().find(|n| *n == normalized) else {
                inputs.unknown.push(key.to_string());
                continue;
            };
            let value = value
                .into_string()
                .map_err(|_| CliError::Usage(format!("input {name} ({key}) is not valid UTF-8")))?;
            if value.trim().is_empty() {
                continue;
            }
            if let Some(first) = seen.get(name)
                && inputs.values.get(name) != Some(&value)
            {
                return Err(CliError::Usage(format!(
                    "input {name} is given twice with different values, as {first} and {key}; set one of them"
                )));
            }
            seen.insert(name, key.to_string());
            inputs.values.insert(name, value);
        }
        inputs.unknown.sort();
        Ok(inputs)
    }

    /// A single-value input, trimmed; a value spread over several lines is an error.
    fn single(&self, name: &str) -> Result<Option<String>, CliError> {
        let Some(v) = self.values.get(name) else {
            return Ok(None);
        };
        let v = v.trim();
        if v.contains(['\n', '\r']) {
            return Err(CliError::Usage(format!(
                "input {name}: expected one value, got {} lines",
                v.lines().count()
            )));
        }
        Ok(Some(v.to_string()))
    }

    /// A list input: one item per line, trimmed, blank lines skipped.
    fn lines(&self, name: &str) -> Vec<String> {
        self.values
            .get(name)
            .map(|v| {
                v.lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A list input whose items may also be comma-separated.
    fn items(&self, name: &str) -> Vec<String> {
        self.lines(name)
            .iter()
            .flat_map(|l| l.split(','))
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    }
}

/// A value quoted for a one-line message (newlines and control characters escaped).
fn shown(v: &str) -> String {
    let cut: String = v.chars().take(80).collect();
    format!("{cut:?}")
}

/// The `scout check` run the inputs ask for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// `scout check …`, as clap will parse it.
    pub argv: Vec<String>,
    /// The `formats` input (it has no `check` flag: it is the config key, set from here).
    pub formats: Option<Vec<String>>,
}

/// Validates the inputs and turns them into a `scout check` argument list.
pub fn plan(inputs: &Inputs) -> Result<Plan, CliError> {
    let bad = |name: &str, what: String| CliError::Usage(format!("input {name}: {what}"));
    let mut argv: Vec<String> = vec!["scout".into(), "check".into()];

    let url = inputs.single("url")?;
    let command = inputs.lines("command");
    if url.is_some() && !command.is_empty() {
        return Err(CliError::Usage(
            "inputs url and command are both given; give url for an HTTP server or command for a stdio server, not both".into(),
        ));
    }
    if let Some(url) = &url {
        // Also keeps the positional URL from being read as a flag.
        let lower = url.to_ascii_lowercase();
        if !(lower.starts_with("http://") || lower.starts_with("https://")) {
            // Only the scheme is shown: a URL may carry credentials.
            let scheme = url.split_once(':').map_or("no scheme", |(s, _)| s);
            return Err(bad(
                "url",
                format!(
                    "expected an http:// or https:// URL, got {}",
                    if scheme.len() <= 20 && scheme.chars().all(|c| c.is_ascii_alphanumeric()) {
                        format!("one with the scheme {scheme:?}")
                    } else {
                        "something else".to_string()
                    }
                ),
            ));
        }
        argv.push(url.clone());
    }
    // Each names the servers to check: at most one of them.
    let server_json = inputs.single("server-json")?;
    let mcpb = inputs.single("mcpb")?;
    let targets: Vec<&str> = [
        ("url", url.is_some()),
        ("command", !command.is_empty()),
        ("server-json", server_json.is_some()),
        ("mcpb", mcpb.is_some()),
    ]
    .into_iter()
    .filter_map(|(n, given)| given.then_some(n))
    .collect();
    if targets.len() > 1 {
        return Err(CliError::Usage(format!(
            "inputs {} are all given; give one of them (each names the servers to check)",
            targets.join(" and ")
        )));
    }
    // Paths, relative to the workspace (scout runs there), as `config` is.
    if let Some(v) = &server_json {
        argv.push(format!("--server-json={v}"));
    }
    if let Some(v) = &mcpb {
        argv.push(format!("--mcpb={v}"));
    }
    let start = inputs.lines("start");
    if !start.is_empty() && url.is_none() {
        return Err(bad(
            "start",
            "needs url: the address where the started server will answer".into(),
        ));
    }
    argv.extend(start.iter().map(|a| format!("--start={a}")));

    for (name, flag) in [
        ("config", "--config"),
        ("profile", "--profile"),
        ("baseline", "--baseline"),
    ] {
        if let Some(v) = inputs.single(name)? {
            argv.push(format!("{flag}={v}"));
        }
    }
    if let Some(v) = inputs.single("fail-under")? {
        let n: u8 = v.parse().ok().filter(|n| *n <= 100).ok_or_else(|| {
            bad(
                "fail-under",
                format!("expected a whole number from 0 to 100, got {}", shown(&v)),
            )
        })?;
        argv.push(format!("--fail-under={n}"));
    }
    for item in inputs.items("fail-under-category") {
        let (phase, n) =
            parse_category_threshold(&item).map_err(|e| bad("fail-under-category", e))?;
        argv.push(format!("--fail-under-category={}={n}", phase.as_str()));
    }
    if let Some(v) = inputs.single("fail-on")? {
        let s = parse_severity(&v).map_err(|e| bad("fail-on", e))?;
        argv.push(format!("--fail-on={}", s.as_str()));
    }
    let out_dir = inputs
        .single("out-dir")?
        .unwrap_or_else(|| DEFAULT_OUT_DIR.to_string());
    argv.push(format!("--out-dir={out_dir}"));
    if let Some(v) = inputs.single("token-env")? {
        // A GitHub token has the shape of a variable name; it must not be echoed back as one.
        let token_like = ["ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_"]
            .iter()
            .any(|p| v.starts_with(p));
        let valid = !token_like
            && v.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(bad(
                "token-env",
                // The value is not shown: it may be the token itself.
                "expected the name of an environment variable (letters, digits, _), not the token; set that variable from a secret in the step's env".to_string(),
            ));
        }
        argv.push(format!("--token-env={v}"));
    }
    let formats = inputs.items("formats");
    for f in &formats {
        if Format::parse(f).is_none() {
            return Err(bad(
                "formats",
                format!(
                    "{} is not a report format; expected some of {}",
                    shown(f),
                    Format::ALL.map(|f| f.as_str()).join(", ")
                ),
            ));
        }
    }
    for (i, line) in inputs.lines("args").into_iter().enumerate() {
        check_arg(i + 1, &line)?;
        argv.push(line);
    }
    if !command.is_empty() {
        argv.push("--stdio".into());
        argv.push("--".into());
        argv.extend(command);
    }
    Ok(Plan {
        argv,
        formats: (!formats.is_empty()).then_some(formats),
    })
}

/// One line of `args`: any `scout check` argument, except what would take the place of
/// another input or stop the run from being a check.
fn check_arg(n: usize, line: &str) -> Result<(), CliError> {
    let bad = |what: String| CliError::Usage(format!("input args, line {n}: {what}"));
    if line == "--" {
        return Err(bad(
            "`--` is not allowed; give a stdio server's command in the command input".into(),
        ));
    }
    if matches!(line, "-h" | "--help" | "-V" | "--version") {
        return Err(bad(format!(
            "{line} is not a check argument; run `scout check --help` to see them"
        )));
    }
    let flag = line.split_once('=').map_or(line, |(f, _)| f);
    if let Some((_, input)) = OWNED_FLAGS.iter().find(|(f, _)| *f == flag) {
        return Err(bad(format!("use the {input} input instead of {flag}")));
    }
    if line.starts_with('-') && flag.contains(char::is_whitespace) {
        // Only the flag is shown: what follows it may be a secret.
        let first = line.split_whitespace().next().unwrap_or_default();
        return Err(bad(format!(
            "{} and what follows it are on one line; put each argument on its own line (or write {first}=value)",
            shown(first)
        )));
    }
    Ok(())
}

/// `scout action`.
pub fn run(_args: ActionArgs, verbosity: Verbosity) -> Result<u8, CliError> {
    let inputs = Inputs::from_vars(std::env::vars_os())?;
    for key in &inputs.unknown {
        crate::say!("scout action: ignoring {key}: the action has no such input");
    }
    let plan = plan(&inputs)?;
    if let Some(workspace) = std::env::var_os("GITHUB_WORKSPACE").filter(|w| !w.is_empty()) {
        std::env::set_current_dir(&workspace).map_err(|e| {
            CliError::Usage(format!(
                "cannot work in GITHUB_WORKSPACE ({}): {e}",
                std::path::Path::new(&workspace).display()
            ))
        })?;
    }
    let cli = Cli::try_parse_from(&plan.argv).map_err(|e| {
        // clap's message is several lines (usage, tip); its first says what is wrong.
        let text = e.to_string();
        let first = text.lines().next().unwrap_or_default();
        CliError::Usage(format!(
            "the inputs do not make a valid check: {}",
            first.trim_start_matches("error: ")
        ))
    })?;
    let Command::Check(args) = cli.command else {
        return Err(CliError::Internal(
            "the action's argument list did not parse as `scout check`".into(),
        ));
    };
    let verbosity = Verbosity {
        verbose: verbosity.verbose.max(cli.verbosity.verbose),
        quiet: verbosity.quiet || cli.verbosity.quiet,
        // The action runs in CI: plain output, whatever the terminal.
        no_tui: true,
    };
    check::run_with(
        *args,
        verbosity,
        Extra {
            formats: plan.formats,
            ..Extra::default()
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(pairs: &[(&str, &str)]) -> Result<Inputs, CliError> {
        Inputs::from_vars(
            pairs
                .iter()
                .map(|(k, v)| (OsString::from(k), OsString::from(v))),
        )
    }

    fn argv(pairs: &[(&str, &str)]) -> Vec<String> {
        plan(&inputs(pairs).expect("inputs")).expect("plan").argv
    }

    fn error(pairs: &[(&str, &str)]) -> String {
        match inputs(pairs).and_then(|i| plan(&i)) {
            Err(CliError::Usage(m)) => m,
            other => panic!("expected a usage error, got {other:?}"),
        }
    }

    #[test]
    fn both_spellings_are_read_and_blank_is_unset() {
        let a = argv(&[
            ("INPUT_URL", "http://127.0.0.1:1/mcp"),
            ("INPUT_FAIL-UNDER", " 80 "),
            ("INPUT_FAIL_ON", "major"),
            ("INPUT_PROFILE", "  "),
            ("INPUT_OUT-DIR", ""),
        ]);
        assert_eq!(
            a,
            [
                "scout",
                "check",
                "http://127.0.0.1:1/mcp",
                "--fail-under=80",
                "--fail-on=major",
                "--out-dir=scout-report"
            ]
        );
    }

    #[test]
    fn the_same_value_twice_is_fine_different_values_are_not() {
        assert!(inputs(&[("INPUT_FAIL-UNDER", "80"), ("INPUT_FAIL_UNDER", "80")]).is_ok());
        let m = match inputs(&[("INPUT_FAIL-UNDER", "80"), ("INPUT_FAIL_UNDER", "90")]) {
            Err(CliError::Usage(m)) => m,
            other => panic!("{other:?}"),
        };
        assert!(m.contains("fail-under") && m.contains("twice"), "{m}");
    }

    #[test]
    fn unknown_inputs_are_reported_not_used() {
        let i = inputs(&[("INPUT_FAIL_UNDR", "80"), ("INPUTS", "x"), ("PATH", "/bin")])
            .expect("inputs");
        assert_eq!(i.unknown, ["INPUT_FAIL_UNDR"]);
    }

    #[test]
    fn lists_are_one_argument_per_line_and_the_command_goes_last() {
        let a = argv(&[
            (
                "INPUT_COMMAND",
                "npx\n  -y \n\n@modelcontextprotocol/server-everything\n",
            ),
            ("INPUT_ARGS", "--only\nprotocol,catalog\n--stdio-env\nTZ"),
            ("INPUT_FORMATS", "sarif, junit\njson"),
            (
                "INPUT_FAIL-UNDER-CATEGORY",
                "protocol=90, security=80\ncatalog=50",
            ),
        ]);
        assert_eq!(
            a,
            [
                "scout",
                "check",
                "--fail-under-category=protocol=90",
                "--fail-under-category=security=80",
                "--fail-under-category=catalog=50",
                "--out-dir=scout-report",
                "--only",
                "protocol,catalog",
                "--stdio-env",
                "TZ",
                "--stdio",
                "--",
                "npx",
                "-y",
                "@modelcontextprotocol/server-everything"
            ]
        );
        let p = plan(&inputs(&[("INPUT_FORMATS", "sarif, junit\njson")]).expect("inputs"))
            .expect("plan");
        assert_eq!(
            p.formats,
            Some(vec!["sarif".into(), "junit".into(), "json".into()])
        );
    }

    #[test]
    fn start_lines_keep_their_hyphens() {
        let a = argv(&[
            ("INPUT_URL", "http://127.0.0.1:3001/mcp"),
            ("INPUT_START", "node\nserver.js\n--port\n3001"),
        ]);
        assert_eq!(
            &a[3..7],
            [
                "--start=node",
                "--start=server.js",
                "--start=--port",
                "--start=3001"
            ]
        );
        // and clap reads them back as the same argv
        let cli = Cli::try_parse_from(&a).expect("parses");
        let Command::Check(c) = cli.command else {
            panic!("check")
        };
        assert_eq!(c.target.start, ["node", "server.js", "--port", "3001"]);
    }

    #[test]
    fn a_manifest_input_becomes_its_check_flag() {
        for (var, value, flag) in [
            ("INPUT_SERVER-JSON", "dist/server.json", "--server-json"),
            ("INPUT_MCPB", "-odd name.mcpb", "--mcpb"),
        ] {
            let a = argv(&[(var, value)]);
            assert!(a.contains(&format!("{flag}={value}")), "{a:?}");
            // clap reads the path back whole, even one that starts with a hyphen
            let cli = Cli::try_parse_from(&a).expect("parses");
            let Command::Check(c) = cli.command else {
                panic!("check")
            };
            let got = c.target.server_json.or(c.target.mcpb).expect("a path");
            assert_eq!(got, std::path::PathBuf::from(value));
        }
    }

    #[test]
    fn every_bad_input_is_one_line_naming_it() {
        let cases: &[(&[(&str, &str)], &str)] = &[
            (&[("INPUT_FAIL-UNDER", "eighty")], "input fail-under"),
            (&[("INPUT_FAIL-UNDER", "101")], "input fail-under"),
            (&[("INPUT_FAIL-UNDER", "80\n90")], "input fail-under"),
            (&[("INPUT_FAIL-ON", "fatal")], "input fail-on"),
            (
                &[("INPUT_FAIL-UNDER-CATEGORY", "protocl=90")],
                "input fail-under-category",
            ),
            (&[("INPUT_FORMATS", "json,pdf")], "input formats"),
            (&[("INPUT_TOKEN-ENV", "ghp_abc def")], "input token-env"),
            (&[("INPUT_URL", "--allow-destructive")], "input url"),
            (&[("INPUT_URL", "ftp://x")], "input url"),
            (&[("INPUT_START", "node")], "input start"),
            (
                &[
                    ("INPUT_URL", "http://x/mcp"),
                    ("INPUT_COMMAND", "node\ns.js"),
                ],
                "url and command",
            ),
            (&[("INPUT_ARGS", "--only protocol")], "input args, line 1"),
            (&[("INPUT_ARGS", "--skip\nx\n--")], "input args, line 3"),
            (&[("INPUT_ARGS", "--fail-under=10")], "fail-under input"),
            (&[("INPUT_ARGS", "--out-dir\nx")], "out-dir input"),
            (&[("INPUT_ARGS", "--stdio")], "command input"),
            (&[("INPUT_ARGS", "--help")], "input args"),
            (&[("INPUT_ARGS", "--mcpb=b.mcpb")], "mcpb input"),
            (&[("INPUT_ARGS", "--server-json\nx")], "server-json input"),
            (
                &[
                    ("INPUT_SERVER-JSON", "server.json"),
                    ("INPUT_MCPB", "b.mcpb"),
                ],
                "server-json and mcpb",
            ),
            (
                &[
                    ("INPUT_URL", "http://x/mcp"),
                    ("INPUT_SERVER-JSON", "server.json"),
                ],
                "url and server-json",
            ),
            (&[("INPUT_MCPB", "a.mcpb\nb.mcpb")], "input mcpb"),
        ];
        for (pairs, want) in cases {
            let m = error(pairs);
            assert!(m.contains(want), "{pairs:?}: {m}");
            assert!(!m.contains('\n'), "{pairs:?}: more than one line: {m}");
        }
    }

    #[test]
    fn errors_do_not_echo_what_may_be_a_secret() {
        for pairs in [
            &[("INPUT_TOKEN-ENV", "ghp_s3cr3tvalue0123 ")][..],
            &[("INPUT_TOKEN-ENV", "ghp_s3cr3tvalue0123\nx")][..],
            &[("INPUT_URL", "mcp://user:s3cr3tvalue0123@host/mcp")][..],
            &[(
                "INPUT_ARGS",
                "--header Authorization=Bearer s3cr3tvalue0123",
            )][..],
        ] {
            let m = error(pairs);
            assert!(!m.contains("s3cr3tvalue0123"), "{m}");
        }
    }

    #[test]
    fn args_may_use_any_other_check_flag() {
        let a = argv(&[(
            "INPUT_ARGS",
            "--stdio-envx\n--header=X-Api-Key=env:KEY\n--allow-mutations\n--json\nout/a b.json",
        )]);
        assert!(a.contains(&"out/a b.json".to_string()), "{a:?}");
        // the flags themselves are clap's to judge
        assert!(
            Cli::try_parse_from(&a).is_err(),
            "--stdio-envx is not a flag"
        );
        let ok = argv(&[
            ("INPUT_URL", "http://127.0.0.1:1/mcp"),
            (
                "INPUT_ARGS",
                "--header=X-Api-Key=env:KEY\n--allow-mutations\n--json\nout/a b.json",
            ),
        ]);
        assert!(Cli::try_parse_from(&ok).is_ok(), "{ok:?}");
    }

    #[test]
    fn the_contract_names_every_input() {
        for name in INPUTS {
            assert!(
                CONTRACT.contains(&format!("\n  {name} ")),
                "{name} is missing from CONTRACT"
            );
        }
    }
}
