//! The process's own peak memory, for the log: benchmarks read it there, since a measure
//! taken from outside (the largest process waited for) is a server's whenever the server is
//! the bigger one, as a Node.js server started over stdio is.

/// The peak resident set of this process so far, in KiB (`VmHWM` of `/proc/self/status`);
/// `None` where the system does not say (outside Linux).
pub fn own_peak_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_peak_is_read_where_the_system_keeps_it() {
        if cfg!(target_os = "linux") {
            let kib = super::own_peak_kib().expect("VmHWM on Linux");
            // A test binary holds at least its own code; less than a megabyte is a misread.
            assert!(kib > 1024, "{kib} KiB");
        }
    }
}
