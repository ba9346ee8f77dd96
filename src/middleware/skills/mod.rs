//! deepagents' `SkillsMiddleware`: skill directories (a `SKILL.md` with YAML frontmatter
//! each) found under the sources through the agent's backend before the run, their names
//! and descriptions shown in the system prompt, the files read by the model when a skill
//! applies (progressive disclosure).
//!
//! State: `skills_metadata` (the loaded skills; a list, even empty, means loaded, so a
//! checkpointed thread does not load again, and `None` asks for a reload), the private
//! `skills_load_errors`, `pinned_skills` (names whose file is appended to the conversation
//! before the next model call), and the private `_skill_tools_disclosed`, written on every
//! model call as deepagents' `ExtendedModelResponse` writes it.

mod frontmatter;
mod load;
mod paths;
mod pin;
mod section;
mod texts;

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Map, Value};

use super::system_prompt::append_section;
use super::{CommandWrite, Hook, HookContext, HookOutput, Middleware, ModelHandler, ModelResponse};
use crate::error::Error;
use crate::files::{Backend, FilesScope};
use crate::host::Opaque;
use crate::model::ModelRequest;
use crate::state::{AgentState, MessagesDelta, StateDelta};

pub use frontmatter::FrontmatterView;
pub use load::FrontmatterReader;
pub use section::{Source, derive_label};
pub use texts::SKILLS_SYSTEM_PROMPT;

pub const SKILLS_METADATA_KEY: &str = "skills_metadata";
pub const SKILLS_LOAD_ERRORS_KEY: &str = "skills_load_errors";
pub const PINNED_SKILLS_KEY: &str = "pinned_skills";
pub const SKILL_TOOLS_DISCLOSED_KEY: &str = "_skill_tools_disclosed";

const NAME: &str = "SkillsMiddleware";

pub struct Skills {
    backend: Arc<dyn Backend>,
    sources: Arc<[Source]>,
    /// The section's template; `None` loads skills without showing them.
    system_prompt: Option<String>,
    reader: Arc<dyn FrontmatterReader>,
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

fn scope_of(state: &AgentState, host: &crate::tools::HostContext) -> Arc<FilesScope> {
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
    ) -> Result<Self, Error> {
        if let Some(p) = &system_prompt {
            check_template(p)?;
        }
        Ok(Skills {
            backend,
            sources: sources.into(),
            system_prompt,
            reader,
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
        Box::pin(async move {
            let mut response = next.call(request).await?;
            // No skill tools are disclosed (the entry holds none), and deepagents writes
            // the empty record on every model call all the same.
            let mut extra = crate::state::Extra::new();
            extra.insert(
                SKILL_TOOLS_DISCLOSED_KEY.into(),
                Opaque::Json(Value::Object(Map::new())),
            );
            response.commands.push(CommandWrite {
                extra,
                ..Default::default()
            });
            Ok(response)
        })
    }
}
