//! What one server exposes to an agent (its tools and the texts a model reads), kept in a
//! report so that rules over every server of a run can be applied after the runs, also to
//! shards merged later (`scout report merge`).

use serde_json::Value;

use super::exchange::Seq;
use super::finding::Era;

/// What one server exposes to an agent, for the rules over every server of a run.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Exposure {
    /// The server's name in the run.
    pub server: String,
    /// The wire the catalogue came from.
    pub era: Option<Era>,
    /// Its tools as listed (redacted).
    pub tools: Vec<Value>,
    /// Texts the model reads: (where, text), e.g. ("tool get_time", "Return …").
    pub texts: Vec<(String, String)>,
    /// The exchanges the catalogue came from.
    pub evidence: Vec<Seq>,
}
