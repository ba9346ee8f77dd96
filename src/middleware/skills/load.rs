//! Discovery, as deepagents' `_list_skills_with_errors` does it: each source's listing, every
//! directory in it read for a `SKILL.md` in one download, each file's frontmatter parsed.
//! Later sources override earlier ones by name; a skill keeps the place it was first seen.

use std::sync::Arc;

use futures::future::BoxFuture;
use indexmap::IndexMap;
use serde_json::Value;

use super::frontmatter::{self, FrontmatterView, MAX_SKILL_FILE_SIZE};
use super::paths;
use super::section::Source;
use crate::error::Error;
use crate::files::backend::TextDownload;
use crate::files::{Backend, FilesScope};

/// Reads frontmatter YAML into the fields deepagents takes from it (see `frontmatter`): one
/// answer per `(SKILL.md path, text)`, `None` for text that is not YAML or not a mapping.
pub trait FrontmatterReader: Send + Sync {
    fn read(
        &self,
        yaml: Vec<(String, String)>,
    ) -> BoxFuture<'static, Result<Vec<Option<FrontmatterView>>, Error>>;
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
                tracing::warn!("Error decoding {path}: {e}");
                None
            }
        };
        answers.push(answer);
    }
    answers
}

/// The frontmatter of one downloaded `SKILL.md`, or why it has none worth parsing.
fn frontmatter_of(answer: Option<TextDownload>, path: &str) -> Option<String> {
    let answer = answer?;
    if let Some(error) = answer.error {
        // `file_not_found` is expected (not every directory is a skill); anything else is
        // a malformed or unreadable skill, which deepagents logs.
        if error != "file_not_found" {
            tracing::warn!("Cannot load SKILL.md at {path}: {error}; skipping");
        }
        return None;
    }
    let Some(content) = answer.content else {
        tracing::warn!("Downloaded skill file {path} has no content");
        return None;
    };
    if content.len() > MAX_SKILL_FILE_SIZE && content.chars().count() > MAX_SKILL_FILE_SIZE {
        tracing::warn!("Skipping {path}: content too large");
        return None;
    }
    match frontmatter::split(&content) {
        Some((yaml, _)) => Some(yaml.to_owned()),
        None => {
            tracing::warn!("Skipping {path}: no valid YAML frontmatter found");
            None
        }
    }
}

/// One source's skills and its listing error, in listing order.
async fn load_source(
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
    let dirs: Vec<String> = listing
        .entries
        .unwrap_or_default()
        .into_iter()
        .filter(|e| e.is_dir == Some(true))
        .map(|e| e.path)
        .collect();
    if dirs.is_empty() {
        return Ok((Vec::new(), error));
    }
    let md_paths: Vec<String> = dirs.iter().map(|d| paths::skill_md(d)).collect();
    let answers = download(backend, scope, md_paths.clone()).await;
    let mut found = Vec::new();
    let mut yaml = Vec::new();
    for ((dir, path), answer) in dirs.iter().zip(&md_paths).zip(answers) {
        if let Some(text) = frontmatter_of(answer, path) {
            found.push((paths::dir_name(dir), path));
            yaml.push((path.clone(), text));
        }
    }
    let views = if yaml.is_empty() {
        Vec::new()
    } else {
        reader.read(yaml).await?
    };
    let skills = found
        .into_iter()
        .zip(views)
        .filter_map(|((dir, path), view)| match view {
            Some(view) => frontmatter::skill_metadata(&view, path, &dir),
            None => {
                tracing::warn!(
                    "Skill at {path} failed metadata parse or name validation; skipping"
                );
                None
            }
        })
        .collect();
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
        tracing::warn!("Skills load errors: {errors:?}");
    }
    Ok(Loaded {
        skills: by_name.into_values().collect(),
        errors,
    })
}
