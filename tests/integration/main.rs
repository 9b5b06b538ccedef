//! The one integration-test binary; each area of scout's behaviour is a submodule.

mod baseline;
mod common;
mod emit;
mod real_servers;
mod sample;
mod servers;
