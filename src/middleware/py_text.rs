//! Python's text rules where deepagents' middleware relies on them: what `str.isspace()`
//! (and so `\s`, `strip()`, `split()`) counts as whitespace.

/// `c.isspace()`: Unicode's White_Space plus the four separators U+001C..U+001F.
pub fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `text.strip()`.
pub fn py_strip(text: &str) -> &str {
    text.trim_matches(is_py_space)
}

/// `text.rstrip()`.
pub fn py_rstrip(text: &str) -> &str {
    text.trim_end_matches(is_py_space)
}
