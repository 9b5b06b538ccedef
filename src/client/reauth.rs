//! Re-authorization in the middle of a conversation, for the commands that talk to one
//! server as a client would (`scout connect`, `tools`, `call`); never in a check run, whose
//! auth probes provoke 401s on purpose.
//!
//! A later request answered 401, or 403 with `error="insufficient_scope"`, carrying a Bearer
//! challenge: scout gets a new token asking for the scope it had together with the one the
//! challenge names ([`crate::auth::stepup`]), then sends the request once more. The configured grant
//! (client credentials, a refresh token) runs again by itself; a person's login (the
//! authorization code flow) runs again only when the command was given `--login`. Each
//! scope set is tried once, and one command re-authorizes at most
//! [`crate::auth::stepup::MAX_REAUTHORIZATIONS`] times: a server that keeps refusing gets a one-line
//! error, not a loop.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::auth::challenge::{self, Seen};
use crate::auth::stepup::{Decision, StepUp};
use crate::auth::{Grant, login, store};
use crate::transport::Reply;

/// What a command allows when the server asks for authorization mid-conversation.
#[derive(Debug, Clone, Default)]
pub struct Reauth {
    /// Log in again in the browser (authorization code + PKCE) when no configured grant can
    /// answer the challenge: `Some` only when the person passed `--login`.
    pub login: Option<Login>,
}

/// The interactive login's settings.
#[derive(Debug, Clone)]
pub struct Login {
    /// Start the desktop's browser on the URL (it is always printed).
    pub open_browser: bool,
    /// How long to wait for the browser to come back.
    pub wait: Duration,
}

/// One connector's re-authorization state.
#[derive(Debug)]
pub(crate) struct State {
    settings: Reauth,
    /// One re-authorization at a time: requests refused together share the new token.
    gate: tokio::sync::Mutex<()>,
    step: Mutex<StepUp>,
    /// The scope of the token in use (what a step-up adds to).
    scope: Mutex<Option<String>>,
    /// Bumped whenever a new token is put in place: a request sent before that is retried
    /// with the new token without another grant.
    generation: AtomicUsize,
    /// Why scout stopped re-authorizing, once it did.
    failure: Mutex<Option<String>>,
}

impl State {
    pub(crate) fn new(settings: Reauth) -> Self {
        State {
            settings,
            gate: tokio::sync::Mutex::new(()),
            step: Mutex::new(StepUp::default()),
            scope: Mutex::new(None),
            generation: AtomicUsize::new(0),
            failure: Mutex::new(None),
        }
    }

    pub(crate) fn generation(&self) -> usize {
        self.generation.load(Ordering::SeqCst)
    }

    pub(crate) fn set_scope(&self, scope: Option<String>) {
        *self.scope.lock().unwrap_or_else(|e| e.into_inner()) = scope;
    }

    pub(crate) fn failure(&self) -> Option<String> {
        self.failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn fail(&self, why: String) {
        crate::say!("scout: {why}");
        *self.failure.lock().unwrap_or_else(|e| e.into_inner()) = Some(why);
    }
}

/// The challenge a reply carries that asks for (more) authorization: HTTP 401 with a Bearer
/// challenge, or 403 whose Bearer challenge says `insufficient_scope`.
pub(crate) fn asks_for_authorization(reply: &Reply) -> Option<(u16, Seen)> {
    let http = reply.http.as_ref()?;
    let c = challenge::bearer(
        http.headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case("www-authenticate"))
            .map(|(_, v)| v.as_str()),
    )?;
    match http.status {
        401 => Some((401, Seen::of(&c))),
        403 if c.param("error") == Some("insufficient_scope") => Some((403, Seen::of(&c))),
        _ => None,
    }
}

impl crate::client::Connector {
    /// Lets this connector re-authorize when a later request is refused for want of a token
    /// or of scope (see the module's documentation).
    pub fn enable_reauthorization(&self, settings: Reauth) {
        let _ = self.inner.reauth.set(State::new(settings));
    }

    /// Why scout gave up re-authorizing, when it did: the one line a command reports.
    pub fn reauthorization_failure(&self) -> Option<String> {
        self.inner.reauth.get().and_then(State::failure)
    }

    /// The token generation a request is sent with (0 without re-authorization).
    pub(crate) fn token_generation(&self) -> usize {
        self.inner.reauth.get().map_or(0, State::generation)
    }

    /// After `reply` (sent with token generation `sent_with`): true when a new token is in
    /// place and the request should be sent once more.
    pub(crate) async fn reauthorize(&self, reply: &Reply, sent_with: usize) -> bool {
        let Some(state) = self.inner.reauth.get() else {
            return false;
        };
        let Some((status, seen)) = asks_for_authorization(reply) else {
            return false;
        };
        let _turn = state.gate.lock().await;
        if state.generation() != sent_with {
            // Another request's re-authorization already put a new token in place.
            return true;
        }
        if state.failure().is_some() {
            return false;
        }
        let had = state
            .scope
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let decision = state.step.lock().unwrap_or_else(|e| e.into_inner()).decide(
            had.as_deref(),
            seen.scope.as_deref(),
            status,
        );
        let scope = match decision {
            Decision::GiveUp(why) => {
                state.fail(why);
                return false;
            }
            Decision::Reauthorize { scope } => scope,
        };
        match self
            .grant_again(state, &seen, scope.as_deref(), status)
            .await
        {
            Ok(Some(got)) => {
                if let Some(clients) = self.http_clients() {
                    clients.set_bearer(Some(got.token));
                }
                state.set_scope(got.scope.or(scope));
                state.generation.fetch_add(1, Ordering::SeqCst);
                true
            }
            Ok(None) => false,
            Err(why) => {
                state.fail(why);
                false
            }
        }
    }

    /// A new token for `scope`: the configured grant again, else (with `--login`) the
    /// person's login again. `Ok(None)`: nothing can answer the challenge (a fixed token);
    /// the refused reply stands.
    async fn grant_again(
        &self,
        state: &State,
        seen: &Seen,
        scope: Option<&str>,
        status: u16,
    ) -> Result<Option<crate::auth::obtain::Obtained>, String> {
        let crate::spec::TargetSpec::Http { url, auth, .. } = &self.inner.spec.target else {
            return Ok(None);
        };
        let Some(clients) = self.http_clients() else {
            return Ok(None);
        };
        let remote = self.inner.spec.treat_as_remote;
        let http = self.auth_http(url, clients)?;
        let asked = if status == 403 {
            "more scope (HTTP 403 insufficient_scope)"
        } else {
            "authorization (HTTP 401)"
        };
        match auth.grant() {
            Grant::Static => Ok(None),
            Grant::ClientCredentials | Grant::Refresh => {
                crate::say!(
                    "scout: {url} asks for {asked}; requesting a new token{}",
                    scope
                        .map(|s| format!(" for scope `{s}`"))
                        .unwrap_or_default()
                );
                let again = crate::auth::obtain::Again { seen, scope };
                crate::auth::obtain::obtain(
                    &http,
                    url,
                    auth,
                    &self.inner.resolved,
                    remote,
                    Some(again),
                )
                .await
                .map_err(|e| format!("re-authorization failed: {}", e.message))
            }
            Grant::None => {
                let Some(l) = &state.settings.login else {
                    return Err(format!(
                        "{url} asks for {asked}; log in with `scout auth login {url}` (or pass --login), or give scout credentials"
                    ));
                };
                if login::under_ci() {
                    return Err(format!(
                        "{url} asks for {asked}, and --login does not log in under CI=true; give scout credentials instead"
                    ));
                }
                let req = login::LoginRequest {
                    server_url: url.clone(),
                    client_id: auth.client_id.clone(),
                    client_secret: self.inner.resolved.client_secret.clone(),
                    scope: scope.map(str::to_string),
                    port: 0,
                    wait: l.wait,
                    seen: Some(seen.clone()),
                };
                let open_browser = l.open_browser;
                let token = login::login(&http, &req, |u| {
                    crate::say!(
                        "scout: {url} asks for {asked}; open this URL in a browser to log in (waiting for the redirect):"
                    );
                    crate::say!("{u}");
                    if open_browser {
                        login::open_browser(u);
                    }
                })
                .await
                .map_err(|e| format!("login failed: {e}"))?;
                // Stored like `scout auth login`'s, so the next command starts with it.
                if let Some(dir) = store::dir()
                    && let Err(e) = store::save(&dir, &token)
                {
                    crate::say!(
                        "scout: logged in, but could not store the token in {}: {e}",
                        dir.display()
                    );
                }
                Ok(Some(crate::auth::obtain::Obtained {
                    token: token.access_token,
                    scope: token.scope,
                }))
            }
        }
    }
}
