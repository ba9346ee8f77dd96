//! `read_file` results with their payloads offloaded to the backend, and the state files a
//! backend call of a tool call wrote, joined to its result.

use std::sync::Arc;

use futures::future::BoxFuture;

use super::{Filesystem, blob_offload};
use crate::files::backend::FilesScope;
use crate::messages::Message;
use crate::middleware::{ToolCallRequest, ToolHandler};
use crate::tools::{ToolError, ToolResult};

/// The state files a backend call of this tool call wrote, joined to its result.
pub(super) fn add_files_written(result: &mut ToolResult, scope: &FilesScope) {
    if let Some(update) = scope.take_update() {
        result
            .files
            .get_or_insert_with(Default::default)
            .extend(&update);
    }
}

impl Filesystem {
    /// A `read_file` result with its payloads offloaded (`offload_binary_content`), so the
    /// state never holds them; `read_file` is never evicted, so nothing else is done to it.
    pub(super) fn offload_read(
        &self,
        request: ToolCallRequest,
        next: ToolHandler,
        blobs: Arc<str>,
    ) -> BoxFuture<'static, Result<ToolResult, ToolError>> {
        let backend = self.shared.backend.clone();
        let files = (
            request.state.files.clone(),
            request.state.files_host.clone(),
        );
        let scope = FilesScope::new(files, request.host.clone());
        Box::pin(async move {
            let mut result = next.call(request).await?;
            // deepagents offloads a result with a cache of its own, dropped after: the next
            // model call loads the payload back from the backend. A command's every message
            // goes, in its order (a video read's frames message too).
            let message = Message::Tool(result.message.clone());
            let before = result.write.before.len();
            let messages: Vec<&Message> = (result.write.before.iter())
                .chain([&message])
                .chain(&result.write.after)
                .collect();
            let cx = scope.clone();
            let offloaded =
                blob_offload::offload(&messages, &backend, &blobs, cx, &mut Default::default())
                    .await;
            for (i, stub) in offloaded.into_iter().enumerate() {
                match (i.cmp(&before), stub) {
                    (_, None) => {}
                    (std::cmp::Ordering::Less, Some(m)) => result.write.before[i] = m,
                    (std::cmp::Ordering::Equal, Some(Message::Tool(m))) => result.message = m,
                    (std::cmp::Ordering::Equal, Some(_)) => {}
                    (std::cmp::Ordering::Greater, Some(m)) => {
                        result.write.after[i - before - 1] = m
                    }
                }
            }
            add_files_written(&mut result, &scope);
            Ok(result)
        })
    }
}
