//! deepagents' `SkillsMiddleware`: skill directories (a `SKILL.md` with YAML frontmatter
//! each) found under the sources through the agent's backend before the run, their names
//! and descriptions shown in the system prompt, the files read by the model when a skill
//! applies (progressive disclosure).
//!
//! State: `skills_metadata` (the loaded skills; a list, even empty, means loaded, so a
//! checkpointed thread does not load again, and `None` asks for a reload), the private
//! `skills_load_errors`, `pinned_skills` (names whose file is appended to the conversation
//! before the next model call), and the private `_skill_tools_disclosed`, written on every
//! model call as deepagents' `ExtendedModelResponse` writes it: the skill tools that call
//! was shown (see `disclosure`), which alone a call may run without being the agent's.

mod disclosure;
mod frontmatter;
mod load;
mod paths;
mod pin;
mod section;
mod texts;

use std::collections::HashMap;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Map, Value};

use super::system_prompt::append_section;
use super::{
    CommandWrite, Hook, HookContext, HookOutput, Middleware, ModelHandler, ModelResponse,
    ToolCallRequest, ToolHandler,
};
use crate::error::{BoxError, Error};
use crate::files::{Backend, FilesScope};
use crate::host::Opaque;
use crate::model::{ChatModel, ModelRequest};
use crate::state::{AgentState, MessagesDelta, StateDelta};
use crate::tools::{HostContext, Tool, ToolError, ToolResult, ToolSpec};

pub use frontmatter::{
    MAX_SKILL_COMPATIBILITY_LENGTH, MAX_SKILL_DESCRIPTION_LENGTH, MAX_SKILL_FILE_SIZE,
    MAX_SKILL_NAME_LENGTH,
};
pub use load::{FrontmatterReader, ReadView};
pub use section::{MAX_WARNING_LENGTH, MAX_WARNINGS, Source, derive_label};
pub use texts::SKILLS_SYSTEM_PROMPT;

/// The pieces deepagents' module keeps as private helpers (`_parse_skill_metadata`,
/// `_format_skills_list`, ...), which code written for deepagents calls directly.
pub mod parts {
    pub use super::frontmatter::{frontmatter_yaml, name_problem, skill_metadata};
    pub use super::load::{downloaded_text, load_source, skipped};
    pub use super::paths::dir_name;
    pub use super::scope_of;
    pub use super::section::{
        annotations, load_warnings, locations, skills_list, truncate_warning,
    };
}

pub const SKILLS_METADATA_KEY: &str = "skills_metadata";
pub const SKILLS_LOAD_ERRORS_KEY: &str = "skills_load_errors";
pub const PINNED_SKILLS_KEY: &str = "pinned_skills";
pub const SKILL_TOOLS_DISCLOSED_KEY: &str = "_skill_tools_disclosed";

const NAME: &str = "SkillsMiddleware";

/// The tools a resolver answered, one list per name asked.
pub type ResolvedTools = Vec<Vec<Arc<dyn Tool>>>;

/// Where skill tools come from (deepagents' `SkillToolResolver`, or the list it is made
/// of): asked on a model call for the include names no request tool answers to, and again
/// before a disclosed skill tool runs.
pub trait SkillToolResolver: Send + Sync {
    /// The tools each of `names` stands for, in order (one list per name).
    fn resolve(
        &self,
        names: Vec<String>,
        host: HostContext,
    ) -> BoxFuture<'static, Result<ResolvedTools, BoxError>>;

    /// For a model that takes tools in the middle of the conversation, the provider block
    /// giving it each of `tools` (in order) there; `None` for any other model, which gets
    /// them in the request's tools.
    fn inline_blocks(
        &self,
        _model: &dyn ChatModel,
        _tools: &[&ToolSpec],
    ) -> BoxFuture<'static, Result<Option<Vec<Value>>, BoxError>> {
        Box::pin(async { Ok(None) })
    }

    /// The names among `tools` that `model`'s provider would refuse, failing the whole
    /// request (an Anthropic model and a schema with a top-level `oneOf`/`anyOf`/`allOf`),
    /// each reported: they are withheld.
    fn rejected_schemas(
        &self,
        _model: &dyn ChatModel,
        _tools: &[&ToolSpec],
    ) -> BoxFuture<'static, Result<Vec<String>, BoxError>> {
        Box::pin(async { Ok(Vec::new()) })
    }

    /// Reports a warning where the host's logging shows it (the three async: the host's
    /// code runs on a thread of its own, not on the runtime's worker that awaits it).
    fn warn(&self, message: String) -> BoxFuture<'static, ()> {
        tracing::warn!("{message}");
        Box::pin(async {})
    }
}

pub struct Skills {
    backend: Arc<dyn Backend>,
    sources: Arc<[Source]>,
    /// The section's template; `None` loads skills without showing them.
    system_prompt: Option<String>,
    reader: Arc<dyn FrontmatterReader>,
    /// `None`: no skill tools (a read skill can still disclose the agent's deferred tools).
    resolver: Option<Arc<dyn SkillToolResolver>>,
}

/// deepagents' constructor check of a custom template: every slot is there.
pub fn check_template(template: &str) -> Result<(), Error> {
    let missing: Vec<&str> = [
        "{skills_locations}",
        "{skills_load_warnings}",
        "{skills_list}",
    ]
    .into_iter()
    .filter(|slot| !template.contains(slot))
    .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(Error::InvalidInput(format!(
            "system_prompt missing required format slot(s): {}",
            missing.join(", ")
        )))
    }
}

/// The JSON list under `key`, empty when missing, `None` or not a readable list.
fn json_list(state: &AgentState, key: &str) -> Vec<Value> {
    match state.extra.get(key) {
        Some(Opaque::Json(Value::Array(items))) => items.clone(),
        _ => Vec::new(),
    }
}

/// The files the backend sees for `state` (a `StateBackend` reads `state`'s `files`).
pub fn scope_of(state: &AgentState, host: &crate::tools::HostContext) -> Arc<FilesScope> {
    FilesScope::new(
        (state.files.clone(), state.files_host.clone()),
        host.clone(),
    )
}

fn hook_output(delta: StateDelta) -> Option<HookOutput> {
    Some(HookOutput {
        delta,
        reported: None,
        jump_declared: false,
    })
}

impl Skills {
    pub fn new(
        backend: Arc<dyn Backend>,
        sources: Vec<Source>,
        system_prompt: Option<String>,
        reader: Arc<dyn FrontmatterReader>,
        resolver: Option<Arc<dyn SkillToolResolver>>,
    ) -> Result<Self, Error> {
        if let Some(p) = &system_prompt {
            check_template(p)?;
        }
        Ok(Skills {
            backend,
            sources: sources.into(),
            system_prompt,
            reader,
            resolver,
        })
    }

    /// `before_agent`: load when `skills_metadata` is missing or `None`. The errors are
    /// always written, so warnings of an earlier load are cleared.
    fn load(&self, cx: HookContext) -> BoxFuture<'static, Result<Option<HookOutput>, Error>> {
        let loaded = matches!(cx.state.extra.get(SKILLS_METADATA_KEY), Some(v) if v.as_json() != Some(&Value::Null));
        if loaded {
            return Box::pin(async { Ok(None) });
        }
        let (backend, reader, sources) = (
            self.backend.clone(),
            self.reader.clone(),
            self.sources.clone(),
        );
        Box::pin(async move {
            let scope = scope_of(&cx.state, &cx.host);
            let found = load::load(backend, reader, sources, scope).await?;
            let mut delta = StateDelta::default();
            delta.extra.insert(
                SKILLS_METADATA_KEY.into(),
                Opaque::Json(Value::Array(found.skills)),
            );
            let errors = found.errors.into_iter().map(Value::String).collect();
            delta.extra.insert(
                SKILLS_LOAD_ERRORS_KEY.into(),
                Opaque::Json(Value::Array(errors)),
            );
            Ok(hook_output(delta))
        })
    }

    /// `before_model`: the skills named in `pinned_skills` appended, and the key cleared.
    fn pin(&self, cx: HookContext) -> BoxFuture<'static, Result<Option<HookOutput>, Error>> {
        let names = json_list(&cx.state, PINNED_SKILLS_KEY);
        if names.is_empty() {
            return Box::pin(async { Ok(None) });
        }
        let backend = self.backend.clone();
        Box::pin(async move {
            let skills = json_list(&cx.state, SKILLS_METADATA_KEY);
            let chosen = pin::skills_to_pin(&names, &skills);
            let scope = scope_of(&cx.state, &cx.host);
            let messages = pin::pinned_messages(&backend, &scope, &chosen).await;
            // deepagents' write: the cleared key, then the messages (streamed in that order).
            let mut delta = StateDelta {
                keys_first: true,
                ..Default::default()
            };
            delta.extra.insert(
                PINNED_SKILLS_KEY.into(),
                Opaque::Json(Value::Array(Vec::new())),
            );
            // deepagents clears it with `Overwrite`, past its adding reducer.
            delta.overwrites.push(PINNED_SKILLS_KEY.into());
            if !messages.is_empty() {
                delta.messages = MessagesDelta::Append(messages);
            }
            Ok(hook_output(delta))
        })
    }

    /// The section this request's system prompt gets.
    fn section(&self, template: &str, state: &AgentState) -> Result<String, Error> {
        let skills = json_list(state, SKILLS_METADATA_KEY);
        let errors: Vec<String> = json_list(state, SKILLS_LOAD_ERRORS_KEY)
            .into_iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect();
        section::render(template, &self.sources, &skills, &errors).map_err(Error::InvalidInput)
    }
}

impl Middleware for Skills {
    fn name(&self) -> &str {
        NAME
    }

    fn has_hook(&self, hook: Hook) -> bool {
        matches!(hook, Hook::BeforeAgent | Hook::BeforeModel)
    }

    fn run_hook(
        &self,
        hook: Hook,
        cx: HookContext,
    ) -> BoxFuture<'static, Result<Option<HookOutput>, Error>> {
        match hook {
            Hook::BeforeAgent => self.load(cx),
            _ => self.pin(cx),
        }
    }

    fn wraps_model_call(&self) -> bool {
        true
    }

    fn wrap_model_call(
        &self,
        mut request: ModelRequest,
        next: ModelHandler,
    ) -> BoxFuture<'static, Result<ModelResponse, Error>> {
        if let Some(template) = &self.system_prompt {
            let section = self.section(template, &request.state);
            if let Err(e) = append_section(&mut request, section) {
                return Box::pin(async { Err(e) });
            }
        }
        let resolver = self.resolver.clone();
        Box::pin(async move {
            let record = disclose(&mut request, resolver).await?;
            let mut response = next.call(request).await?;
            // deepagents writes the record on every model call, `{}` included, so the gate
            // admits exactly the tools this call showed.
            let mut extra = crate::state::Extra::new();
            extra.insert(
                SKILL_TOOLS_DISCLOSED_KEY.into(),
                Opaque::Json(Value::Object(record)),
            );
            response.commands.push(CommandWrite {
                extra,
                ..Default::default()
            });
            Ok(response)
        })
    }

    fn wraps_tool_call(&self) -> bool {
        self.resolver.is_some()
    }

    /// A call to a disclosed skill tool runs the tool the resolver gives for its include
    /// name now; any other call the agent has no tool for fails as an unknown tool.
    fn wrap_tool_call(
        &self,
        mut request: ToolCallRequest,
        next: ToolHandler,
    ) -> BoxFuture<'static, Result<ToolResult, ToolError>> {
        let include = disclosed_record(&request.state)
            .get(&request.call.name)
            .and_then(|v| v.as_str().map(str::to_owned));
        let (Some(include), Some(resolver), None) = (include, self.resolver.clone(), &request.tool)
        else {
            return next.call(request);
        };
        Box::pin(async move {
            let mut answers = resolver
                .resolve(vec![include.clone()], request.host.clone())
                .await
                .map_err(ToolError::Fatal)?;
            let name = request.call.name.clone();
            let tool = answers
                .pop()
                .unwrap_or_default()
                .into_iter()
                .find(|t| t.spec().name == name);
            match tool {
                Some(tool) => request.tool = Some(tool),
                None => {
                    resolver
                        .warn(format!(
                            "Skill tool '{name}' was disclosed via '{include}', but the resolver no longer returns it"
                        ))
                        .await
                }
            }
            next.call(request).await
        })
    }
}

/// The gate's record in `state`: `{tool name: include name}`, or empty when it is missing or
/// of any other shape (one checkpointed by an earlier build reads as empty).
fn disclosed_record(state: &AgentState) -> Map<String, Value> {
    match state.extra.get(SKILL_TOOLS_DISCLOSED_KEY) {
        Some(Opaque::Json(Value::Object(record))) if record.values().all(Value::is_string) => {
            record.clone()
        }
        _ => Map::new(),
    }
}

fn resolver_error(source: BoxError) -> Error {
    Error::Tool {
        tool: NAME.into(),
        source,
    }
}

/// Discloses to `request` what the skills read in its conversation list, and returns the
/// record of the skill tools it disclosed.
async fn disclose(
    request: &mut ModelRequest,
    resolver: Option<Arc<dyn SkillToolResolver>>,
) -> Result<Map<String, Value>, Error> {
    let skills = json_list(&request.state, SKILLS_METADATA_KEY);
    let reads = disclosure::find_reads(&request.messages, &skills);
    if reads.is_empty() {
        return Ok(Map::new());
    }
    let names = disclosure::unclaimed_names(&reads, &request.tools);
    let mut resolved = HashMap::new();
    if let Some(resolver) = resolver.as_ref().filter(|_| !names.is_empty()) {
        let tools = resolver
            .resolve(names.clone(), request.host.clone())
            .await
            .map_err(resolver_error)?;
        resolved = names.into_iter().zip(tools).collect();
    }
    let mut plan = disclosure::plan(&reads, &request.tools, &resolved);
    if let Some(resolver) = resolver.as_ref().filter(|_| !plan.is_empty()) {
        let rejected = resolver
            .rejected_schemas(request.model.as_ref(), &plan.specs(&request.tools))
            .await
            .map_err(resolver_error)?;
        for name in rejected {
            plan.discard(&name);
        }
    }
    let record = plan.record();
    if plan.is_empty() {
        return Ok(record);
    }
    let inline = match &resolver {
        Some(resolver) => {
            let specs = plan.specs(&request.tools);
            resolver
                .inline_blocks(request.model.as_ref(), &specs)
                .await
                .map_err(resolver_error)?
                .map(|blocks| {
                    specs
                        .iter()
                        .map(|s| s.name.clone())
                        .zip(blocks)
                        .collect::<HashMap<_, _>>()
                })
        }
        None => None,
    };
    match inline {
        Some(blocks) => request.messages = plan.insert(&request.messages, &blocks).into(),
        None => {
            let (tools, schema_tools_at) = plan.bind(&request.tools, request.schema_tools_at);
            request.tools = tools;
            request.schema_tools_at = schema_tools_at;
        }
    }
    Ok(record)
}
