//! The `PurePosixPath` arithmetic deepagents does on the paths a backend lists: a skill's
//! directory name, and its `SKILL.md` beside it.

/// deepagents' `to_posix_path`: backslashes read as separators.
pub fn posix(path: &str) -> String {
    path.replace('\\', "/")
}

/// `PurePosixPath(path).parts`: the root (`/`, or `//` kept as POSIX allows) then each
/// component, without empty ones and `.`.
pub fn components(path: &str) -> Vec<&str> {
    let root = if path.starts_with("//") && !path.starts_with("///") {
        Some("//")
    } else if path.starts_with('/') {
        Some("/")
    } else {
        None
    };
    root.into_iter()
        .chain(path.split('/').filter(|p| !p.is_empty() && *p != "."))
        .collect()
}

/// `str(PurePosixPath(path))`.
fn normalized(path: &str) -> String {
    let parts = components(path);
    match parts.first().copied() {
        None => ".".into(),
        Some(root @ ("/" | "//")) => format!("{root}{}", parts[1..].join("/")),
        Some(_) => parts.join("/"),
    }
}

/// `PurePosixPath(to_posix_path(dir)).name`: the last component, `""` for a root.
pub fn dir_name(dir: &str) -> String {
    let posix = posix(dir);
    components(&posix)
        .last()
        .filter(|p| !p.starts_with('/'))
        .map_or_else(String::new, |p| (*p).to_owned())
}

/// `str(PurePosixPath(to_posix_path(dir)) / "SKILL.md")`.
pub fn skill_md(dir: &str) -> String {
    let dir = normalized(&posix(dir));
    match dir.as_str() {
        "." => "SKILL.md".into(),
        d if d.ends_with('/') => format!("{d}SKILL.md"),
        d => format!("{d}/SKILL.md"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_and_names_as_pure_posix_path() {
        assert_eq!(skill_md("/skills/web/"), "/skills/web/SKILL.md");
        assert_eq!(skill_md("/skills//./web"), "/skills/web/SKILL.md");
        assert_eq!(skill_md("C:\\s\\web"), "C:/s/web/SKILL.md");
        assert_eq!(skill_md("/"), "/SKILL.md");
        assert_eq!(skill_md("rel"), "rel/SKILL.md");
        assert_eq!(dir_name("/skills/web/"), "web");
        assert_eq!(dir_name("/"), "");
        assert_eq!(components("//a/b"), vec!["//", "a", "b"]);
    }
}
