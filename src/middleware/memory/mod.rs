//! deepagents' `MemoryMiddleware`: AGENTS.md files read through the agent's backend before
//! the run, kept in the private `memory_contents` state key, and shown to the model as a
//! section at the end of the system prompt on every call.
//!
//! Loading happens once per thread: the hook does nothing when `memory_contents` is already
//! in the state (a checkpointed thread), so later edits of the files show only in a new
//! thread, as in deepagents. A fork loads again: the key is private, and deepagents' fork
//! graph drops private keys from its input, whatever state the caller hands it.

mod format;
mod texts;

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Map, Value, json};

use super::system_prompt::{append_section, tag_last_block};
use super::{Hook, HookContext, HookOutput, Middleware, ModelHandler, ModelResponse};
use crate::error::Error;
use crate::files::{Backend, FilesScope};
use crate::host::Opaque;
use crate::model::ModelRequest;
use crate::state::{AgentState, StateDelta};

pub use texts::MEMORY_SYSTEM_PROMPT;

/// The state key the loaded contents live in, `{source: content}`.
pub const MEMORY_CONTENTS_KEY: &str = "memory_contents";

const NAME: &str = "MemoryMiddleware";

pub struct Memory {
    backend: Arc<dyn Backend>,
    sources: Arc<[String]>,
    /// Tag the memory block as a prompt-cache breakpoint on models that take them: a second
    /// breakpoint after the caching entry's, so the prefix before memory stays cached when
    /// memory changes.
    add_cache_control: bool,
    /// The section's template; `None` loads memory without showing it.
    system_prompt: Option<String>,
}

impl Memory {
    /// Refuses a template without the `{agent_memory}` slot, as deepagents does.
    pub fn new(
        backend: Arc<dyn Backend>,
        sources: Vec<String>,
        add_cache_control: bool,
        system_prompt: Option<String>,
    ) -> Result<Self, Error> {
        if let Some(p) = &system_prompt {
            check_template(p)?;
        }
        Ok(Memory {
            backend,
            sources: sources.into(),
            add_cache_control,
            system_prompt,
        })
    }

    /// The section this request's system prompt gets.
    fn section(&self, template: &str, state: &AgentState) -> Result<String, Error> {
        let empty = Map::new();
        let contents = match state.extra.get(MEMORY_CONTENTS_KEY) {
            Some(Opaque::Json(Value::Object(m))) => m,
            _ => &empty,
        };
        format_memory(template, &self.sources, contents)
    }
}

/// `template` with the memory section of `contents` (`{source: content}`, shown in the
/// order of `sources`) in its `{agent_memory}` slot.
pub fn format_memory(
    template: &str,
    sources: &[String],
    contents: &Map<String, Value>,
) -> Result<String, Error> {
    let body = format::memory_body(sources, contents);
    format::fill(template, &body).map_err(Error::InvalidInput)
}

/// deepagents' constructor check of a custom template.
pub fn check_template(template: &str) -> Result<(), Error> {
    if template.contains("{agent_memory}") {
        Ok(())
    } else {
        Err(Error::InvalidInput(
            "system_prompt must contain the `{agent_memory}` format slot".into(),
        ))
    }
}

/// Reads every source in one `download_files` call: a missing file is skipped, any other
/// error fails the run with deepagents' message.
async fn load(
    backend: Arc<dyn Backend>,
    sources: Arc<[String]>,
    cx: HookContext,
) -> Result<Map<String, Value>, Error> {
    let scope = FilesScope::new(
        (cx.state.files.clone(), cx.state.files_host.clone()),
        cx.host.clone(),
    );
    let answers = backend
        .download_text(scope, sources.to_vec())
        .await
        .map_err(|source| Error::Tool {
            tool: NAME.into(),
            source,
        })?;
    let mut contents = Map::new();
    for (path, answer) in sources.iter().zip(answers) {
        match answer.error.as_deref() {
            Some("file_not_found") => continue,
            Some(e) => {
                return Err(Error::InvalidInput(format!(
                    "Failed to download {path}: {e}"
                )));
            }
            None => {}
        }
        if let Some(text) = answer.content {
            contents.insert(path.clone(), Value::String(text));
        }
    }
    Ok(contents)
}

impl Middleware for Memory {
    fn name(&self) -> &str {
        NAME
    }

    fn has_hook(&self, hook: Hook) -> bool {
        hook == Hook::BeforeAgent
    }

    fn run_hook(
        &self,
        _hook: Hook,
        cx: HookContext,
    ) -> BoxFuture<'static, Result<Option<HookOutput>, Error>> {
        if cx.state.extra.contains_key(MEMORY_CONTENTS_KEY) {
            return Box::pin(async { Ok(None) });
        }
        let (backend, sources) = (self.backend.clone(), self.sources.clone());
        Box::pin(async move {
            let contents = load(backend, sources, cx).await?;
            let mut delta = StateDelta::default();
            delta.extra.insert(
                MEMORY_CONTENTS_KEY.into(),
                Opaque::Json(Value::Object(contents)),
            );
            Ok(Some(HookOutput {
                delta,
                reported: None,
                jump_declared: false,
            }))
        })
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
        // deepagents asks `is_anthropic_chat_model(request.model)` at each call, so the
        // breakpoint follows the model a middleware may have swapped in; it is placed even
        // when the section is not shown.
        if self.add_cache_control && request.model.supports_prompt_cache() {
            request.system = tag_last_block(request.system.take(), &json!({"type": "ephemeral"}));
        }
        next.call(request)
    }
}
