//! deepagents' `FilesystemPermission` rules: operations, path globs and a mode; the first
//! rule that lists the operation and matches the path decides, and no match allows.

use super::glob::globmatch;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Allow,
    Deny,
    Interrupt,
}

#[derive(Clone, Debug)]
pub struct Permission {
    pub operations: Vec<String>,
    pub paths: Vec<String>,
    pub mode: Mode,
}

#[derive(Clone, Debug, Default)]
pub struct Rules(pub Vec<Permission>);

impl Rules {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `_check_fs_permission`.
    pub fn check(&self, operation: &str, path: &str) -> Mode {
        for rule in &self.0 {
            if !rule.operations.iter().any(|o| o == operation) {
                continue;
            }
            if rule.paths.iter().any(|p| globmatch(path, p)) {
                return rule.mode;
            }
        }
        Mode::Allow
    }

    /// `_find_delete_deny_patterns`: the deny-write patterns that block deleting `target`.
    /// A leaf follows first-match-wins; a subtree is refused by any deny pattern that could
    /// reach into it, whatever the rule order.
    pub fn delete_deny_patterns(&self, target: &str, has_descendants: bool) -> Vec<String> {
        if !has_descendants {
            for rule in &self.0 {
                if !rule.operations.iter().any(|o| o == "write") {
                    continue;
                }
                let matched: Vec<String> = rule
                    .paths
                    .iter()
                    .filter(|p| globmatch(target, p))
                    .cloned()
                    .collect();
                if matched.is_empty() {
                    continue;
                }
                return if rule.mode == Mode::Deny {
                    matched
                } else {
                    Vec::new()
                };
            }
            return Vec::new();
        }
        let mut denying: Vec<String> = Vec::new();
        for rule in &self.0 {
            if rule.mode != Mode::Deny || !rule.operations.iter().any(|o| o == "write") {
                continue;
            }
            for pattern in &rule.paths {
                if denying.contains(pattern) {
                    continue;
                }
                let anchor = glob_anchor(pattern);
                let overlaps = if pattern.contains(['*', '?', '[', '{']) {
                    wildcard_delete_overlap(pattern, &anchor, target)
                } else {
                    paths_overlap(target, &anchor)
                };
                if overlaps {
                    denying.push(pattern.clone());
                }
            }
        }
        denying
    }
}

/// `PurePosixPath(p).parts`.
fn parts(p: &str) -> Vec<&str> {
    let mut out = Vec::new();
    if p.starts_with('/') {
        out.push("/");
    }
    out.extend(p.split('/').filter(|s| !s.is_empty() && *s != "."));
    out
}

fn join(parts: &[&str]) -> String {
    match parts.split_first() {
        None => ".".to_owned(),
        Some((&"/", rest)) => format!("/{}", rest.join("/")),
        Some(_) => parts.join("/"),
    }
}

fn is_relative_to(a: &str, b: &str) -> bool {
    let (a, b) = (parts(a), parts(b));
    a.len() >= b.len() && a[..b.len()] == b[..]
}

/// `_glob_anchor`: the literal leading directories of a pattern.
pub fn glob_anchor(pattern: &str) -> String {
    let posix = pattern.replace('\\', "/");
    let mut safe = Vec::new();
    for part in parts(&posix) {
        if part.contains(['*', '?', '[', '{']) {
            break;
        }
        safe.push(part);
    }
    if safe.is_empty() {
        "/".to_owned()
    } else {
        join(&safe)
    }
}

pub fn paths_overlap(call_path: &str, anchor: &str) -> bool {
    parts(call_path) == parts(anchor)
        || is_relative_to(call_path, anchor)
        || is_relative_to(anchor, call_path)
}

fn wildcard_delete_overlap(pattern: &str, anchor: &str, target: &str) -> bool {
    if anchor == "/" || globmatch(target, pattern) || is_relative_to(anchor, target) {
        return true;
    }
    if !is_relative_to(target, anchor) {
        return false;
    }
    let anchor_parts = parts(anchor);
    let pattern_parts = parts(pattern);
    let suffix = &pattern_parts[anchor_parts.len().min(pattern_parts.len())..];
    if suffix.len() != 1 || suffix[0].contains("**") {
        return true;
    }
    let target_parts = parts(target);
    (anchor_parts.len()..target_parts.len())
        .any(|depth| globmatch(&join(&target_parts[..depth]), pattern))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(ops: &[&str], paths: &[&str], mode: Mode) -> Permission {
        Permission {
            operations: ops.iter().map(|s| s.to_string()).collect(),
            paths: paths.iter().map(|s| s.to_string()).collect(),
            mode,
        }
    }

    #[test]
    fn first_match_wins() {
        let rules = Rules(vec![
            rule(&["read"], &["/AGENTS.md", "/docs/**"], Mode::Allow),
            rule(&["read"], &["/**"], Mode::Deny),
        ]);
        assert_eq!(rules.check("read", "/docs/a.md"), Mode::Allow);
        assert_eq!(rules.check("read", "/x.md"), Mode::Deny);
        assert_eq!(rules.check("write", "/x.md"), Mode::Allow);
    }

    #[test]
    fn delete_subtree_overlap() {
        let rules = Rules(vec![rule(&["write"], &["/pub/*.log", "/**"], Mode::Deny)]);
        assert_eq!(
            rules.delete_deny_patterns("/pub", true),
            vec!["/pub/*.log", "/**"]
        );
        let rules = Rules(vec![rule(&["write"], &["/other/*.log"], Mode::Deny)]);
        assert!(rules.delete_deny_patterns("/pub", true).is_empty());
    }
}
