//! The protocol phase's judges: pure functions from the replies a probe got (and the wire
//! it was sent on) to findings, one module per family of rules. `send` asks; these judge.

pub mod http;
pub mod jsonrpc;
pub mod modern;
pub mod sse;
pub mod wire_schema;
