//! Virtual paths as deepagents' file tools accept them (`validate_path` in
//! `deepagents/backends/utils.py`): every tool argument goes through here before a backend
//! sees it, so the texts of the errors are deepagents' own.

use crate::tools::invocation_error::str_repr;

/// Why a path was refused; the `Display` text is deepagents' `ValueError` message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    #[error("Path traversal not allowed: {0}")]
    Traversal(String),
    #[error(
        "Windows absolute paths are not supported: {0}. Please use virtual paths starting with / (e.g., /workspace/file.txt)"
    )]
    Windows(String),
    #[error("Path traversal detected after normalization: {0} -> {1}")]
    TraversalAfterNormalization(String, String),
    #[error("Path must start with one of {0}: {1}")]
    Prefix(String, String),
    /// Not in deepagents, which passes NUL bytes to the backend (a disk backend then
    /// raises, with host paths in the message): refused here before any backend sees it.
    #[error("Path must not contain NUL bytes: {0}")]
    Nul(String),
}

/// deepagents' `validate_path` for a tool argument: `virtual_path`, and also refuses NUL
/// bytes and UNC paths, which deepagents lets through to the backend.
pub fn validate_path(path: &str, allowed_prefixes: Option<&[String]>) -> Result<String, PathError> {
    // Traversal is named before the other refusals, as deepagents names it first.
    if is_traversal(path) {
        return Err(PathError::Traversal(path.to_owned()));
    }
    if path.contains('\0') {
        return Err(PathError::Nul(path.replace('\0', "\\x00")));
    }
    // A UNC path (`\\server\share`) is refused like a drive letter; deepagents lets it
    // through as a path under the root.
    if path.starts_with("\\\\") {
        return Err(PathError::Windows(path.to_owned()));
    }
    virtual_path(path, allowed_prefixes)
}

/// deepagents' `validate_path` exactly (its public helper): refuses traversal, `~` and drive
/// letters, then normalizes as `os.path.normpath` does and anchors the result at `/`.
pub fn virtual_path(path: &str, allowed_prefixes: Option<&[String]>) -> Result<String, PathError> {
    if is_traversal(path) {
        return Err(PathError::Traversal(path.to_owned()));
    }
    let b = path.as_bytes();
    if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
        return Err(PathError::Windows(path.to_owned()));
    }
    let mut normalized = normpath(path).replace('\\', "/");
    if !normalized.starts_with('/') {
        normalized.insert(0, '/');
    }
    if normalized.split('/').any(|s| s == "..") {
        return Err(PathError::TraversalAfterNormalization(
            path.to_owned(),
            normalized,
        ));
    }
    if let Some(prefixes) = allowed_prefixes
        && !prefixes.iter().any(|p| normalized.starts_with(p.as_str()))
    {
        return Err(PathError::Prefix(py_list_repr(prefixes), path.to_owned()));
    }
    Ok(normalized)
}

/// A `..` component (either separator) or a leading `~`.
fn is_traversal(path: &str) -> bool {
    path.split(['/', '\\']).any(|s| s == "..") || path.starts_with('~')
}

/// `posixpath.normpath`: collapses separators and `.`, resolves `..` lexically, keeps
/// exactly two leading slashes (POSIX leaves their meaning to the system), and gives `.`
/// for an empty result.
pub fn normpath(path: &str) -> String {
    if path.is_empty() {
        return ".".to_owned();
    }
    let leading = path.bytes().take_while(|&c| c == b'/').count();
    let initial = match leading {
        0 => "",
        2 => "//",
        _ => "/",
    };
    let mut comps: Vec<&str> = Vec::new();
    for comp in path.split('/') {
        if comp.is_empty() || comp == "." {
            continue;
        }
        if comp != ".." || (initial.is_empty() && comps.is_empty()) || comps.last() == Some(&"..") {
            comps.push(comp);
        } else if !comps.is_empty() {
            comps.pop();
        }
    }
    let joined = format!("{initial}{}", comps.join("/"));
    if joined.is_empty() {
        ".".to_owned()
    } else {
        joined
    }
}

/// Python's `str(list_of_str)`.
pub fn py_list_repr<S: AsRef<str>>(items: &[S]) -> String {
    let mut out = String::from("[");
    for (i, s) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&str_repr(s.as_ref()));
    }
    out.push(']');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_as_deepagents() {
        assert_eq!(validate_path("a.txt", None).unwrap(), "/a.txt");
        assert_eq!(validate_path("/src/", None).unwrap(), "/src");
        assert_eq!(validate_path("", None).unwrap(), "/.");
        assert_eq!(validate_path("/a/./b//c", None).unwrap(), "/a/b/c");
        assert_eq!(validate_path("//a", None).unwrap(), "//a");
    }

    #[test]
    fn refuses_escapes() {
        for p in ["../x", "/a/../../x", "a\\..\\b", "~/x"] {
            assert!(
                matches!(validate_path(p, None), Err(PathError::Traversal(_))),
                "{p}"
            );
        }
        assert!(matches!(
            validate_path("C:\\x", None),
            Err(PathError::Windows(_))
        ));
        assert_eq!(
            validate_path("/a", Some(&["/b/".to_owned()]))
                .unwrap_err()
                .to_string(),
            "Path must start with one of ['/b/']: /a"
        );
    }

    #[test]
    fn reprs_as_python() {
        assert_eq!(py_list_repr(&["/a.txt", "/src/"]), "['/a.txt', '/src/']");
        assert_eq!(py_list_repr(&["it's", "a\u{a0}b"]), "[\"it's\", 'a\\xa0b']");
    }
}
