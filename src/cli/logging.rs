//! Levelled diagnostics on stderr (tracing-subscriber): warnings by default, `-v` debug,
//! `-vv` trace, `-q` errors only; `SCOUT_LOG` (an env-filter directive) overrides them all.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

use crate::cli::args::Verbosity;

/// Installs the subscriber once; a second call (tests) is harmless.
pub fn init(v: Verbosity) {
    let level = if v.quiet {
        "error"
    } else {
        match v.verbose {
            0 => "warn",
            1 => "debug",
            _ => "trace",
        }
    };
    let filter = std::env::var("SCOUT_LOG")
        .ok()
        .and_then(|s| EnvFilter::try_new(s).ok())
        .unwrap_or_else(|| EnvFilter::new(format!("scout={level},mcp_scout={level},warn")));
    // Colour only on a terminal, and never with NO_COLOR (https://no-color.org).
    let color = std::io::stderr().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(color)
        .with_writer(std::io::stderr)
        .with_target(false)
        .without_time()
        .try_init();
}
