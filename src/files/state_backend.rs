//! deepagents' `StateBackend`, native: files live in the run's `files` state key, and every
//! operation reads and writes the call's `FilesScope` without leaving Rust.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::backend::*;
use super::{file_data, media, text};

pub struct StateBackend;

fn ready<T: Send + 'static>(v: T) -> Op<T> {
    Box::pin(async move { Ok(v) })
}

impl Backend for StateBackend {
    fn ls(&self, cx: Arc<FilesScope>, path: String) -> Op<LsResult> {
        ready(LsResult {
            entries: Some(text::ls_files(&cx.current(), &path)),
            ..Default::default()
        })
    }

    fn read(&self, cx: Arc<FilesScope>, path: String, offset: i64, limit: i64) -> Op<ReadResult> {
        let result = match cx.get(&path) {
            None => ReadResult::error(format!("File '{path}' not found")),
            Some(fd) if media::backend_read_type(&path) != "text" => {
                match file_data::content(&fd) {
                    Ok(c) => ReadResult {
                        file_data: Some(file_data::with_content(&fd, c)),
                        ..Default::default()
                    },
                    Err(e) => ReadResult::error(e),
                }
            }
            Some(fd) => text::slice_read(&fd, offset, limit),
        };
        ready(result)
    }

    fn write(&self, cx: Arc<FilesScope>, path: String, content: String) -> Op<WriteResult> {
        let mut data = match cx.get(&path) {
            Some(existing) => file_data::update(&existing, content),
            None => file_data::create(content, None, "utf-8"),
        };
        data["encoding"] = Value::String("utf-8".into());
        let mut update = Map::new();
        update.insert(path.clone(), data);
        cx.send(update);
        ready(WriteResult {
            path: Some(path),
            ..Default::default()
        })
    }

    fn edit(
        &self,
        cx: Arc<FilesScope>,
        path: String,
        old: String,
        new: String,
        replace_all: bool,
    ) -> Op<EditResult> {
        let Some(fd) = cx.get(&path) else {
            return ready(EditResult {
                error: Some(format!("Error: File '{path}' not found")),
                ..Default::default()
            });
        };
        if file_data::encoding(&fd) == "base64" {
            return ready(EditResult {
                error: Some("Error: Cannot edit binary files with text replacements.".into()),
                ..Default::default()
            });
        }
        let content = match file_data::content(&fd) {
            Ok(c) => c,
            Err(e) => return Box::pin(async move { Err(e.into()) }),
        };
        match text::replace(&content, &old, &new, replace_all) {
            Err(e) => ready(EditResult {
                error: Some(e),
                ..Default::default()
            }),
            Ok((new_content, n)) => {
                let mut update = Map::new();
                update.insert(path.clone(), file_data::update(&fd, new_content));
                cx.send(update);
                ready(EditResult {
                    path: Some(path),
                    occurrences: Some(n as u64),
                    ..Default::default()
                })
            }
        }
    }

    fn delete(&self, cx: Arc<FilesScope>, path: String) -> Op<DeleteResult> {
        let doomed: Map<String, Value> = cx
            .current()
            .keys()
            .filter(|k| super::store::deleted_by(k, &path))
            .map(|k| (k.clone(), Value::Null))
            .collect();
        if doomed.is_empty() {
            return ready(DeleteResult {
                error: Some(format!("Error: File '{path}' not found")),
                ..Default::default()
            });
        }
        cx.send(doomed);
        ready(DeleteResult {
            path: Some(path),
            ..Default::default()
        })
    }

    fn glob(&self, cx: Arc<FilesScope>, pattern: String, path: Option<String>) -> Op<GlobResult> {
        ready(
            match text::glob_files(&cx.current(), &pattern, path.as_deref()) {
                Ok(matches) => GlobResult {
                    matches: Some(matches),
                    ..Default::default()
                },
                Err(e) => GlobResult {
                    error: Some(e.0),
                    ..Default::default()
                },
            },
        )
    }

    fn download_text(&self, cx: Arc<FilesScope>, paths: Vec<String>) -> Op<Vec<TextDownload>> {
        let answers: Result<Vec<TextDownload>, String> = paths
            .iter()
            .map(|path| match cx.get(path) {
                None => Ok(TextDownload {
                    content: None,
                    error: Some("file_not_found".into()),
                }),
                Some(fd) => downloaded_text(&fd).map(|text| TextDownload {
                    content: Some(text),
                    error: None,
                }),
            })
            .collect();
        // A failure is Python's `ValueError` family (`binascii.Error`, `UnicodeDecodeError`).
        Box::pin(
            async move { answers.map_err(|e| Box::new(crate::error::Error::InvalidInput(e)) as _) },
        )
    }

    /// `StateBackend.upload_files`: each file kept as text when its bytes are UTF-8, else
    /// as base64, its `created_at` kept when it already exists; never an error.
    fn upload_blobs(
        &self,
        cx: Arc<FilesScope>,
        files: Vec<(String, String)>,
    ) -> Op<Option<Vec<Option<String>>>> {
        use base64::Engine;
        let mut update = Map::new();
        let mut answers = Vec::with_capacity(files.len());
        for (path, payload) in files {
            let raw = match base64::engine::general_purpose::STANDARD.decode(&payload) {
                Ok(raw) => raw,
                Err(e) => return Box::pin(async move { Err(e.into()) }),
            };
            let (content, encoding) = match String::from_utf8(raw) {
                Ok(text) => (text, "utf-8"),
                Err(_) => (payload, "base64"),
            };
            let created_at = cx
                .get(&path)
                .and_then(|fd| {
                    fd.get("created_at")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                })
                .filter(|c| !c.is_empty());
            update.insert(path, file_data::create(content, created_at, encoding));
            answers.push(None);
        }
        if !update.is_empty() {
            cx.send(update);
        }
        ready(Some(answers))
    }

    fn grep(
        &self,
        cx: Arc<FilesScope>,
        pattern: String,
        path: Option<String>,
        glob: Option<String>,
        max_count: Option<usize>,
    ) -> Op<GrepResult> {
        let path = path.unwrap_or_else(|| "/".to_owned());
        ready(text::grep_files(
            &cx.current(),
            &pattern,
            Some(&path),
            glob.as_deref(),
            max_count,
        ))
    }
}

/// A stored file's bytes as text: its content for a UTF-8 file, else its base64 decoded, as
/// deepagents' `download_files` gives them.
fn downloaded_text(fd: &Value) -> Result<String, String> {
    use base64::Engine;
    let content = file_data::content(fd)?;
    if file_data::encoding(fd) == "utf-8" {
        return Ok(content);
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(content.as_bytes())
        .map_err(|e| format!("Invalid base64-encoded string: {e}"))?;
    super::utf8::decode(bytes)
}
