//! Interrupt-mode `FilesystemPermission` rules: which file-tool calls they send to a human.
//! deepagents turns them into one human-in-the-loop entry per file tool, whose `when` decides
//! per call; the tool itself lets such a call through (only `deny` refuses).

use serde_json::Value;

use super::path::validate_path;
use super::permissions::{Mode, Rules, glob_anchor, paths_overlap};

/// Where a path leads through symlinks; `None` where it cannot be resolved.
pub type Resolve<'a> = dyn Fn(&str) -> Option<String> + 'a;

/// A file tool such a rule can gate: its operation, its path argument, whether it reaches a
/// whole subtree (a listing, a search, a delete) rather than one file, and the argument that
/// can move its search root (`glob`'s pattern).
pub struct Gated<'a> {
    pub tool: &'a str,
    pub operation: &'a str,
    pub path_arg: &'a str,
    pub subtree: bool,
    pub pattern_arg: Option<&'a str>,
}

const TOOLS: [Gated<'static>; 7] = [
    Gated {
        tool: "ls",
        operation: "read",
        path_arg: "path",
        subtree: true,
        pattern_arg: None,
    },
    Gated {
        tool: "read_file",
        operation: "read",
        path_arg: "file_path",
        subtree: false,
        pattern_arg: None,
    },
    Gated {
        tool: "write_file",
        operation: "write",
        path_arg: "file_path",
        subtree: false,
        pattern_arg: None,
    },
    Gated {
        tool: "edit_file",
        operation: "write",
        path_arg: "file_path",
        subtree: false,
        pattern_arg: None,
    },
    Gated {
        tool: "delete",
        operation: "write",
        path_arg: "file_path",
        subtree: true,
        pattern_arg: None,
    },
    Gated {
        tool: "glob",
        operation: "read",
        path_arg: "path",
        subtree: true,
        pattern_arg: Some("pattern"),
    },
    Gated {
        tool: "grep",
        operation: "read",
        path_arg: "path",
        subtree: true,
        pattern_arg: None,
    },
];

impl Rules {
    /// The file tools some interrupt-mode rule can gate, in deepagents' order.
    pub fn interrupt_tools(&self) -> Vec<&'static str> {
        TOOLS
            .iter()
            .filter(|t| !self.interrupt_anchors(t.operation).is_empty())
            .map(|t| t.tool)
            .collect()
    }

    /// Whether a call of `tool` with `args` goes to a human first.
    #[cfg(test)]
    pub fn interrupt_fires(&self, tool: &str, args: &Value) -> bool {
        self.interrupt_fires_resolved(tool, args, None)
    }

    /// `interrupt_fires` on a backend over a real filesystem, where `resolve` gives where a
    /// path leads through symlinks (`None`: it cannot be resolved). The path and its target
    /// are both checked, as deepagents checks them: a link into a gated subtree is gated,
    /// and a path that cannot be resolved has nothing to check.
    pub fn interrupt_fires_resolved(
        &self,
        tool: &str,
        args: &Value,
        resolve: Option<&Resolve<'_>>,
    ) -> bool {
        match TOOLS.iter().find(|t| t.tool == tool) {
            Some(gated) => self.gated_call_fires(gated, args, resolve),
            None => false,
        }
    }

    /// Whether a call with `args` of a tool gated as `gated` describes goes to a human
    /// first (deepagents' `_make_fs_when_predicate` for that operation, argument and scope).
    pub fn gated_call_fires(
        &self,
        gated: &Gated<'_>,
        args: &Value,
        resolve: Option<&Resolve<'_>>,
    ) -> bool {
        let candidates = |path: String| -> Vec<String> {
            match resolve {
                None => vec![path],
                Some(resolve) => match resolve(&path) {
                    Some(target) => vec![path, target],
                    None => Vec::new(),
                },
            }
        };
        let raw = args.get(gated.path_arg);
        if !gated.subtree {
            // One file: the first rule that matches decides, so a `deny` before the
            // interrupt rule refuses the call at the tool instead (for the path or its
            // target).
            let Some(Value::String(raw)) = raw else {
                return false;
            };
            let Ok(path) = validate_path(raw, None) else {
                return false;
            };
            let modes: Vec<Mode> = candidates(path)
                .iter()
                .map(|p| self.check(gated.operation, p))
                .collect();
            return modes.contains(&Mode::Interrupt) && !modes.contains(&Mode::Deny);
        }
        let anchors = self.interrupt_anchors(gated.operation);
        if anchors.is_empty() {
            return false;
        }
        let raw = match raw {
            // No path: the call reaches everything.
            None | Some(Value::Null) => return true,
            Some(Value::String(raw)) => raw,
            Some(_) => return false,
        };
        let Ok(mut path) = validate_path(raw, None) else {
            return false;
        };
        // `.` and the empty path mean the whole tree, as a missing one does.
        if path == "/." {
            path = "/".to_owned();
        }
        if candidates(path)
            .iter()
            .any(|root| anchors.iter().any(|a| paths_overlap(root, a)))
        {
            return true;
        }
        match gated.pattern_arg.and_then(|p| args.get(p)) {
            Some(Value::String(pattern)) => pattern_fires(pattern, &anchors),
            _ => false,
        }
    }

    /// The literal roots of the interrupt rules' paths for `operation`.
    fn interrupt_anchors(&self, operation: &str) -> Vec<String> {
        self.0
            .iter()
            .filter(|r| r.mode == Mode::Interrupt && r.operations.iter().any(|o| o == operation))
            .flat_map(|r| r.paths.iter().map(|p| glob_anchor(p)))
            .collect()
    }
}

/// Whether a glob pattern reaches an interrupt rule's subtree whatever the call's path: an
/// absolute pattern searches from its own root, and a relative one that climbs (`..`) cannot
/// be placed, so it counts as reaching one.
fn pattern_fires(raw: &str, anchors: &[String]) -> bool {
    let posix = raw.replace('\\', "/");
    if posix.starts_with('/') {
        let anchor = glob_anchor(raw);
        return anchors.iter().any(|a| paths_overlap(&anchor, a));
    }
    posix.split('/').any(|part| part == "..")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::files::permissions::Permission;

    fn rules() -> Rules {
        Rules(vec![
            Permission {
                operations: vec!["write".into()],
                paths: vec!["/secret/public/**".into()],
                mode: Mode::Deny,
            },
            Permission {
                operations: vec!["write".into(), "read".into()],
                paths: vec!["/secret/**".into()],
                mode: Mode::Interrupt,
            },
        ])
    }

    #[test]
    fn one_file_fires_where_the_interrupt_rule_decides() {
        let r = rules();
        assert!(r.interrupt_fires("write_file", &json!({"file_path": "/secret/a.txt"})));
        assert!(!r.interrupt_fires("write_file", &json!({"file_path": "/open/a.txt"})));
        // A deny rule first refuses at the tool instead.
        assert!(!r.interrupt_fires("edit_file", &json!({"file_path": "/secret/public/a"})));
        assert!(!r.interrupt_fires("write_file", &json!({"file_path": 3})));
    }

    #[test]
    fn a_link_into_a_gated_subtree_is_gated() {
        let r = rules();
        let links = |p: &str| match p {
            "/link/a.txt" => Some("/secret/a.txt".to_owned()),
            "/to_public/a" => Some("/secret/public/a".to_owned()),
            "/link" => Some("/secret".to_owned()),
            "/loop" => None,
            other => Some(other.to_owned()),
        };
        let fires = |tool, args| r.interrupt_fires_resolved(tool, &args, Some(&links));
        assert!(fires("read_file", json!({"file_path": "/link/a.txt"})));
        assert!(!fires("read_file", json!({"file_path": "/open/a.txt"})));
        // The target is denied: refused at the tool, not sent to a human.
        assert!(!fires("write_file", json!({"file_path": "/to_public/a"})));
        assert!(fires("ls", json!({"path": "/link"})));
        assert!(!fires("read_file", json!({"file_path": "/loop"})));
        assert!(!fires("ls", json!({"path": "/loop"})));
        assert!(fires(
            "glob",
            json!({"path": "/loop", "pattern": "/secret/*"})
        ));
    }

    #[test]
    fn a_subtree_fires_when_it_can_reach_the_rule() {
        let r = rules();
        assert!(r.interrupt_fires("ls", &json!({})));
        assert!(r.interrupt_fires("ls", &json!({"path": "."})));
        assert!(r.interrupt_fires("grep", &json!({"path": "/"})));
        assert!(r.interrupt_fires("delete", &json!({"file_path": "/secret/x"})));
        assert!(!r.interrupt_fires("ls", &json!({"path": "/open"})));
        assert!(r.interrupt_fires("glob", &json!({"path": "/open", "pattern": "/secret/*.md"})));
        assert!(r.interrupt_fires("glob", &json!({"path": "/open", "pattern": "../x"})));
        assert!(!r.interrupt_fires("glob", &json!({"path": "/open", "pattern": "*.md"})));
        assert_eq!(
            r.interrupt_tools(),
            [
                "ls",
                "read_file",
                "write_file",
                "edit_file",
                "delete",
                "glob",
                "grep"
            ]
        );
    }
}
