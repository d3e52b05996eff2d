//! Every command of the README runs as written.
//!
//! The test reads each fenced `sh` block of `README.md`, joins lines continued with `\`, and
//! runs every command with `sh -c` in a scratch directory that sees the repository's `tests/`,
//! `application/` and `benches/` (so outputs such as `qr-report.html` land in the scratch
//! directory, not in the checkout), with the built `qip-memory` first on `PATH`. Each command
//! must succeed. When an `sh` block of one command is followed directly by a `text` block, that
//! block is what the command prints, stdout and stderr together in the order they are written
//! (as on a terminal); a `…` in it stands for text that changes from run to run, such as a time.
//!
//! The files the commands read are built by `make test` before `cargo test` starts (its
//! prerequisites `targets`, `components` and `as-fixtures`). Commands a test cannot or should
//! not run are in [`NOT_RUN`], each with the reason; a `qip run` pipeline is run as
//! `qip-memory run` with the same arguments, since QIP's Go CLI is not installed here and
//! `qip-memory run` takes `qip run`'s arguments.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Commands the test does not run, by their first words, with the reason.
const NOT_RUN: &[(&str, &str)] = &[
    ("make demo", "builds and runs with cargo itself; its commands are the README's, which this test runs"),
    ("make test", "is what runs this test"),
    ("cargo install", "installs into ~/.cargo/bin; the test puts the built binary on PATH instead"),
    ("make targets", "a prerequisite of `make test`, built before the tests run"),
    ("make jco-check", "installs jco from npm and runs its own cargo test; `.ci/run` runs it"),
];

/// Commands other than `qip-memory` that the README runs as written, by their first words: the
/// build of the bundled WASI program its "Profile your own program" section profiles (the
/// pinned toolchain, found from the program's directory, has the `wasm32-wasip1` target that
/// `make test` installs), the directory it writes into, and the profilers' own readers of
/// `--callgrind` and `--pprof` files (Debian's `valgrind` and `golang-go`, which `make test`
/// installs).
const OTHER_TOOLS: &[&str] =
    &["cd tests/programs/rust-wasi && cargo build ", "mkdir -p ", "callgrind_annotate ", "go tool pprof "];

/// Commands rewritten before they run: QIP's `qip run` becomes our host with the same
/// arguments.
const REWRITTEN: &[(&str, &str)] = &[("qip run ", "qip-memory run ")];

/// One command of an `sh` block: where it starts, its text (continuation lines joined), and
/// what the README shows it printing, if it does.
#[derive(Debug)]
struct Example {
    line: usize,
    command: String,
    output: Option<String>,
}

/// The `sh` blocks' commands, outside the "Find the leak" walkthrough, which
/// tests/heap_walkthrough.rs runs with its own checks, and the npm section, which tests/npm.rs
/// runs as one script from the packed tarball.
fn examples(readme: &str) -> Vec<Example> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut out = Vec::new();
    let mut walkthrough = false;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.starts_with("<!-- walkthrough:begin") || line.starts_with("<!-- npm:begin") {
            walkthrough = true;
        } else if line.starts_with("<!-- walkthrough:end") || line.starts_with("<!-- npm:end") {
            walkthrough = false;
        }
        if !line.starts_with("```") {
            i += 1;
            continue;
        }
        let lang = &line[3..];
        let start = i + 1;
        let end = start + lines[start..].iter().position(|l| l.starts_with("```")).expect("closed fence");
        i = end + 1;
        if lang != "sh" || walkthrough {
            continue;
        }
        let mut commands: Vec<Example> = Vec::new();
        let mut continued = false;
        for (n, text) in lines[start..end].iter().enumerate() {
            if continued {
                let last = commands.last_mut().unwrap();
                last.command.push('\n');
                last.command.push_str(text);
            } else if !text.trim().is_empty() && !text.trim_start().starts_with('#') {
                commands.push(Example { line: start + n + 1, command: text.to_string(), output: None });
            }
            continued = text.ends_with('\\');
        }
        // A `text` block right after a one-command block is its output.
        let next = i + lines[i..].iter().position(|l| !l.trim().is_empty()).unwrap_or(lines.len() - i);
        if next < lines.len() && lines[next] == "```text" {
            let body_end = next + 1 + lines[next + 1..].iter().position(|l| l.starts_with("```")).unwrap();
            assert_eq!(commands.len(), 1, "README.md:{}: an output block follows one command only", start);
            let body: String = lines[next + 1..body_end].iter().map(|l| format!("{l}\n")).collect();
            commands[0].output = Some(body);
        }
        out.extend(commands);
    }
    out
}

/// Whether `actual` is the output the README shows: the same lines, where each `…` of a README
/// line matches any text.
fn shows(readme: &str, actual: &str) -> bool {
    let (want, got): (Vec<&str>, Vec<&str>) = (readme.lines().collect(), actual.lines().collect());
    want.len() == got.len()
        && readme.ends_with('\n') == actual.ends_with('\n')
        && want.iter().zip(&got).all(|(w, g)| {
            let pieces: Vec<&str> = w.split('…').collect();
            let (first, last) = (pieces[0], pieces[pieces.len() - 1]);
            if pieces.len() == 1 {
                return w == g;
            }
            if !g.starts_with(first) || g.len() < first.len() + last.len() || !g.ends_with(last) {
                return false;
            }
            let mut rest = &g[first.len()..g.len() - last.len()];
            pieces[1..pieces.len() - 1].iter().all(|p| match rest.find(p) {
                Some(at) => {
                    rest = &rest[at + p.len()..];
                    true
                }
                None => false,
            })
        })
}

/// The reason a command is not run, if it is one of [`NOT_RUN`].
fn not_run(command: &str) -> Option<&'static str> {
    NOT_RUN.iter().find(|(prefix, _)| command.starts_with(prefix)).map(|(_, why)| *why)
}

/// A scratch directory that sees the repository's inputs.
fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qip-memory-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("cache")).unwrap();
    for input in ["tests", "application", "benches"] {
        std::os::unix::fs::symlink(root().join(input), dir.join(input)).unwrap();
    }
    dir
}

#[test]
fn every_readme_command_runs_as_written() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let examples = examples(&readme);
    assert!(examples.len() >= 10, "the README's sh blocks were found: {examples:?}");
    let dir = scratch();
    let bin = Path::new(env!("CARGO_BIN_EXE_qip-memory")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let mut used = vec![false; NOT_RUN.len()];
    let mut ran = Vec::new();
    for e in &examples {
        if let Some(k) = NOT_RUN.iter().position(|(prefix, _)| e.command.starts_with(prefix)) {
            used[k] = true;
            println!("README.md:{}: not run ({}): {}", e.line, NOT_RUN[k].1, e.command);
            continue;
        }
        let mut command = e.command.clone();
        for (from, to) in REWRITTEN {
            if let Some(rest) = command.strip_prefix(from) {
                command = format!("{to}{rest}");
            }
        }
        assert!(
            command.starts_with("qip-memory ") || OTHER_TOOLS.iter().any(|t| command.starts_with(t)),
            "README.md:{}: a command this test does not know; run it or list it in NOT_RUN: {}",
            e.line,
            e.command
        );
        // One pipe for both streams, so that they interleave as on a terminal.
        let o = Command::new("sh")
            .arg("-c")
            .arg(format!("exec 2>&1\n{command}"))
            .current_dir(&dir)
            .env("PATH", &path)
            .env("XDG_CACHE_HOME", dir.join("cache"))
            .output()
            .expect("sh runs");
        let printed = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "README.md:{}: {command}\nfailed with {}:\n{printed}", e.line, o.status);
        if let Some(want) = &e.output {
            assert!(
                shows(want, &printed),
                "README.md:{}: {command}\nprinted:\n{printed}\nbut the README shows:\n{want}",
                e.line
            );
        }
        println!("README.md:{}: ran: {command}", e.line);
        ran.push(command);
    }
    for (k, (prefix, _)) in NOT_RUN.iter().enumerate() {
        assert!(used[k], "NOT_RUN lists `{prefix}`, which the README no longer has");
    }
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(ran.iter().any(|c| c.starts_with("qip-memory run ")), "a pipeline ran");
}

#[test]
fn a_fresh_machine_starts_with_make_demo_and_make_test() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let first: Vec<&str> = readme.lines().take(20).collect();
    assert!(first.iter().any(|l| l.starts_with("make demo")), "{first:#?}");
    assert!(first.iter().any(|l| l.starts_with("make test")), "{first:#?}");
}

#[test]
fn the_parser_joins_continuations_and_pairs_outputs() {
    let md = "x\n```sh\nqip-memory a \\\n  b   # note\n# a comment\n```\n\n```text\nout\n```\n\
              ```sh\nmake test\nqip-memory c\n```\n";
    let e = examples(md);
    assert_eq!(e.len(), 3);
    assert_eq!(e[0].command, "qip-memory a \\\n  b   # note");
    assert_eq!(e[0].output.as_deref(), Some("out\n"));
    assert_eq!((e[1].command.as_str(), e[1].output.as_deref()), ("make test", None));
    assert!(not_run(&e[1].command).is_some() && not_run(&e[2].command).is_none());
    assert!(shows("load … ms, run … ms\nx\n", "load 0.2 ms, run 5.8 ms\nx\n"));
    assert!(!shows("load … ms\n", "load 0.2 s\n"));
    assert!(!shows("a\n", "a\nb\n"));
}
