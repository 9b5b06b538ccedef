//! Layered configuration (figment): defaults < file `[default]` < file `[<profile>]` <
//! `SCOUT_*` environment < flags.
