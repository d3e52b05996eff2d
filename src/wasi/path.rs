//! Guest path resolution, our own and confined: a guest path names an entry below the
//! directory descriptor it is given with, and nothing else.
//!
//! The path is walked one component at a time from the descriptor's directory, every
//! intermediate component looked up with `symlink_metadata` (never followed by the OS):
//!
//! * `.` and empty components (from `//`) stay; a trailing `/` means the last component must
//!   be a directory, and is followed if it is a symbolic link;
//! * `..` goes back one component, and going back from the descriptor's own directory is
//!   [`Errno::PERM`];
//! * an absolute path (or a symbolic link whose target is absolute) is [`Errno::PERM`];
//! * a symbolic link is read with `read_link` and its target's components take its place,
//!   resolved by these same rules (so a relative target that climbs out is refused at its
//!   `..`); more than [`MAX_SYMLINK_HOPS`] links in one resolution is [`Errno::LOOP`];
//! * the last component is followed only when the call asks (`lookupflags::symlink_follow`,
//!   or always for the calls that have no such flag and act on a directory);
//! * an intermediate component that is not a directory is [`Errno::NOTDIR`], one that does
//!   not exist [`Errno::NOENT`].
//!
//! The errors are those of wasmtime's preview-1 host, whose `cap-std`-derived resolver
//! (`crates/wasi/src/filesystem/primitives/manually/open.rs`) answers an escape with a
//! permission error that reaches the guest as `EPERM`, and counts at most 40 links
//! (`MAX_SYMLINK_EXPANSIONS`, Linux's `MAXSYMLINKS`). The OS only ever sees the resolved host
//! path: directories that were checked not to be links, then one last component. What this
//! cannot prevent is another process on the host swapping a checked directory for a link
//! between the check and the use (docs/wasi.md, "Sandbox").

use alloc::string::String;
use alloc::vec::Vec;
use std::fs;
use std::path::{Path, PathBuf};

use super::abi::Errno;
use super::errno::from_io;
use super::fds::DirFd;

/// The most symbolic links one resolution follows (Linux's `MAXSYMLINKS`, wasmtime's
/// `MAX_SYMLINK_EXPANSIONS`): the 41st is [`Errno::LOOP`].
pub const MAX_SYMLINK_HOPS: u32 = 40;

/// A resolved path.
#[derive(Debug)]
pub(super) struct Resolved {
    /// Its components below the descriptor's preopened directory.
    pub comps: Vec<String>,
    /// Its host path.
    pub host: PathBuf,
    /// The entry's own metadata (a symbolic link's, when it was not followed); `None` when
    /// the last component does not exist.
    pub meta: Option<fs::Metadata>,
}

/// The directory a path's last component is in, and that component.
#[derive(Debug)]
pub(super) struct Parent {
    /// The directory's host path.
    pub host: PathBuf,
    /// The last component: `None` when the path ends in `.` or `..` (it names the directory
    /// itself, or one above it).
    pub name: Option<String>,
    /// The path ended with `/`.
    pub trailing_slash: bool,
}

impl Parent {
    /// The host path of the last component (of the directory itself when it has none).
    pub fn entry(&self) -> PathBuf {
        match &self.name {
            Some(n) => self.host.join(n),
            None => self.host.clone(),
        }
    }
}

/// `root` joined with `comps`.
fn host_of(root: &Path, comps: &[String]) -> PathBuf {
    let mut p = root.to_path_buf();
    p.extend(comps);
    p
}

/// Checks that the descriptor's directory is still where it was: every component below the
/// preopen a directory and not a symbolic link. Returns its host path.
///
/// # Errors
/// [`Errno::NOENT`] when a component is gone, [`Errno::NOTDIR`] when one is no longer a
/// directory (replaced by a file or a link).
pub(super) fn verify(dir: &DirFd) -> Result<PathBuf, Errno> {
    let mut p = dir.root.to_path_buf();
    for c in &dir.rel {
        p.push(c);
        let m = fs::symlink_metadata(&p).map_err(|e| from_io(&e))?;
        if !m.is_dir() || m.file_type().is_symlink() {
            return Err(Errno::NOTDIR);
        }
    }
    Ok(p)
}

/// Whether a path or link target names something from the root.
fn is_absolute(s: &str) -> bool {
    s.starts_with('/') || Path::new(s).has_root() || Path::new(s).is_absolute()
}

/// The checks every guest path gets before its components are walked.
fn check(path: &str) -> Result<(), Errno> {
    if path.is_empty() {
        return Err(Errno::NOENT);
    }
    if path.contains('\0') {
        return Err(Errno::INVAL);
    }
    if is_absolute(path) {
        return Err(Errno::PERM);
    }
    Ok(())
}

/// Pushes `path`'s components onto `todo`, a stack whose top is the next component: a
/// trailing `/` becomes a last `.`, so the component before it is resolved as a directory.
fn push_components(todo: &mut Vec<String>, path: &str) {
    if path.ends_with('/') {
        todo.push(String::from("."));
    }
    for c in path.split('/').filter(|c| !c.is_empty()).rev() {
        todo.push(String::from(c));
    }
}

/// A component the host's paths could read as more than one (Windows separators and drive
/// letters); none on Unix and WASI.
fn bad_component(c: &str) -> bool {
    cfg!(windows) && c.contains(['\\', ':'])
}

/// Resolves `path` relative to `dir`, following a symbolic link in the last component when
/// `follow`. The last component may not exist ([`Resolved::meta`] is `None`); every other
/// must.
///
/// # Errors
/// As the module doc says, and the OS's error for a lookup that fails otherwise.
pub(super) fn resolve(dir: &DirFd, path: &str, follow: bool) -> Result<Resolved, Errno> {
    check(path)?;
    verify(dir)?;
    let floor = dir.rel.len();
    let mut comps = dir.rel.clone();
    let mut todo = Vec::new();
    push_components(&mut todo, path);
    let mut hops = 0;
    while let Some(c) = todo.pop() {
        let last = todo.is_empty();
        match c.as_str() {
            "." => {}
            ".." => {
                if comps.len() == floor {
                    return Err(Errno::PERM);
                }
                comps.pop();
            }
            _ => {
                if bad_component(&c) {
                    return Err(Errno::INVAL);
                }
                let host = host_of(&dir.root, &comps).join(&c);
                let meta = match fs::symlink_metadata(&host) {
                    Ok(m) => m,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound && last => {
                        comps.push(c);
                        return Ok(Resolved { comps, host, meta: None });
                    }
                    Err(e) => return Err(from_io(&e)),
                };
                if meta.file_type().is_symlink() {
                    if last && !follow {
                        comps.push(c);
                        return Ok(Resolved { comps, host, meta: Some(meta) });
                    }
                    hops += 1;
                    if hops > MAX_SYMLINK_HOPS {
                        return Err(Errno::LOOP);
                    }
                    let target = fs::read_link(&host).map_err(|e| from_io(&e))?;
                    let target = target.to_str().ok_or(Errno::ILSEQ)?;
                    if target.is_empty() {
                        return Err(Errno::NOENT);
                    }
                    if is_absolute(target) {
                        return Err(Errno::PERM);
                    }
                    push_components(&mut todo, target);
                } else if meta.is_dir() {
                    comps.push(c);
                } else if last {
                    comps.push(c);
                    return Ok(Resolved { comps, host, meta: Some(meta) });
                } else {
                    return Err(Errno::NOTDIR);
                }
            }
        }
    }
    // The path ended at a directory (a name, `.` or `..`).
    let host = host_of(&dir.root, &comps);
    let meta = fs::symlink_metadata(&host).map_err(|e| from_io(&e))?;
    Ok(Resolved { comps, host, meta: Some(meta) })
}

/// Resolves all of `path` but its last component (following links), for the calls that act
/// on a directory entry itself: create, remove, rename, link.
///
/// # Errors
/// As [`resolve`]; [`Errno::NOENT`] or [`Errno::NOTDIR`] when the directory part is not a
/// directory.
pub(super) fn resolve_parent(dir: &DirFd, path: &str) -> Result<Parent, Errno> {
    check(path)?;
    let stripped = path.trim_end_matches('/');
    let trailing_slash = stripped.len() != path.len();
    let (dirname, base) = match stripped.rfind('/') {
        Some(i) => (&stripped[..=i], &stripped[i + 1..]),
        None => ("", stripped),
    };
    if bad_component(base) {
        return Err(Errno::INVAL);
    }
    let (resolved, name) = match base {
        "." | ".." => (resolve(dir, stripped, true)?, None),
        _ if dirname.is_empty() => (resolve(dir, ".", true)?, Some(String::from(base))),
        _ => (resolve(dir, dirname, true)?, Some(String::from(base))),
    };
    match &resolved.meta {
        Some(m) if m.is_dir() => {}
        Some(_) => return Err(Errno::NOTDIR),
        None => return Err(Errno::NOENT),
    }
    Ok(Parent { host: resolved.host, name, trailing_slash })
}
