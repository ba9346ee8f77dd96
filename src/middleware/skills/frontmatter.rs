//! A `SKILL.md`'s frontmatter: where it is in the file (deepagents' `_FRONTMATTER_PATTERN`),
//! and the `SkillMetadata` deepagents' `_parse_skill_metadata` makes of its fields.
//!
//! The YAML itself is read at the boundary (see `FrontmatterReader`): deepagents reads it
//! with PyYAML's `safe_load` (YAML 1.1: `yes` is a boolean) and turns values into text with
//! Python's `str()` (`True`, `None`, `1.0`, a date's ISO form), which is what the model then
//! sees. No Rust YAML crate resolves scalars as YAML 1.1 does, and `str()` of what it
//! resolves is Python's to define, so the reader hands back those texts already made.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::middleware::py_text::{is_py_space, py_strip};

/// deepagents' `MAX_SKILL_FILE_SIZE` (10 MiB, counted in characters as `len(str)` does).
pub const MAX_SKILL_FILE_SIZE: usize = 10 * 1024 * 1024;
/// The Agent Skills specification's limits deepagents keeps to.
pub const MAX_SKILL_NAME_LENGTH: usize = 64;
pub const MAX_SKILL_DESCRIPTION_LENGTH: usize = 1024;
pub const MAX_SKILL_COMPATIBILITY_LENGTH: usize = 500;

/// A frontmatter's fields as deepagents takes them: each scalar field present as `str(value)`,
/// `allowed-tools` when it is a string or a list (of its string items), `metadata` as
/// `{str(k): str(v)}` (empty when it is not a mapping).
#[derive(Clone, Debug, Default, Deserialize)]
pub struct FrontmatterView {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub license: Option<String>,
    #[serde(default)]
    pub compatibility: Option<String>,
    #[serde(default, rename = "allowed-tools")]
    pub allowed_tools: Option<AllowedTools>,
    #[serde(default)]
    pub metadata: Map<String, Value>,
    /// deepagents' warnings of an `allowed-tools` of another type and of a `metadata` it
    /// ignores or doubts, made where the YAML is read and logged where deepagents logs them.
    #[serde(default)]
    pub allowed_tools_warning: Option<String>,
    #[serde(default)]
    pub metadata_warnings: Vec<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum AllowedTools {
    Text(String),
    List(Vec<String>),
}

/// The byte offsets just past each newline in the run of Python whitespace starting at
/// `from`, last first: the order a greedy `\s*\n` tries them in.
fn newline_ends(text: &str, from: usize) -> Vec<usize> {
    let mut ends: Vec<usize> = text[from..]
        .char_indices()
        .take_while(|&(_, c)| is_py_space(c))
        .filter(|&(_, c)| c == '\n')
        .map(|(i, _)| from + i + 1)
        .collect();
    ends.reverse();
    ends
}

/// `re.match(r"^---\s*\n(.*?)\n---\s*\n", content, re.DOTALL)`: the YAML between the
/// markers and where the match ends, tried in the order the regex backtracks.
pub fn split(content: &str) -> Option<(&str, usize)> {
    if !content.starts_with("---") {
        return None;
    }
    for start in newline_ends(content, 3) {
        let mut at = start;
        while let Some(offset) = content[at..].find("\n---") {
            let close = at + offset;
            if let Some(&end) = newline_ends(content, close + 4).first() {
                return Some((&content[start..close], end));
            }
            at = close + 1;
        }
    }
    None
}

/// The first `n` characters (Python's `text[:n]`).
fn chars_prefix(text: &str, n: usize) -> &str {
    text.char_indices().nth(n).map_or(text, |(i, _)| &text[..i])
}

/// deepagents' `_validate_skill_name`: the rule a name breaks, if any. Breaking one only
/// warns; the skill still loads.
pub fn name_problem(name: &str, directory: &str) -> Option<String> {
    let spec = "name must be lowercase alphanumeric with single hyphens only";
    if name.is_empty() {
        return Some("name is required".into());
    }
    if name.chars().count() > MAX_SKILL_NAME_LENGTH {
        return Some("name exceeds 64 characters".into());
    }
    if name.starts_with('-') || name.ends_with('-') || name.contains("--") {
        return Some(spec.into());
    }
    let allowed = |c: char| c == '-' || (c.is_alphabetic() && c.is_lowercase()) || c.is_numeric();
    if !name.chars().all(allowed) {
        return Some(spec.into());
    }
    (name != directory).then(|| format!("name '{name}' must match directory name '{directory}'"))
}

/// `allowed-tools`: a string split on whitespace and commas, or a list's non-blank strings.
fn allowed_tools(raw: Option<&AllowedTools>) -> Vec<String> {
    match raw {
        Some(AllowedTools::Text(text)) => text
            .split(|c: char| c == ',' || is_py_space(c))
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .collect(),
        Some(AllowedTools::List(items)) => items
            .iter()
            .map(|t| py_strip(t))
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .collect(),
        None => Vec::new(),
    }
}

/// `str(x).strip() or None`.
fn optional_text(raw: Option<&String>) -> Value {
    match raw.map(|t| py_strip(t)).filter(|t| !t.is_empty()) {
        Some(text) => Value::String(text.to_owned()),
        None => Value::Null,
    }
}

/// The `SkillMetadata` dict of a skill, in deepagents' key order; `None` when the skill is
/// skipped (no name or no description).
pub fn skill_metadata(
    view: &FrontmatterView,
    path: &str,
    directory: &str,
    warn: &dyn Fn(String),
) -> Option<Value> {
    let name = py_strip(view.name.as_deref().unwrap_or(""));
    let description = py_strip(view.description.as_deref().unwrap_or(""));
    if name.is_empty() || description.is_empty() {
        warn(format!(
            "Skipping {path}: missing required 'name' or 'description'"
        ));
        return None;
    }
    if let Some(problem) = name_problem(name, directory) {
        warn(format!(
            "Skill '{name}' in {path} does not follow Agent Skills specification: {problem}. Consider renaming for spec compliance."
        ));
    }
    let description_length = description.chars().count();
    if description_length > MAX_SKILL_DESCRIPTION_LENGTH {
        let n = MAX_SKILL_DESCRIPTION_LENGTH;
        warn(format!(
            "Skill description in {path} is {description_length} characters, over the Agent Skills spec limit of {n}. \
             Keeping only the first {n} characters; the rest is dropped from what the model sees when deciding \
             whether to use this skill. Shorten the 'description' field in the SKILL.md frontmatter to stay within the limit."
        ));
    }
    if let Some(note) = &view.allowed_tools_warning {
        warn(note.clone());
    }
    let compatibility = optional_text(view.compatibility.as_ref());
    if let Some(length) = compatibility
        .as_str()
        .map(|c| c.chars().count())
        .filter(|&l| l > MAX_SKILL_COMPATIBILITY_LENGTH)
    {
        let n = MAX_SKILL_COMPATIBILITY_LENGTH;
        warn(format!(
            "Skill compatibility in {path} is {length} characters, over the Agent Skills spec limit of {n}. \
             Keeping only the first {n} characters and dropping the rest. Shorten the 'compatibility' field in \
             the SKILL.md frontmatter to stay within the limit."
        ));
    }
    view.metadata_warnings.iter().cloned().for_each(warn);
    let compatibility = match compatibility {
        Value::String(c) => {
            Value::String(chars_prefix(&c, MAX_SKILL_COMPATIBILITY_LENGTH).to_owned())
        }
        other => other,
    };
    Some(json!({
        "name": name,
        "description": chars_prefix(description, MAX_SKILL_DESCRIPTION_LENGTH),
        "path": path,
        "metadata": view.metadata,
        "license": optional_text(view.license.as_ref()),
        "compatibility": compatibility,
        "allowed_tools": allowed_tools(view.allowed_tools.as_ref()),
    }))
}

/// Where a `SKILL.md`'s YAML is, after deepagents' checks of the whole text: `None` (with
/// deepagents' warning) for a file over the size limit or without frontmatter.
pub fn frontmatter_yaml<'a>(
    content: &'a str,
    path: &str,
    warn: &dyn Fn(String),
) -> Option<&'a str> {
    // `len(content)` counts characters; a text within the limit in bytes is within it.
    let chars = if content.len() > MAX_SKILL_FILE_SIZE {
        content.chars().count()
    } else {
        0
    };
    if chars > MAX_SKILL_FILE_SIZE {
        warn(format!(
            "Skipping {path}: content too large ({chars} bytes)"
        ));
        return None;
    }
    match split(content) {
        Some((yaml, _)) => Some(yaml),
        None => {
            warn(format!("Skipping {path}: no valid YAML frontmatter found"));
            None
        }
    }
}

/// What the file holds without its frontmatter, as a pinned skill shows it
/// (`content[match.end():]`, or the whole file when there is none), right-stripped.
pub fn body(content: &str) -> &str {
    let rest = split(content).map_or(content, |(_, end)| &content[end..]);
    crate::middleware::py_text::py_rstrip(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_where_the_regex_matches() {
        let text = "--- \n\nname: a\n---  \n\nbody";
        assert_eq!(split(text), Some(("name: a", 21)));
        assert_eq!(&text[21..], "body");
        // The closing marker needs a newline after it; the opening one may not be alone.
        assert_eq!(split("---\nname: a\n---"), None);
        assert_eq!(split("---\n---\n"), None);
        assert_eq!(split("---\n\n---\nx"), Some(("", 9)));
        assert_eq!(split("x---\na\n---\n"), None);
        // The first closing marker followed by a newline wins, lazily.
        assert_eq!(split("---\na\n---x\nb\n---\n"), Some(("a\n---x\nb", 17)));
    }

    #[test]
    fn names_follow_the_spec_or_warn() {
        assert_eq!(name_problem("web-research", "web-research"), None);
        assert_eq!(name_problem("café", "café"), None);
        assert!(name_problem("Bad", "Bad").is_some());
        assert!(name_problem("a--b", "a--b").is_some());
        assert_eq!(
            name_problem("a", "b").unwrap(),
            "name 'a' must match directory name 'b'"
        );
    }

    #[test]
    fn metadata_from_the_view() {
        let view = FrontmatterView {
            name: Some(" web ".into()),
            description: Some("d".repeat(1030)),
            compatibility: Some("  ".into()),
            allowed_tools: Some(AllowedTools::Text("a, b\tc,,".into())),
            ..Default::default()
        };
        let meta = skill_metadata(&view, "/s/web/SKILL.md", "web", &|_| ()).unwrap();
        assert_eq!(meta["name"], "web");
        assert_eq!(meta["description"].as_str().unwrap().len(), 1024);
        assert_eq!(meta["compatibility"], Value::Null);
        assert_eq!(meta["allowed_tools"], json!(["a", "b", "c"]));
        let no_description = FrontmatterView {
            name: Some("web".into()),
            ..Default::default()
        };
        assert!(skill_metadata(&no_description, "/p", "web", &|_| ()).is_none());
    }
}
