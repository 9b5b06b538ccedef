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
        .with_writer(|| QuietStderr)
        .with_target(false)
        .without_time()
        .try_init();
}

/// stderr that swallows write errors: a closed stderr (piped into `head`) must not end the
/// run. tracing-subscriber reports a failed write with `eprintln!`, which panics on a closed
/// stderr and would skip every destructor on the way out.
struct QuietStderr;

impl std::io::Write for QuietStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // Above the live view of `scout check`, when one is drawn, not through it.
        crate::cli::tui::above_view(|| {
            let _ = std::io::stderr().write_all(buf);
        });
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let _ = std::io::stderr().flush();
        Ok(())
    }
}
