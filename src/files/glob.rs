//! Glob patterns with the semantics deepagents gets from `wcmatch.glob` with `BRACE |
//! GLOBSTAR`: permissions, `glob` and grep's `glob` filter all match through it, so a rule
//! that denies a path in deepagents denies it here.
//!
//! Not globset: wcmatch's rules differ from it where it matters for permissions. A wildcard
//! never matches a name starting with `.` (no `DOTGLOB`), `**` is a whole segment that
//! crosses directories but not hidden ones, `/secret/**` matches `/secret/` and what is
//! below it but not `/secret` itself, runs of `/` count as one, and a trailing `/` on the
//! path is ignored.

/// wcmatch refuses patterns that expand to more than this many brace alternatives.
const MAX_EXPANSIONS: usize = 1000;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct GlobError(pub String);

/// A compiled pattern: its brace alternatives, each a list of segments.
#[derive(Debug, Clone)]
pub struct Glob {
    alternatives: Vec<Alternative>,
}

#[derive(Debug, Clone)]
struct Alternative {
    absolute: bool,
    trailing_slash: bool,
    segments: Vec<Segment>,
}

#[derive(Debug, Clone)]
enum Segment {
    /// `**`: any number of directories, none of them hidden.
    Globstar,
    Pattern(Vec<Token>),
}

#[derive(Debug, Clone)]
enum Token {
    Literal(char),
    Star,
    One,
    Class {
        negated: bool,
        items: Vec<(char, char)>,
    },
}

impl Glob {
    pub fn new(pattern: &str) -> Result<Glob, GlobError> {
        let expanded = expand_braces(pattern)?;
        Ok(Glob {
            alternatives: expanded.iter().map(|p| Alternative::parse(p)).collect(),
        })
    }

    pub fn is_match(&self, path: &str) -> bool {
        let absolute = path.starts_with('/');
        let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let trailing = path.ends_with('/') && !segments.is_empty();
        self.alternatives
            .iter()
            .any(|alt| alt.is_match(absolute, trailing, &segments))
    }
}

/// `wcmatch.glob.globmatch(path, pattern, flags=BRACE | GLOBSTAR)`; a pattern wcmatch would
/// refuse matches nothing.
pub fn globmatch(path: &str, pattern: &str) -> bool {
    Glob::new(pattern).is_ok_and(|g| g.is_match(path))
}

impl Alternative {
    fn parse(pattern: &str) -> Alternative {
        let segments: Vec<Segment> = pattern
            .split('/')
            .filter(|s| !s.is_empty())
            .map(|s| {
                if s == "**" {
                    Segment::Globstar
                } else {
                    Segment::Pattern(tokens(s))
                }
            })
            .collect();
        Alternative {
            absolute: pattern.starts_with('/'),
            trailing_slash: pattern.ends_with('/') && !segments.is_empty(),
            segments,
        }
    }

    fn is_match(&self, absolute: bool, trailing: bool, path: &[&str]) -> bool {
        let leading_globstar = matches!(self.segments.first(), Some(Segment::Globstar));
        // A pattern starting with `**` matches absolute and relative paths alike.
        if absolute != self.absolute && (self.absolute || !leading_globstar) {
            return false;
        }
        if self.trailing_slash && !trailing {
            return false;
        }
        match_segments(&self.segments, path, trailing, true)
    }
}

fn match_segments(pattern: &[Segment], path: &[&str], trailing: bool, at_start: bool) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((Segment::Globstar, rest)) => {
            // A final `**` matching nothing still needs the separator before it
            // (`/secret/**` matches `/secret/`, not `/secret`).
            if rest.is_empty() && path.is_empty() && !trailing && !at_start {
                return false;
            }
            for skip in 0..=path.len() {
                if match_segments(rest, &path[skip..], trailing, false) {
                    return true;
                }
                if skip < path.len() && path[skip].starts_with('.') {
                    return false;
                }
            }
            false
        }
        Some((Segment::Pattern(tokens), rest)) => match path.split_first() {
            Some((first, tail)) => {
                match_segment(tokens, first) && match_segments(rest, tail, trailing, false)
            }
            None => false,
        },
    }
}

fn match_segment(tokens: &[Token], name: &str) -> bool {
    if name.starts_with('.') && !matches!(tokens.first(), Some(Token::Literal('.'))) {
        return false;
    }
    let chars: Vec<char> = name.chars().collect();
    match_tokens(tokens, &chars)
}

fn match_tokens(tokens: &[Token], name: &[char]) -> bool {
    match tokens.split_first() {
        None => name.is_empty(),
        Some((Token::Star, rest)) => (0..=name.len()).any(|i| match_tokens(rest, &name[i..])),
        Some((tok, rest)) => match name.split_first() {
            Some((&c, tail)) => {
                let ok = match tok {
                    Token::Literal(l) => *l == c,
                    Token::One => true,
                    Token::Class { negated, items } => {
                        items.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negated
                    }
                    Token::Star => unreachable!(),
                };
                ok && match_tokens(rest, tail)
            }
            None => false,
        },
    }
}

fn tokens(segment: &str) -> Vec<Token> {
    let chars: Vec<char> = segment.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '*' => {
                // `***` and `a**b` are a plain star inside a segment.
                while i + 1 < chars.len() && chars[i + 1] == '*' {
                    i += 1;
                }
                out.push(Token::Star);
            }
            '?' => out.push(Token::One),
            '\\' if i + 1 < chars.len() => {
                i += 1;
                out.push(Token::Literal(chars[i]));
            }
            '[' => match class(&chars[i..]) {
                Some((tok, used)) => {
                    out.push(tok);
                    i += used - 1;
                }
                None => out.push(Token::Literal('[')),
            },
            c => out.push(Token::Literal(c)),
        }
        i += 1;
    }
    out
}

/// A `[...]` class starting at `chars[0]`, and how many characters it used.
fn class(chars: &[char]) -> Option<(Token, usize)> {
    let mut i = 1;
    let negated = matches!(chars.get(1), Some('!') | Some('^'));
    if negated {
        i += 1;
    }
    let mut items = Vec::new();
    let first = i;
    while i < chars.len() {
        let c = chars[i];
        if c == ']' && i > first {
            return Some((Token::Class { negated, items }, i + 1));
        }
        if i + 2 < chars.len() && chars[i + 1] == '-' && chars[i + 2] != ']' {
            items.push((c, chars[i + 2]));
            i += 3;
        } else {
            items.push((c, c));
            i += 1;
        }
    }
    None
}

/// Brace expansion as wcmatch's `BRACE` does it (bracex): `{a,b}` and nested groups; a
/// group without a comma, or unbalanced, stays literal.
fn expand_braces(pattern: &str) -> Result<Vec<String>, GlobError> {
    let mut out = Vec::new();
    expand_into(pattern, &mut out)?;
    Ok(out)
}

fn expand_into(pattern: &str, out: &mut Vec<String>) -> Result<(), GlobError> {
    let Some((open, close, parts)) = first_group(pattern) else {
        out.push(pattern.to_owned());
        return Ok(());
    };
    let (head, tail) = (&pattern[..open], &pattern[close + 1..]);
    for part in parts {
        expand_into(&format!("{head}{part}{tail}"), out)?;
        if out.len() > MAX_EXPANSIONS {
            // wcmatch's words, which deepagents' glob errors carry.
            return Err(GlobError(format!(
                "Pattern limit exceeded the limit of {MAX_EXPANSIONS}"
            )));
        }
    }
    Ok(())
}

/// The first brace group with a top-level comma: its byte range and its alternatives.
fn first_group(pattern: &str) -> Option<(usize, usize, Vec<&str>)> {
    let bytes = pattern.as_bytes();
    let mut start = 0;
    while let Some(rel) = pattern[start..].find('{') {
        let open = start + rel;
        let mut depth = 0;
        let mut commas = Vec::new();
        let mut i = open;
        let mut escaped = false;
        while i < bytes.len() {
            let c = bytes[i];
            if escaped {
                escaped = false;
            } else if c == b'\\' {
                escaped = true;
            } else if c == b'{' {
                depth += 1;
            } else if c == b'}' {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            } else if c == b',' && depth == 1 {
                commas.push(i);
            }
            i += 1;
        }
        if i < bytes.len() && !commas.is_empty() {
            let mut parts = Vec::new();
            let mut from = open + 1;
            for c in commas {
                parts.push(&pattern[from..c]);
                from = c + 1;
            }
            parts.push(&pattern[from..i]);
            return Some((open, i, parts));
        }
        start = open + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::globmatch;

    /// Each row was checked against `wcmatch.glob.globmatch(path, pattern, flags=BRACE |
    /// GLOBSTAR)`.
    #[test]
    fn matches_as_wcmatch() {
        let rows = [
            ("/a/.b", "/a/*", false),
            ("/secret", "/secret/**", false),
            ("/secret/", "/secret/**", true),
            ("/secret/x/y", "/secret/**", true),
            ("a.py", "**/*.py", true),
            ("x/a.py", "**/*.py", true),
            (".h/a.py", "**/*.py", false),
            ("/a/b", "/a/{b,c}", true),
            ("/a/b", "/a/[!c]", true),
            ("/a/b.txt", "/a/*.{txt,md}", true),
            ("/docs", "/docs/**", false),
            ("a/b", "a*b", false),
            ("/a//b", "/a/b", true),
            ("/A", "/a", false),
            ("x", "x/", false),
            ("x/", "x", true),
            ("/a/b", "/**/b", true),
            ("/b", "/**/b", true),
            ("/.x", "/**", false),
            ("/a/.x/y", "/**", false),
            ("/x", "**", true),
            ("/AGENTS.md", "/AGENTS.md", true),
            ("/docs/a/b.md", "/docs/**", true),
        ];
        for (path, pattern, want) in rows {
            assert_eq!(globmatch(path, pattern), want, "{path} vs {pattern}");
        }
    }
}
