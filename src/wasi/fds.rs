//! The guest's descriptor table: numbers to stdio, directories and open files.
//!
//! Numbering follows wasmtime's preview-1 host (`crates/wasi/src/p1.rs`, `Descriptors`):
//! 0, 1, 2 are stdin, stdout and stderr, the preopened directories follow from 3 in their
//! order, and a new descriptor takes the highest number closed so far, or else one more than
//! the highest in use. At most [`MAX_DESCRIPTORS`] are open at once.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use std::path::Path;

use super::abi::Errno;

/// The most descriptors a guest may hold open at once, stdio and preopens included: one more
/// is [`Errno::MFILE`].
pub const MAX_DESCRIPTORS: usize = 512;

/// A directory descriptor: a directory below (or at) a preopened directory, named by its path
/// components from there. Each use checks again that every component is still a directory
/// and not a symbolic link ([`super::path`]).
#[derive(Debug, Clone)]
pub(super) struct DirFd {
    /// The preopened directory's host path, canonical (absolute, no symbolic links).
    pub root: Rc<Path>,
    /// Components below `root`: none for the preopened directory itself.
    pub rel: Vec<String>,
    /// The guest's name for it when it was preopened (`fd_prestat_dir_name`).
    pub preopen: Option<String>,
}

/// An open file.
#[derive(Debug)]
pub(super) struct FileFd {
    pub file: std::fs::File,
    /// The offset `fd_read`, `fd_write`, `fd_seek` and `fd_tell` use, in bytes (kept here,
    /// not in the OS's file, as wasmtime does: `fd_pread` and `fd_pwrite` leave it alone).
    pub pos: u64,
    /// `fdflags::append`: every `fd_write` goes to the end.
    pub append: bool,
    /// `fdflags::nonblock`, reported back only (files never block).
    pub nonblock: bool,
    /// Opened for reading.
    pub read: bool,
    /// Opened for writing.
    pub write: bool,
}

/// What a descriptor number stands for.
#[derive(Debug)]
pub(super) enum Desc {
    Stdin,
    Stdout,
    Stderr,
    Dir(DirFd),
    File(FileFd),
}

/// The table.
#[derive(Debug, Default)]
pub(super) struct Fds {
    used: BTreeMap<u32, Desc>,
    free: BTreeSet<u32>,
}

impl Fds {
    /// The descriptor `fd`, or [`Errno::BADF`].
    pub fn get(&self, fd: u32) -> Result<&Desc, Errno> {
        self.used.get(&fd).ok_or(Errno::BADF)
    }

    /// The descriptor `fd`, writable, or [`Errno::BADF`].
    pub fn get_mut(&mut self, fd: u32) -> Result<&mut Desc, Errno> {
        self.used.get_mut(&fd).ok_or(Errno::BADF)
    }

    /// The directory `fd`, or [`Errno::BADF`] for anything else.
    pub fn dir(&self, fd: u32) -> Result<&DirFd, Errno> {
        match self.get(fd)? {
            Desc::Dir(d) => Ok(d),
            _ => Err(Errno::BADF),
        }
    }

    /// The open file `fd`, or [`Errno::BADF`] for anything else.
    pub fn file(&mut self, fd: u32) -> Result<&mut FileFd, Errno> {
        match self.get_mut(fd)? {
            Desc::File(f) => Ok(f),
            _ => Err(Errno::BADF),
        }
    }

    /// Whether one more descriptor fits.
    pub fn has_room(&self) -> bool {
        self.used.len() < MAX_DESCRIPTORS
    }

    /// Adds `desc` under the next number.
    ///
    /// # Errors
    /// [`Errno::MFILE`] when [`MAX_DESCRIPTORS`] are open.
    pub fn push(&mut self, desc: Desc) -> Result<u32, Errno> {
        if !self.has_room() {
            return Err(Errno::MFILE);
        }
        let fd = match self.free.pop_last() {
            Some(fd) => fd,
            None => match self.used.last_key_value() {
                Some((&last, _)) => last.checked_add(1).ok_or(Errno::MFILE)?,
                None => 0,
            },
        };
        self.used.insert(fd, desc);
        Ok(fd)
    }

    /// Removes `fd`, its number free for reuse.
    pub fn close(&mut self, fd: u32) -> Result<Desc, Errno> {
        let desc = self.used.remove(&fd).ok_or(Errno::BADF)?;
        self.free.insert(fd);
        Ok(desc)
    }

    /// `fd_renumber`: `from` takes the number `to`, closing what `to` was.
    pub fn renumber(&mut self, from: u32, to: u32) -> Result<(), Errno> {
        if !self.used.contains_key(&from) || !self.used.contains_key(&to) {
            return Err(Errno::BADF);
        }
        if from == to {
            return Ok(());
        }
        let desc = self.used.remove(&from).ok_or(Errno::BADF)?;
        self.free.insert(from);
        self.free.remove(&to);
        self.used.insert(to, desc);
        Ok(())
    }
}
