//! The `scout` binary: parse, hand over, return the exit code.

fn main() -> std::process::ExitCode {
    scout::run()
}
