//! Telemetry: the recorder every exchange goes through (each gets a run-wide sequence
//! number that findings cite), redaction, and the HAR / NDJSON exports.

pub mod events;
pub mod har;
pub mod recorder;
pub mod redact;

pub use recorder::{
    Direction, Exchange, ExchangeKind, HttpExchange, Recorder, Seq, StdioMessage, Timing,
};
