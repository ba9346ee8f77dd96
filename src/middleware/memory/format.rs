//! The memory section of the system prompt: each source's content paired with its path,
//! filled into the template, as deepagents' `MemoryMiddleware._format_agent_memory` does.

use serde_json::{Map, Value};

use super::texts::NO_MEMORY_LOADED;

/// `re.sub(r"<!--.*?-->", "", text, flags=re.DOTALL)`: every complete comment removed; an
/// opening without a close is kept, as the pattern does not match it.
fn strip_html_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("<!--") {
        let Some(close) = rest[open + 4..].find("-->") else {
            break;
        };
        out.push_str(&rest[..open]);
        rest = &rest[open + 4 + close + 3..];
    }
    out.push_str(rest);
    out
}

/// Python's `str.rstrip()`: its whitespace is Unicode's plus the four separators
/// U+001C..U+001F.
fn py_rstrip(text: &str) -> &str {
    text.trim_end_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// The memory body: `path\n\ncontent` for each source with content left after stripping
/// comments, in the sources' order, joined by a blank line; or `(No memory loaded)`.
pub fn memory_body(sources: &[String], contents: &Map<String, Value>) -> String {
    let sections: Vec<String> = sources
        .iter()
        .filter_map(|path| {
            let raw = contents.get(path)?.as_str().filter(|s| !s.is_empty())?;
            let stripped = strip_html_comments(raw);
            let stripped = py_rstrip(&stripped);
            (!stripped.is_empty()).then(|| format!("{path}\n\n{stripped}"))
        })
        .collect();
    if sections.is_empty() {
        NO_MEMORY_LOADED.to_owned()
    } else {
        sections.join("\n\n")
    }
}

/// `template.format(agent_memory=body)`: `{{`/`}}` are literal braces and `{agent_memory}`
/// the body. Any other field fails, as Python's `format` would (with its message where it
/// has one).
pub fn fill(template: &str, body: &str) -> Result<String, String> {
    let mut out = String::with_capacity(template.len() + body.len());
    let mut rest = template;
    while let Some(at) = rest.find(['{', '}']) {
        out.push_str(&rest[..at]);
        let brace = &rest[at..at + 1];
        let after = &rest[at + 1..];
        if after.starts_with(brace) {
            out.push_str(brace);
            rest = &after[1..];
            continue;
        }
        if brace == "}" {
            return Err("Single '}' encountered in format string".into());
        }
        let Some(end) = after.find('}') else {
            return Err("expected '}' before end of string".into());
        };
        match &after[..end] {
            "agent_memory" => out.push_str(body),
            other => {
                return Err(format!(
                    "the memory system_prompt can only fill {{agent_memory}}, not {{{other}}}"
                ));
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pairs_paths_with_stripped_content_in_source_order() {
        let contents = json!({
            "/b.md": "B <!-- note\nspanning lines -->text\n\n",
            "/a.md": "# Project\n<!-- hidden -->\nUse tabs.\n\n\n",
            "/empty.md": "<!-- only a comment --> \n",
        });
        let sources: Vec<String> = ["/a.md", "/missing.md", "/empty.md", "/b.md"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            memory_body(&sources, contents.as_object().unwrap()),
            "/a.md\n\n# Project\n\nUse tabs.\n\n/b.md\n\nB text"
        );
        assert_eq!(memory_body(&sources, &Map::new()), NO_MEMORY_LOADED);
    }

    #[test]
    fn keeps_an_unclosed_comment() {
        assert_eq!(strip_html_comments("a <!-- b"), "a <!-- b");
        assert_eq!(strip_html_comments("a <!--> b --> c"), "a  c");
    }

    #[test]
    fn fills_like_str_format() {
        assert_eq!(fill("<{agent_memory}> {{x}}", "M").unwrap(), "<M> {x}");
        assert!(fill("{other} {agent_memory}", "M").is_err());
        assert!(fill("a } {agent_memory}", "M").is_err());
    }
}
