//! deepagents' file tools (`ls`, `read_file`, `write_file`, `edit_file`, `delete`, `glob`,
//! `grep`, `execute`): validate the path, check permissions, call the backend, render the
//! result as deepagents' `FilesystemMiddleware` renders it.

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Map, Value, json};

use super::Shared;
use super::args::Args;
use super::format;
use crate::files::backend::{Capture, FilesScope, GrepResult};
use crate::files::path::validate_path;
use crate::files::permissions::Mode;
use crate::files::{file_data, media};
use crate::messages::{Content, ToolStatus};
use crate::state::FilesSnapshot;
use crate::tools::invocation_error::invocation_error;
use crate::tools::{HostContext, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Ls,
    ReadFile,
    WriteFile,
    EditFile,
    Delete,
    Glob,
    Grep,
    Execute,
}

impl Kind {
    pub const ALL: [Kind; 8] = [
        Kind::Ls,
        Kind::ReadFile,
        Kind::WriteFile,
        Kind::EditFile,
        Kind::Delete,
        Kind::Glob,
        Kind::Grep,
        Kind::Execute,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Ls => "ls",
            Kind::ReadFile => "read_file",
            Kind::WriteFile => "write_file",
            Kind::EditFile => "edit_file",
            Kind::Delete => "delete",
            Kind::Glob => "glob",
            Kind::Grep => "grep",
            Kind::Execute => "execute",
        }
    }
}

pub struct FsTool {
    kind: Kind,
    spec: ToolSpec,
    shared: Arc<Shared>,
}

impl FsTool {
    pub fn new(kind: Kind, spec: ToolSpec, shared: Arc<Shared>) -> Self {
        FsTool { kind, spec, shared }
    }
}

fn err(text: impl Into<String>) -> Result<ToolOutput, ToolError> {
    Ok(ToolOutput::error(text))
}

fn ok(text: impl Into<String>) -> Result<ToolOutput, ToolError> {
    Ok(ToolOutput::text(text))
}

fn fatal(e: crate::error::BoxError) -> ToolError {
    ToolError::Fatal(e)
}

impl Tool for FsTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(
        &self,
        args: Value,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let files = (ctx.run.files.clone(), ctx.run.files_host.clone());
        run_in(
            self.kind,
            self.shared.clone(),
            args,
            files,
            ctx.host,
            ctx.tool_call_id,
        )
    }
}

/// The tool of `kind` on `args` over `files`, with the files a state backend wrote in the
/// output.
pub(super) fn run_in(
    kind: Kind,
    shared: Arc<Shared>,
    args: Value,
    files: FilesSnapshot,
    host: HostContext,
    tool_call_id: String,
) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
    Box::pin(async move {
        let scope = FilesScope::new(files, host);
        let mut output = run(kind, &shared, &args, scope.clone(), &tool_call_id).await?;
        output.files = scope.take_update();
        Ok(output)
    })
}

/// `validate_path`, with deepagents' `Error: {message}` result on refusal.
fn validated(path: &str) -> Result<String, String> {
    validate_path(path, None).map_err(|e| format!("Error: {e}"))
}

async fn run(
    kind: Kind,
    sh: &Shared,
    raw: &Value,
    cx: Arc<FilesScope>,
    tool_call_id: &str,
) -> Result<ToolOutput, ToolError> {
    let mut a = Args::new(raw);
    let be = sh.backend.clone();
    macro_rules! checked {
        () => {
            if !a.errors.is_empty() {
                return err(invocation_error(kind.name(), raw, &a.errors));
            }
        };
    }
    macro_rules! path_or_error {
        ($p:expr) => {
            match validated(&$p) {
                Ok(p) => p,
                Err(e) => return err(e),
            }
        };
    }
    match kind {
        Kind::Ls => {
            let path = a.string("path");
            checked!();
            let path = path_or_error!(path);
            if let Some(e) = sh.permission_error("read", &path) {
                return err(e);
            }
            let res = be.ls(cx, path).await.map_err(fatal)?;
            if let Some(e) = res.error.filter(|e| !e.is_empty()) {
                return err(format!("Error: {e}"));
            }
            let paths =
                sh.allowed_paths("read", format::paths_of(&res.entries.unwrap_or_default()));
            ok(format::file_paths(paths))
        }
        Kind::ReadFile => {
            let path = a.string("file_path");
            let offset = a.int("offset", 0);
            let limit = a.int("limit", 100);
            checked!();
            let path = path_or_error!(path);
            if let Some(e) = sh.permission_error("read", &path) {
                return err(e);
            }
            let host = cx.host.clone();
            let res = be
                .read(cx, path.clone(), offset, limit)
                .await
                .map_err(fatal)?;
            match read_output(sh, res, &path, offset, limit) {
                ReadOutput::Done(output) => Ok(*output),
                ReadOutput::Video(frames, content) => {
                    let (window, max) = ((offset, limit), frames.max_input().await);
                    super::video::read(frames, host, &content, &path, tool_call_id, window, max)
                        .await
                }
            }
        }
        Kind::WriteFile => {
            let path = a.string("file_path");
            let content = a.string("content");
            checked!();
            let path = path_or_error!(path);
            if let Some(e) = sh.permission_error("write", &path) {
                return err(e);
            }
            let res = be.write(cx, path, content).await.map_err(fatal)?;
            match res.error.filter(|e| !e.is_empty()) {
                Some(e) => err(e),
                None => ok(format!("Updated file {}", res.path.unwrap_or_default())),
            }
        }
        Kind::EditFile => {
            let path = a.string("file_path");
            let old = a.string("old_string");
            let new = a.string("new_string");
            let replace_all = a.bool("replace_all", false);
            checked!();
            let path = path_or_error!(path);
            if let Some(e) = sh.permission_error("write", &path) {
                return err(e);
            }
            let res = be
                .edit(cx, path, old, new, replace_all)
                .await
                .map_err(fatal)?;
            match res.error.filter(|e| !e.is_empty()) {
                Some(e) => err(e),
                None => ok(format!(
                    "Successfully replaced {} instance(s) of the string in '{}'",
                    res.occurrences.map_or("None".to_owned(), |n| n.to_string()),
                    res.path.unwrap_or_default()
                )),
            }
        }
        Kind::Delete => {
            let path = a.string("file_path");
            checked!();
            let path = path_or_error!(path);
            if !sh.rules.is_empty() {
                let has_descendants = may_have_descendants(sh, cx.clone(), &path).await?;
                if let Some(e) = sh.delete_permission_error(&path, has_descendants) {
                    return err(e);
                }
            }
            let res = be.delete(cx, path).await.map_err(fatal)?;
            match res.error.filter(|e| !e.is_empty()) {
                Some(e) => err(e),
                None => ok(format!("Deleted {}", res.path.unwrap_or_default())),
            }
        }
        Kind::Glob => {
            let pattern = a.string("pattern");
            let path = a.opt_string("path");
            checked!();
            let permission_path = path_or_error!(path.clone().unwrap_or_else(|| "/".into()));
            if sh.rules.check("read", &permission_path) == Mode::Deny {
                let hint = if path.is_none() {
                    super::texts::GLOB_PATHLESS_DENIED_HINT
                } else {
                    ""
                };
                return err(format!(
                    "Error: permission denied for read on {permission_path}{hint}"
                ));
            }
            if let Some(e) = sh.resolved_permission_error("read", &permission_path) {
                return err(e);
            }
            if path.is_some()
                && let Some(e) = unresolvable(sh, &permission_path)
            {
                return err(e);
            }
            let backend_path = path.is_some().then_some(permission_path);
            let (seconds, shown) = match &sh.glob_timeout {
                Some(read) => read().await,
                None => (super::texts::GLOB_TIMEOUT_SECS, "10.0".to_owned()),
            };
            // A negative wait times out at once, as `asyncio.wait_for` does; past a
            // century (or NaN) it is a century.
            const CENTURY: f64 = 100.0 * 365.0 * 86400.0;
            let wait = Duration::try_from_secs_f64(seconds.clamp(0.0, CENTURY))
                .unwrap_or(Duration::from_secs_f64(CENTURY));
            let call: crate::files::backend::Op<_> = if crate::host::is_async(&cx.host) {
                be.glob(cx, pattern, backend_path)
            } else {
                // A sync run's call holds a slot until the backend returns, past its timeout
                // too (see `GlobSlots`): it runs on as its own task.
                let Some(slot) = sh.glob_slots.take() else {
                    return err(super::texts::GLOB_TOO_MANY_CALLS);
                };
                let running = tokio::spawn(async move {
                    let res = be.glob(cx, pattern, backend_path).await;
                    drop(slot);
                    res
                });
                Box::pin(async move { running.await.map_err(|e| e.to_string())? })
            };
            let res = match tokio::time::timeout(wait, call).await {
                Err(_) => {
                    return err(super::texts::GLOB_TIMEOUT_MESSAGE.replace("{timeout}", &shown));
                }
                Ok(Err(e)) => return err(format!("Error: glob failed: {e}")),
                Ok(Ok(res)) => res,
            };
            if let Some(e) = res.failed {
                return err(format!("Error: glob failed: {e}"));
            }
            if let Some(e) = res.error.filter(|e| !e.is_empty()) {
                return err(format!("Error: {e}"));
            }
            let paths =
                sh.allowed_paths("read", format::paths_of(&res.matches.unwrap_or_default()));
            ok(format::glob_result(
                paths,
                res.truncated,
                res.truncation_reason.as_deref(),
            ))
        }
        Kind::Grep => {
            let pattern = a.string("pattern");
            let path = a.opt_string("path");
            let glob = a.opt_string("glob");
            let mode = a.literal(
                "output_mode",
                &["files_with_matches", "content", "count"],
                "files_with_matches",
            );
            let max_count = a.opt_int("max_count");
            if max_count.is_some_and(|m| m <= 0) {
                a.errors
                    .push("max_count: Input should be greater than 0".into());
            }
            checked!();
            let path = match path {
                Some(p) => {
                    let p = path_or_error!(p);
                    if let Some(e) = sh.permission_error("read", &p) {
                        return err(e);
                    }
                    if let Some(e) = unresolvable(sh, &p) {
                        return err(e);
                    }
                    Some(p)
                }
                None => None,
            };
            let cap = max_count.map(|m| m as usize).or(sh.grep_max_count);
            let mut res: GrepResult = be
                .grep(cx, pattern.clone(), path, glob, cap)
                .await
                .map_err(fatal)?;
            if let (Some(cap), Some(matches)) = (cap, res.matches.as_mut())
                && matches.len() > cap
            {
                matches.truncate(cap);
                res.truncated = true;
            }
            let matches = res.matches.unwrap_or_default();
            let had = !matches.is_empty();
            let kept: Vec<_> = if sh.rules.is_empty() {
                matches
            } else {
                matches
                    .into_iter()
                    .filter(|m| !sh.is_denied("read", &m.path))
                    .collect()
            };
            let (text, is_error) =
                format::grep_result(res.error, &kept, res.truncated, &mode, &pattern, had);
            if is_error { err(text) } else { ok(text) }
        }
        Kind::Execute => {
            let command = a.string("command");
            let timeout = a.opt_int("timeout");
            checked!();
            if let Some(t) = timeout {
                if t < 0 {
                    return err(format!("Error: timeout must be non-negative, got {t}."));
                }
                if t > sh.max_execute_timeout {
                    return err(format!(
                        "Error: timeout {t}s exceeds maximum allowed ({}s).",
                        sh.max_execute_timeout
                    ));
                }
            }
            if !be.supports_execution() {
                return err(
                    "Error: Execution not available. This agent's backend does not support command execution (SandboxBackendProtocol). To use the execute tool, provide a backend that implements SandboxBackendProtocol.",
                );
            }
            if timeout.is_some() && !be.execute_accepts_timeout() {
                return err(
                    "Error: This sandbox backend does not support per-command timeout overrides. Update your sandbox package to the latest version, or omit the timeout parameter.",
                );
            }
            // Capture at source is tried when large results are evicted at all and the
            // call has an id to name the file; the backend decides whether it can.
            let capture = sh
                .token_limit
                .filter(|l| *l > 0 && !tool_call_id.is_empty())
                .map(|l| Capture {
                    path: format!(
                        "{}/{}",
                        sh.large_tool_results_prefix,
                        super::eviction::sanitize(tool_call_id)
                    ),
                    max_inline_bytes: format::CHARS_PER_TOKEN * l,
                });
            let output_file = capture.as_ref().map(|c| c.path.clone());
            let res = be
                .execute(cx, command, timeout, capture)
                .await
                .map_err(fatal)?;
            if let Some(e) = res.failed {
                return err(e);
            }
            let mut artifact = Map::new();
            artifact.insert("truncated".into(), Value::Bool(res.truncated));
            if let Some(code) = res.exit_code {
                artifact.insert("exit_code".into(), json!(code));
            }
            let content = match output_file.filter(|_| res.offloaded) {
                Some(path) => {
                    let content = super::eviction::captured_stub(&res, &path, tool_call_id);
                    artifact.insert("output_file".into(), json!(path));
                    content
                }
                None => format::execute_output(&res.output, res.exit_code, res.truncated),
            };
            Ok(ToolOutput {
                content: Content::Text(content),
                artifact: Some(Value::Object(artifact)),
                ..Default::default()
            })
        }
    }
}

/// A search root a disk backend cannot resolve inside its root (a symlink out of it):
/// refused with deepagents' permission-check text. deepagents checks this only when
/// permissions are set, and otherwise answers "No matches found"; here every such search
/// is refused, so a link out of the root is never searched quietly.
fn unresolvable(sh: &Shared, path: &str) -> Option<String> {
    if !sh.rules.is_empty() {
        return None; // already checked with the permissions
    }
    sh.backend
        .real_path(path)
        .err()
        .map(|_| format!("Error: cannot resolve {path}"))
}

/// `_delete_target_may_have_descendants`: a directory, or anything the backend cannot
/// confirm is a leaf.
async fn may_have_descendants(
    sh: &Shared,
    cx: Arc<FilesScope>,
    target: &str,
) -> Result<bool, ToolError> {
    let res = sh
        .backend
        .ls(cx.clone(), target.to_owned())
        .await
        .map_err(fatal)?;
    if let Some(e) = res.error {
        return Ok(!e.contains("not_a_directory"));
    }
    if res.entries.as_ref().is_some_and(|e| !e.is_empty()) {
        return Ok(true);
    }
    let parent = match target.rfind('/') {
        Some(0) | None => "/".to_owned(),
        Some(i) => target[..i].to_owned(),
    };
    let listing = sh.backend.ls(cx, parent).await.map_err(fatal)?;
    if listing.error.is_some() {
        return Ok(true);
    }
    let norm = target.trim_end_matches('/');
    let matches: Vec<_> = listing
        .entries
        .unwrap_or_default()
        .into_iter()
        .filter(|e| e.path.trim_end_matches('/') == norm)
        .collect();
    Ok(matches.is_empty() || matches.iter().any(|e| e.is_dir == Some(true)))
}

/// What `_handle_read_result` makes of a read: the answer, or a video's content to sample
/// with the extractor.
enum ReadOutput {
    Done(Box<ToolOutput>),
    Video(Arc<dyn super::FrameSource>, String),
}

/// `_handle_read_result`.
fn read_output(
    sh: &Shared,
    res: crate::files::backend::ReadResult,
    path: &str,
    offset: i64,
    limit: i64,
) -> ReadOutput {
    if let Some(e) = res.error.as_ref().filter(|e| !e.is_empty()) {
        return ReadOutput::Done(Box::new(ToolOutput::error(format!("Error: {e}"))));
    }
    let Some(fd) = res.file_data.clone() else {
        let text = format!("Error: no data returned for '{path}'");
        return ReadOutput::Done(Box::new(ToolOutput::error(text)));
    };
    let file_type = crate::files::video::read_file_type(path, sh.video.is_some());
    let encoding = file_data::encoding(&fd).to_owned();
    let content = file_data::content(&fd).unwrap_or_default();
    let whole_file =
        res.start_line.is_none() || (res.start_line == Some(1) && res.total_lines == res.end_line);
    if content.trim().is_empty() && whole_file {
        let text = if content.is_empty() && res.no_lines_requested {
            super::texts::NO_LINES_REQUESTED_WARNING.replace("{limit}", &limit.to_string())
        } else {
            super::texts::EMPTY_CONTENT_WARNING.to_owned()
        };
        return ReadOutput::Done(Box::new(ToolOutput::text(text)));
    }
    // Sampled before the generic media branch, which would send the video's bytes whole.
    if let (Some(frames), "video") = (&sh.video, file_type) {
        return ReadOutput::Video(frames.clone(), content);
    }
    if encoding == "base64" || file_type != "text" {
        let block_type = if file_type == "text" {
            "file"
        } else {
            file_type
        };
        let mime = media::mime_type(path);
        let mut out = ToolOutput {
            content: Content::Blocks(vec![
                json!({"type": block_type, "base64": content, "mime_type": mime}),
            ]),
            ..Default::default()
        };
        out.additional_kwargs
            .insert("read_file_path".into(), json!(path));
        out.additional_kwargs
            .insert("read_file_media_type".into(), json!(mime));
        return ReadOutput::Done(Box::new(out));
    }
    let (window, body) = format::read_window(res, &content, offset);
    let notices: Vec<String> = if offset < 0 {
        vec![format!(
            "[Requested offset {offset} is before the start of the file; read from line 1 instead.]"
        )]
    } else {
        Vec::new()
    };
    ReadOutput::Done(Box::new(ToolOutput {
        content: Content::Text(format::paginated_read(
            &body,
            path,
            &window,
            sh.token_limit,
            &notices,
        )),
        status: ToolStatus::Success,
        ..Default::default()
    }))
}
