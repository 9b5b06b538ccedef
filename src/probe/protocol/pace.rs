//! The connection the protocol phase's probe groups share. Pacing (`--rps` towards remote
//! hosts) is no longer done here: every HTTP request of a run waits for the target's rate
//! limiter in the transport (see [`crate::policy::limiter`]), so concurrent groups, and
//! every other phase, stay within the rate together.

use crate::client::Connection;
use crate::transport::{Probe, Reply};

/// A borrowed connection the probe groups send through.
#[derive(Clone, Copy)]
pub struct Link<'a> {
    conn: &'a Connection,
}

impl<'a> Link<'a> {
    /// Wraps `conn`.
    pub fn new(conn: &'a Connection) -> Self {
        Link { conn }
    }

    /// Sends one probe (the transport paces it).
    pub async fn send(&self, probe: Probe) -> Reply {
        self.conn.send(probe).await
    }
}
