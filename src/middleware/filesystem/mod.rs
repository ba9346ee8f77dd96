//! deepagents' `FilesystemMiddleware`: the file tools, offered first in the chain, over one
//! backend, with the agent's `FilesystemPermission` rules.
//!
//! At model-call time it hides `delete` from a backend that cannot delete and `execute`
//! from one that cannot run commands, picks the grep and execute descriptions that match
//! what is visible, and adds the system-prompt text. Around each tool call it refuses a
//! second mutation of one path within a single AI message.

mod args;
mod blob_offload;
mod descriptions;
pub(crate) mod eviction;
pub(crate) mod format;
mod glob_slots;
mod human_eviction;
mod mutation_guard;
mod outside;
mod read_offload;
mod rejected_media;
mod shared;
pub mod texts;
mod tools;
mod video;

use std::collections::HashMap;
use std::sync::{Arc, Weak};

use futures::future::BoxFuture;
use parking_lot::Mutex;

use super::system_prompt::{SystemMemo, append_to_system};
use super::{CommandWrite, Middleware, ModelHandler, ModelResponse, ToolCallRequest, ToolHandler};
use crate::error::Error;
use crate::files::backend::FilesScope;
use crate::message_scan::AnyMessage;
use crate::messages::Message;
use crate::model::ModelRequest;
use crate::tools::{Tool, ToolError, ToolOutput, ToolResult, ToolSpec};

pub(crate) use descriptions::retargeted_description;
use descriptions::{default_description, parameters};
use mutation_guard::parallel_mutation;
use read_offload::add_files_written;

pub use outside::AfterTool;
pub use shared::{FilesystemConfig, Shared};
pub use tools::Kind;
pub use video::{FrameSource, Slot, media_after_tool_results_order};

pub struct Filesystem {
    tools: Vec<Arc<dyn Tool>>,
    custom_descriptions: HashMap<String, String>,
    system_prompt: Option<String>,
    shared: Arc<Shared>,
    large_tool_results_prefix: Arc<str>,
    human_message_token_limit: Option<usize>,
    conversation_history_prefix: Arc<str>,
    blobs_prefix: Option<Arc<str>>,
    /// The last tool list adjusted and what it became: the same list comes on every call,
    /// and handing on the same `Arc` keeps what later entries and the providers cache by
    /// it (the token counter's tool sizes).
    adjusted: Mutex<Option<AdjustedTools>>,
    /// The system message with this entry's prompt appended, for the prompt it was given.
    prompted: SystemMemo<String>,
    /// Whether a conversation holds a human message with keys of its own, found from its
    /// new messages on each call.
    marked_humans: AnyMessage,
}

struct AdjustedTools {
    from: Weak<[ToolSpec]>,
    execution: bool,
    delete: bool,
    to: Arc<[ToolSpec]>,
}

impl Filesystem {
    pub fn new(config: FilesystemConfig) -> Result<Self, Error> {
        if let Some(enabled) = &config.enabled
            && !enabled.iter().any(|t| t == "read_file")
        {
            return Err(Error::InvalidInput(
                "read_file must be included in tools; it is required by FilesystemMiddleware"
                    .into(),
            ));
        }
        let shared = Arc::new(Shared {
            backend: config.backend,
            large_tool_results_prefix: config.large_tool_results_prefix.clone(),
            rules: config.rules,
            token_limit: config.token_limit,
            grep_max_count: config.grep_max_count,
            max_execute_timeout: config.max_execute_timeout,
            video: config.video,
            glob_timeout: config.glob_timeout,
            glob_slots: Default::default(),
        });
        let video = shared.video.is_some();
        let kinds: Vec<Kind> = Kind::ALL
            .into_iter()
            .filter(|k| {
                config
                    .enabled
                    .as_ref()
                    .is_none_or(|e| e.iter().any(|n| n == k.name()))
            })
            .collect();
        let names: Vec<&'static str> = kinds.iter().map(|k| k.name()).collect();
        let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
        for kind in kinds {
            let description = config
                .custom_descriptions
                .get(kind.name())
                .filter(|d| !d.is_empty())
                .cloned()
                .unwrap_or_else(|| default_description(kind, &names, true, video).to_owned());
            let spec = ToolSpec {
                name: kind.name().to_owned(),
                description,
                parameters: parameters(kind, video),
                provider_definition: None,
                json_spec: false,
                json_dict: None,
                defer_loading: false,
            };
            tools.push(Arc::new(tools::FsTool::new(kind, spec, shared.clone())));
        }
        Ok(Filesystem {
            tools,
            custom_descriptions: config.custom_descriptions,
            system_prompt: config.system_prompt.filter(|p| !p.is_empty()),
            shared,
            large_tool_results_prefix: config.large_tool_results_prefix.into(),
            human_message_token_limit: config.human_message_token_limit,
            conversation_history_prefix: config.conversation_history_prefix.into(),
            blobs_prefix: config.blobs_prefix.map(Into::into),
            adjusted: Mutex::default(),
            prompted: SystemMemo::default(),
            marked_humans: AnyMessage::default(),
        })
    }
}

impl Filesystem {
    /// The tools the model is offered: `execute` and `delete` hidden when the backend cannot
    /// do them, and the default `grep`/`execute` descriptions chosen for what is visible.
    /// The same list in gives the same `Arc` out.
    fn adjust_tools(
        &self,
        tools: &Arc<[ToolSpec]>,
        execution: bool,
        delete: bool,
    ) -> Arc<[ToolSpec]> {
        if let Some(a) = &*self.adjusted.lock()
            && a.execution == execution
            && a.delete == delete
            && a.from.upgrade().is_some_and(|f| Arc::ptr_eq(&f, tools))
        {
            return a.to.clone();
        }
        let present = |n: &str| tools.iter().any(|t| t.name == n);
        let hide_execute = present("execute") && !execution;
        let hide_delete = present("delete") && !delete;
        let hidden =
            |name: &str| hide_execute && name == "execute" || hide_delete && name == "delete";
        let visible: Vec<&str> = tools
            .iter()
            .map(|t| t.name.as_str())
            .filter(|n| !hidden(n))
            .collect();
        let retarget = |spec: &ToolSpec| -> Option<&'static str> {
            if self.custom_descriptions.contains_key(spec.name.as_str()) {
                return None;
            }
            retargeted_description(&spec.name, &spec.description, &visible, execution)
        };
        let changed = hide_execute || hide_delete || tools.iter().any(|t| retarget(t).is_some());
        let out: Arc<[ToolSpec]> = if changed {
            tools
                .iter()
                .filter(|t| !hidden(&t.name))
                .map(|t| {
                    let mut t = t.clone();
                    if let Some(d) = retarget(&t) {
                        t.description = d.to_owned();
                    }
                    t
                })
                .collect()
        } else {
            tools.clone()
        };
        *self.adjusted.lock() = Some(AdjustedTools {
            from: Arc::downgrade(tools),
            execution,
            delete,
            to: out.clone(),
        });
        out
    }
}

/// Whether a human message in `messages` carries keys of its own: a video read's media
/// message and an evicted message are marked so. The common history has neither, and this
/// pass (each message's kind and the length of its map) spares it the two scans that look
/// for them, on every call and on a fork's first one over its caller's whole conversation.
fn marked_human(m: &Message) -> bool {
    matches!(m, Message::Human(h) if !h.additional_kwargs.is_empty())
}

impl Filesystem {
    /// The text this entry appends to the system message: its prompt, then the backend's
    /// routes (`route`, when it executes commands).
    fn prompt(&self, route: &str) -> String {
        match (self.system_prompt.as_deref(), route) {
            (Some(prompt), "") => prompt.trim().to_owned(),
            (Some(prompt), route) => format!("{prompt}\n\n{route}").trim().to_owned(),
            (None, route) => route.trim().to_owned(),
        }
    }
}

impl Middleware for Filesystem {
    fn name(&self) -> &str {
        "FilesystemMiddleware"
    }

    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.tools.clone()
    }

    fn wraps_model_call(&self) -> bool {
        true
    }

    fn wrap_model_call(
        &self,
        mut request: ModelRequest,
        next: ModelHandler,
    ) -> BoxFuture<'static, Result<ModelResponse, Error>> {
        let backend = &self.shared.backend;
        let execution = backend.supports_execution();
        let delete = backend.supports_delete();
        let execution = request.tools.iter().any(|t| t.name == "execute") && execution;
        request.tools = self.adjust_tools(&request.tools, execution, delete);
        let marked = self.marked_humans.any(&request.messages, marked_human);
        if let Some(messages) = marked
            .then(|| video::media_after_tool_results(&request.messages))
            .flatten()
        {
            request.messages = messages.into();
        }
        let route = if execution {
            backend.route_prompt()
        } else {
            String::new()
        };
        // The prompt is made only when the message or the route is new.
        request.system = match request.system.take() {
            Some(system) => {
                Some(
                    self.prompted
                        .edit(system, route, |s, route| match self.prompt(route) {
                            p if p.is_empty() => s,
                            p => append_to_system(Some(s), &p),
                        }),
                )
            }
            None => Some(self.prompt(&route))
                .filter(|p| !p.is_empty())
                .map(|p| append_to_system(None, &p)),
        };
        let limit = self.human_message_token_limit.filter(|l| *l > 0);
        let evict = limit.and_then(|l| human_eviction::needed(&request.messages, l, marked));
        // A request with media just read can be retried without it if the provider refuses
        // it; the common call has neither and goes straight on.
        let rejectable = rejected_media::candidates(&request.messages);
        let blobs = self.blobs_prefix.clone();
        if evict.is_none() && !rejectable && blobs.is_none() {
            return next.call(request);
        }
        let (backend, prefix) = (
            self.shared.backend.clone(),
            self.conversation_history_prefix.clone(),
        );
        Box::pin(async move {
            let scope = FilesScope::new(
                (
                    request.state.files.clone(),
                    request.state.files_host.clone(),
                ),
                request.host.clone(),
            );
            let tagged = match evict {
                Some(true) => {
                    human_eviction::evict_last(&request.messages, &prefix, &backend, scope.clone())
                        .await
                }
                _ => None,
            };
            // Only a tagged message edits (and so copies) the shared list.
            if let Some(t) = &tagged
                && let Some(last) = request.messages.last_mut()
            {
                *last = Arc::new(t.clone());
            }
            if evict.is_some() {
                request.messages = human_eviction::truncated(&request.messages).into();
            }
            // The state's messages rewritten by this call, and the payload cache.
            let mut written: Vec<Message> = tagged.into_iter().collect();
            let mut extra = crate::state::Extra::new();
            if let Some(blobs) = &blobs {
                let cached = blob_offload::cached(&request.state.extra);
                let mut payloads = cached.clone();
                written = blob_offload::offload_history(
                    &request.state.messages,
                    written,
                    &backend,
                    blobs,
                    scope.clone(),
                    &mut payloads,
                )
                .await;
                let (backend, cx) = (&backend, scope.clone());
                blob_offload::hydrate(&mut request.messages, backend, blobs, cx, &mut payloads)
                    .await;
                // Written when it holds other digests than the state's (Python's
                // `payloads.keys() != cached.keys()`).
                if payloads.len() != cached.len()
                    || payloads.keys().any(|k| !cached.contains_key(k))
                {
                    extra.insert(
                        blob_offload::PAYLOADS_KEY.into(),
                        blob_offload::to_state(&payloads),
                    );
                }
            }
            let rejectable = rejectable && rejected_media::candidates(&request.messages);
            let retry = rejectable.then(|| request.clone());
            let (mut response, replaced) = match next.call(request).await {
                Ok(r) => (r, Vec::new()),
                // deepagents' `ModelInvalidRequestError` fallback: the media read since the
                // last reply replaced by a note, the call made once more, and the notes
                // written to the state.
                Err(Error::Model(e)) if e.is_invalid_request() && retry.is_some() => {
                    let mut request = retry.unwrap_or_else(|| unreachable!());
                    let Some((messages, replaced)) = rejected_media::replace(&request.messages)
                    else {
                        return Err(Error::Model(e));
                    };
                    request.messages = messages.into();
                    (next.call(request).await?, replaced)
                }
                Err(e) => return Err(e),
            };
            // The tag lands in the state after the reply, replacing the message by its id
            // (deepagents' `ExtendedModelResponse` command), with any replaced media; a state
            // backend's file write goes before it, as LangGraph streams the backend's own
            // write.
            written.extend(replaced);
            if !written.is_empty() || !extra.is_empty() {
                response.commands.push(CommandWrite {
                    messages: written,
                    extra,
                    ..Default::default()
                });
            }
            if let Some(files) = scope.take_update() {
                response
                    .files_before
                    .get_or_insert_with(Default::default)
                    .extend(&files);
            }
            Ok(response)
        })
    }

    fn wraps_tool_call(&self) -> bool {
        true
    }

    fn wrap_tool_call(
        &self,
        request: ToolCallRequest,
        next: ToolHandler,
    ) -> BoxFuture<'static, Result<ToolResult, ToolError>> {
        if parallel_mutation(&request) {
            let output = ToolOutput::error(texts::PARALLEL_FILE_MUTATION_ERROR);
            let result = crate::tools::result_for(output, &request.call);
            return Box::pin(async move { Ok(result) });
        }
        if let Some(blobs) = &self.blobs_prefix
            && request.call.name == "read_file"
        {
            return self.offload_read(request, next, blobs.clone());
        }
        let limit = self.shared.token_limit.filter(|l| *l > 0);
        if limit.is_none() || eviction::EXCLUDED.contains(&request.call.name.as_str()) {
            return next.call(request);
        }
        let (backend, prefix) = (
            self.shared.backend.clone(),
            self.large_tool_results_prefix.clone(),
        );
        let files = (
            request.state.files.clone(),
            request.state.files_host.clone(),
        );
        let scope = FilesScope::new(files, request.host.clone());
        Box::pin(async move {
            let mut result = next.call(request).await?;
            let limit = limit.unwrap_or_default();
            // A command's every tool message is evicted, in the order it lists them.
            let mut evicted = false;
            for m in result.write.before.iter_mut() {
                if let Message::Tool(t) = m
                    && let Some(message) =
                        eviction::evict(t, limit, &prefix, &backend, scope.clone()).await
                {
                    *t = message;
                    evicted = true;
                }
            }
            if let Some(message) =
                eviction::evict(&result.message, limit, &prefix, &backend, scope.clone()).await
            {
                result.message = message;
                evicted = true;
            }
            for m in result.write.after.iter_mut() {
                if let Message::Tool(t) = m
                    && let Some(message) =
                        eviction::evict(t, limit, &prefix, &backend, scope.clone()).await
                {
                    *t = message;
                    evicted = true;
                }
            }
            if evicted {
                add_files_written(&mut result, &scope);
            }
            Ok(result)
        })
    }
}
