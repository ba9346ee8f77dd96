//! Lines around grep matches on disk (`FilesystemBackend.grep(context_lines=...)`).
//!
//! Neither ripgrep's stream nor the core's walk keeps the lines around a match, so the ones
//! asked for are read again afterwards, in one pass over each matched file that stops after
//! the last line needed.

use std::io::{BufRead, BufReader, Read};

use super::backend::ContextLine;

/// The inclusive line spans within `radius` of `lines`, ascending, touching spans merged.
pub fn wanted_ranges(lines: &[u64], radius: u64) -> Vec<(u64, u64)> {
    let mut sorted = lines.to_vec();
    sorted.sort_unstable();
    let mut spans: Vec<(u64, u64)> = Vec::new();
    for number in sorted {
        let (first, last) = (number.saturating_sub(radius).max(1), number + radius);
        match spans.last_mut() {
            Some(span) if first <= span.1 + 1 => span.1 = span.1.max(last),
            _ => spans.push((first, last)),
        }
    }
    spans
}

/// The lines (numbered from 1, line end removed) of `reader` inside the ascending `spans`.
/// With `universal`, `\r\n`, `\r` and `\n` each end a line (Python's universal newlines);
/// without, only `\n` does and a `\r` before it is dropped, as ripgrep reports lines. `Err`
/// when a line read is not UTF-8 or the read fails.
pub fn lines_in_ranges(
    reader: impl Read,
    spans: &[(u64, u64)],
    universal: bool,
) -> std::io::Result<Vec<(u64, String)>> {
    let mut kept = Vec::new();
    let Some(&(_, end)) = spans.last() else {
        return Ok(kept);
    };
    let mut reader = BufReader::new(reader);
    let mut number = 0u64;
    let mut raw = Vec::new();
    while number < end {
        raw.clear();
        if reader.read_until(b'\n', &mut raw)? == 0 {
            break;
        }
        let text = std::str::from_utf8(&raw)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
        let (body, ended) = match text
            .strip_suffix("\r\n")
            .or_else(|| text.strip_suffix('\n'))
        {
            Some(body) => (body, true),
            None => (text, false),
        };
        if !universal {
            number += 1;
            keep(&mut kept, spans, number, body);
            continue;
        }
        // Every `\r` inside ends a line too; the piece after the last one is a line of its
        // own only when something follows it or the read ended a line.
        let mut pieces = body.split('\r').peekable();
        while let Some(piece) = pieces.next() {
            if pieces.peek().is_none() && piece.is_empty() && !ended {
                break;
            }
            number += 1;
            keep(&mut kept, spans, number, piece);
        }
    }
    Ok(kept)
}

fn keep(kept: &mut Vec<(u64, String)>, spans: &[(u64, u64)], number: u64, text: &str) {
    if spans.iter().any(|&(a, b)| a <= number && number <= b) {
        kept.push((number, text.to_owned()));
    }
}

/// Each match's `(context_before, context_after)` within `radius`, matches given by line.
/// A line that holds the pattern is a match in its own right (perhaps one the cap left out),
/// so it is never context.
pub fn attach(
    matched: &[u64],
    lines: &[(u64, String)],
    radius: u64,
    pattern: &str,
) -> Vec<(Vec<ContextLine>, Vec<ContextLine>)> {
    let mut usable: Vec<&(u64, String)> = lines
        .iter()
        .filter(|(n, text)| !matched.contains(n) && !text.contains(pattern))
        .collect();
    usable.sort_by_key(|(n, _)| *n);
    let context = |range: std::ops::RangeInclusive<u64>| {
        usable
            .iter()
            .filter(|(n, _)| range.contains(n))
            .map(|(line, text)| ContextLine {
                line: *line,
                text: text.clone(),
            })
            .collect::<Vec<_>>()
    };
    matched
        .iter()
        .map(|&at| {
            let before = context(at.saturating_sub(radius).max(1)..=at.saturating_sub(1));
            let after = context(at + 1..=at + radius);
            (before, after)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_merge_when_touching() {
        assert_eq!(wanted_ranges(&[10, 3, 5], 1), vec![(2, 6), (9, 11)]);
        assert_eq!(wanted_ranges(&[1], 3), vec![(1, 4)]);
    }

    #[test]
    fn line_ends_as_python_reads_them() {
        let text = b"a\r\nb\rc\nd\ne\r".as_slice();
        let all = [(1, 9)];
        let universal = lines_in_ranges(text, &all, true).unwrap();
        let texts: Vec<&str> = universal.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(texts, ["a", "b", "c", "d", "e"]);
        let plain = lines_in_ranges(text, &all, false).unwrap();
        let texts: Vec<&str> = plain.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(texts, ["a", "b\rc", "d", "e\r"]);
        assert!(lines_in_ranges(b"ok\n\xff\n".as_slice(), &all, true).is_err());
        assert_eq!(
            lines_in_ranges(b"ok\n\xff\n".as_slice(), &[(1, 1)], true)
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn matches_never_serve_as_context() {
        let lines: Vec<(u64, String)> = (1..=5).map(|n| (n, format!("l{n}"))).collect();
        let got = attach(&[2, 4], &lines, 1, "zz");
        assert_eq!(got[0].0.iter().map(|c| c.line).collect::<Vec<_>>(), [1]);
        assert_eq!(got[0].1.iter().map(|c| c.line).collect::<Vec<_>>(), [3]);
        assert_eq!(got[1].1.iter().map(|c| c.line).collect::<Vec<_>>(), [5]);
    }
}
