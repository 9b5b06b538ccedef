//! `--shard I/N`: a stable subset of the servers, chosen by name, so a CI matrix of N jobs
//! checks every server exactly once. A server belongs to shard `1 + fnv1a(name) mod N`; FNV-1a
//! is used (not the std hasher) because it is the same on every machine and every release.

/// One shard of N (1-based, as written on the command line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// Parses `I/N` with 1 ≤ I ≤ N.
    pub fn parse(s: &str) -> Result<Shard, String> {
        let bad = || format!("expected I/N with 1 ≤ I ≤ N (e.g. 2/4), got `{s}`");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// True when the server called `name` belongs to this shard.
    pub fn contains(&self, name: &str) -> bool {
        fnv1a(name.as_bytes()) % u64::from(self.count) + 1 == u64::from(self.index)
    }
}

/// 64-bit FNV-1a.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses() {
        assert_eq!(Shard::parse("2/4"), Ok(Shard { index: 2, count: 4 }));
        for bad in ["0/4", "5/4", "1/0", "x/2", "3", ""] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn every_server_is_in_exactly_one_shard() {
        let names: Vec<String> = (0..200).map(|i| format!("server-{i}")).collect();
        let n = 4;
        let mut sizes = [0usize; 4];
        for name in &names {
            let owners: Vec<u32> = (1..=n)
                .filter(|i| {
                    Shard {
                        index: *i,
                        count: n,
                    }
                    .contains(name)
                })
                .collect();
            assert_eq!(owners.len(), 1, "{name} in {owners:?}");
            sizes[(owners[0] - 1) as usize] += 1;
        }
        // Spread, not all in one bucket.
        assert!(sizes.iter().all(|s| *s > 20), "{sizes:?}");
    }

    #[test]
    fn stable_across_releases() {
        // Pinned values: changing the hash would move servers between CI jobs.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert!(Shard { index: 1, count: 1 }.contains("anything"));
    }
}
