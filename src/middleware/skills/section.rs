//! The skills section of the system prompt, as deepagents' `SkillsMiddleware.modify_request`
//! builds it: where skills come from, the warnings of the last load, and one entry per skill
//! (name, description, and the path to read for the rest).

use serde_json::Value;

use super::paths::{components, posix};
use super::texts::{LOAD_WARNINGS_HEAD, LOAD_WARNINGS_TAIL};
use crate::middleware::format_slots::{FillError, fill};

/// deepagents' `MAX_SKILLS_LOAD_WARNINGS` and `MAX_SKILL_LOAD_WARNING_LENGTH`.
pub const MAX_WARNINGS: usize = 20;
pub const MAX_WARNING_LENGTH: usize = 1000;
const TRUNCATED: &str = "... [truncated]";

/// A source: its path and the label the prompt shows it under.
#[derive(Clone, Debug)]
pub struct Source {
    pub path: String,
    pub label: String,
}

/// Python's `str.capitalize()`: the first character upper, the rest lower.
fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first
            .to_uppercase()
            .chain(chars.flat_map(char::to_lowercase))
            .collect(),
        None => String::new(),
    }
}

/// Python's `str.title()`: a cased character after a cased one is lowered, any other raised.
fn title(text: &str) -> String {
    let cased = |c: char| c.is_uppercase() || c.is_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut previous_cased = false;
    for c in text.chars() {
        if previous_cased {
            out.extend(c.to_lowercase());
        } else {
            out.extend(c.to_uppercase());
        }
        previous_cased = cased(c);
    }
    out
}

/// deepagents' `_derive_source_label` for a bare path: the leaf capitalized, `Built-in` for
/// `built_in_skills`, and for a leaf named `skills` its parent title-cased (`~/.claude/skills`
/// reads `Claude`), unless the parent is the root.
pub fn derive_label(path: &str) -> String {
    let posix = posix(path);
    let parts = components(posix.trim_end_matches('/'));
    let Some(leaf) = parts.last() else {
        return "Unnamed".into();
    };
    if leaf.to_lowercase() == "built_in_skills" {
        return "Built-in".into();
    }
    if leaf.to_lowercase() == "skills" && parts.len() >= 2 {
        let parent = parts[parts.len() - 2].trim_start_matches('.');
        if !parent.is_empty() && parent != "/" && parent != "." {
            return title(&parent.replace(['_', '-'], " "));
        }
    }
    capitalize(leaf)
}

/// `**{label} Skills**: `{path}``, one line per source; the last has the higher priority.
pub fn locations(sources: &[Source]) -> String {
    let last = sources.len().saturating_sub(1);
    sources
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let suffix = if i == last { " (higher priority)" } else { "" };
            format!("**{} Skills**: `{}`{suffix}", s.label, s.path)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// deepagents' `_format_skill_annotations`: the skill's license and compatibility, as the
/// list shows them after its description (empty when it has neither).
pub fn annotations(skill: &Value) -> String {
    [("License", "license"), ("Compatibility", "compatibility")]
        .into_iter()
        .filter_map(|(label, key)| {
            skill
                .get(key)
                .and_then(Value::as_str)
                .filter(|v| !v.is_empty())
                .map(|v| format!("{label}: {v}"))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// One entry per skill, or where skills could be created when there are none.
pub fn skills_list(sources: &[Source], skills: &[Value]) -> String {
    if skills.is_empty() {
        let paths: Vec<&str> = sources.iter().map(|s| s.path.as_str()).collect();
        return format!(
            "(No skills available yet. You can create skills in {})",
            paths.join(" or ")
        );
    }
    let text = |skill: &Value, key: &str| skill.get(key).and_then(Value::as_str).map(str::to_owned);
    let mut lines = Vec::new();
    for skill in skills {
        let mut line = format!(
            "- **{}**: {}",
            text(skill, "name").unwrap_or_default(),
            text(skill, "description").unwrap_or_default()
        );
        let annotations = annotations(skill);
        if !annotations.is_empty() {
            line.push_str(&format!(" ({annotations})"));
        }
        lines.push(line);
        let tools: Vec<&str> = skill
            .get("allowed_tools")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if !tools.is_empty() {
            lines.push(format!("  -> Allowed tools: {}", tools.join(", ")));
        }
        lines.push(format!(
            "  -> Read `{}` for full instructions",
            text(skill, "path").unwrap_or_default()
        ));
    }
    lines.join("\n")
}

/// Python's `json.dumps(text)`: ASCII only, as `\uXXXX` (surrogate pairs past the BMP).
fn json_ascii(text: &str) -> String {
    crate::pyrepr::json_dumps(&serde_json::Value::String(text.to_owned()), true)
}

/// Python's `html.escape(text, quote=True)`.
pub(super) fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#x27;")
}

/// A load warning cut to `MAX_WARNING_LENGTH` characters, marked when cut.
pub fn truncate_warning(error: &str) -> String {
    if error.chars().count() <= MAX_WARNING_LENGTH {
        error.to_owned()
    } else {
        let keep = MAX_WARNING_LENGTH - TRUNCATED.len();
        let cut: String = error.chars().take(keep).collect();
        format!("{cut}{TRUNCATED}")
    }
}

/// A warning as the model sees it: capped, JSON-quoted, HTML-escaped.
fn warning_line(error: &str) -> String {
    format!("- {}", html_escape(&json_ascii(&truncate_warning(error))))
}

/// The warnings block after the locations, or nothing when the load had no errors.
pub fn load_warnings(errors: &[String]) -> String {
    if errors.is_empty() {
        return String::new();
    }
    let mut lines: Vec<String> = vec![String::new(), String::new()];
    lines.extend(LOAD_WARNINGS_HEAD.iter().map(|l| (*l).to_owned()));
    lines.extend(errors.iter().take(MAX_WARNINGS).map(|e| warning_line(e)));
    let omitted = errors.len().saturating_sub(MAX_WARNINGS);
    if omitted > 0 {
        let s = if omitted == 1 { "" } else { "s" };
        lines.push(format!(
            "- {}",
            html_escape(&json_ascii(&format!(
                "{omitted} additional skill loading warning{s} omitted."
            )))
        ));
    }
    lines.push(LOAD_WARNINGS_TAIL.to_owned());
    lines.join("\n")
}

/// The template filled for this state's skills and errors.
pub fn render(
    template: &str,
    sources: &[Source],
    skills: &[Value],
    errors: &[String],
) -> Result<String, String> {
    fill(
        template,
        &[
            ("skills_locations", &locations(sources)),
            ("skills_load_warnings", &load_warnings(errors)),
            ("skills_list", &skills_list(sources, skills)),
        ],
    )
    .map_err(|e| match e {
        FillError::Syntax(message) => message.to_owned(),
        FillError::Unknown(field) => format!(
            "the skills system_prompt can only fill {{skills_locations}}, {{skills_load_warnings}} and {{skills_list}}, not {{{field}}}"
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn labels_as_deepagents_derives_them() {
        assert_eq!(derive_label("/skills/user/"), "User");
        assert_eq!(derive_label("/skills/"), "Skills");
        assert_eq!(derive_label("~/.claude/skills"), "Claude");
        assert_eq!(derive_label("/x/my_team-b/skills"), "My Team B");
        assert_eq!(derive_label("/a/built_in_skills"), "Built-in");
        assert_eq!(derive_label("/"), "Unnamed");
        assert_eq!(derive_label("/a/PROJECT"), "Project");
    }

    #[test]
    fn warnings_are_quoted_escaped_and_capped() {
        assert_eq!(
            warning_line("a \"<é>\"\n"),
            "- &quot;a \\&quot;&lt;\\u00e9&gt;\\&quot;\\n&quot;"
        );
        let long = warning_line(&"x".repeat(1200));
        assert!(long.ends_with("... [truncated]&quot;"));
        let many: Vec<String> = (0..22).map(|i| i.to_string()).collect();
        assert!(load_warnings(&many).contains("2 additional skill loading warnings omitted."));
        assert_eq!(json_ascii("😀"), "\"\\ud83d\\ude00\"");
    }

    #[test]
    fn lists_skills_with_their_annotations() {
        let sources = vec![Source {
            path: "/s/".into(),
            label: "S".into(),
        }];
        let skill = json!({"name": "a", "description": "d", "path": "/s/a/SKILL.md",
            "license": "MIT", "compatibility": null, "allowed_tools": ["x", "y"]});
        assert_eq!(
            skills_list(&sources, &[skill]),
            "- **a**: d (License: MIT)\n  -> Allowed tools: x, y\n  -> Read `/s/a/SKILL.md` for full instructions"
        );
        assert_eq!(
            skills_list(&sources, &[]),
            "(No skills available yet. You can create skills in /s/)"
        );
    }
}
