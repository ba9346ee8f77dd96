//! A string as a JSON string literal, byte for byte as `serde_json` writes one, eight bytes
//! at a time through the runs that need no escape.
//!
//! Every message of a run's input is encoded once by its first request: for a long history
//! that is the whole conversation's text, and `serde_json`'s escaping (a table lookup and a
//! branch per byte) was most of that request's encoding.

/// `text` as a quoted JSON string, appended to `out`: `serde_json::to_writer`'s bytes.
pub(crate) fn write_json_string(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        // Four words with no byte to escape are passed over at once: a long history's text
        // (0.4 MB at 2,000 messages, all encoded by a run's first request) is mostly such
        // runs, and a test a word cost about twice the instructions a byte. A block with a
        // byte to escape is passed over up to its first flagged word, whose bytes are then
        // looked at one by one (nothing tested twice: text dense in escapes pays one word
        // test per eight bytes, as it did before blocks).
        let end = if let Some(block) = bytes.get(i..i + 32) {
            let flags = [0, 8, 16, 24].map(|at| escape_flags(word_of(&block[at..])));
            match flags.iter().position(|&f| f != 0) {
                None => {
                    i += 32;
                    continue;
                }
                Some(k) => i += 8 * k,
            }
            i + 8
        } else if let Some(word) = bytes.get(i..i + 8) {
            if escape_flags(word_of(word)) == 0 {
                i += 8;
                continue;
            }
            i + 8
        } else {
            bytes.len()
        };
        while i < end {
            let b = bytes[i];
            i += 1;
            let Some(escape) = escape_of(b) else {
                continue;
            };
            out.extend_from_slice(&bytes[start..i - 1]);
            match escape {
                Escape::Short(c) => out.extend_from_slice(&[b'\\', c]),
                Escape::Unicode => {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    out.extend_from_slice(&[
                        b'\\',
                        b'u',
                        b'0',
                        b'0',
                        HEX[usize::from(b >> 4)],
                        HEX[usize::from(b & 0xf)],
                    ]);
                }
            }
            start = i;
        }
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// `text` as a quoted JSON string.
pub(crate) fn json_string(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len() + 2);
    write_json_string(&mut out, text);
    // Only whole UTF-8 sequences were copied, and ASCII added around them.
    String::from_utf8(out).unwrap_or_default()
}

/// Whether `text` is written as it is between the quotes (no byte of it escaped).
pub(crate) fn is_plain_json_string(text: &str) -> bool {
    text.bytes().all(|b| escape_of(b).is_none())
}

enum Escape {
    /// `\` and this character.
    Short(u8),
    /// `\u00XX`.
    Unicode,
}

/// How `serde_json` escapes a byte: a control character, `"` and `\` (every other byte,
/// DEL and non-ASCII included, goes as it is).
fn escape_of(b: u8) -> Option<Escape> {
    Some(match b {
        b'"' => Escape::Short(b'"'),
        b'\\' => Escape::Short(b'\\'),
        b'\n' => Escape::Short(b'n'),
        b'\r' => Escape::Short(b'r'),
        b'\t' => Escape::Short(b't'),
        0x08 => Escape::Short(b'b'),
        0x0c => Escape::Short(b'f'),
        0x00..=0x1f => Escape::Unicode,
        _ => return None,
    })
}

/// The eight bytes as a little-endian word.
fn word_of(bytes: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(w)
}

/// Not zero when a byte of the word is below 0x20, `"` or `\` (the exact "has a zero byte"
/// test, on the word and on its bytes xor-ed with each quote; a false "yes" only sends the
/// word through the byte loop).
fn escape_flags(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGH;
    let quote = w ^ (ONES * u64::from(b'"'));
    let backslash = w ^ (ONES * u64::from(b'\\'));
    below(w, 0x20) | below(quote, 1) | below(backslash, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same_as_serde(text: &str) {
        assert_eq!(
            json_string(text),
            serde_json::to_string(text).unwrap(),
            "{text:?}"
        );
    }

    #[test]
    fn every_byte_is_written_as_serde_json_writes_it() {
        // Each char of the first 256 code points, alone and inside runs of every length
        // around a word's eight bytes.
        for c in (0u32..256).filter_map(char::from_u32) {
            for pad in 0..42 {
                let a = "a".repeat(pad);
                same_as_serde(&format!("{a}{c}"));
                same_as_serde(&format!("{c}{a}"));
                same_as_serde(&format!("{a}{c}{a}{c}x"));
            }
        }
    }

    #[test]
    fn text_of_every_kind_is_written_as_serde_json_writes_it() {
        for text in [
            "",
            "plain text of a few words, longer than a word",
            "line one\nline two\ttabbed \"quoted\" \\ back",
            "héllo wörld — ünïcödé, 日本語, emoji 🎉 and \u{7f}\u{80}\u{2028}",
            "\u{0}\u{1}\u{1f} control \u{1b}[0m",
            "ends with a quote\"",
            "\"\"\"\"\"\"\"\"\\\\\\\\\\\\\\\\",
        ] {
            same_as_serde(text);
        }
    }

    #[test]
    fn a_plain_string_is_one_serde_json_writes_unescaped() {
        for c in (0u32..256).filter_map(char::from_u32) {
            let text = format!("key_{c}");
            let plain = serde_json::to_string(&text).unwrap() == format!("\"{text}\"");
            assert_eq!(is_plain_json_string(&text), plain, "{text:?}");
        }
    }
}
