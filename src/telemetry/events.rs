//! Live progress of a run, as it happens: which server and phase is running and every
//! finding as it is recorded. The terminal run view (`scout check` on a TTY) and the web page
//! (`scout serve`) draw from it; the plain output and the reports never depend on it.
//!
//! An [`Observer`] is an unbounded channel sender carried in the [`ServerSpec`]: sending never
//! blocks a probe, and a dropped receiver is simply ignored (the run goes on unobserved).
//!
//! [`ServerSpec`]: crate::spec::ServerSpec

use tokio::sync::mpsc;

use crate::report::finding::{Phase, Status};

/// One thing that happened during a run, in the order it happened.
#[derive(Debug, Clone, PartialEq)]
pub enum RunEvent {
    /// A server's run started (it got one of the `--jobs` slots).
    ServerStarted { server: String },
    /// A phase of a server started. Phases may overlap (the concurrent probe plan).
    PhaseStarted { server: String, phase: Phase },
    /// A finding was recorded (before ignores and baselines are applied).
    Finding {
        server: String,
        phase: Phase,
        id: String,
        status: Status,
        /// The finding's subject (a tool name, a method), if it has one.
        subject: Option<String>,
    },
    /// A phase of a server finished (or was skipped as a whole).
    PhaseFinished { server: String, phase: Phase },
    /// A server's run finished; `score` is its scored result (`None`: not assessed).
    ServerFinished { server: String, score: Option<u8> },
}

/// Where a run sends its [`RunEvent`]s. Cheap to clone; every clone feeds one receiver.
#[derive(Clone)]
pub struct Observer(mpsc::UnboundedSender<RunEvent>);

impl Observer {
    /// A new observer and the receiver its events arrive on.
    pub fn channel() -> (Observer, mpsc::UnboundedReceiver<RunEvent>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Observer(tx), rx)
    }

    /// Sends `event`; a receiver that has gone away is not an error.
    pub fn send(&self, event: RunEvent) {
        let _ = self.0.send(event);
    }
}

impl std::fmt::Debug for Observer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Observer")
    }
}

/// Observers never make two specs differ: they are not configuration.
impl PartialEq for Observer {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// Sends `event` to `observer`, if there is one.
pub fn emit(observer: &Option<Observer>, event: impl FnOnce() -> RunEvent) {
    if let Some(o) = observer {
        o.send(event());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_arrive_in_order_and_a_dropped_receiver_is_ignored() {
        let (o, mut rx) = Observer::channel();
        o.send(RunEvent::ServerStarted { server: "a".into() });
        emit(&Some(o.clone()), || RunEvent::PhaseStarted {
            server: "a".into(),
            phase: Phase::Discovery,
        });
        assert_eq!(
            rx.try_recv().ok(),
            Some(RunEvent::ServerStarted { server: "a".into() })
        );
        assert!(matches!(
            rx.try_recv(),
            Ok(RunEvent::PhaseStarted {
                phase: Phase::Discovery,
                ..
            })
        ));
        drop(rx);
        // Must not panic.
        o.send(RunEvent::ServerFinished {
            server: "a".into(),
            score: None,
        });
    }
}
