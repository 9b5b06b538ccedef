//! Telemetry: the recorder every exchange goes through (each gets a run-wide sequence
//! number that findings cite) and redaction. The HAR and NDJSON exports are emitters (`emit`).

pub mod events;
pub mod memory;
pub mod recorder;
pub mod redact;

pub use recorder::{Recorder, Timing};
