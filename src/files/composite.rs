//! deepagents' `CompositeBackend`: one file tree assembled from several backends. A route
//! maps a path prefix such as `/memories/` to a backend that sees the paths below it with
//! the prefix cut off; every other path goes to the default backend, and whatever a routed
//! backend reports gets its prefix put back on. Listing, grep and glob at the root cover
//! the default backend and every route; `execute` always goes to the default.
//!
//! The routing and merging rules are the free functions below; `Composite` runs them over
//! core backends (the native state backend, Python backends called back), and the Python
//! `CompositeBackend` class calls the same functions through the binding.

use std::sync::Arc;

use crate::error::BoxError;

use super::backend::*;
use super::path::validate_path;

/// deepagents' `_DELETE_UNSUPPORTED_ERROR`.
pub fn delete_unsupported(path: &str) -> String {
    format!("Error: deletion is not supported for '{path}'.")
}

/// The message `CompositeBackend.execute` raises (`NotImplementedError`) when its default
/// backend cannot run commands.
pub const NO_EXECUTION_ERROR: &str = "Default backend doesn't support command execution (SandboxBackendProtocol). To enable execution, provide a default backend that implements SandboxBackendProtocol.";

/// The route owning `path`, given the prefixes longest first: its index and the path that
/// route's backend sees. A route owns its bare directory (`/memories`, seen inside as `/`)
/// and everything below `/memories/`; the first owner wins. `None`: the default backend,
/// with the path unchanged.
pub fn route<S: AsRef<str>>(sorted_prefixes: &[S], path: &str) -> Option<(usize, String)> {
    for (i, prefix) in sorted_prefixes.iter().enumerate() {
        let prefix = prefix.as_ref();
        if path == prefix.trim_end_matches('/') {
            return Some((i, "/".to_owned()));
        }
        // Matching on the directory form keeps `/memories2/x` out of `/memories`.
        let rest = if prefix.ends_with('/') {
            path.strip_prefix(prefix)
        } else {
            path.strip_prefix(prefix).and_then(|r| r.strip_prefix('/'))
        };
        if let Some(rest) = rest {
            return Some((i, format!("/{rest}")));
        }
    }
    None
}

/// A glob pattern given at the composite root, adapted to one route, or `None` to skip the
/// route: a pattern naming the route (`/memories/**/*.md`) is re-anchored at the route's
/// root (`/**/*.md`); any other `/`-anchored pattern cannot match below a route;
/// unanchored patterns pass through.
pub fn route_glob_pattern(pattern: &str, prefix: &str) -> Option<String> {
    let route_dir = format!("{}/", prefix.trim_matches('/'));
    let relative = pattern.trim_start_matches('/');
    if let Some(rest) = relative.strip_prefix(route_dir.as_str()) {
        return Some(format!("/{rest}"));
    }
    (!pattern.starts_with('/')).then(|| pattern.to_owned())
}

/// A path a routed backend reported, moved back under its route.
pub fn outer_path(prefix: &str, path: &str) -> String {
    format!("{}{path}", prefix.trim_end_matches('/'))
}

/// Of two glob truncation causes, `unreadable` wins (narrowing never fixes it).
pub fn worse_reason(first: Option<String>, second: Option<String>) -> Option<String> {
    let unreadable = |r: &Option<String>| r.as_deref() == Some("unreadable");
    if unreadable(&first) || unreadable(&second) {
        return Some("unreadable".to_owned());
    }
    first.or(second)
}

/// The matches a root grep may still take after `collected` (`None`: no cap; `0`: stop).
pub fn grep_budget(max_count: Option<i64>, collected: usize) -> Option<i64> {
    max_count.map(|m| (m - collected as i64).max(0))
}

/// deepagents' `_apply_grep_max_count`: a reply trimmed to the cap, flagged truncated when
/// anything was cut.
pub fn cap_grep(mut result: GrepResult, max_count: Option<usize>) -> GrepResult {
    if let (Some(max), Some(matches)) = (max_count, result.matches.as_mut())
        && matches.len() > max
    {
        matches.truncate(max);
        result.truncated = true;
    }
    result
}

/// The mount points a root listing shows beside the default backend's entries.
pub fn mount_points<S: AsRef<str>>(sorted_prefixes: &[S]) -> Vec<FileInfo> {
    sorted_prefixes
        .iter()
        .map(|p| FileInfo {
            path: p.as_ref().to_owned(),
            is_dir: Some(true),
            size: Some(0),
            modified_at: Some(String::new()),
        })
        .collect()
}

fn prefixed_infos(items: Option<Vec<FileInfo>>, prefix: &str) -> Vec<FileInfo> {
    items
        .unwrap_or_default()
        .into_iter()
        .map(|mut f| {
            f.path = outer_path(prefix, &f.path);
            f
        })
        .collect()
}

fn prefixed_matches(items: Option<Vec<GrepMatch>>, prefix: &str) -> Vec<GrepMatch> {
    items
        .unwrap_or_default()
        .into_iter()
        .map(|mut m| {
            m.path = outer_path(prefix, &m.path);
            m
        })
        .collect()
}

fn sorted_by_path(mut entries: Vec<FileInfo>) -> Vec<FileInfo> {
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    entries
}

/// A route of the composite.
#[derive(Clone)]
pub struct Route {
    pub prefix: String,
    pub backend: Arc<dyn Backend>,
}

/// `CompositeBackend` over core backends.
pub struct Composite {
    pub default: Arc<dyn Backend>,
    /// Longest prefix first: the order paths are matched in (`sorted_routes`).
    pub sorted: Vec<Route>,
    /// The order the routes were given in (`routes.items()`), which root searches follow.
    pub given: Vec<Route>,
    /// Whether an error a route's `delete` raised means it cannot delete (Python's
    /// `NotImplementedError`), reported as an error result.
    pub delete_unsupported: fn(&BoxError) -> bool,
    pub supports_execution: bool,
    pub execute_accepts_timeout: bool,
    pub route_prompt: String,
}

type Routed = (Arc<dyn Backend>, String, Option<String>);
/// A backend and the `(position, inner path)` pairs it gets in one batched call.
type Group = (Arc<dyn Backend>, Vec<(usize, String)>);

impl Composite {
    fn resolve(&self, path: &str) -> Routed {
        match route(&self.prefixes(), path) {
            Some((i, inner)) => (
                self.sorted[i].backend.clone(),
                inner,
                Some(self.sorted[i].prefix.clone()),
            ),
            None => (self.default.clone(), path.to_owned(), None),
        }
    }

    fn prefixes(&self) -> Vec<&str> {
        self.sorted.iter().map(|r| r.prefix.as_str()).collect()
    }

    /// `(position, inner path)` per backend, in the order the backends first appear, so
    /// each backend gets one batched call (a backend serving several routes, one call).
    fn group(&self, paths: &[String]) -> Vec<Group> {
        let mut groups: Vec<Group> = Vec::new();
        for (position, path) in paths.iter().enumerate() {
            let (backend, inner, _) = self.resolve(path);
            match groups.iter_mut().find(|(b, _)| same(b, &backend)) {
                Some((_, batch)) => batch.push((position, inner)),
                None => groups.push((backend, vec![(position, inner)])),
            }
        }
        groups
    }
}

fn same(a: &Arc<dyn Backend>, b: &Arc<dyn Backend>) -> bool {
    std::ptr::addr_eq(Arc::as_ptr(a), Arc::as_ptr(b))
}

fn show_outer(path: &mut Option<String>, file_path: &str) {
    if path.is_some() {
        *path = Some(file_path.to_owned());
    }
}

impl Backend for Composite {
    fn ls(&self, cx: Arc<FilesScope>, path: String) -> Op<LsResult> {
        let (backend, inner, prefix) = self.resolve(&path);
        let mounts = mount_points(&self.prefixes());
        Box::pin(async move {
            let listing = backend.ls(cx, inner).await?;
            if listing.error.is_some() {
                return Ok(listing);
            }
            if let Some(prefix) = prefix {
                return Ok(LsResult {
                    entries: Some(prefixed_infos(listing.entries, &prefix)),
                    ..Default::default()
                });
            }
            if path != "/" {
                return Ok(listing);
            }
            let mut entries = listing.entries.unwrap_or_default();
            entries.extend(mounts);
            Ok(LsResult {
                entries: Some(sorted_by_path(entries)),
                ..Default::default()
            })
        })
    }

    fn read(&self, cx: Arc<FilesScope>, path: String, offset: i64, limit: i64) -> Op<ReadResult> {
        let (backend, inner, _) = self.resolve(&path);
        backend.read(cx, inner, offset, limit)
    }

    fn write(&self, cx: Arc<FilesScope>, path: String, content: String) -> Op<WriteResult> {
        let (backend, inner, _) = self.resolve(&path);
        Box::pin(async move {
            let unchanged = inner == path;
            let mut result = backend.write(cx, inner, content).await?;
            if !unchanged {
                show_outer(&mut result.path, &path);
            }
            Ok(result)
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
        let (backend, inner, _) = self.resolve(&path);
        Box::pin(async move {
            let mut result = backend.edit(cx, inner, old, new, replace_all).await?;
            show_outer(&mut result.path, &path);
            Ok(result)
        })
    }

    fn delete(&self, cx: Arc<FilesScope>, path: String) -> Op<DeleteResult> {
        let (backend, inner, _) = self.resolve(&path);
        let unsupported = self.delete_unsupported;
        Box::pin(async move {
            let refused = || DeleteResult {
                error: Some(delete_unsupported(&path)),
                ..Default::default()
            };
            if !backend.supports_delete() {
                return Ok(refused());
            }
            match backend.delete(cx, inner).await {
                Ok(mut result) => {
                    show_outer(&mut result.path, &path);
                    Ok(result)
                }
                Err(e) if unsupported(&e) => Ok(refused()),
                Err(e) => Err(e),
            }
        })
    }

    fn glob(&self, cx: Arc<FilesScope>, pattern: String, path: Option<String>) -> Op<GlobResult> {
        let routed = path.as_deref().map(|p| self.resolve(p));
        let default = self.default.clone();
        let routes = self.given.clone();
        Box::pin(async move {
            if let Some((backend, inner, Some(prefix))) = routed {
                let found = backend.glob(cx, pattern, Some(inner)).await?;
                if found.error.is_some() || found.failed.is_some() {
                    return Ok(found);
                }
                return Ok(GlobResult {
                    matches: Some(prefixed_infos(found.matches, &prefix)),
                    truncated: found.truncated,
                    truncation_reason: found.truncation_reason,
                    ..Default::default()
                });
            }
            if path.as_deref().is_some_and(|p| p != "/") {
                return default.glob(cx, pattern, path).await;
            }
            let first = default.glob(cx.clone(), pattern.clone(), path).await?;
            if first.error.is_some() || first.failed.is_some() {
                return Ok(first);
            }
            let mut matches = first.matches.unwrap_or_default();
            let (mut truncated, mut reason) = (first.truncated, first.truncation_reason);
            for r in routes {
                let Some(inner_pattern) = route_glob_pattern(&pattern, &r.prefix) else {
                    continue;
                };
                let found = r
                    .backend
                    .glob(cx.clone(), inner_pattern, Some("/".to_owned()))
                    .await?;
                if found.error.is_some() || found.failed.is_some() {
                    // A failed route must not pass for a partial success.
                    return Ok(found);
                }
                matches.extend(prefixed_infos(found.matches, &r.prefix));
                truncated |= found.truncated;
                reason = worse_reason(reason, found.truncation_reason);
            }
            Ok(GlobResult {
                matches: Some(sorted_by_path(matches)),
                truncated,
                truncation_reason: reason,
                ..Default::default()
            })
        })
    }

    fn download_text(&self, cx: Arc<FilesScope>, paths: Vec<String>) -> Op<Vec<TextDownload>> {
        let groups = self.group(&paths);
        Box::pin(async move {
            let mut out = vec![TextDownload::default(); paths.len()];
            for (backend, batch) in groups {
                let inner = batch.iter().map(|(_, p)| p.clone()).collect();
                let replies = backend.download_text(cx.clone(), inner).await?;
                for (n, (position, _)) in batch.into_iter().enumerate() {
                    out[position] = replies.get(n).cloned().unwrap_or_default();
                }
            }
            Ok(out)
        })
    }

    fn grep(
        &self,
        cx: Arc<FilesScope>,
        pattern: String,
        path: Option<String>,
        glob: Option<String>,
        max_count: Option<usize>,
    ) -> Op<GrepResult> {
        let routed = path.as_deref().map(|p| self.resolve(p));
        let default = self.default.clone();
        let routes = self.given.clone();
        Box::pin(async move {
            let call = |backend: Arc<dyn Backend>, path: Option<String>, cap: Option<usize>| {
                let (cx, pattern, glob) = (cx.clone(), pattern.clone(), glob.clone());
                async move {
                    let found = backend.grep(cx, pattern, path, glob, cap).await?;
                    Ok::<_, BoxError>(cap_grep(found, cap))
                }
            };
            if let Some((backend, inner, Some(prefix))) = routed {
                let found = call(backend, Some(inner), max_count).await?;
                if found.error.is_some() {
                    return Ok(found);
                }
                return Ok(GrepResult {
                    matches: Some(prefixed_matches(found.matches, &prefix)),
                    truncated: found.truncated,
                    ..Default::default()
                });
            }
            if path.as_deref().is_some_and(|p| p != "/") {
                return call(default, path, max_count).await;
            }
            let found = call(default, path, max_count).await?;
            if found.error.is_some() {
                return Ok(found);
            }
            let mut matches = found.matches.unwrap_or_default();
            let mut truncated = found.truncated;
            for r in routes {
                let budget = grep_budget(max_count.map(|m| m as i64), matches.len());
                if budget == Some(0) {
                    // The cap is met, so the routes left are never searched; the result
                    // may be flagged truncated even when they hold nothing.
                    truncated = true;
                    break;
                }
                let part =
                    call(r.backend, Some("/".to_owned()), budget.map(|b| b as usize)).await?;
                if part.error.is_some() {
                    return Ok(part);
                }
                matches.extend(prefixed_matches(part.matches, &r.prefix));
                truncated |= part.truncated;
            }
            if let Some(max) = max_count
                && matches.len() > max
            {
                matches.truncate(max);
                truncated = true;
            }
            Ok(GrepResult {
                matches: Some(matches),
                truncated,
                ..Default::default()
            })
        })
    }

    fn execute(
        &self,
        cx: Arc<FilesScope>,
        command: String,
        timeout: Option<i64>,
        capture: Option<Capture>,
    ) -> Op<ExecuteResponse> {
        if !self.default.supports_execution() {
            return Box::pin(async {
                Ok(ExecuteResponse {
                    failed: Some(format!(
                        "Error: Execution not available. {NO_EXECUTION_ERROR}"
                    )),
                    ..Default::default()
                })
            });
        }
        // Output is captured at source only where the capture path falls to the default
        // (the executing) backend unchanged.
        let capture = capture.filter(|c| route(&self.prefixes(), &c.path).is_none());
        self.default.execute(cx, command, timeout, capture)
    }

    fn upload_blobs(
        &self,
        cx: Arc<FilesScope>,
        files: Vec<(String, String)>,
    ) -> Op<Option<Vec<Option<String>>>> {
        let paths: Vec<String> = files.iter().map(|(p, _)| p.clone()).collect();
        let groups = self.group(&paths);
        Box::pin(async move {
            let mut out = vec![None; files.len()];
            for (backend, batch) in groups {
                let payload = batch
                    .iter()
                    .map(|(position, inner)| (inner.clone(), files[*position].1.clone()))
                    .collect();
                let Some(replies) = backend.upload_blobs(cx.clone(), payload).await? else {
                    return Ok(None);
                };
                for (n, (position, _)) in batch.into_iter().enumerate() {
                    out[position] = replies.get(n).cloned().flatten();
                }
            }
            Ok(Some(out))
        })
    }

    fn download_blobs(
        &self,
        cx: Arc<FilesScope>,
        paths: Vec<String>,
    ) -> Op<Option<Vec<Option<String>>>> {
        let groups = self.group(&paths);
        Box::pin(async move {
            let mut out = vec![None; paths.len()];
            for (backend, batch) in groups {
                let inner = batch.iter().map(|(_, p)| p.clone()).collect();
                let Some(replies) = backend.download_blobs(cx.clone(), inner).await? else {
                    return Ok(None);
                };
                for (n, (position, _)) in batch.into_iter().enumerate() {
                    out[position] = replies.get(n).cloned().flatten();
                }
            }
            Ok(Some(out))
        })
    }

    fn supports_delete(&self) -> bool {
        true
    }
    fn supports_execution(&self) -> bool {
        self.supports_execution
    }
    fn execute_accepts_timeout(&self) -> bool {
        self.execute_accepts_timeout
    }
    fn route_prompt(&self) -> String {
        self.route_prompt.clone()
    }
    /// Where a path leads on disk, as a virtual path under the composite.
    fn real_path(&self, path: &str) -> Result<String, String> {
        let (backend, inner, prefix) = self.resolve(path);
        let resolved = backend.real_path(&inner)?;
        match prefix {
            None => Ok(resolved),
            Some(prefix) => {
                validate_path(&outer_path(&prefix, &resolved), None).map_err(|e| e.to_string())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_longest_first_on_segment_boundaries() {
        let prefixes = ["/memories/deep/", "/memories/", "/bare"];
        assert_eq!(route(&prefixes, "/memories/deep/x"), Some((0, "/x".into())));
        assert_eq!(route(&prefixes, "/memories/x"), Some((1, "/x".into())));
        assert_eq!(route(&prefixes, "/memories"), Some((1, "/".into())));
        assert_eq!(route(&prefixes, "/memories2/x"), None);
        assert_eq!(route(&prefixes, "/bare/y"), Some((2, "/y".into())));
        assert_eq!(route(&prefixes, "/bare"), Some((2, "/".into())));
        assert_eq!(route(&prefixes, "/barex"), None);
    }

    #[test]
    fn glob_patterns_follow_their_route() {
        assert_eq!(
            route_glob_pattern("/memories/**/*.md", "/memories/"),
            Some("/**/*.md".into())
        );
        assert_eq!(
            route_glob_pattern("memories/*.md", "/memories/"),
            Some("/*.md".into())
        );
        assert_eq!(route_glob_pattern("/*.md", "/memories/"), None);
        assert_eq!(
            route_glob_pattern("**/*.md", "/memories/"),
            Some("**/*.md".into())
        );
    }
}
