//! The one integration-test binary: each area of scout's behaviour is a submodule.

mod common;
mod real_servers;
mod servers;
