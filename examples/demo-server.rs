//! The demo MCP server that README's first command checks with scout.
//!
//! Built on the `rmcp` SDK (3.11), so it speaks what a real Rust server speaks: the handshake
//! revisions 2024-11-05 … 2025-11-25 through `initialize`, and 2026-07-28 through the
//! per-request `_meta` envelope and `server/discover`.
//!
//! ```text
//! demo-server stdio                 # newline-delimited JSON-RPC on stdin/stdout
//! demo-server http [--port N]       # Streamable HTTP on http://127.0.0.1:N/mcp (loopback only)
//! ```
//!
//! What it offers, chosen so every part of scout's safety policy has something to act on:
//! - tools `add` (read-only, structured output), `echo` (read-only), `remember` (a mutation that
//!   destroys nothing) and `forget_all` (destructive), every one annotated;
//! - the resource `demo://readme` (text);
//! - the prompt `greet` with one required argument.
//!
//! With `SCOUT_DEMO_DRIFT=1` in its environment the server behaves as a changed release
//! would: `add` is off by one and `echo` shouts. scout's own expectations test uses it to show
//! what a broken expectation looks like (examples/demo-expect.toml passes without it).
//!
//! Notes live in memory and are shared by every session of one process, so that `remember`
//! really changes state an agent could observe.

use std::sync::{Arc, Mutex, PoisonError};

use rmcp::{
    ErrorData, RoleServer, ServerHandler, ServiceExt,
    handler::server::{
        router::{prompt::PromptRouter, tool::ToolRouter},
        wrapper::{Json, Parameters},
    },
    model::{
        Implementation, ListResourcesResult, PaginatedRequestParams, PromptMessage,
        ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
        ResourceContents, Role, ServerCapabilities, ServerConfig,
    },
    prompt, prompt_handler, prompt_router, schemars,
    service::{RequestContext, ServerInitializeError},
    tool, tool_handler, tool_router,
    transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    },
};

/// URI of the one resource the server offers.
const README_URI: &str = "demo://readme";

/// Text of `demo://readme`.
const README_TEXT: &str = "scout demo server\n\n\
This server exists so that scout has something real to check. Its tools:\n\
- add: adds two integers (read-only)\n\
- echo: returns the text it was given (read-only)\n\
- remember: stores a note in memory (changes state, destroys nothing)\n\
- forget_all: deletes every stored note (destructive)\n";

/// True when `SCOUT_DEMO_DRIFT=1` asks for the changed behaviour (see the module docs).
fn drifted() -> bool {
    std::env::var_os("SCOUT_DEMO_DRIFT").is_some_and(|v| v == "1")
}

/// Arguments of `add`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct AddArgs {
    /// The first addend, a whole number.
    a: i64,
    /// The second addend, a whole number.
    b: i64,
}

/// Structured result of `add` (its `outputSchema` is derived from this type).
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
struct AddResult {
    /// `a + b`.
    sum: i64,
}

/// Arguments of `echo`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// The text to send back unchanged.
    text: String,
}

/// Arguments of `remember`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct RememberArgs {
    /// The note to store, as plain text.
    note: String,
}

/// Arguments of the `greet` prompt.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct GreetArgs {
    /// The name of the person the greeting is for.
    name: String,
}

/// The server: its routers and the notes shared by all of its sessions.
#[derive(Debug, Clone)]
struct Demo {
    notes: Arc<Mutex<Vec<String>>>,
    tool_router: ToolRouter<Self>,
    prompt_router: PromptRouter<Self>,
}

#[tool_router]
impl Demo {
    fn new(notes: Arc<Mutex<Vec<String>>>) -> Self {
        Self {
            notes,
            tool_router: Self::tool_router(),
            prompt_router: Self::prompt_router(),
        }
    }

    /// Runs `f` on the notes. A panic elsewhere cannot poison a `Vec<String>` into an
    /// inconsistent state, so a poisoned lock is simply taken over.
    fn with_notes<T>(&self, f: impl FnOnce(&mut Vec<String>) -> T) -> T {
        let mut notes = self.notes.lock().unwrap_or_else(PoisonError::into_inner);
        f(&mut notes)
    }

    #[tool(
        description = "Add two whole numbers and return their sum. Read-only: it changes nothing.",
        annotations(
            title = "Add two numbers",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn add(
        &self,
        Parameters(AddArgs { a, b }): Parameters<AddArgs>,
    ) -> Result<Json<AddResult>, String> {
        a.checked_add(b)
            .map(|sum| sum + i64::from(drifted()))
            .map(|sum| Json(AddResult { sum }))
            .ok_or_else(|| format!("{a} + {b} does not fit in a 64-bit integer"))
    }

    #[tool(
        description = "Return the given text unchanged. Read-only: it changes nothing.",
        annotations(
            title = "Echo",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        if drifted() { text.to_uppercase() } else { text }
    }

    #[tool(
        description = "Store a note in the server's memory and return how many notes are stored. \
                       Changes state but never deletes anything.",
        annotations(
            title = "Remember a note",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    fn remember(&self, Parameters(RememberArgs { note }): Parameters<RememberArgs>) -> String {
        let count = self.with_notes(|notes| {
            notes.push(note);
            notes.len()
        });
        format!("remembered; {count} note(s) stored")
    }

    #[tool(
        description = "Delete every stored note. Destructive: the notes cannot be recovered.",
        annotations(
            title = "Forget all notes",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn forget_all(&self) -> String {
        let removed = self.with_notes(|notes| std::mem::take(notes).len());
        format!("forgot {removed} note(s)")
    }
}

#[prompt_router]
impl Demo {
    /// Greet someone by name (asks the model to write a short, friendly greeting).
    #[prompt(name = "greet")]
    fn greet(&self, Parameters(GreetArgs { name }): Parameters<GreetArgs>) -> Vec<PromptMessage> {
        vec![PromptMessage::new_text(
            Role::User,
            format!("Write a short, friendly greeting for {name}."),
        )]
    }
}

#[tool_handler(router = self.tool_router)]
#[prompt_handler(router = self.prompt_router)]
impl ServerHandler for Demo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new("scout-demo", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "Demo server for scout. Use `add` and `echo` freely; `remember` stores a note; \
             `forget_all` deletes every note. Read demo://readme for an overview.",
        )
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let readme = Resource::new(README_URI, "readme")
            .with_title("About this server")
            .with_description("What the demo server offers, as plain text.")
            .with_mime_type("text/plain");
        Ok(ListResourcesResult::with_all_items(vec![readme]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri == README_URI {
            let contents = ResourceContents::text(README_TEXT, README_URI);
            Ok(ReadResourceResult::new(vec![contents]).into())
        } else {
            Err(ErrorData::resource_not_found(
                format!("no resource {}", request.uri),
                None,
            ))
        }
    }
}

/// How the server was asked to run.
enum Mode {
    Stdio,
    Http { port: u16 },
}

/// Parses `stdio` | `http [--port N]`; the error is the one-line usage message.
fn parse_args(args: &[String]) -> Result<Mode, String> {
    const USAGE: &str = "usage: demo-server stdio | demo-server http [--port N]";
    match args {
        [mode] if mode == "stdio" => Ok(Mode::Stdio),
        [mode] if mode == "http" => Ok(Mode::Http { port: 0 }),
        [mode, flag, port] if mode == "http" && flag == "--port" => port
            .parse()
            .map(|port| Mode::Http { port })
            .map_err(|_| format!("--port wants a number from 0 to 65535, got {port:?}\n{USAGE}")),
        _ => Err(USAGE.to_owned()),
    }
}

/// stdin and stdout as non-blocking pipes, when both are pipes.
fn pipes() -> Option<(
    tokio::net::unix::pipe::Receiver,
    tokio::net::unix::pipe::Sender,
)> {
    use std::os::fd::AsFd;
    let stdin = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    let stdout = std::io::stdout().as_fd().try_clone_to_owned().ok()?;
    let receiver = tokio::net::unix::pipe::Receiver::from_owned_fd(stdin).ok()?;
    let sender = tokio::net::unix::pipe::Sender::from_owned_fd(stdout).ok()?;
    Some((receiver, sender))
}

// One thread: a demo serves one client at a time, and waits far more than it computes.
#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = parse_args(&args).map_err(anyhow::Error::msg)?;
    let notes = Arc::new(Mutex::new(Vec::new()));
    match mode {
        Mode::Stdio => {
            // Ends when the client closes stdin, which is how scout asks a stdio server to stop.
            // A client may close stdin before (or without ever) sending `initialize`: a modern
            // client that only asked `server/discover` does. That is a normal end, not an error.
            // On pipes (as a client starts it), read and write them through the event loop;
            // tokio's stdin and stdout hand every read and write to a thread pool, and the
            // wake-ups between those threads were most of the demo's CPU time. A terminal or a
            // file gets the plain ones.
            let started = match pipes() {
                Some(pipes) => Demo::new(notes).serve(pipes).await,
                None => Demo::new(notes).serve(rmcp::transport::stdio()).await,
            };
            match started {
                Ok(service) => {
                    service.waiting().await?;
                }
                Err(ServerInitializeError::ConnectionClosed(_)) => {}
                Err(other) => return Err(other.into()),
            }
        }
        Mode::Http { port } => {
            let service: StreamableHttpService<Demo, LocalSessionManager> =
                StreamableHttpService::new(
                    move || Ok(Demo::new(notes.clone())),
                    Default::default(),
                    StreamableHttpServerConfig::default(),
                );
            let router = axum::Router::new().nest_service("/mcp", service);
            // Loopback only: the demo must never be reachable from another machine.
            let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
            let addr = listener.local_addr()?;
            // Small answers go out at once: without TCP_NODELAY, Nagle's algorithm held a
            // streamed answer's last bytes back until the client's delayed ACK (about 40 ms).
            let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
                let _ = tcp.set_nodelay(true);
            });
            eprintln!("demo-server listening on http://{addr}/mcp");
            axum::serve(listener, router)
                .with_graceful_shutdown(async {
                    // If the handler cannot be installed, run until killed.
                    if tokio::signal::ctrl_c().await.is_err() {
                        std::future::pending::<()>().await;
                    }
                })
                .await?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn modes_parse() {
        assert!(matches!(parse_args(&args(&["stdio"])), Ok(Mode::Stdio)));
        assert!(matches!(
            parse_args(&args(&["http"])),
            Ok(Mode::Http { port: 0 })
        ));
        assert!(matches!(
            parse_args(&args(&["http", "--port", "38417"])),
            Ok(Mode::Http { port: 38417 })
        ));
    }

    #[test]
    fn bad_arguments_give_the_usage_line() {
        for bad in [
            &[][..],
            &["serve"],
            &["http", "--port"],
            &["stdio", "extra"],
        ] {
            let err = parse_args(&args(bad)).err().unwrap_or_default();
            assert!(err.contains("usage: demo-server"), "{bad:?}: {err:?}");
        }
        let err = parse_args(&args(&["http", "--port", "70000"]))
            .err()
            .unwrap_or_default();
        assert!(err.contains("got \"70000\""), "{err}");
    }

    #[test]
    fn add_reports_overflow_as_a_tool_error() {
        let demo = Demo::new(Arc::default());
        let sum = demo.add(Parameters(AddArgs { a: 2, b: 3 }));
        assert_eq!(sum.map(|Json(r)| r.sum), Ok(5));
        assert!(demo.add(Parameters(AddArgs { a: i64::MAX, b: 1 })).is_err());
    }

    #[test]
    fn remember_and_forget_all_share_state() {
        let demo = Demo::new(Arc::default());
        let note = |n: &str| RememberArgs { note: n.to_owned() };
        assert_eq!(
            demo.remember(Parameters(note("a"))),
            "remembered; 1 note(s) stored"
        );
        assert_eq!(
            demo.remember(Parameters(note("b"))),
            "remembered; 2 note(s) stored"
        );
        assert_eq!(demo.forget_all(), "forgot 2 note(s)");
        assert_eq!(demo.forget_all(), "forgot 0 note(s)");
    }
}
