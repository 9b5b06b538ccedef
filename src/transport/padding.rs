//! The oversized-request probe's padding: a message whose [`PAD_MARKER`](super::PAD_MARKER)
//! stands for megabytes of `x`, written out in chunks of one static buffer so that the whole
//! message is never built in memory (over HTTP as the request body's stream, over stdio as
//! consecutive writes of one line).

#[cfg(test)]
use crate::telemetry::recorder::own_body_kept;
use crate::telemetry::recorder::{OWN_BODY_CAP, OWN_KEPT};

/// 64 KiB of padding, sent as often as a padded message needs it.
static PADDING: [u8; 64 * 1024] = [b'x'; 64 * 1024];

/// A message with `pad` bytes of padding where its marker was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Padded {
    prefix: String,
    suffix: String,
    pad: usize,
}

impl Padded {
    /// Splits `message` at its marker (a message without one is padded at its end).
    pub fn new(message: String, pad: usize) -> Self {
        let (prefix, suffix) = match message.split_once(super::PAD_MARKER) {
            Some((a, b)) => (a.to_string(), b.to_string()),
            None => (message, String::new()),
        };
        Padded {
            prefix,
            suffix,
            pad,
        }
    }

    /// The length of the whole message, in bytes.
    pub fn total_len(&self) -> usize {
        self.prefix.len() + self.pad + self.suffix.len()
    }

    /// What the record keeps of the message: what the recorder keeps of a body scout sends
    /// (the whole, or past its cap the first bytes and the size sent), without building the
    /// whole of a large one.
    pub fn kept(&self) -> String {
        let total = self.total_len();
        if total <= OWN_BODY_CAP {
            return format!("{}{}{}", self.prefix, "x".repeat(self.pad), self.suffix);
        }
        // The first OWN_KEPT bytes lie in the prefix and the padding (the suffix is a few
        // bytes after megabytes of it).
        let head_pad = OWN_KEPT.saturating_sub(self.prefix.len()).min(self.pad);
        let head = format!("{}{}", self.prefix, "x".repeat(head_pad));
        let mut end = OWN_KEPT.min(head.len());
        while !head.is_char_boundary(end) {
            end -= 1;
        }
        format!(
            "{}[… {total} bytes were sent; the first {end} are kept]",
            &head[..end]
        )
    }

    /// The message as owned chunks for a request body's stream: the padding pieces are the
    /// one static buffer, never copied.
    pub fn into_bytes(self) -> impl Iterator<Item = bytes::Bytes> + Send + 'static {
        let full = self.pad / PADDING.len();
        let rest = self.pad % PADDING.len();
        std::iter::once(bytes::Bytes::from(self.prefix))
            .chain(std::iter::repeat_n(
                bytes::Bytes::from_static(&PADDING),
                full,
            ))
            .chain(std::iter::once(bytes::Bytes::from_static(&PADDING[..rest])))
            .chain(std::iter::once(bytes::Bytes::from(self.suffix)))
            .filter(|c| !c.is_empty())
    }

    /// The message as consecutive slices: its start, the padding in 64 KiB pieces, its end.
    pub fn chunks(&self) -> impl Iterator<Item = &[u8]> {
        let full = self.pad / PADDING.len();
        let rest = self.pad % PADDING.len();
        std::iter::once(self.prefix.as_bytes())
            .chain(std::iter::repeat_n(&PADDING[..], full))
            .chain(std::iter::once(&PADDING[..rest]))
            .chain(std::iter::once(self.suffix.as_bytes()))
            .filter(|c| !c.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chunks_are_the_message_with_its_padding_and_the_record_keeps_its_start() {
        let p = Padded::new(
            format!("{{\"pad\":\"{}\"}}", super::super::PAD_MARKER),
            OWN_BODY_CAP + 70_000,
        );
        let whole: Vec<u8> = p.chunks().flatten().copied().collect();
        let expected = format!("{{\"pad\":\"{}\"}}", "x".repeat(OWN_BODY_CAP + 70_000));
        assert_eq!(whole, expected.as_bytes());
        assert_eq!(p.total_len(), expected.len());
        assert_eq!(p.kept(), own_body_kept(&expected));
        let streamed: Vec<u8> = p.into_bytes().flat_map(|b| b.to_vec()).collect();
        assert_eq!(streamed, expected.as_bytes());
    }

    #[test]
    fn a_small_padded_message_is_kept_whole() {
        let p = Padded::new(format!("[{}]", super::super::PAD_MARKER), 10);
        assert_eq!(p.kept(), "[xxxxxxxxxx]");
        assert_eq!(p.chunks().flatten().count(), 12);
    }
}
