//! Host-instruction counts of a child process from Valgrind's cachegrind.
//!
//! Times on a shared 2-core machine vary by 10–30 % between runs; the number of host
//! instructions a run executes varies by a few thousand at most (from the allocator and the
//! environment), so a change to the interpreter's loop can be compared instruction by
//! instruction. `valgrind --tool=cachegrind --cache-sim=no` counts only
//! instructions executed (the `Ir` event) and writes its totals to an output file whose
//! `summary:` line holds them (the format is described in the Valgrind manual, "Cachegrind:
//! a high-precision tracing profiler", section "Cachegrind Output Files").

use std::path::Path;
use std::process::Command;

/// `valgrind`'s version line, or `None` when it cannot be run.
pub fn version() -> Option<String> {
    let out = Command::new("valgrind").arg("--version").output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The host instructions (`Ir`) that `exe args` executes under cachegrind, counted in the
/// process itself (children it spawns are not traced). `out` is a scratch file for
/// cachegrind's output, removed before and after. Errors: valgrind could not be started, the
/// child failed (its exit status and its stderr's last line), or the output file has no
/// `summary:` line.
pub fn instructions(exe: &Path, args: &[String], out: &Path) -> Result<u64, String> {
    // A file left by an earlier run must not be read as this run's.
    let _ = std::fs::remove_file(out);
    let output = Command::new("valgrind")
        .arg("--tool=cachegrind")
        .arg("--cache-sim=no")
        // Quiet: valgrind's own summary would otherwise be the last line of the child's
        // stderr, where a failing child's message belongs.
        .arg("-q")
        .arg(format!("--cachegrind-out-file={}", out.display()))
        .arg(exe)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run valgrind: {e}"))?;
    let text = std::fs::read_to_string(out);
    let _ = std::fs::remove_file(out);
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("no output");
        return Err(format!("{} {} failed ({}): {last}", exe.display(), args.join(" "), output.status));
    }
    let text = text.map_err(|e| format!("{}: {e}", out.display()))?;
    summary(&text).ok_or_else(|| format!("{}: no `summary:` line", out.display()))
}

/// The first event total of the `summary:` line of a cachegrind output file (`Ir` when it
/// was run with `--cache-sim=no`).
pub fn summary(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix("summary:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}
