//! The real WASI preview 1 programs (`tests/programs/`, built by `make programs`) under the
//! reference runner, wasmtime (`common::wasmtime_wasi`): for each program and several
//! invocations (a normal run, stdin as input, the exit-code paths, a missing input), the exact
//! stdout, stderr, exit code and the exact files left in the preopened directories.
//!
//! Expected values are not captured from the programs: each is computed here by a separate,
//! plain implementation of the program's documented contract (tests/programs/README.md), and
//! the fixture's headline numbers are also pinned as literals counted with coreutils (`tr`,
//! `sort`, `uniq -c`, `awk`; the commands are in the comments).
//!
//! These invocations are the ground truth that the comparisons of our WASI host with wasmtime
//! reuse. `make test` builds the programs first; a missing one is built here with `make`.

mod common;

use std::cmp::Reverse;
use std::collections::BTreeMap;

use common::programs::{C, C_TAIL, RUST, TempDir, ZIG, file_map, fixture, program};
use common::wasmtime_wasi::{Reference, run_in_wasmtime};

/// `--iterations` for a `wordfreq` run of 100 to 200 million Wasm instructions on the fixture
/// (wasmtime fuel), for benchmarks; checked by `wordfreq_bench_iterations_run_100_to_200_million`.
const BENCH_ITERATIONS: u64 = 320;

// ------------------------------------------------------------------ helpers

/// Asserts the whole outcome, showing stdout and stderr as text on a mismatch.
#[track_caller]
fn assert_run(got: &Reference, exit_code: i32, stdout: &str, stderr: &str) {
    assert_eq!(got.trap, None, "the run trapped; stderr:\n{}", String::from_utf8_lossy(&got.stderr));
    assert_eq!(got.stdout_text(), stdout, "stdout");
    assert_eq!(got.stderr_text(), stderr, "stderr");
    assert_eq!(got.exit_code, exit_code, "exit code");
}

// ------------------------------------------------------------------ wordfreq (Rust)

/// The ranking `wordfreq` must write, computed apart from it: words are maximal runs of ASCII
/// letters and digits, lower-cased; counted in a `BTreeMap`, then sorted by count descending
/// and word ascending.
fn word_ranking(text: &[u8]) -> Vec<(u64, String)> {
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    let mut word = String::new();
    for &b in text.iter().chain(b" ") {
        if b.is_ascii_alphanumeric() {
            word.push(b.to_ascii_lowercase() as char);
        } else if !word.is_empty() {
            *counts.entry(std::mem::take(&mut word)).or_default() += 1;
        }
    }
    let mut ranking: Vec<(u64, String)> = counts.into_iter().map(|(w, c)| (c, w)).collect();
    ranking.sort_by(|a, b| (Reverse(a.0), &a.1).cmp(&(Reverse(b.0), &b.1)));
    ranking
}

fn ranking_file(ranking: &[(u64, String)]) -> Vec<u8> {
    ranking.iter().map(|(c, w)| format!("{c}\t{w}\n")).collect::<String>().into_bytes()
}

/// `wordfreq`'s stdout for a run that wrote its ranking.
fn wordfreq_stdout(input: &str, ranking: &[(u64, String)], top: usize, dir: &str, names: &[&str]) -> String {
    let total: u64 = ranking.iter().map(|(c, _)| c).sum();
    let mut s = format!("input: {input}\nwords: {total}\ndistinct: {}\ntop {top}:\n", ranking.len());
    for (c, w) in ranking.iter().take(top) {
        s += &format!("{c:>7} {w}\n");
    }
    s += &format!("directory {dir}:\n");
    for n in names {
        s += &format!("  {n}\n");
    }
    s + "clock: ok\nrandom: ok\n"
}

#[test]
fn word_ranking_of_the_fixture_matches_coreutils() {
    // tr -cs 'A-Za-z0-9' '\n' < harbour.txt | grep -v '^$' | tr A-Z a-z | sort | uniq -c
    //   | LC_ALL=C sort -k1,1nr -k2,2
    // gives 240 words, 102 distinct, led by 38 the, 10 and, 9 keeper, 7 ledger, 6 a, 6 in.
    let ranking = word_ranking(&fixture());
    assert_eq!(ranking.iter().map(|(c, _)| c).sum::<u64>(), 240);
    assert_eq!(ranking.len(), 102);
    let head: Vec<(u64, &str)> = ranking[..6].iter().map(|(c, w)| (*c, w.as_str())).collect();
    assert_eq!(head, [(38, "the"), (10, "and"), (9, "keeper"), (7, "ledger"), (6, "a"), (6, "in")]);
}

#[test]
fn wordfreq_counts_a_file_in_a_preopen() {
    let text = fixture();
    let dir = TempDir::with("wordfreq", &[("harbour.txt", &text)]);
    let got = run_in_wasmtime(&program(RUST), &["harbour.txt", "ranking.txt"], &[], &[(&dir.0, ".")], b"");
    let ranking = word_ranking(&text);
    assert_run(
        &got,
        0,
        &wordfreq_stdout("harbour.txt", &ranking, 10, ".", &["harbour.txt", "ranking.txt"]),
        "wordfreq: read 1217 bytes from harbour.txt\nwordfreq: 1 iterations\n",
    );
    assert_eq!(dir.files(), file_map(&[("harbour.txt", &text), ("ranking.txt", &ranking_file(&ranking))]));
}

/// Two preopens, the output in the second by its absolute guest path; `WORDFREQ_TOP`,
/// `--iterations` and `--exit` together. The exit comes after everything was written.
#[test]
fn wordfreq_iterations_top_and_exit_code_across_two_preopens() {
    let text = fixture();
    let input = TempDir::with("wordfreq-in", &[("harbour.txt", &text)]);
    let output = TempDir::with("wordfreq-out", &[("old.txt", b"kept")]);
    let got = run_in_wasmtime(
        &program(RUST),
        &["--iterations", "4", "harbour.txt", "/out/ranking.txt", "--exit", "7"],
        &[("WORDFREQ_TOP", "3")],
        &[(&input.0, "."), (&output.0, "/out")],
        b"",
    );
    let ranking = word_ranking(&text);
    assert_run(
        &got,
        7,
        &wordfreq_stdout("harbour.txt", &ranking, 3, "/out", &["old.txt", "ranking.txt"]),
        "wordfreq: read 1217 bytes from harbour.txt\nwordfreq: 4 iterations\n\
         wordfreq: exiting with 7 as asked\n",
    );
    assert_eq!(input.files(), file_map(&[("harbour.txt", &text)]));
    assert_eq!(output.files(), file_map(&[("old.txt", b"kept"), ("ranking.txt", &ranking_file(&ranking))]));
}

#[test]
fn wordfreq_reads_stdin() {
    let text = b"To be, or not to be: that is the question.\nTO BE 2 or 2B\n";
    // to 3, be 3, or 2, then once each 2, 2b, is, not, question, that, the: 15 words, 10
    // distinct.
    let dir = TempDir::new("wordfreq-stdin");
    let got =
        run_in_wasmtime(&program(RUST), &["-", "out.txt"], &[("WORDFREQ_TOP", "0")], &[(&dir.0, ".")], text);
    let ranking = word_ranking(text);
    assert_eq!(ranking.iter().map(|(c, _)| c).sum::<u64>(), 15);
    assert_eq!(ranking.len(), 10);
    assert_eq!(&ranking[..4], &[(3, "be".into()), (3, "to".into()), (2, "or".into()), (1, "2".into())]);
    assert_run(
        &got,
        0,
        &wordfreq_stdout("-", &ranking, 0, ".", &["out.txt"]),
        "wordfreq: read 57 bytes from -\nwordfreq: 1 iterations\n",
    );
    assert_eq!(dir.files(), file_map(&[("out.txt", &ranking_file(&ranking))]));
}

#[test]
fn wordfreq_exits_3_without_words_and_writes_nothing() {
    let dir = TempDir::new("wordfreq-empty");
    let got = run_in_wasmtime(&program(RUST), &["-", "out.txt"], &[], &[(&dir.0, ".")], b" -- ... !\n");
    assert_run(
        &got,
        3,
        "",
        "wordfreq: read 10 bytes from -\nwordfreq: 1 iterations\nwordfreq: no words in -\n",
    );
    assert!(dir.files().is_empty());
}

#[test]
fn wordfreq_exits_1_on_a_missing_input_and_2_on_usage_errors() {
    let dir = TempDir::new("wordfreq-missing");
    let got = run_in_wasmtime(&program(RUST), &["missing.txt", "out.txt"], &[], &[(&dir.0, ".")], b"");
    // WASI errno 44 is `noent`; Rust's std names it as the OS would.
    assert_run(&got, 1, "", "wordfreq: cannot read missing.txt: No such file or directory (os error 44)\n");
    let got = run_in_wasmtime(&program(RUST), &["only-one"], &[], &[], b"");
    assert_run(&got, 2, "", "usage: wordfreq [--iterations N] [--exit CODE] INPUT OUTPUT\n");
    let got = run_in_wasmtime(&program(RUST), &["-", "o"], &[("WORDFREQ_TOP", "many")], &[], b"");
    assert_run(&got, 2, "", "wordfreq: WORDFREQ_TOP=many is not a count\n");
    assert!(dir.files().is_empty());
}

/// The random hash seeds differ between runs (`RandomState` draws from `random_get`); what
/// the program prints and writes must not.
#[test]
fn wordfreq_is_deterministic_across_runs() {
    let text = fixture();
    let runs: Vec<(Reference, BTreeMap<String, Vec<u8>>)> = (0..3)
        .map(|_| {
            let dir = TempDir::with("wordfreq-again", &[("harbour.txt", &text)]);
            let mut got =
                run_in_wasmtime(&program(RUST), &["harbour.txt", "r.txt"], &[], &[(&dir.0, ".")], b"");
            got.fuel_consumed = 0;
            (got, dir.files())
        })
        .collect();
    assert_eq!(runs[0], runs[1]);
    assert_eq!(runs[0], runs[2]);
}

/// The instructions one `--iterations` unit costs on the fixture (wasmtime fuel: about one
/// unit per instruction), and that [`BENCH_ITERATIONS`] lands a run between 100 and 200
/// million. Fuel varies a little with the random hash seeds, hence the range.
#[test]
fn wordfreq_bench_iterations_run_100_to_200_million() {
    let text = fixture();
    let fuel = |iterations: u64| {
        let dir = TempDir::with("wordfreq-fuel", &[("harbour.txt", &text)]);
        let n = iterations.to_string();
        let got = run_in_wasmtime(
            &program(RUST),
            &["--iterations", &n, "harbour.txt", "r.txt"],
            &[],
            &[(&dir.0, ".")],
            b"",
        );
        assert_eq!((got.exit_code, &got.trap), (0, &None));
        got.fuel_consumed
    };
    let one = fuel(1);
    let per_iteration = (fuel(21) - one) / 20;
    let bench = fuel(BENCH_ITERATIONS);
    println!(
        "wordfreq on the fixture: {one} fuel for 1 iteration, about {per_iteration} per further iteration, \
         {bench} for --iterations {BENCH_ITERATIONS}"
    );
    assert!((100_000_000..=200_000_000).contains(&bench), "{bench} fuel for --iterations {BENCH_ITERATIONS}");
}

// ------------------------------------------------------------------ sortuniq (C)

/// `sortuniq`'s ranking, computed apart from it: lines split at '\n' (a last line without one
/// counts), counted in a `BTreeMap` of byte strings, sorted by count descending then bytes.
fn line_ranking(text: &[u8]) -> Vec<(u64, Vec<u8>)> {
    let mut counts: BTreeMap<&[u8], u64> = BTreeMap::new();
    let mut lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    if text.ends_with(b"\n") || text.is_empty() {
        lines.pop(); // after the final '\n' there is no line
    }
    for line in lines {
        *counts.entry(line).or_default() += 1;
    }
    let mut ranking: Vec<(u64, Vec<u8>)> = counts.into_iter().map(|(l, c)| (c, l.to_vec())).collect();
    ranking.sort_by(|a, b| (Reverse(a.0), &a.1).cmp(&(Reverse(b.0), &b.1)));
    ranking
}

fn sortuniq_file(ranking: &[(u64, Vec<u8>)], min: u64) -> Vec<u8> {
    let mut out = Vec::new();
    for (c, line) in ranking.iter().filter(|(c, _)| *c >= min) {
        out.extend_from_slice(format!("{c}\t").as_bytes());
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out
}

#[test]
fn sortuniq_ranks_the_lines_of_a_file() {
    // LC_ALL=C sort harbour.txt | uniq -c | sort -k1,1nr: the empty line 5 times, 18 lines
    // once; 23 lines, 19 distinct.
    let text = fixture();
    let ranking = line_ranking(&text);
    assert_eq!((ranking.len(), ranking[0].0, ranking[0].1.len(), ranking[1].0), (19, 5, 0, 1));
    let dir = TempDir::with("sortuniq", &[("harbour.txt", &text)]);
    let got = run_in_wasmtime(&program(C), &["harbour.txt", "sorted.txt"], &[], &[(&dir.0, ".")], b"");
    assert_run(
        &got,
        0,
        "input: harbour.txt\nlines: 23\nbytes: 1217\ndistinct: 19\nwritten: 19\n\
         directory .:\n  harbour.txt\n  sorted.txt\nclock: ok\nentropy: ok\n",
        "sortuniq: read 1217 bytes from harbour.txt\n",
    );
    assert_eq!(dir.files(), file_map(&[("harbour.txt", &text), ("sorted.txt", &sortuniq_file(&ranking, 1))]));
}

#[test]
fn sortuniq_reads_stdin_with_a_minimum_and_an_exit_code() {
    // 12 bytes, lines b, a, b, "", c, b, a (the last without '\n'): b 3, a 2, "" 1, c 1; at
    // least 2 times: b and a.
    let text = b"b\na\nb\n\nc\nb\na";
    let ranking = line_ranking(text);
    assert_eq!(sortuniq_file(&ranking, 2), b"3\tb\n2\ta\n");
    let dir = TempDir::with("sortuniq-stdin", &[("keep.txt", b"x")]);
    let got = run_in_wasmtime(
        &program(C),
        &["--exit", "5", "-", "/data/uniq.txt"],
        &[("SORTUNIQ_MIN", "2")],
        &[(&dir.0, "/data")],
        text,
    );
    assert_run(
        &got,
        5,
        "input: -\nlines: 7\nbytes: 12\ndistinct: 4\nwritten: 2\n\
         directory /data:\n  keep.txt\n  uniq.txt\nclock: ok\nentropy: ok\n",
        "sortuniq: read 12 bytes from -\nsortuniq: exiting with 5 as asked\n",
    );
    assert_eq!(dir.files(), file_map(&[("keep.txt", b"x"), ("uniq.txt", b"3\tb\n2\ta\n")]));
}

#[test]
fn sortuniq_exit_codes_without_lines_missing_input_and_usage() {
    let dir = TempDir::new("sortuniq-errors");
    let got = run_in_wasmtime(&program(C), &["-", "out.txt"], &[], &[(&dir.0, ".")], b"");
    assert_run(&got, 3, "", "sortuniq: read 0 bytes from -\nsortuniq: no lines in -\n");
    let got = run_in_wasmtime(&program(C), &["missing.txt", "out.txt"], &[], &[(&dir.0, ".")], b"");
    assert_run(&got, 1, "", "sortuniq: cannot read missing.txt: No such file or directory\n");
    let got = run_in_wasmtime(&program(C), &["a", "b", "c"], &[], &[], b"");
    assert_run(&got, 2, "", "usage: sortuniq [--exit CODE] INPUT OUTPUT\n");
    let got = run_in_wasmtime(&program(C), &["a", "b"], &[("SORTUNIQ_MIN", "two")], &[], b"");
    assert_run(&got, 2, "", "sortuniq: SORTUNIQ_MIN two is not a number\n");
    assert!(dir.files().is_empty());
}

// ------------------------------------------------------------------ revlines (Zig)

/// `revlines`' output file, computed apart from it: the lines (as [`line_ranking`] splits
/// them) last first, each prefixed.
fn reversed(text: &[u8], prefix: &str) -> Vec<u8> {
    let mut lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    if text.ends_with(b"\n") || text.is_empty() {
        lines.pop();
    }
    let mut out = Vec::new();
    for line in lines.iter().rev() {
        out.extend_from_slice(prefix.as_bytes());
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out
}

#[test]
fn revlines_reverses_a_file() {
    // awk '{ if (length($0) > m) m = length($0) } END { print m }' harbour.txt: 80.
    let text = fixture();
    let dir = TempDir::with("revlines", &[("harbour.txt", &text)]);
    let got = run_in_wasmtime(
        &program(ZIG),
        &["harbour.txt", "reversed.txt"],
        &[("REVLINES_PREFIX", "> ")],
        &[(&dir.0, ".")],
        b"",
    );
    assert_run(
        &got,
        0,
        "input: harbour.txt\nlines: 23\nbytes: 1217\nlongest: 80\n",
        "revlines: read 1217 bytes from harbour.txt\n",
    );
    let want = reversed(&text, "> ");
    assert!(want.starts_with(b"> ledger again.\n> was quiet until"));
    assert_eq!(dir.files(), file_map(&[("harbour.txt", &text), ("reversed.txt", &want)]));
}

#[test]
fn revlines_reads_stdin_and_exits_with_the_code_asked() {
    let dir = TempDir::new("revlines-stdin");
    let got = run_in_wasmtime(
        &program(ZIG),
        &["--exit", "9", "-", "out.txt"],
        &[],
        &[(&dir.0, ".")],
        b"one\ntwo\n\nfour",
    );
    assert_run(
        &got,
        9,
        "input: -\nlines: 4\nbytes: 13\nlongest: 4\n",
        "revlines: read 13 bytes from -\nrevlines: exiting with 9 as asked\n",
    );
    assert_eq!(reversed(b"one\ntwo\n\nfour", ""), b"four\n\ntwo\none\n");
    assert_eq!(dir.files(), file_map(&[("out.txt", b"four\n\ntwo\none\n")]));
}

#[test]
fn revlines_exit_codes_without_lines_missing_input_and_usage() {
    let dir = TempDir::new("revlines-errors");
    let got = run_in_wasmtime(&program(ZIG), &["-", "out.txt"], &[], &[(&dir.0, ".")], b"");
    assert_run(&got, 3, "", "revlines: read 0 bytes from -\nrevlines: no lines in -\n");
    let got = run_in_wasmtime(&program(ZIG), &["missing.txt", "out.txt"], &[], &[(&dir.0, ".")], b"");
    assert_run(&got, 1, "", "revlines: cannot read missing.txt: FileNotFound\n");
    let got = run_in_wasmtime(&program(ZIG), &["--exit", "256", "a", "b"], &[], &[], b"");
    assert_run(&got, 2, "", "revlines: --exit takes 0 to 255\n");
    assert!(dir.files().is_empty());
}

// ------------------------------------------------------------------ charclass (C, tail calls)

/// What `charclass` prints, computed apart from it: ASCII letters, digits, the four space
/// bytes, everything else, and the maximal runs of letters and digits.
fn char_classes(text: &[u8]) -> String {
    let count = |f: fn(&u8) -> bool| text.iter().filter(|b| f(b)).count();
    let words = text.split(|b| !b.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).count();
    let (letters, digits) = (count(u8::is_ascii_alphabetic), count(u8::is_ascii_digit));
    let spaces = count(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    let other = text.len() - letters - digits - spaces;
    format!("letters {letters}\ndigits {digits}\nspaces {spaces}\nother {other}\nwords {words}\n")
}

#[test]
fn charclass_counts_a_file_and_stdin() {
    // The fixture: 240 words as wordfreq splits them; `tr -cd 'A-Za-z' | wc -c` 929 letters,
    // `tr -cd 0-9 | wc -c` 8 digits, `tr -cd ' \t\n\r' | wc -c` 244 spaces, 1,217 bytes.
    let text = fixture();
    assert_eq!(char_classes(&text), "letters 929\ndigits 8\nspaces 244\nother 36\nwords 240\n");
    let dir = TempDir::with("charclass", &[("harbour.txt", &text)]);
    let got = run_in_wasmtime(&program(C_TAIL), &["harbour.txt"], &[], &[(&dir.0, ".")], b"");
    assert_run(&got, 0, &char_classes(&text), "");
    // 30,000 bytes from stdin: a state machine 30,000 hand-overs long, in one frame.
    let long: Vec<u8> = b"tail 42, call; ".iter().copied().cycle().take(30_000).collect();
    let got = run_in_wasmtime(&program(C_TAIL), &["-"], &[], &[], &long);
    assert_run(&got, 0, "letters 16000\ndigits 4000\nspaces 6000\nother 4000\nwords 6000\n", "");
    assert_eq!(char_classes(&long), "letters 16000\ndigits 4000\nspaces 6000\nother 4000\nwords 6000\n");
}

#[test]
fn charclass_exit_codes_on_a_missing_input_and_usage() {
    let dir = TempDir::new("charclass-errors");
    let got = run_in_wasmtime(&program(C_TAIL), &["missing.txt"], &[], &[(&dir.0, ".")], b"");
    assert_run(&got, 1, "", "charclass: cannot read missing.txt\n");
    let got = run_in_wasmtime(&program(C_TAIL), &["a", "b"], &[], &[], b"");
    assert_run(&got, 2, "", "charclass: usage: charclass INPUT\n");
}
