//! Discovery, as deepagents' `_list_skills_with_errors` does it: each source's listing, every
//! directory in it read for a `SKILL.md` in one download, each file's frontmatter parsed.
//! Later sources override earlier ones by name; a skill keeps the place it was first seen.

use std::cell::RefCell;
use std::sync::Arc;

use futures::future::BoxFuture;
use indexmap::IndexMap;
use parking_lot::Mutex;
use serde_json::Value;

use super::frontmatter::{self, FrontmatterView};
use super::paths;
use super::section::Source;
use crate::error::Error;
use crate::files::backend::TextDownload;
use crate::files::{Backend, FilesScope};

/// One frontmatter read: its fields (`None` for text that is not YAML or not a mapping) and
/// the warnings deepagents logs while reading it, in order.
pub type ReadView = (Option<FrontmatterView>, Vec<String>);

/// Reads frontmatter YAML into the fields deepagents takes from it (see `frontmatter`): one
/// answer per `(SKILL.md path, text)`.
pub trait FrontmatterReader: Send + Sync {
    fn read(&self, yaml: Vec<(String, String)>)
    -> BoxFuture<'static, Result<Vec<ReadView>, Error>>;

    /// Reports warnings of the load, in order, where the host's logging shows them
    /// (deepagents logs each skipped skill and each source's error). Async: the host's
    /// logging runs on a thread of its own, not on the runtime's worker that awaits it.
    fn warn(&self, messages: Vec<String>) -> BoxFuture<'static, ()> {
        for message in messages {
            tracing::warn!("{message}");
        }
        Box::pin(async {})
    }
}

/// The warnings a source's load notes while it parses (sync code), reported in order before
/// the load's next host call and at its end.
struct Notes<'r> {
    reader: &'r Arc<dyn FrontmatterReader>,
    noted: Mutex<Vec<String>>,
}

impl Notes<'_> {
    fn note(&self, message: String) {
        self.noted.lock().push(message);
    }

    async fn report(&self) {
        let noted = std::mem::take(&mut *self.noted.lock());
        if !noted.is_empty() {
            self.reader.warn(noted).await;
        }
    }
}

/// What a load found: the skills' `SkillMetadata` dicts and the sources' errors.
pub struct Loaded {
    pub skills: Vec<Value>,
    pub errors: Vec<String>,
}

fn backend_error(source: crate::error::BoxError) -> Error {
    Error::Tool {
        tool: super::NAME.into(),
        source,
    }
}

/// `download_files` of `paths`, decoded. deepagents decodes each file on its own and skips
/// one that is not UTF-8; the backend call decodes the batch, so a failed batch is asked
/// again path by path and a path that still fails is skipped (`None`).
pub async fn download(
    backend: &Arc<dyn Backend>,
    scope: &Arc<FilesScope>,
    paths: Vec<String>,
    warn: &(dyn Fn(String) + Sync),
) -> Vec<Option<TextDownload>> {
    if let Ok(answers) = backend.download_text(scope.clone(), paths.clone()).await {
        return answers.into_iter().map(Some).collect();
    }
    let mut answers = Vec::with_capacity(paths.len());
    for path in paths {
        let answer = match backend
            .download_text(scope.clone(), vec![path.clone()])
            .await
        {
            Ok(mut one) => one.pop(),
            Err(e) => {
                warn(format!("Error decoding {path}: {e}"));
                None
            }
        };
        answers.push(answer);
    }
    answers
}

/// The text of one downloaded `SKILL.md`, or `None` (with deepagents' warning) when the
/// download failed or brought nothing.
pub fn downloaded_text(answer: TextDownload, path: &str, warn: &dyn Fn(String)) -> Option<String> {
    if let Some(error) = answer.error {
        // `file_not_found` is expected (not every directory is a skill); anything else is
        // a malformed or unreadable skill, which deepagents logs.
        if error != "file_not_found" {
            warn(format!("Cannot load SKILL.md at {path}: {error}; skipping"));
        }
        return None;
    }
    if answer.content.is_none() {
        warn(format!("Downloaded skill file {path} has no content"));
    }
    answer.content
}

/// deepagents' warning for a skill whose frontmatter gave no `SkillMetadata`.
pub fn skipped(path: &str) -> String {
    format!("Skill at {path} failed metadata parse or name validation; skipping")
}

/// One source's skills and its listing error, in listing order (deepagents'
/// `_list_skills_with_errors`).
pub async fn load_source(
    backend: &Arc<dyn Backend>,
    reader: &Arc<dyn FrontmatterReader>,
    scope: &Arc<FilesScope>,
    source: &str,
) -> Result<(Vec<Value>, Option<String>), Error> {
    let listing = backend
        .ls(scope.clone(), source.to_owned())
        .await
        .map_err(backend_error)?;
    let error = listing
        .error
        .map(|e| format!("Cannot load skills from '{source}': {e}"));
    let pending = Notes {
        reader,
        noted: Mutex::new(Vec::new()),
    };
    let warn = |message: String| pending.note(message);
    if let Some(error) = &error {
        warn(error.clone());
    }
    let dirs: Vec<String> = listing
        .entries
        .unwrap_or_default()
        .into_iter()
        .filter(|e| e.is_dir == Some(true))
        .map(|e| e.path)
        .collect();
    pending.report().await;
    if dirs.is_empty() {
        return Ok((Vec::new(), error));
    }
    let md_paths: Vec<String> = dirs.iter().map(|d| paths::skill_md(d)).collect();
    let answers = download(backend, scope, md_paths.clone(), &warn).await;
    pending.report().await;
    // deepagents parses file by file, warning as it goes; the YAML is read in one batch, so
    // each file's warnings are kept and given in file order once the batch is read.
    let mut files = Vec::with_capacity(dirs.len());
    let mut yaml = Vec::new();
    for ((dir, path), answer) in dirs.iter().zip(&md_paths).zip(answers) {
        let notes = RefCell::new(Vec::new());
        let note = |message: String| notes.borrow_mut().push(message);
        let text = answer.and_then(|a| downloaded_text(a, path, &note));
        let read = match &text {
            Some(content) => match frontmatter::frontmatter_yaml(content, path, &note) {
                Some(front) => {
                    yaml.push((path.clone(), front.to_owned()));
                    true
                }
                None => {
                    note(skipped(path));
                    false
                }
            },
            None => false,
        };
        files.push((paths::dir_name(dir), path, notes.into_inner(), read));
    }
    let mut views = if yaml.is_empty() {
        Vec::new()
    } else {
        reader.read(yaml).await?
    }
    .into_iter();
    let mut skills = Vec::new();
    for (dir, path, notes, read) in files {
        notes.into_iter().for_each(&warn);
        if !read {
            continue;
        }
        let (view, view_notes) = views.next().unwrap_or_default();
        view_notes.into_iter().for_each(&warn);
        match view.and_then(|view| frontmatter::skill_metadata(&view, path, &dir, &warn)) {
            Some(skill) => skills.push(skill),
            None => warn(skipped(path)),
        }
    }
    pending.report().await;
    Ok((skills, error))
}

/// Every source in order, later ones overriding earlier ones by name.
pub async fn load(
    backend: Arc<dyn Backend>,
    reader: Arc<dyn FrontmatterReader>,
    sources: Arc<[Source]>,
    scope: Arc<FilesScope>,
) -> Result<Loaded, Error> {
    let mut by_name: IndexMap<String, Value> = IndexMap::new();
    let mut errors = Vec::new();
    for source in sources.iter() {
        let (skills, error) = load_source(&backend, &reader, &scope, &source.path).await?;
        errors.extend(error);
        for skill in skills {
            let name = skill["name"].as_str().unwrap_or_default().to_owned();
            by_name.insert(name, skill);
        }
    }
    if !errors.is_empty() {
        reader
            .warn(vec![format!(
                "Skills load errors: {}",
                crate::pyrepr::repr(&Value::from(errors.clone()))
            )])
            .await;
    }
    Ok(Loaded {
        skills: by_name.into_values().collect(),
        errors,
    })
}
