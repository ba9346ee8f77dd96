//! What a file backend answers (deepagents' `BackendProtocol` and its result types), and
//! the scope a backend call runs in.
//!
//! The tools in `middleware::filesystem` only talk to this trait: the state backend is
//! native, and any other backend is the user's Python object called back by the binding.

use std::sync::Arc;

use futures::future::BoxFuture;
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::BoxError;
use crate::state::{FilesHost, FilesSnapshot, FilesWrite};
use crate::tools::HostContext;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FileInfo {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_dir: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified_at: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReadResult {
    #[serde(default)]
    pub error: Option<String>,
    /// The `FileData` of the window read.
    #[serde(default)]
    pub file_data: Option<Value>,
    #[serde(default)]
    pub total_lines: Option<usize>,
    #[serde(default)]
    pub start_line: Option<usize>,
    #[serde(default)]
    pub end_line: Option<usize>,
    #[serde(default)]
    pub next_offset: Option<usize>,
    #[serde(default)]
    pub no_lines_requested: bool,
}

impl ReadResult {
    pub fn error(e: impl Into<String>) -> Self {
        ReadResult {
            error: Some(e.into()),
            ..Default::default()
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WriteResult {
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub path: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EditResult {
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub occurrences: Option<u64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeleteResult {
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub path: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LsResult {
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub entries: Option<Vec<FileInfo>>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ContextLine {
    pub line: u64,
    pub text: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GrepMatch {
    pub path: String,
    pub line: u64,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_before: Option<Vec<ContextLine>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_after: Option<Vec<ContextLine>>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GrepResult {
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub matches: Option<Vec<GrepMatch>>,
    #[serde(default)]
    pub truncated: bool,
}

impl GrepResult {
    /// A finished search: its matches, `truncated` when a cap stopped it.
    pub fn found(matches: Vec<GrepMatch>, truncated: bool) -> Self {
        GrepResult {
            matches: Some(matches),
            truncated,
            ..Default::default()
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GlobResult {
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub matches: Option<Vec<FileInfo>>,
    #[serde(default)]
    pub truncated: bool,
    #[serde(default)]
    pub truncation_reason: Option<String>,
    /// The backend raised: its message, reported as `Error: glob failed: {message}`.
    #[serde(default)]
    pub failed: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ExecuteResponse {
    pub output: String,
    #[serde(default)]
    pub exit_code: Option<i64>,
    #[serde(default)]
    pub truncated: bool,
    /// The command could not run (an invalid parameter, execution unavailable): the
    /// tool's error text.
    #[serde(default)]
    pub failed: Option<String>,
    /// The sandbox captured the output at the capture path and `output` is only its
    /// preview (`BaseSandbox.execute_with_offload`).
    #[serde(default)]
    pub offloaded: bool,
    /// That preview dropped middle lines behind a marker.
    #[serde(default)]
    pub preview_has_truncation_marker: bool,
}

/// One path of deepagents' `download_files`, its bytes decoded as UTF-8: the readers of
/// downloads (memory, skills) all decode them so. `error` is the protocol's code
/// (`file_not_found`, `is_directory`, ...).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TextDownload {
    #[serde(default)]
    pub content: Option<String>,
    #[serde(default)]
    pub error: Option<String>,
}

/// Where a sandbox may capture a large `execute` output at source, and how much of it may
/// come back inline (deepagents' capture-at-source offload).
#[derive(Clone, Debug)]
pub struct Capture {
    pub path: String,
    pub max_inline_bytes: usize,
}

/// The run's files as one backend call sees them: the state as of the tool step, and the
/// writes this call made (read back by later operations of the same call, as deepagents'
/// `CONFIG_KEY_READ(fresh=True)` does).
pub struct FilesScope {
    snapshot: Arc<Map<String, Value>>,
    snapshot_host: Arc<FilesHost>,
    written: Mutex<FilesWrite>,
    pub host: HostContext,
}

impl FilesScope {
    pub fn new((snapshot, snapshot_host): FilesSnapshot, host: HostContext) -> Arc<Self> {
        Arc::new(FilesScope {
            snapshot,
            snapshot_host,
            written: Mutex::new(FilesWrite::default()),
            host,
        })
    }

    pub fn get(&self, path: &str) -> Option<Value> {
        let written = self.written.lock();
        match written.entries.get(path) {
            Some(Value::Null) => None,
            Some(v) => Some(v.clone()),
            None => self.snapshot.get(path).cloned(),
        }
    }

    /// Every file, the call's own writes applied.
    pub fn current(&self) -> Arc<Map<String, Value>> {
        self.current_with_host().0
    }

    /// Every file and the host's objects beside them, the call's own writes applied.
    pub fn current_with_host(&self) -> FilesSnapshot {
        let (mut files, mut host) = (self.snapshot.clone(), self.snapshot_host.clone());
        self.written.lock().apply(&mut files, &mut host);
        (files, host)
    }

    /// Queues a files update (a `null` value deletes), as StateBackend's `_send_files_update`.
    pub fn send(&self, update: impl Into<FilesWrite>) {
        self.written.lock().extend(&update.into());
    }

    /// The update this call makes to the `files` key, if any.
    pub fn take_update(&self) -> Option<FilesWrite> {
        let written = std::mem::take(&mut *self.written.lock());
        (!written.entries.is_empty() || !written.host.is_empty()).then_some(written)
    }
}

pub type Op<T> = BoxFuture<'static, Result<T, BoxError>>;

/// deepagents' `BackendProtocol`. Paths arrive validated. An `Err` is an exception the
/// backend raised: the tool re-raises it, as deepagents' tools do.
pub trait Backend: Send + Sync {
    fn ls(&self, cx: Arc<FilesScope>, path: String) -> Op<LsResult>;
    fn read(&self, cx: Arc<FilesScope>, path: String, offset: i64, limit: i64) -> Op<ReadResult>;
    fn write(&self, cx: Arc<FilesScope>, path: String, content: String) -> Op<WriteResult>;
    fn edit(
        &self,
        cx: Arc<FilesScope>,
        path: String,
        old: String,
        new: String,
        replace_all: bool,
    ) -> Op<EditResult>;
    fn delete(&self, cx: Arc<FilesScope>, path: String) -> Op<DeleteResult>;
    fn glob(&self, cx: Arc<FilesScope>, pattern: String, path: Option<String>) -> Op<GlobResult>;
    /// `download_files(paths)`: one answer per path, in order; bytes that are not UTF-8
    /// fail the call as Python's decoder does.
    fn download_text(&self, cx: Arc<FilesScope>, paths: Vec<String>) -> Op<Vec<TextDownload>>;
    fn grep(
        &self,
        cx: Arc<FilesScope>,
        pattern: String,
        path: Option<String>,
        glob: Option<String>,
        max_count: Option<usize>,
    ) -> Op<GrepResult>;
    /// Runs `command`; with `capture`, a sandbox that can may leave a large output at
    /// `capture.path` and answer with a preview (`offloaded`).
    fn execute(
        &self,
        _cx: Arc<FilesScope>,
        _command: String,
        _timeout: Option<i64>,
        _capture: Option<Capture>,
    ) -> Op<ExecuteResponse> {
        Box::pin(async { Err("this backend cannot execute commands".into()) })
    }

    /// `upload_files`, each file given as its base64 payload: one error code per file
    /// (`None`: stored), or `None` when the backend failed as a whole (the host has logged
    /// it). Used by the blob store (`offload_binary_content`) and by summarization's media
    /// offload.
    ///
    /// The blob store never asks it of the native state backend: deepagents turns
    /// offloading off when the blobs would land in the state (the face warns). The state
    /// backend's own answer is deepagents' `StateBackend.upload_files`, which summarization
    /// uses.
    fn upload_blobs(
        &self,
        _cx: Arc<FilesScope>,
        _files: Vec<(String, String)>,
    ) -> Op<Option<Vec<Option<String>>>> {
        Box::pin(async { Ok(None) })
    }
    /// `download_files` of the blob store: each file's bytes as base64 (`None`: an error
    /// or no content), or `None` when the backend failed as a whole (logged by the host).
    fn download_blobs(
        &self,
        _cx: Arc<FilesScope>,
        _paths: Vec<String>,
    ) -> Op<Option<Vec<Option<String>>>> {
        Box::pin(async { Ok(None) })
    }

    /// deepagents' `_supports_delete`: the backend overrides `delete`.
    fn supports_delete(&self) -> bool {
        true
    }
    /// deepagents' `supports_execution`: a sandbox backend, or a composite whose default is one.
    fn supports_execution(&self) -> bool {
        false
    }
    /// Whether `execute` takes a `timeout` argument (`execute_accepts_timeout`).
    fn execute_accepts_timeout(&self) -> bool {
        false
    }
    /// The path a permission rule must also allow: the symlink-resolved path on disk
    /// (`_resolve_real_path`); the path itself where there is no disk.
    fn real_path(&self, path: &str) -> Result<String, String> {
        Ok(path.to_owned())
    }
    /// The system-prompt section mapping virtual mounts to shell paths, when the backend
    /// executes commands and routes paths (deepagents' `_route_host_path_prompt`).
    fn route_prompt(&self) -> String {
        String::new()
    }
}
