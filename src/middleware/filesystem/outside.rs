//! The entry's parts a LangChain agent runs one at a time, outside a deepagents_rs run: a
//! file tool called by LangChain's tool node, the refusal `wrap_tool_call` gives before the
//! handler, and what it does to the handler's tool messages after (offloading a
//! `read_file` result's payloads, moving a large result to a file).

use futures::future::BoxFuture;
use serde_json::Value;

use super::{Filesystem, Kind, blob_offload, eviction, parallel_mutation, tools};
use crate::files::backend::FilesScope;
use crate::messages::{Message, ToolMessage};
use crate::middleware::ToolCallRequest;
use crate::state::{FilesSnapshot, FilesWrite};
use crate::tools::{HostContext, ToolError, ToolOutput};

/// A tool message `after_tool` changed, and the state files the backend wrote for it.
pub type AfterTool = (Option<ToolMessage>, Option<FilesWrite>);

impl Filesystem {
    /// The tool named `name` on `args`, over `files` with the backend reached through
    /// `host`; the files a state backend wrote go with the output. `None` for a name the
    /// entry offers no tool under.
    pub fn call_outside(
        &self,
        name: &str,
        args: Value,
        files: FilesSnapshot,
        host: HostContext,
        tool_call_id: String,
    ) -> Option<BoxFuture<'static, Result<ToolOutput, ToolError>>> {
        if !self.tools.iter().any(|t| t.spec().name == name) {
            return None;
        }
        let kind = Kind::ALL.into_iter().find(|k| k.name() == name)?;
        Some(tools::run_in(
            kind,
            self.shared.clone(),
            args,
            files,
            host,
            tool_call_id,
        ))
    }

    /// `wrap_tool_call`'s answer in place of the handler's: the refusal of a second
    /// mutation of one path within one AI message, else `None`.
    pub fn refusal(&self, request: &ToolCallRequest) -> Option<&'static str> {
        parallel_mutation(request).then_some(super::texts::PARALLEL_FILE_MUTATION_ERROR)
    }

    /// What `wrap_tool_call` does to one tool message the handler gave for a call of
    /// `name`: a `read_file` result's payloads offloaded (`offload_binary_content`), a large
    /// result of any other tool not excluded from eviction moved to a file. `None` in the
    /// pair keeps the message as it is.
    pub fn after_tool(
        &self,
        name: &str,
        message: ToolMessage,
        files: FilesSnapshot,
        host: HostContext,
    ) -> BoxFuture<'static, AfterTool> {
        let backend = self.shared.backend.clone();
        let scope = FilesScope::new(files, host);
        if let Some(blobs) = self.blobs_prefix.clone()
            && name == "read_file"
        {
            return Box::pin(async move {
                let message = Message::Tool(message);
                let offloaded = blob_offload::offload(
                    &[&message],
                    &backend,
                    &blobs,
                    scope.clone(),
                    &mut Default::default(),
                )
                .await;
                let stub = match offloaded.into_iter().next() {
                    Some(Some(Message::Tool(stub))) => Some(stub),
                    _ => None,
                };
                (stub, scope.take_update())
            });
        }
        let limit = self.shared.token_limit.filter(|l| *l > 0);
        let Some(limit) = limit.filter(|_| !eviction::EXCLUDED.contains(&name)) else {
            return Box::pin(async { (None, None) });
        };
        let prefix = self.large_tool_results_prefix.clone();
        Box::pin(async move {
            let evicted = eviction::evict(&message, limit, &prefix, &backend, scope.clone()).await;
            (evicted, scope.take_update())
        })
    }
}
