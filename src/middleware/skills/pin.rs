//! Pinned skills (deepagents' `before_model` on `pinned_skills`): each named skill's
//! `SKILL.md`, without its frontmatter, appended to the conversation as a user message.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::frontmatter::{self, MAX_SKILL_FILE_SIZE};
use super::load::download;
use super::section::html_escape;
use crate::files::{Backend, FilesScope};
use crate::messages::{HumanMessage, Message};

/// The loaded skill each distinct name refers to, first-seen order, unknown names skipped.
pub fn skills_to_pin<'a>(names: &[Value], skills: &'a [Value]) -> Vec<&'a Value> {
    let mut seen = std::collections::HashSet::new();
    let mut index = std::collections::HashMap::new();
    for (i, skill) in skills.iter().enumerate() {
        if let Some(name) = skill["name"].as_str() {
            index.insert(name.to_owned(), i);
        }
    }
    let mut out = Vec::new();
    for name in names.iter().filter_map(Value::as_str) {
        if !seen.insert(name) {
            continue;
        }
        match index.get(name) {
            Some(&i) => out.push(&skills[i]),
            None => tracing::debug!("Not pinning skill '{name}': unknown skill"),
        }
    }
    out
}

/// The message pinning `skill` with its file's `body`.
fn pinned_message(skill: &Value, body: &str) -> Message {
    let text = |key: &str| skill[key].as_str().unwrap_or_default().to_owned();
    let (name, path) = (text("name"), text("path"));
    let mut kwargs = Map::new();
    kwargs.insert("lc_source".into(), json!("pinned_skill"));
    kwargs.insert(
        "skill".into(),
        json!({"name": name, "path": path, "description": text("description")}),
    );
    Message::Human(HumanMessage {
        content: format!(
            "<skill name=\"{}\" path=\"{}\">\n{body}\n</skill>",
            html_escape(&name),
            html_escape(&path)
        )
        .into(),
        id: Some(crate::run::new_id()),
        additional_kwargs: kwargs.into(),
        ..Default::default()
    })
}

/// The messages for `skills`, skipping a file that is missing, empty, too large or not text.
pub async fn pinned_messages(
    backend: &Arc<dyn Backend>,
    scope: &Arc<FilesScope>,
    skills: &[&Value],
) -> Vec<Arc<Message>> {
    if skills.is_empty() {
        return Vec::new();
    }
    let paths = skills
        .iter()
        .map(|s| s["path"].as_str().unwrap_or_default().to_owned())
        .collect();
    // deepagents skips an unreadable pinned skill with a debug message only.
    let answers = download(backend, scope, paths, &|m| tracing::debug!("{m}")).await;
    skills
        .iter()
        .zip(answers)
        .filter_map(|(skill, answer)| {
            let answer = answer?;
            let content = answer.content.filter(|_| answer.error.is_none())?;
            // deepagents measures the downloaded bytes.
            if content.is_empty() || content.len() > MAX_SKILL_FILE_SIZE {
                return None;
            }
            Some(Arc::new(pinned_message(skill, frontmatter::body(&content))))
        })
        .collect()
}
