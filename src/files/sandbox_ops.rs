//! `BaseSandbox`'s operations, each the sequence of requests it makes of the sandbox under
//! it (the user's `execute` and `upload_files`) and the result it draws from the replies.
//! Written once: the binding runs them with the sync primitives on the caller's thread, or
//! with the async ones on the caller's loop.

use std::future::Future;

use serde_json::{Map, Value};

use super::sandbox as protocol;
use super::sandbox_capture::{self as capture, Captured};
use super::sandbox_search::{self as search, GlobParsed, GrepParsed, shlex_quote};
use crate::error::Builtin;
use crate::middleware::py_text::py_rstrip;

/// Largest `old_string` + `new_string` (UTF-8 bytes) sent inside the edit command itself;
/// more go up as temp files first, since some providers cap a command's size.
pub const EDIT_INLINE_MAX_BYTES: usize = 50_000;

/// What `execute` answered, as `BaseSandbox` reads it, with the sandbox's own reply.
pub struct Ran<R> {
    pub output: String,
    pub exit_code: Option<i64>,
    pub truncated: bool,
    pub raw: R,
}

/// What `upload_files` answered: each response's error (`None` when it has none, in
/// order), and how the reply's own type shows (`<class 'list'>`) for the message of a
/// sandbox that broke its one-response-per-file contract.
pub struct Uploaded {
    pub errors: Vec<Option<String>>,
    pub kind: String,
}

/// The primitives a sandbox provides.
pub trait Sandbox {
    /// The sandbox's own reply to `execute`, handed back whole where deepagents does.
    type Raw: Send;
    type Error: Send;
    /// Runs `command`; `with_timeout` passes on the caller's timeout (capture only).
    fn execute(
        &self,
        command: String,
        with_timeout: bool,
    ) -> impl Future<Output = Result<Ran<Self::Raw>, Self::Error>> + Send;
    fn upload(
        &self,
        files: Vec<(String, Vec<u8>)>,
    ) -> impl Future<Output = Result<Uploaded, Self::Error>> + Send;
    /// Runs `command` within the bound the sandbox puts on an async search: `None` once it
    /// has passed (the request then cancelled, as `asyncio.wait_for` cancels it); runs it
    /// unbounded when there is none.
    fn execute_within(
        &self,
        command: String,
    ) -> impl Future<Output = Result<Option<Ran<Self::Raw>>, Self::Error>> + Send;
    /// A warning for the sandbox module's logger.
    fn warn(&self, message: String);
}

/// Why an operation produced no result: the sandbox raised, or the operation raises what
/// deepagents' code raises on the same reply.
pub enum Failed<E> {
    Sandbox(E),
    Raised(Builtin),
}

type Done<T, E> = Result<T, Failed<E>>;

async fn run<S: Sandbox>(s: &S, command: String) -> Done<Ran<S::Raw>, S::Error> {
    s.execute(command, false).await.map_err(Failed::Sandbox)
}

/// `ls`: the `(path, is_dir)` entries, or the listing's error message.
pub async fn ls<S: Sandbox>(
    s: &S,
    path: &str,
) -> Done<Result<Vec<(Value, Value)>, String>, S::Error> {
    let ran = run(s, protocol::ls_cmd(path)).await?;
    protocol::parse_ls(&ran.output, path).map_err(Failed::Raised)
}

/// `read` of a window already clamped: the `ReadResult` fields, or the error message.
pub async fn read<S: Sandbox>(
    s: &S,
    path: &str,
    file_type: &str,
    offset: i64,
    limit: i64,
) -> Done<Result<Map<String, Value>, String>, S::Error> {
    let ran = run(s, protocol::read_cmd(path, file_type, offset, limit)).await?;
    Ok(protocol::parse_read(&ran.output, path))
}

/// `_write_preflight`: the parent folders made, or the error message.
pub async fn preflight<S: Sandbox>(s: &S, path: &str) -> Done<Result<(), String>, S::Error> {
    let ran = run(s, protocol::write_preflight_cmd(path)).await?;
    Ok(
        match protocol::preflight_error(&ran.output, ran.exit_code, path) {
            Some(error) => Err(error),
            None => Ok(()),
        },
    )
}

/// `write`: the preflight, then the content uploaded.
/// `content` is the text's UTF-8 bytes, moved into the upload.
pub async fn write<S: Sandbox>(
    s: &S,
    path: &str,
    content: Vec<u8>,
) -> Done<Result<(), String>, S::Error> {
    if let Err(error) = preflight(s, path).await? {
        return Ok(Err(error));
    }
    upload_written(s, path, content).await
}

/// The upload half of `write`, for a subclass whose own `_write_preflight` ran already.
pub async fn upload_written<S: Sandbox>(
    s: &S,
    path: &str,
    content: Vec<u8>,
) -> Done<Result<(), String>, S::Error> {
    let files = vec![(path.to_owned(), content)];
    let uploaded = s.upload(files).await.map_err(Failed::Sandbox)?;
    match uploaded.errors.first() {
        None => Err(Failed::Raised(Builtin::Assertion(format!(
            "Responses was expected to return 1 result, but it returned 0 with type {}",
            uploaded.kind
        )))),
        Some(Some(error)) => Ok(Err(format!("Failed to write file '{path}': {error}"))),
        Some(None) => Ok(Ok(())),
    }
}

/// How `edit` sends its strings: as it chooses by their size, or one way as asked (a
/// subclass's `_edit_inline` and `_edit_via_upload` reach these).
#[derive(Clone, Copy)]
pub enum EditWay {
    Chosen,
    Inline,
    Upload,
}

/// `edit`: the occurrences replaced, or the error message. The file never leaves the
/// sandbox; strings too large for one command go up as temp files first.
pub async fn edit<S: Sandbox>(
    s: &S,
    path: &str,
    (old, new): (&str, &str),
    replace_all: bool,
    way: EditWay,
) -> Done<Result<Value, String>, S::Error> {
    let inline = match way {
        // Only `edit` itself refuses an empty string; its two ways leave that to the script.
        EditWay::Chosen if old.is_empty() => {
            return Ok(Err(super::text::EMPTY_OLD_STRING_ERROR.to_owned()));
        }
        EditWay::Chosen => old.len() + new.len() <= EDIT_INLINE_MAX_BYTES,
        EditWay::Inline => true,
        EditWay::Upload => false,
    };
    if inline {
        let ran = run(s, protocol::edit_inline_cmd(path, old, new, replace_all)).await?;
        let output = py_rstrip(&ran.output);
        return Ok(protocol::edit_outcome(
            protocol::edit_reply(output).as_ref(),
            output,
            path,
            old,
        ));
    }
    let stem = format!(
        "/tmp/.deepagents_edit_{}",
        capture::random_b32().to_lowercase()
    );
    let (old_tmp, new_tmp) = (format!("{stem}_old"), format!("{stem}_new"));
    let files = vec![
        (old_tmp.clone(), old.as_bytes().to_vec()),
        (new_tmp.clone(), new.as_bytes().to_vec()),
    ];
    let uploaded = s.upload(files).await.map_err(Failed::Sandbox)?;
    if uploaded.errors.len() < 2 {
        return Ok(Err(format!(
            "Error editing file '{path}': upload returned no response"
        )));
    }
    if let Some(error) = uploaded.errors.into_iter().flatten().next() {
        return Ok(Err(format!("Error editing file '{path}': {error}")));
    }
    let ran = run(
        s,
        protocol::edit_tmpfile_cmd(path, &old_tmp, &new_tmp, replace_all),
    )
    .await?;
    let output = py_rstrip(&ran.output);
    let reply = protocol::edit_reply(output);
    if reply.is_none() {
        // The script may have died before its own cleanup ran: remove the uploads here.
        let command = format!("rm -f {} {}", shlex_quote(&old_tmp), shlex_quote(&new_tmp));
        let cleanup = run(s, command).await?;
        if cleanup.exit_code != Some(0) {
            let shown: String = cleanup.output.chars().take(200).collect();
            s.warn(format!(
                "Failed to clean up temp files for edit {path}: {shown}"
            ));
        }
    }
    Ok(protocol::edit_outcome(reply.as_ref(), output, path, old))
}

/// `delete`: `rm -rf` after a probe that reports an absent path as not found.
pub async fn delete<S: Sandbox>(s: &S, path: &str) -> Done<Result<(), String>, S::Error> {
    let probe = run(s, capture::delete_probe_cmd(path)).await?;
    if let Some(error) = capture::delete_probe_error(path, probe.exit_code) {
        return Ok(Err(error));
    }
    let removal = run(s, capture::delete_cmd(path)).await?;
    Ok(
        match capture::delete_error(path, removal.exit_code, &removal.output) {
            Some(error) => Err(error),
            None => Ok(()),
        },
    )
}

async fn run_within<S: Sandbox>(s: &S, command: String) -> Done<Option<Ran<S::Raw>>, S::Error> {
    s.execute_within(command).await.map_err(Failed::Sandbox)
}

/// What `grep` searches for and how.
pub struct GrepQuery<'a> {
    pub pattern: &'a str,
    pub path: Option<&'a str>,
    pub glob: Option<&'a str>,
    pub max_count: Option<i64>,
    pub exclude_dirs: &'a [String],
}

/// `grep`: the parsed search, or `None` when it outlived the sandbox's bound.
pub async fn grep<S: Sandbox>(s: &S, q: &GrepQuery<'_>) -> Done<Option<GrepParsed>, S::Error> {
    let command = search::grep_cmd(q.pattern, q.path, q.glob, q.max_count, q.exclude_dirs);
    let Some(ran) = run_within(s, command).await? else {
        return Ok(None);
    };
    Ok(Some(search::parse_grep(
        &ran.output,
        ran.exit_code,
        q.path,
        q.max_count,
    )))
}

/// `glob` below the absolute search root it returns: the parsed walk, or `None` when it
/// outlived the sandbox's bound.
pub async fn glob<S: Sandbox>(
    s: &S,
    pattern: &str,
    path: Option<&str>,
) -> Done<(String, Option<GlobParsed>), S::Error> {
    let root = search::glob_search_root(path);
    let Some(ran) = run_within(s, search::glob_cmd(pattern, &root)).await? else {
        return Ok((root, None));
    };
    let parsed = search::parse_glob(&ran.output, ran.exit_code, ran.truncated, &root);
    Ok((root, Some(parsed)))
}

/// What `execute_with_offload` ran into.
pub enum Offloaded<R> {
    /// The sandbox's own reply is the whole result (capture off, or its reply unreadable).
    Whole(R),
    /// The wrapper's reply read; `truncated` when capture hit its cap or the transport cut.
    Read { captured: Captured, truncated: bool },
}

/// Where `execute_with_offload` keeps large output, and how much comes back inline.
pub struct OffloadPlan<'a> {
    pub capture_path: &'a str,
    pub inline_budget: i64,
    pub max_capture_bytes: Option<i64>,
    pub enabled: bool,
}

/// `execute_with_offload`: `command` alone when capture is off, else inside the wrapper.
pub async fn offload<S: Sandbox>(
    s: &S,
    command: &str,
    plan: &OffloadPlan<'_>,
) -> Done<Offloaded<S::Raw>, S::Error> {
    if !plan.enabled {
        let ran = s
            .execute(command.to_owned(), true)
            .await
            .map_err(Failed::Sandbox)?;
        return Ok(Offloaded::Whole(ran.raw));
    }
    let wrapper = capture::capture_cmd(
        command,
        plan.capture_path,
        plan.inline_budget,
        plan.max_capture_bytes,
    );
    let ran = s.execute(wrapper, true).await.map_err(Failed::Sandbox)?;
    match capture::parse_capture(&ran.output) {
        Err(warning) => {
            s.warn(warning);
            Ok(Offloaded::Whole(ran.raw))
        }
        Ok((captured, warning)) => {
            if let Some(warning) = warning {
                s.warn(warning);
            }
            let truncated = captured.capped || ran.truncated;
            Ok(Offloaded::Read {
                captured,
                truncated,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    /// A scripted sandbox: answers each request from a queue and records what it was asked.
    #[derive(Default)]
    struct Scripted {
        replies: Mutex<Vec<(String, Option<i64>)>>,
        uploads: Mutex<Vec<Vec<Option<String>>>>,
        asked: Mutex<Vec<String>>,
        warned: Mutex<Vec<String>>,
    }

    impl Sandbox for Scripted {
        type Raw = ();
        type Error = ();
        fn execute(
            &self,
            command: String,
            _: bool,
        ) -> impl Future<Output = Result<Ran<()>, ()>> + Send {
            self.asked.lock().unwrap().push(command);
            let (output, exit_code) = self.replies.lock().unwrap().remove(0);
            std::future::ready(Ok(Ran {
                output,
                exit_code,
                truncated: false,
                raw: (),
            }))
        }
        fn upload(
            &self,
            files: Vec<(String, Vec<u8>)>,
        ) -> impl Future<Output = Result<Uploaded, ()>> + Send {
            self.asked
                .lock()
                .unwrap()
                .push(format!("upload {}", files.len()));
            let errors = self.uploads.lock().unwrap().remove(0);
            std::future::ready(Ok(Uploaded {
                errors,
                kind: "<class 'list'>".into(),
            }))
        }
        fn execute_within(
            &self,
            command: String,
        ) -> impl Future<Output = Result<Option<Ran<()>>, ()>> + Send {
            let ran = self.execute(command, false);
            async move { ran.await.map(Some) }
        }
        fn warn(&self, message: String) {
            self.warned.lock().unwrap().push(message);
        }
    }

    fn now<T>(fut: impl Future<Output = T>) -> T {
        let mut fut = std::pin::pin!(fut);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        match fut.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(out) => out,
            std::task::Poll::Pending => panic!("a scripted sandbox never waits"),
        }
    }

    #[test]
    fn a_large_edit_uploads_and_cleans_up_after_a_dead_script() {
        let s = Scripted::default();
        s.uploads.lock().unwrap().push(vec![None, None]);
        s.replies
            .lock()
            .unwrap()
            .extend([("Killed".to_owned(), Some(137)), (String::new(), Some(1))]);
        let old = "x".repeat(EDIT_INLINE_MAX_BYTES);
        let out = now(edit(&s, "/f", (&old, "y"), false, EditWay::Chosen));
        assert!(matches!(out, Ok(Err(ref e)) if e.ends_with("unexpected server response: Killed")));
        let asked = s.asked.lock().unwrap();
        assert_eq!(asked[0], "upload 2");
        assert!(
            asked[2].starts_with("rm -f '/tmp/.deepagents_edit_")
                || asked[2].starts_with("rm -f /tmp/.deepagents_edit_")
        );
        assert_eq!(s.warned.lock().unwrap().len(), 1);
    }

    #[test]
    fn a_write_without_responses_raises_assertion() {
        let s = Scripted::default();
        s.replies.lock().unwrap().push((String::new(), Some(0)));
        s.uploads.lock().unwrap().push(vec![]);
        let out = now(write(&s, "/f", b"text".to_vec()));
        assert!(
            matches!(out, Err(Failed::Raised(Builtin::Assertion(ref m))) if m.ends_with("0 with type <class 'list'>"))
        );
    }

    #[test]
    fn delete_stops_at_an_absent_path() {
        let s = Scripted::default();
        s.replies.lock().unwrap().push((String::new(), Some(1)));
        let out = now(delete(&s, "/gone"));
        assert!(matches!(out, Ok(Err(ref e)) if e == "Error: '/gone' not found"));
        assert_eq!(s.asked.lock().unwrap().len(), 1);
    }
}
