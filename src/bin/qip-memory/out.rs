//! Where the CLI's output goes, so that no output is half written and no closed stream panics:
//!
//! * [`stdout`]: all bytes or a one-line failure; a reader that closed the pipe (`| head`)
//!   ends the program quietly with status 0, as ripgrep does;
//! * [`stderr`]: statistics and messages, best effort (a failing stderr has nowhere to be
//!   reported);
//! * [`files`]: every output file of one command or none: each is written to a temporary file
//!   beside it and renamed over its path only when all were written. Paths that exist and are
//!   not regular files (`/dev/null`, `/dev/stdout`, a FIFO, a symbolic link) are written in
//!   place after the others, so that a rename never replaces a device or a link;
//! * [`stream`]: one output file by the same rules, written as it is produced (a heap
//!   snapshot larger than memory should hold twice).

use std::io::{ErrorKind, Write as _};
use std::path::{Path, PathBuf};

use crate::Failure;

/// Writes `bytes` to stdout and flushes.
///
/// # Errors
/// `writing to stdout: <reason>`; a broken pipe exits the process with status 0 instead.
pub fn stdout(bytes: &[u8]) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => Err(Failure::new(format!("writing to stdout: {}", crate::io_message(&e)))),
    }
}

/// Writes `text` to stderr, ignoring failures (unlike `eprintln!`, which panics on them).
pub fn stderr(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// The temporary file [`files`] writes before renaming it over `path`: `.NAME.qip-memory-tmp`
/// in the same directory (so the rename stays on one file system; no process id in the name,
/// which WASI does not have).
fn temporary(path: &Path) -> Result<PathBuf, Failure> {
    let name = path
        .file_name()
        .ok_or_else(|| Failure::new(format!("cannot write {:?}: not a file name", path.display())))?;
    let mut tmp = std::ffi::OsString::from(".");
    tmp.push(name);
    tmp.push(".qip-memory-tmp");
    Ok(path.with_file_name(tmp))
}

/// Whether `path` exists and is not a regular file (a device, a FIFO, a symbolic link): such a
/// path is written in place, never renamed over.
fn in_place(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| !m.file_type().is_file())
}

/// Writes one output file as `write` produces it, by the rules of [`files`]: through a
/// temporary file beside `path`, renamed over it once `write` and the flush succeeded (and
/// removed when either failed), or in place when `path` is not a regular file.
///
/// # Errors
/// `cannot write PATH: <reason>` when the file cannot be created, written, flushed or renamed
/// (`write` reports its writer's errors as it sees fit), or the failure `write` returns.
pub fn stream(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> Result<(), Failure>,
) -> Result<(), Failure> {
    let fail = |e: std::io::Error| {
        Failure::new(format!("cannot write {}: {}", path.display(), crate::io_message(&e)))
    };
    let into = |target: &Path, write: &mut dyn FnMut(&mut dyn std::io::Write) -> Result<(), Failure>| {
        let mut w = std::io::BufWriter::new(std::fs::File::create(target).map_err(fail)?);
        write(&mut w)?;
        w.flush().map_err(fail)
    };
    let mut write = Some(write);
    let mut once = |w: &mut dyn std::io::Write| match write.take() {
        Some(f) => f(w),
        None => Ok(()),
    };
    if in_place(path) {
        return into(path, &mut once);
    }
    let tmp = temporary(path)?;
    let done = into(&tmp, &mut once).and_then(|()| std::fs::rename(&tmp, path).map_err(fail));
    if done.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    done
}

/// The file `path` names, with its symbolic links and `.`/`..` resolved: its canonical path
/// when it exists, else (a file about to be created, possibly through a dangling link) its
/// directory's canonical path and its name, else the path made absolute. Where the system has
/// no canonical paths (WASI) links are still followed, but `..` stays as written.
fn resolved(path: &Path) -> PathBuf {
    let mut path = path.to_path_buf();
    // Dangling links followed by hand, at most as many as Linux follows (40).
    for _ in 0..40 {
        if let Ok(p) = std::fs::canonicalize(&path) {
            return p;
        }
        let parent =
            path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf();
        match std::fs::read_link(&path) {
            Ok(target) => path = parent.join(target),
            Err(_) => {
                return match (std::fs::canonicalize(&parent), path.file_name()) {
                    (Ok(dir), Some(name)) => dir.join(name),
                    _ => std::path::absolute(&path).unwrap_or(path),
                };
            }
        }
    }
    std::path::absolute(&path).unwrap_or(path)
}

/// Whether `a` and `b` name the same file, through links and relative paths ([`resolved`]).
pub fn same_file(a: &Path, b: &Path) -> bool {
    resolved(a) == resolved(b)
}

/// Whether `a` and `b` are one file that two outputs would overwrite in turn: the same file
/// ([`same_file`]) and not a device or FIFO (`/dev/null`, or `/dev/stdout` and `/dev/stderr`
/// on one terminal, take any number of writes).
fn same_output(a: &Path, b: &Path) -> bool {
    same_file(a, b) && std::fs::metadata(a).map_or(true, |m| m.is_file())
}

/// Writes each `(path, bytes)`, all or none: into temporary files beside the paths first, then
/// renamed over them. Two outputs that name the same file are refused before anything is
/// written.
///
/// # Errors
/// `cannot write PATH: <reason>` for the first output that fails (no output file is created
/// or changed then, except when a rename fails after earlier ones succeeded, which the file
/// system reports only in rare cases); `PATH is named as two outputs` when two outputs are one
/// file ([`same_output`]).
pub fn files(outputs: &[(&Path, &[u8])]) -> Result<(), Failure> {
    for (i, (a, _)) in outputs.iter().enumerate() {
        if outputs[..i].iter().any(|(b, _)| same_output(a, b)) {
            return Err(Failure::new(format!("{} is named as two outputs", a.display())));
        }
    }
    let fail = |path: &Path, e: std::io::Error| {
        Failure::new(format!("cannot write {}: {}", path.display(), crate::io_message(&e)))
    };
    let mut written: Vec<(PathBuf, &Path)> = Vec::with_capacity(outputs.len());
    let cleanup = |written: &[(PathBuf, &Path)]| {
        for (tmp, _) in written {
            let _ = std::fs::remove_file(tmp);
        }
    };
    for (path, bytes) in outputs.iter().filter(|(p, _)| !in_place(p)) {
        let tmp = match temporary(path) {
            Ok(tmp) => tmp,
            Err(f) => {
                cleanup(&written);
                return Err(f);
            }
        };
        if let Err(e) = std::fs::write(&tmp, bytes) {
            let _ = std::fs::remove_file(&tmp);
            cleanup(&written);
            return Err(fail(path, e));
        }
        written.push((tmp, path));
    }
    for (i, (tmp, path)) in written.iter().enumerate() {
        if let Err(e) = std::fs::rename(tmp, path) {
            cleanup(&written[i..]);
            return Err(fail(path, e));
        }
    }
    for (path, bytes) in outputs.iter().filter(|(p, _)| in_place(p)) {
        std::fs::write(path, bytes).map_err(|e| fail(path, e))?;
    }
    Ok(())
}
