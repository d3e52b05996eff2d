//! `--pprof FILE` and `--callgrind FILE` of `report` and `count`: the run's profile written by
//! [`qip_memory::tools::export`] (docs/report.md, "pprof and callgrind"), as outputs of the
//! command's one all-or-none write ([`crate::out::files`]).

use std::path::{Path, PathBuf};

use qip_memory::tools::export::{Profile, callgrind, pprof};

/// The profile files a command was asked for.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ExportArgs {
    /// Also write the run's profile as pprof's profile.proto, gzip'd (go tool pprof): one
    /// sample per call path with its self instructions, loads, stores, bytes read and written,
    /// and calls.
    #[arg(long, value_name = "FILE")]
    pub pprof: Option<PathBuf>,
    /// Also write the run's profile in callgrind's format (callgrind_annotate, kcachegrind):
    /// self costs per function and source line, and each call site's inclusive costs.
    #[arg(long, value_name = "FILE")]
    pub callgrind: Option<PathBuf>,
}

impl ExportArgs {
    /// Whether any profile file was asked for (the run must then record its call tree).
    pub fn any(&self) -> bool {
        self.pprof.is_some() || self.callgrind.is_some()
    }

    /// The files asked for, with their bytes, for [`crate::out::files`].
    pub fn outputs(&self, profile: &Profile<'_>) -> Vec<(&Path, Vec<u8>)> {
        let mut out = Vec::new();
        if let Some(path) = &self.pprof {
            out.push((path.as_path(), pprof(profile)));
        }
        if let Some(path) = &self.callgrind {
            out.push((path.as_path(), callgrind(profile).into_bytes()));
        }
        out
    }
}
