//! Runs the servers of a config with bounded parallelism and shards, gathering Reports.
