//! Skill tools (deepagents' `SkillsMiddleware(tools=...)`): a skill lists tool names under
//! `metadata.include_tools`; once the model has read that skill's `SKILL.md` (a successful
//! `read_file` result, or the skill pinned), and for as long as that read stays in the
//! conversation, each name's tools are offered to the model. A name is a tool's exact name,
//! or a name the resolver maps to tools. This module decides, for one model call, which
//! reads count and what they disclose; `mod.rs` applies it and keeps the record the
//! tool-time gate reads.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::files::path::validate_path;
use crate::messages::{Message, ToolStatus};
use crate::tools::{Tool, ToolSpec};

/// The frontmatter `metadata` key listing a skill's include names, space-separated.
const INCLUDE_TOOLS_KEY: &str = "include_tools";

/// A read of a skill's `SKILL.md`: where in the conversation, and the skill.
pub type Read<'a> = (usize, &'a Value);

/// The include names `skill` lists, in order (Python's `str.split()`).
pub fn include_names(skill: &Value) -> Vec<&str> {
    skill["metadata"][INCLUDE_TOOLS_KEY]
        .as_str()
        .map(|s| s.split_whitespace().collect())
        .unwrap_or_default()
}

/// `path` as `read_file` normalizes it, or `None` when it is no valid path.
fn normalized(path: Option<&Value>) -> Option<String> {
    validate_path(path?.as_str()?, None).ok()
}

/// Every read of a `SKILL.md` that lists include names: a `read_file` result that did not
/// fail (whatever its offset or limit, however its content was cut later), or a message
/// pinning the skill.
pub fn find_reads<'a>(messages: &[Arc<Message>], skills: &'a [Value]) -> Vec<Read<'a>> {
    let by_path: HashMap<String, &Value> = skills
        .iter()
        .filter(|s| !include_names(s).is_empty())
        .filter_map(|s| Some((normalized(s.get("path"))?, s)))
        .collect();
    if by_path.is_empty() {
        return Vec::new();
    }
    // A tool result's path is on the `read_file` call it answers.
    let mut read_paths: HashMap<&str, Option<&Value>> = HashMap::new();
    for message in messages {
        if let Message::Ai(ai) = message.as_ref() {
            for call in &ai.tool_calls {
                match call.id.as_deref() {
                    Some(id) if call.name == "read_file" && !id.is_empty() => {
                        read_paths.insert(id, call.args.get("file_path"));
                    }
                    _ => {}
                }
            }
        }
    }
    let mut reads = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        let path = match message.as_ref() {
            Message::Tool(t) if t.status != ToolStatus::Error => {
                read_paths.get(t.tool_call_id.as_str()).copied().flatten()
            }
            // A pinned skill's message carries its own path.
            Message::Human(h)
                if h.additional_kwargs.get("lc_source").and_then(Value::as_str)
                    == Some("pinned_skill") =>
            {
                h.additional_kwargs
                    .get("skill")
                    .and_then(Value::as_object)
                    .and_then(|m| m.get("path"))
            }
            _ => continue,
        };
        if let Some(skill) = normalized(path).and_then(|p| by_path.get(&p)) {
            reads.push((index, *skill));
        }
    }
    reads
}

/// Each distinct include name of the read skills that no tool of the request answers to,
/// in read order: the names the resolver is asked for.
pub fn unclaimed_names(reads: &[Read<'_>], request_tools: &[ToolSpec]) -> Vec<String> {
    let present: HashSet<&str> = request_tools.iter().map(|t| t.name.as_str()).collect();
    let mut seen = HashSet::new();
    let mut names = Vec::new();
    for (_, skill) in reads {
        for name in include_names(skill) {
            if !present.contains(name) && seen.insert(name) {
                names.push(name.to_owned());
            }
        }
    }
    names
}

/// What one model call discloses.
#[derive(Default)]
pub struct Disclosure {
    /// The request's own deferred tools a read skill lists: sent with their schema.
    pub deferred: HashSet<String>,
    /// Skill tools, by name, with the include name that produced each: callable only while
    /// disclosed.
    pub gated: BTreeMap<String, (Arc<dyn Tool>, String)>,
    /// Every disclosed tool's name, in the order the reads disclosed them, with the index
    /// of the earliest read disclosing it.
    anchored: Vec<(String, usize)>,
}

impl Disclosure {
    pub fn is_empty(&self) -> bool {
        self.anchored.is_empty()
    }

    /// The disclosed tools as the model would be shown them: the deferred ones, then the
    /// skill tools, each in the order the reads disclosed them.
    pub fn specs<'a>(&'a self, request_tools: &'a [ToolSpec]) -> Vec<&'a ToolSpec> {
        let deferred = self
            .anchored
            .iter()
            .filter(|(n, _)| self.deferred.contains(n))
            .filter_map(|(n, _)| request_tools.iter().find(|t| &t.name == n));
        let gated = self
            .anchored
            .iter()
            .filter_map(|(n, _)| self.gated.get(n).map(|(tool, _)| tool.spec()));
        deferred.chain(gated).collect()
    }

    /// Withholds the tool `name`: the model is not shown it, and the gate does not admit it.
    pub fn discard(&mut self, name: &str) {
        self.deferred.remove(name);
        self.gated.remove(name);
        self.anchored.retain(|(n, _)| n != name);
    }

    /// The record the tool-time gate reads: each gated tool's include name, by tool name.
    pub fn record(&self) -> Map<String, Value> {
        self.gated
            .iter()
            .map(|(name, (_, include))| (name.clone(), Value::String(include.clone())))
            .collect()
    }

    /// The request's tools with this disclosure: deferred ones sent with their schema, the
    /// skill tools after them, sorted by name, ahead of the structured output's schema tools
    /// (which LangChain adds after the middleware); and where those now start.
    pub fn bind(
        &self,
        request_tools: &[ToolSpec],
        schema_tools_at: Option<usize>,
    ) -> (Arc<[ToolSpec]>, Option<usize>) {
        let at = schema_tools_at.unwrap_or(request_tools.len());
        let undeferred = |t: &ToolSpec| {
            let mut t = t.clone();
            if self.deferred.contains(&t.name) {
                t.defer_loading = false;
            }
            t
        };
        let mut tools: Vec<ToolSpec> = request_tools[..at].iter().map(undeferred).collect();
        tools.extend(self.gated.values().map(|(tool, _)| tool.spec().clone()));
        tools.extend(request_tools[at..].iter().map(undeferred));
        (tools.into(), schema_tools_at.map(|i| i + self.gated.len()))
    }
}

/// Where a disclosure anchored at the read `anchor` goes: after the read's batch of tool
/// results and whatever user messages follow it (Anthropic wants it between a user turn and
/// an assistant turn), past an empty reply (which Anthropic drops).
fn insertion_point(messages: &[Arc<Message>], anchor: usize) -> usize {
    let mut index = anchor + 1;
    while let Some(message) = messages.get(index) {
        let skipped = match message.as_ref() {
            Message::Tool(_) | Message::Human(_) => true,
            Message::Ai(ai) => ai.tool_calls.is_empty() && ai.content.is_empty(),
            _ => false,
        };
        if !skipped {
            break;
        }
        index += 1;
    }
    index
}

impl Disclosure {
    /// `messages` with the disclosed tools given in the conversation: one system message
    /// per insertion point, carrying the blocks (`blocks`, by tool name) of the tools anchored
    /// there, sorted by name. Each lands at the same place with the same content on every
    /// call while its read stays, so the provider's cached prefix survives.
    pub fn insert(
        &self,
        messages: &[Arc<Message>],
        blocks: &HashMap<String, Value>,
    ) -> Vec<Arc<Message>> {
        let mut at: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
        for (name, anchor) in &self.anchored {
            at.entry(insertion_point(messages, *anchor))
                .or_default()
                .push(name);
        }
        let mut out = messages.to_vec();
        // Indices are of the unmodified list: inserted back to front.
        for (index, mut names) in at.into_iter().rev() {
            names.sort_unstable();
            let content = names
                .iter()
                .filter_map(|n| blocks.get(*n).cloned())
                .collect();
            let message = Message::System(crate::messages::SystemMessage {
                content: crate::messages::Content::Blocks(content),
                ..Default::default()
            });
            out.insert(index, Arc::new(message));
        }
        out
    }
}

/// What the read skills' include names produce: a name a request tool answers to produces
/// that tool, any other what the resolver returned for it (`resolved`). A tool is disclosed
/// once, by the earliest read producing it; a request tool of the same name wins, since that
/// is the one that runs: a deferred one is sent with its schema, any other adds nothing.
pub fn plan(
    reads: &[Read<'_>],
    request_tools: &[ToolSpec],
    resolved: &HashMap<String, Vec<Arc<dyn Tool>>>,
) -> Disclosure {
    let present: HashMap<&str, &ToolSpec> =
        request_tools.iter().map(|t| (t.name.as_str(), t)).collect();
    let mut out = Disclosure::default();
    let mut unresolved = HashSet::new();
    for (index, skill) in reads {
        for include in include_names(skill) {
            let produced: Vec<(String, Option<Arc<dyn Tool>>)> = match present.get(include) {
                // A tool given as a JSON spec is no tool object, which deepagents skips.
                Some(spec) if spec.json_spec => Vec::new(),
                Some(spec) => vec![(spec.name.clone(), None)],
                None => resolved
                    .get(include)
                    .map(|tools| {
                        tools
                            .iter()
                            .map(|t| (t.spec().name.clone(), Some(t.clone())))
                            .collect()
                    })
                    .unwrap_or_default(),
            };
            if produced.is_empty() && unresolved.insert(include) {
                tracing::debug!(
                    "Skill '{}' names tool '{include}', which is not available in this request",
                    skill["name"].as_str().unwrap_or_default()
                );
            }
            for (name, tool) in produced {
                if out.anchored.iter().any(|(n, _)| n == &name) {
                    continue;
                }
                match (present.get(name.as_str()), tool) {
                    (None, Some(tool)) => {
                        out.gated.insert(name.clone(), (tool, include.to_owned()));
                    }
                    (Some(entry), _) if !entry.json_spec && entry.defer_loading => {
                        out.deferred.insert(name.clone());
                    }
                    _ => continue,
                }
                out.anchored.push((name, *index));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::{AiMessage, HumanMessage, ToolCall, ToolMessage};
    use serde_json::json;

    fn skill(name: &str, tools: &str) -> Value {
        json!({"name": name, "path": format!("/skills/{name}/SKILL.md"),
               "metadata": {"include_tools": tools}})
    }

    fn read_call(id: &str, path: &str) -> Arc<Message> {
        Arc::new(Message::Ai(AiMessage {
            tool_calls: vec![ToolCall {
                name: "read_file".into(),
                args: json!({"file_path": path}),
                id: Some(id.into()),
                r#type: "tool_call".into(),
                args_origin: None,
            }],
            ..Default::default()
        }))
    }

    fn result(id: &str, status: ToolStatus) -> Arc<Message> {
        let mut message: ToolMessage =
            serde_json::from_value(json!({"content": "", "tool_call_id": id, "status": "success"}))
                .unwrap();
        message.status = status;
        Arc::new(Message::Tool(message))
    }

    #[test]
    fn reads_count_when_they_succeed_whatever_the_spelling_of_the_path() {
        let skills = vec![skill("a", "x y"), skill("b", ""), skill("c", "z")];
        let pinned = Arc::new(Message::Human(HumanMessage {
            additional_kwargs: serde_json::from_value(json!({
                "lc_source": "pinned_skill", "skill": {"path": "/skills/c/SKILL.md"}
            }))
            .unwrap(),
            ..Default::default()
        }));
        let messages = vec![
            read_call("1", "skills//a/./SKILL.md"),
            result("1", ToolStatus::Success),
            read_call("2", "/skills/c/SKILL.md"),
            result("2", ToolStatus::Error),
            read_call("3", "/skills/b/SKILL.md"),
            result("3", ToolStatus::Success),
            pinned,
        ];
        let reads = find_reads(&messages, &skills);
        let found: Vec<(usize, &str)> = reads
            .iter()
            .map(|(i, s)| (*i, s["name"].as_str().unwrap()))
            .collect();
        assert_eq!(found, vec![(1, "a"), (6, "c")]);
        assert_eq!(unclaimed_names(&reads, &[]), vec!["x", "y", "z"]);
    }

    #[test]
    fn a_disclosure_goes_after_the_results_follow_ups_and_empty_replies() {
        let ai = |text: &str| {
            Arc::new(Message::Ai(AiMessage {
                content: text.into(),
                ..Default::default()
            }))
        };
        let human = Arc::new(Message::Human(HumanMessage::default()));
        let messages = vec![
            read_call("1", "/skills/a/SKILL.md"),
            result("1", ToolStatus::Success),
            result("2", ToolStatus::Success),
            human,
            ai(""),
            ai("answer"),
        ];
        assert_eq!(insertion_point(&messages, 1), 5);
        assert_eq!(insertion_point(&messages, 5), 6);
    }

    #[test]
    fn traversal_and_non_string_paths_are_no_reads() {
        let skills = vec![skill("a", "x")];
        let mut call = read_call("1", "/skills/../skills/a/SKILL.md");
        let messages = vec![call.clone(), result("1", ToolStatus::Success)];
        assert!(find_reads(&messages, &skills).is_empty());
        if let Message::Ai(ai) = Arc::make_mut(&mut call) {
            ai.tool_calls[0].args = json!({"file_path": 3});
        }
        assert!(find_reads(&[call, result("1", ToolStatus::Success)], &skills).is_empty());
    }
}
