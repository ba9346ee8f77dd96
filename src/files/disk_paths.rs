//! Where `FilesystemBackend`'s paths lead on disk, and the listing of a directory.
//!
//! deepagents resolves paths with Python's `Path.resolve()` (non-strict `realpath`: symlinks
//! followed as far as they exist, the missing rest kept, `..` applied after each link), so
//! this does the same walk, component by component, and reports failures as Python would
//! (a loop as `Symlink loop from ...`, OS errors with their path). Virtual mode confines
//! every path to the root.

use std::collections::HashMap;
use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

use super::disk;
use super::disk_file::answers_false;

/// Why a path could not be followed, in the two shapes Python reports.
#[derive(Debug)]
pub enum Unresolved {
    /// `Path.resolve()` ended on a symlink loop (Python's `RuntimeError`, raised while
    /// handling the `stat` error that found the loop).
    Loop(io::Error, PathBuf),
    /// An OS error on this path (Python's `OSError` naming it).
    Os(io::Error, PathBuf),
}

/// Why `resolve` gave no path.
#[derive(Debug)]
pub enum Refusal {
    /// A path virtual mode refuses (Python's `ValueError` with this text).
    Refused(String),
    /// In virtual mode, where the path resolves outside the root (`ValueError` naming both).
    Outside(PathBuf),
    Unresolved(Unresolved),
}

impl From<Unresolved> for Refusal {
    fn from(e: Unresolved) -> Self {
        Refusal::Unresolved(e)
    }
}

/// `Path.resolve()` of an absolute path, as Python 3.11 does it (non-strict).
pub fn resolve(path: &Path) -> Result<PathBuf, Unresolved> {
    let mut seen = HashMap::new();
    let (resolved, _) = follow(PathBuf::from("/"), path, &mut seen)?;
    // A path that could not be followed to its end is still examined: a loop is refused.
    match std::fs::metadata(&resolved) {
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => Err(Unresolved::Loop(e, resolved)),
        _ => Ok(resolved),
    }
}

/// `os.path.realpath` of an absolute path, as Python 3.11 does it (non-strict): every
/// symlink followed, the rest joined lexically where a loop stops the walk.
pub fn real_path(path: &Path) -> Result<PathBuf, Unresolved> {
    Ok(follow(PathBuf::from("/"), path, &mut HashMap::new())?.0)
}

/// `inner` (a path relative to some root) as the permission rules name it: `/` and its
/// POSIX text, `/` alone for the root itself.
pub fn rooted(inner: &Path) -> OsString {
    let mut shown = OsString::from("/");
    shown.push(inner);
    shown
}

/// `realpath`'s walk: `rest` taken component by component from `path`, each symlink replaced
/// by where it leads; `false` with the lexical rest joined on when a loop stops the walk.
fn follow(
    mut path: PathBuf,
    rest: &Path,
    seen: &mut HashMap<PathBuf, Option<PathBuf>>,
) -> Result<(PathBuf, bool), Unresolved> {
    let parts: Vec<Component<'_>> = rest.components().collect();
    for (i, part) in parts.iter().enumerate() {
        let name = match part {
            Component::RootDir => {
                path = PathBuf::from("/");
                continue;
            }
            Component::CurDir | Component::Prefix(_) => continue,
            Component::ParentDir => {
                path.pop();
                continue;
            }
            Component::Normal(name) => name,
        };
        let next = path.join(name);
        let is_link = std::fs::symlink_metadata(&next).is_ok_and(|m| m.file_type().is_symlink());
        if !is_link {
            path = next;
            continue;
        }
        match seen.get(&next) {
            Some(Some(known)) => {
                path = known.clone();
                continue;
            }
            Some(None) => return Ok((lexical_join(next, &parts[i + 1..]), false)),
            None => {}
        }
        seen.insert(next.clone(), None);
        let target = std::fs::read_link(&next).map_err(|e| Unresolved::Os(e, next.clone()))?;
        let (reached, complete) = follow(path, &target, seen)?;
        if !complete {
            return Ok((lexical_join(reached, &parts[i + 1..]), false));
        }
        seen.insert(next, Some(reached.clone()));
        path = reached;
    }
    Ok((path, true))
}

/// `normpath(join(base, *rest))`: the rest joined without looking at the disk.
fn lexical_join(mut base: PathBuf, rest: &[Component<'_>]) -> PathBuf {
    for part in rest {
        match part {
            Component::ParentDir => {
                base.pop();
            }
            Component::Normal(name) => base.push(name),
            Component::RootDir => base = PathBuf::from("/"),
            Component::CurDir | Component::Prefix(_) => {}
        }
    }
    base
}

/// `pathlib.PurePosixPath(text)`: `.` and empty components dropped, `..` kept, a leading `//`
/// (exactly two) kept as POSIX allows.
pub fn pure_path(text: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    let parts: Vec<&[u8]> = text
        .split(|b| *b == b'/')
        .filter(|p| !p.is_empty() && *p != b".")
        .collect();
    let lead: &[u8] = if text.starts_with(b"//") && !text.starts_with(b"///") {
        b"//"
    } else if text.starts_with(b"/") {
        b"/"
    } else {
        b""
    };
    if lead.is_empty() && parts.is_empty() {
        return PathBuf::from(".");
    }
    let mut joined = lead.to_vec();
    joined.extend_from_slice(&parts.join(&b'/'));
    PathBuf::from(std::ffi::OsStr::from_bytes(&joined))
}

/// A `FilesystemBackend`'s root and mode: what its paths mean.
pub struct DiskRoot {
    pub cwd: PathBuf,
    pub virtual_mode: bool,
}

impl DiskRoot {
    /// `_resolve_path`: the on-disk path for `key`. In virtual mode `..` anywhere in the key,
    /// or a path resolving outside the root, is refused; otherwise an absolute key is taken
    /// as written and a relative one resolved against the root. A symlink loop is refused.
    pub fn resolve(&self, key: &std::ffi::OsStr) -> Result<PathBuf, Refusal> {
        use std::os::unix::ffi::OsStrExt;
        let key = key.as_bytes();
        let target = if self.virtual_mode {
            if key.windows(2).any(|pair| pair == b"..") {
                return Err(Refusal::Refused("Path traversal not allowed".into()));
            }
            let inner = &key[key.iter().take_while(|b| **b == b'/').count()..];
            let target = resolve(&self.cwd.join(pure_path(inner)))?;
            if !target.starts_with(&self.cwd) {
                return Err(Refusal::Outside(target));
            }
            target
        } else {
            let given = pure_path(key);
            if given.is_absolute() {
                given
            } else {
                resolve(&self.cwd.join(given))?
            }
        };
        refuse_loop(&target)?;
        Ok(target)
    }

    /// `_to_virtual_path`: `path` resolved, as a path under the root (`/.` for the root);
    /// `Ok(None)` when it resolves outside the root.
    pub fn virtual_path(&self, path: &Path) -> Result<Option<OsString>, Unresolved> {
        let resolved = resolve(path)?;
        Ok(resolved.strip_prefix(&self.cwd).ok().map(|inner| {
            let mut shown = OsString::from("/");
            if inner.as_os_str().is_empty() {
                shown.push(".");
            } else {
                shown.push(inner);
            }
            shown
        }))
    }

    /// How a listing or a search shows `path`: `Ok(None)` when virtual mode leaves it out.
    pub fn shown(&self, path: &Path) -> Result<Option<OsString>, Unresolved> {
        if self.virtual_mode {
            self.virtual_path(path)
        } else {
            Ok(Some(path.as_os_str().to_owned()))
        }
    }
}

/// `refuse_symlink_loop`: the loop's OS error when `path` is a symlink that never reaches a
/// target; other failures are left to the existence checks that follow.
fn refuse_loop(path: &Path) -> Result<(), Unresolved> {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    match std::fs::metadata(path) {
        Err(e) if is_link && e.raw_os_error() == Some(libc::ELOOP) => {
            Err(Unresolved::Os(e, path.to_owned()))
        }
        _ => Ok(()),
    }
}

/// One entry of a directory listing.
pub struct Listed {
    /// As shown: a virtual path or the host path, a directory ending with `/`.
    pub path: OsString,
    pub is_dir: bool,
    /// Size (0 for a directory) and modification time, when they could be read.
    pub measured: Option<(u64, f64)>,
}

/// Why an entry of a listing was left out, reported beside the listing.
pub enum ListProblem {
    /// `stat` of the entry failed (`cannot stat`).
    Stat(PathBuf, io::Error),
    /// The entry could not be followed (`cannot resolve`).
    Resolve(PathBuf, Unresolved),
}

/// A directory's listing: its entries, the problems met, and the entries left out because
/// they resolve outside a virtual root.
#[derive(Default)]
pub struct Listing {
    pub entries: Vec<Listed>,
    pub problems: Vec<ListProblem>,
    pub outside: Vec<PathBuf>,
}

/// `ls` of an already resolved `dir`: regular files and directories (sockets, devices and
/// dangling links are not listed; a looping link is reported), sorted by shown path.
pub fn list(root: &DiskRoot, dir: &Path) -> io::Result<Listing> {
    let mut listing = Listing::default();
    for (name, stat) in disk::list_dir(dir)? {
        let child = dir.join(&name);
        let stat = match stat {
            Some(stat) => Some(stat),
            // Looked at again: what Python's `is_file()` raises is the reason reported.
            None => match std::fs::metadata(&child) {
                Ok(_) => disk::stat_of(&child),
                Err(e) if answers_false(&e) => None,
                Err(e) => {
                    listing.problems.push(ListProblem::Stat(child, e));
                    continue;
                }
            },
        };
        let Some(stat) = stat.filter(|s| s.is_file || s.is_dir) else {
            if let Err(e) = loop_check(&child) {
                listing.problems.push(ListProblem::Resolve(child, e));
            }
            continue;
        };
        let shown = match root.shown(&child) {
            Ok(Some(shown)) => shown,
            Ok(None) => {
                listing.outside.push(child);
                continue;
            }
            Err(e) => {
                listing.problems.push(ListProblem::Resolve(child, e));
                continue;
            }
        };
        let as_dir = stat.is_dir && !stat.is_file;
        let measured = match stat.modified {
            Some(mtime) => Some((stat.size, mtime)),
            None => disk::stat_of(&child).and_then(|s| Some((s.size, s.modified?))),
        };
        let mut path = shown;
        if as_dir {
            path.push("/");
        }
        listing.entries.push(Listed {
            path,
            is_dir: as_dir,
            measured: measured.map(|(size, mtime)| (if as_dir { 0 } else { size }, mtime)),
        });
    }
    listing.entries.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(listing)
}

/// A link that is neither file nor directory: followed, so a loop is reported.
fn loop_check(child: &Path) -> Result<(), Unresolved> {
    if std::fs::symlink_metadata(child).is_ok_and(|m| m.file_type().is_symlink()) {
        resolve(child)?;
        refuse_loop(child)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pure_paths_as_python() {
        assert_eq!(pure_path(b"a//b/./c/"), PathBuf::from("a/b/c"));
        assert_eq!(pure_path(b"//x"), PathBuf::from("//x"));
        assert_eq!(pure_path(b"///x"), PathBuf::from("/x"));
        assert_eq!(pure_path(b""), PathBuf::from("."));
        assert_eq!(pure_path(b"a/../b"), PathBuf::from("a/../b"));
    }

    #[test]
    fn resolves_missing_tails_and_loops() {
        let dir = std::env::temp_dir().join(format!("disk-paths-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("real")).unwrap();
        let _ = std::os::unix::fs::symlink(dir.join("real"), dir.join("link"));
        let _ = std::os::unix::fs::symlink(dir.join("cycle"), dir.join("cycle"));
        let dir = resolve(&dir).unwrap();
        assert_eq!(
            resolve(&dir.join("link/missing/../x")).unwrap(),
            dir.join("real/x")
        );
        assert!(matches!(
            resolve(&dir.join("cycle/x")),
            Err(Unresolved::Loop(..))
        ));
        let root = DiskRoot {
            cwd: dir.clone(),
            virtual_mode: true,
        };
        assert!(matches!(
            root.resolve("/a/../b".as_ref()),
            Err(Refusal::Refused(_))
        ));
        assert_eq!(
            root.resolve("/link/f".as_ref()).unwrap(),
            dir.join("real/f")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
