//! The rules of deepagents' `StoreBackend` that need no Python: which namespaces it accepts,
//! how it pages through a namespace, and which keys a delete removes. The plan that applies
//! them to a LangGraph store is `crate::python::store_plan`.

// deepagents 0.7.32, backends/store.py: `_validate_namespace` and
// `_convert_store_item_to_file_data` (the first two take the component's index).
pub const NAMESPACE_EMPTY: &str = "Namespace tuple must not be empty.";
pub const NAMESPACE_COMPONENT_EMPTY: &str =
    "Namespace component at index {index} must not be empty.";
pub const NAMESPACE_COMPONENT_NOT_TEXT: &str =
    "Namespace component at index {index} must be a string, got {kind}.";
pub const NAMESPACE_DISALLOWED_CHARACTERS: &str = "Namespace component at index {index} contains disallowed characters: {component}. Only alphanumeric characters, hyphens, underscores, dots, @, +, colons, and tildes are allowed.";
pub const ITEM_WITHOUT_CONTENT: &str = "Store item does not contain valid content field. Got: ";
pub const ITEM_CONTENT_KIND: &str =
    "Store item `content` must be a `str` or legacy `list[str]`, got {kind}.";

/// Items asked for per `search` call when a whole namespace is read.
pub const PAGE_SIZE: usize = 100;

/// Whether a namespace component is safe: ASCII letters and digits and `- _ . @ + : ~`, so
/// no wildcard or glob character can widen a store lookup. Like the `re.match(...$)` it
/// mirrors, one final newline is let through.
pub fn namespace_component_ok(component: &str) -> bool {
    let body = component.strip_suffix('\n').unwrap_or(component);
    !body.is_empty()
        && body
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.@+:~".contains(c))
}

/// Whether a recursive delete of `file_path` removes `key`: the path itself (a trailing `/`
/// ignored) and everything below it. Wildcards are plain characters.
pub fn deleted_by(key: &str, file_path: &str) -> bool {
    let base = file_path.trim_end_matches('/');
    key.strip_prefix(base)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// After a page of `got` items, whether another page is wanted: a short or empty page is
/// the last.
pub fn more_pages(got: usize, page_size: usize) -> bool {
    got > 0 && got >= page_size
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespace_components() {
        for ok in ["user-1", "a.b@c+d:e~f_g", "x\n", "Z9"] {
            assert!(namespace_component_ok(ok), "{ok:?}");
        }
        for bad in ["", "\n", "*", "a/b", "a b", "é", "a\n\n", "[x]"] {
            assert!(!namespace_component_ok(bad), "{bad:?}");
        }
    }

    #[test]
    fn deletes_cover_the_path_and_below() {
        assert!(deleted_by("/a", "/a"));
        assert!(deleted_by("/a/b.txt", "/a/"));
        assert!(deleted_by("/a/b.txt", "/a"));
        assert!(!deleted_by("/ab", "/a"));
        assert!(!deleted_by("/a", "/a/b"));
        assert!(!deleted_by("/a/x", "/a*"));
        // `rstrip("/")` of the root leaves nothing: every absolute key is below it.
        assert!(deleted_by("/x", "/"));
    }

    #[test]
    fn paging_stops_at_a_short_page() {
        assert!(more_pages(100, 100));
        assert!(!more_pages(99, 100));
        assert!(!more_pages(0, 100));
    }
}
