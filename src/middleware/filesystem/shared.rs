//! What `FilesystemMiddleware` is built from (`FilesystemConfig`) and what its tools share
//! (`Shared`: the backend, the permission rules, the limits), with the permission checks the
//! tools make before touching a path.

use std::collections::HashMap;
use std::sync::Arc;

use super::FrameSource;
use crate::files::backend::Backend;
use crate::files::permissions::{Mode, Rules};

/// What the entry is built from (the arguments of deepagents' `FilesystemMiddleware`).
pub struct FilesystemConfig {
    pub backend: Arc<dyn Backend>,
    pub rules: Rules,
    pub custom_descriptions: HashMap<String, String>,
    pub system_prompt: Option<String>,
    /// `tool_token_limit_before_evict`: bounds `read_file` output.
    pub token_limit: Option<usize>,
    pub grep_max_count: Option<usize>,
    pub max_execute_timeout: i64,
    /// The tools registered (`tools=`); `None` is all of them.
    pub enabled: Option<Vec<String>>,
    /// Where large tool results go (`{artifacts_root}/large_tool_results`).
    pub large_tool_results_prefix: String,
    /// `human_message_token_limit_before_evict`: a last human message longer than four
    /// characters per token is moved to the filesystem; `None` (or 0) never.
    pub human_message_token_limit: Option<usize>,
    /// Where they go (`{artifacts_root}/conversation_history`).
    pub conversation_history_prefix: String,
    /// `offload_binary_content`: where payloads go (`{artifacts_root}/blobs`); `None`: off.
    pub blobs_prefix: Option<String>,
    /// The host's frame extractor while deepagents' `[video]` extra is installed: `read_file`
    /// then samples videos (and `.mkv` is one), with its video description and schema.
    pub video: Option<Arc<dyn FrameSource>>,
    /// How long `glob` waits, read at each call as deepagents reads its module's
    /// `GLOB_TIMEOUT`; `None`: `GLOB_TIMEOUT_SECS`.
    pub glob_timeout: Option<GlobTimeout>,
}

/// The seconds `glob` waits and how they show in its timeout message (Python's `str` of
/// the value); async, the host's value read on a thread of its own, not on the runtime's
/// worker.
pub type GlobTimeout =
    Arc<dyn Fn() -> futures::future::BoxFuture<'static, (f64, String)> + Send + Sync>;

/// What every tool of the entry shares.
pub struct Shared {
    pub backend: Arc<dyn Backend>,
    /// Where large tool results go, and where `execute` output is captured at source.
    pub large_tool_results_prefix: String,
    pub rules: Rules,
    pub token_limit: Option<usize>,
    pub grep_max_count: Option<usize>,
    pub max_execute_timeout: i64,
    pub video: Option<Arc<dyn FrameSource>>,
    pub glob_timeout: Option<GlobTimeout>,
    /// How many sync `glob` calls are still running (see `GlobSlots`).
    pub(super) glob_slots: Arc<super::glob_slots::GlobSlots>,
}

impl Shared {
    /// `_permission_error`.
    pub(super) fn permission_error(&self, op: &str, path: &str) -> Option<String> {
        if self.rules.check(op, path) == Mode::Deny {
            return Some(format!("Error: permission denied for {op} on {path}"));
        }
        self.resolved_permission_error(op, path)
    }

    /// `_resolved_permission_error`: the path a symlink leads to must be allowed too.
    pub(super) fn resolved_permission_error(&self, op: &str, path: &str) -> Option<String> {
        if self.rules.is_empty() {
            return None;
        }
        match self.backend.real_path(path) {
            Err(_) => Some(format!("Error: cannot resolve {path}")),
            Ok(real) if real != path && self.rules.check(op, &real) == Mode::Deny => Some(format!(
                "Error: permission denied for {op} on {path} (resolves to {real})"
            )),
            Ok(_) => None,
        }
    }

    /// `_delete_permission_error`.
    pub(super) fn delete_permission_error(
        &self,
        path: &str,
        has_descendants: bool,
    ) -> Option<String> {
        let denying = self.rules.delete_deny_patterns(path, has_descendants);
        if !denying.is_empty() {
            return Some(format!(
                "Error: permission denied for write on {path} (matches deny rule(s): {})",
                denying.join(", ")
            ));
        }
        match self.backend.real_path(path) {
            Err(_) => Some(format!("Error: cannot resolve {path}")),
            Ok(real)
                if real != path
                    && !self
                        .rules
                        .delete_deny_patterns(&real, has_descendants)
                        .is_empty() =>
            {
                Some(format!(
                    "Error: permission denied for write on {path} (resolves to {real})"
                ))
            }
            Ok(_) => None,
        }
    }

    /// `_is_denied`.
    pub(super) fn is_denied(&self, op: &str, path: &str) -> bool {
        if self.rules.check(op, path) == Mode::Deny {
            return true;
        }
        match self.backend.real_path(path) {
            Err(_) => true,
            Ok(real) => self.rules.check(op, &real) == Mode::Deny,
        }
    }

    /// `_filter_paths_by_permission`.
    pub(super) fn allowed_paths(&self, op: &str, paths: Vec<String>) -> Vec<String> {
        if self.rules.is_empty() {
            return paths;
        }
        paths
            .into_iter()
            .filter(|p| !self.is_denied(op, p))
            .collect()
    }
}
