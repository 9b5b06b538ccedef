//! `scout tools` (the catalogue and what the safety policy would do with each tool) and
//! `scout call` (one tool call with the policy applied).

use clap::Args;
use serde_json::Value;

use crate::cli::CliError;
use crate::cli::args::{PolicyArgs, Verbosity};
use crate::cli::connect::{OneServerArgs, pretty_json, print, resolve, runtime};
use crate::client::summary::{self, OpenServer};
use crate::policy::{self, CallError};

/// `scout tools`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  scout tools http://127.0.0.1:3001/mcp\n  scout tools --json --stdio -- python3 -m mcp_server_time"
)]
pub struct ToolsArgs {
    #[command(flatten)]
    pub one: OneServerArgs,
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// Print the table as JSON
    #[arg(long)]
    pub json: bool,
}

/// `scout call`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  scout call get-sum http://127.0.0.1:3001/mcp --arg a=2 --arg b=3\n  scout call --stdio get_current_time --arg timezone=UTC -- python3 -m mcp_server_time\n  scout call echo URL --json-args '{\"message\": \"hi\"}' --json"
)]
pub struct CallArgs {
    /// The tool to call
    #[arg(value_name = "TOOL")]
    pub tool: String,
    #[command(flatten)]
    pub one: OneServerArgs,
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// An argument NAME=VALUE, typed by the tool's input schema (repeatable)
    #[arg(long = "arg", value_name = "NAME=VALUE")]
    pub args: Vec<String>,
    /// All arguments as one JSON object (--arg values are applied on top)
    #[arg(long = "json-args", value_name = "JSON")]
    pub json_args: Option<String>,
    /// Print the raw CallToolResult as JSON
    #[arg(long)]
    pub json: bool,
}

/// Opens the server `spec` names, with the errors `scout tools` and `scout call` report.
pub(crate) async fn open(
    spec: &crate::spec::ServerSpec,
    reauth: crate::client::reauth::Reauth,
) -> Result<OpenServer, CliError> {
    match summary::open(spec, Some(reauth)).await {
        Ok(o) => Ok(o),
        Err(e) if e.is_config_error() => Err(CliError::Usage(e.to_string())),
        Err(e) => Err(CliError::Unreachable(format!(
            "could not connect to {}: {e}",
            spec.target_display()
        ))),
    }
}

/// Opens the server, runs `f` on its preferred wire, and always closes it.
async fn with_server<T>(
    args: &OneServerArgs,
    policy_args: &PolicyArgs,
    f: impl AsyncFnOnce(&OpenServer, &crate::spec::ServerSpec) -> Result<T, CliError>,
) -> Result<T, CliError> {
    let spec = resolve(args, policy_args)?;
    let opened = open(&spec, args.reauth()?).await?;
    let result = f(&opened, &spec).await;
    // When scout gave up re-authorizing, that is why the command failed: say it, not the
    // refused request's status.
    let gave_up = opened.connector.reauthorization_failure();
    opened.close().await;
    match (result, gave_up) {
        (Err(_), Some(why)) => Err(CliError::Unreachable(why)),
        (r, _) => r,
    }
}

fn call_error(e: CallError) -> CliError {
    match e {
        // A refusal is the gate saying no (exit 1), with the flag that would allow it.
        CallError::Refused { .. } => CliError::Refused(e.to_string()),
        CallError::UnknownTool(_) => CliError::Usage(e.to_string()),
        other => CliError::Unreachable(other.to_string()),
    }
}

/// The wire an agent would use, and the tools it lists.
pub(crate) async fn preferred_tools(
    opened: &OpenServer,
) -> Result<(&crate::client::Connection, Vec<Value>), CliError> {
    let wire = opened
        .preferred()
        .ok_or_else(|| CliError::Unreachable("the server opened no wire".into()))?;
    let tools = policy::list_tools(wire).await.map_err(call_error)?;
    // 2026-07-28 over Streamable HTTP: a tool with invalid x-mcp-header declarations must
    // be excluded from the tools a client offers, with a warning naming tool and reason.
    let (tools, dropped) = crate::probe::catalog::x_mcp_header::split_dropped(wire, tools);
    for (name, reasons) in dropped {
        crate::say!(
            "scout: dropped tool `{name}`: its x-mcp-header {} (a client on Streamable HTTP must exclude such a tool)",
            reasons.join("; ")
        );
    }
    Ok((wire, tools))
}

/// The one way scout calls a tool for a person (`scout call` and the `scout tools` selector):
/// `NAME=VALUE` pairs (and a JSON object) typed by the tool's input schema, then the safety
/// policy, then the call.
pub(crate) async fn call_tool(
    wire: &crate::client::Connection,
    tools: &[Value],
    spec: &crate::spec::ServerSpec,
    name: &str,
    pairs: &[String],
    json_args: Option<&str>,
) -> Result<Value, CliError> {
    let schema = tools
        .iter()
        .find(|t| policy::tool_name(t) == name)
        .and_then(|t| t.get("inputSchema"))
        .cloned()
        .unwrap_or(Value::Null);
    let arguments = policy::args::cli_arguments(pairs, json_args, &schema)
        .map_err(|e| CliError::Usage(e.to_string()))?;
    policy::call(wire, tools, &spec.policy, name, arguments)
        .await
        .map_err(call_error)
}

/// Runs `scout tools`: on a terminal the interactive selector, else the table.
pub fn tools(args: ToolsArgs, verbosity: Verbosity) -> Result<u8, CliError> {
    if !args.json && crate::cli::tui::Terminal::detect(verbosity.no_tui).selector() {
        return crate::cli::tui::selector::run(&args);
    }
    let rt = runtime()?;
    let text = rt.block_on(with_server(
        &args.one,
        &args.policy,
        async |opened, spec| {
            let (_, tools) = preferred_tools(opened).await?;
            let rows = policy::tool_table(&tools, &spec.policy);
            Ok(if args.json {
                pretty_json(&policy::tool_table_json(&rows))?
            } else {
                policy::render_tool_table(&rows)
            })
        },
    ))?;
    print(&text)?;
    Ok(crate::exit::PASSED)
}

/// Runs `scout call`.
pub fn call(args: CallArgs) -> Result<u8, CliError> {
    if args.policy.allow_destructive {
        crate::say!(
            "scout: WARNING: --allow-destructive lets scout call tools that may delete or overwrite data"
        );
    }
    let rt = runtime()?;
    let result = rt.block_on(with_server(
        &args.one,
        &args.policy,
        async |opened, spec| {
            let (wire, tools) = preferred_tools(opened).await?;
            call_tool(
                wire,
                &tools,
                spec,
                &args.tool,
                &args.args,
                args.json_args.as_deref(),
            )
            .await
        },
    ))?;
    let text = if args.json {
        pretty_json(&result)?
    } else {
        policy::render_call_result(&result)
    };
    print(&text)?;
    Ok(crate::exit::PASSED)
}
