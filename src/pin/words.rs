//! Word diffs for descriptions: the longest common subsequence of words (and the spaces
//! between them), written on one line as `[-removed-]{+added+}` with long unchanged
//! stretches shortened, so a changed description reads as what changed.

/// How many unchanged words a word diff keeps on each side of a change.
const CONTEXT_WORDS: usize = 6;
/// Above this many words per side the diff shows the two texts whole.
const MAX_DIFF_WORDS: usize = 4000;

/// Words and the whitespace between them, in order.
fn tokens(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_space: Option<bool> = None;
    for (i, c) in s.char_indices() {
        let space = c.is_whitespace();
        if in_space.is_some_and(|w| w != space) {
            out.push(&s[start..i]);
            start = i;
        }
        in_space = Some(space);
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

#[derive(Debug, PartialEq)]
enum Seg<'a> {
    Same(Vec<&'a str>),
    Del(Vec<&'a str>),
    Ins(Vec<&'a str>),
}

/// The longest-common-subsequence diff of two token lists.
fn lcs_diff<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<Seg<'a>> {
    let (n, m) = (a.len(), b.len());
    let mut table = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            table[i][j] = if a[i] == b[j] {
                table[i + 1][j + 1] + 1
            } else {
                table[i + 1][j].max(table[i][j + 1])
            };
        }
    }
    let mut segs: Vec<Seg<'a>> = Vec::new();
    let push = |segs: &mut Vec<Seg<'a>>, kind: u8, t: &'a str| match (segs.last_mut(), kind) {
        (Some(Seg::Same(v)), 0) | (Some(Seg::Del(v)), 1) | (Some(Seg::Ins(v)), 2) => v.push(t),
        (_, 0) => segs.push(Seg::Same(vec![t])),
        (_, 1) => segs.push(Seg::Del(vec![t])),
        _ => segs.push(Seg::Ins(vec![t])),
    };
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            push(&mut segs, 0, a[i]);
            i += 1;
            j += 1;
        } else if i < n && (j == m || table[i + 1][j] >= table[i][j + 1]) {
            // Removals before additions, as a reader expects.
            push(&mut segs, 1, a[i]);
            i += 1;
        } else {
            push(&mut segs, 2, b[j]);
            j += 1;
        }
    }
    segs
}

/// A one-line word diff of `old` → `new`: removed words as `[-…-]`, added ones as `{+…+}`,
/// long unchanged stretches shortened to `…`. Line breaks show as `⏎`.
pub fn word_diff(old: &str, new: &str) -> String {
    let flat = |s: &str| s.replace("\r\n", "\n").replace('\n', " ⏎ ");
    let (old, new) = (flat(old), flat(new));
    let (a, b) = (tokens(&old), tokens(&new));
    if a.len() > MAX_DIFF_WORDS * 2 || b.len() > MAX_DIFF_WORDS * 2 {
        return format!("[-{old}-]{{+{new}+}}");
    }
    let segs = lcs_diff(&a, &b);
    let last = segs.len().saturating_sub(1);
    let mut out = String::new();
    for (i, seg) in segs.iter().enumerate() {
        match seg {
            Seg::Same(t) => {
                let words: Vec<&str> = t.clone();
                let keep = CONTEXT_WORDS * 2;
                let head = if i == 0 { 0 } else { keep };
                let tail = if i == last { 0 } else { keep };
                if words.len() > head + tail + 2 {
                    out.push_str(&words[..head].concat());
                    out.push('…');
                    out.push_str(&words[words.len() - tail..].concat());
                } else {
                    out.push_str(&words.concat());
                }
            }
            Seg::Del(t) => out.push_str(&format!("[-{}-]", t.concat())),
            Seg::Ins(t) => out.push_str(&format!("{{+{}+}}", t.concat())),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_diffs_mark_what_changed() {
        assert_eq!(
            word_diff("Return the time.", "Return the time and read ~/.ssh."),
            "Return the [-time.-]{+time and read ~/.ssh.+}"
        );
        assert_eq!(word_diff("same", "same"), "same");
        let long = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen";
        let d = word_diff(&format!("{long} end"), &format!("{long} END"));
        assert!(d.starts_with('…'), "{d}");
        assert!(d.ends_with("[-end-]{+END+}"), "{d}");
    }
}
