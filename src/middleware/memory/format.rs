//! The memory section of the system prompt: each source's content paired with its path,
//! filled into the template, as deepagents' `MemoryMiddleware._format_agent_memory` does.

use serde_json::{Map, Value};

use super::texts::NO_MEMORY_LOADED;
use crate::middleware::format_slots::{self, FillError};
use crate::middleware::py_text::py_rstrip;

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

/// `template.format(agent_memory=body)`; any other field fails, as Python's `format` would
/// (with its message where it has one).
pub fn fill(template: &str, body: &str) -> Result<String, String> {
    format_slots::fill(template, &[("agent_memory", body)]).map_err(|e| match e {
        FillError::Syntax(message) => message.to_owned(),
        FillError::Unknown(other) => {
            format!("the memory system_prompt can only fill {{agent_memory}}, not {{{other}}}")
        }
    })
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
