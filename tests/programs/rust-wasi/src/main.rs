//! `wordfreq`: counts the words of a text and writes them ranked by frequency. A WASI
//! preview 1 command used as a real test program of the profiler (tests/programs/README.md).
//!
//! ```text
//! wordfreq [--iterations N] [--exit CODE] INPUT OUTPUT
//! ```
//!
//! * INPUT is a file in a preopened directory, or `-` for stdin. A word is a maximal run of
//!   ASCII letters and digits, compared in ASCII lower case; every other byte separates words.
//! * OUTPUT (a file in a preopened directory) receives one line `COUNT<TAB>WORD` per distinct
//!   word, by count descending, then by word in byte order.
//! * `WORDFREQ_TOP` (environment, default 10) is how many of those lines stdout repeats.
//! * `--iterations N` (default 1) does the counting and the ranking N times over the same
//!   text, each time from scratch, so that a run can be made as long as needed; the output
//!   does not depend on N.
//! * `--exit CODE` exits with CODE after everything was done and written.
//!
//! Everything printed and written depends only on the arguments, the environment, the input
//! and the names in OUTPUT's directory: the clock and the random source are used, but only
//! properties every host has are printed (the monotonic clock does not go back, the wall clock
//! is after 2020, `random_get` succeeds).
//!
//! Exit codes: 0 done, 1 input or output failed, 2 usage, 3 no word in the input, or CODE.

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap};
use std::io::{Read, Write};
use std::path::Path;
use std::process::exit;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// Seconds from the Unix epoch to 2020-01-01T00:00:00Z.
const YEAR_2020: u64 = 1_577_836_800;

const USAGE: &str = "usage: wordfreq [--iterations N] [--exit CODE] INPUT OUTPUT";

#[link(wasm_import_module = "wasi_snapshot_preview1")]
unsafe extern "C" {
    /// WASI preview 1 `random_get(buf, buf_len) -> errno`.
    #[link_name = "random_get"]
    fn wasi_random_get(buf: *mut u8, buf_len: usize) -> i32;
}

struct Options {
    iterations: u64,
    exit_code: Option<i32>,
    input: String,
    output: String,
    top: usize,
}

fn main() {
    let started = Instant::now();
    let options = options();

    let text = read_input(&options.input);
    eprintln!("wordfreq: read {} bytes from {}", text.len(), options.input);

    let mut ranking = Vec::new();
    for _ in 0..options.iterations {
        ranking = rank(count(&text));
    }
    eprintln!("wordfreq: {} iterations", options.iterations);
    if ranking.is_empty() {
        eprintln!("wordfreq: no words in {}", options.input);
        exit(3);
    }

    let mut file = String::new();
    for (count, word) in &ranking {
        file.push_str(&format!("{count}\t{word}\n"));
    }
    if let Err(e) = std::fs::write(&options.output, file) {
        eprintln!("wordfreq: cannot write {}: {e}", options.output);
        exit(1);
    }

    let total: u64 = ranking.iter().map(|(count, _)| count).sum();
    println!("input: {}", options.input);
    println!("words: {total}");
    println!("distinct: {}", ranking.len());
    println!("top {}:", options.top);
    for (count, word) in ranking.iter().take(options.top) {
        println!("{count:>7} {word}");
    }

    let dir = match Path::new(&options.output).parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match list(dir) {
        Ok(names) => {
            println!("directory {}:", dir.display());
            for name in names {
                println!("  {name}");
            }
        }
        Err(e) => {
            eprintln!("wordfreq: cannot list {}: {e}", dir.display());
            exit(1);
        }
    }

    let monotonic = Instant::now() >= started;
    let wall = SystemTime::now().duration_since(UNIX_EPOCH).is_ok_and(|d| d.as_secs() >= YEAR_2020);
    println!("clock: {}", if monotonic && wall { "ok" } else { "WRONG" });
    let mut bytes = [0u8; 16];
    // SAFETY: `bytes` is valid for writes of its length for the whole call.
    let errno = unsafe { wasi_random_get(bytes.as_mut_ptr(), bytes.len()) };
    println!("random: {}", if errno == 0 { "ok".to_string() } else { format!("errno {errno}") });

    if let Some(code) = options.exit_code {
        std::io::stdout().flush().ok();
        eprintln!("wordfreq: exiting with {code} as asked");
        exit(code);
    }
}

/// The command line and `WORDFREQ_TOP`; exits with 2 on a usage error.
fn options() -> Options {
    let mut iterations = 1;
    let mut exit_code = None;
    let mut paths = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--iterations" => iterations = number(args.next(), "--iterations"),
            "--exit" => exit_code = Some(number(args.next(), "--exit")),
            _ => paths.push(arg),
        }
    }
    let [input, output] = <[String; 2]>::try_from(paths).unwrap_or_else(|_| usage_error(USAGE));
    let top = match std::env::var("WORDFREQ_TOP") {
        Ok(v) => {
            v.parse().unwrap_or_else(|_| usage_error(&format!("wordfreq: WORDFREQ_TOP={v} is not a count")))
        }
        Err(_) => 10,
    };
    Options { iterations, exit_code, input, output, top }
}

fn number<T: std::str::FromStr>(value: Option<String>, option: &str) -> T {
    let value = value.unwrap_or_else(|| usage_error(&format!("wordfreq: {option} needs a value")));
    value.parse().unwrap_or_else(|_| usage_error(&format!("wordfreq: {option} {value} is not a number")))
}

fn usage_error(message: &str) -> ! {
    eprintln!("{message}");
    exit(2)
}

/// The whole input (stdin for `-`); exits with 1 when it cannot be read.
fn read_input(input: &str) -> Vec<u8> {
    let read = if input == "-" {
        let mut bytes = Vec::new();
        std::io::stdin().read_to_end(&mut bytes).map(|_| bytes)
    } else {
        std::fs::read(input)
    };
    read.unwrap_or_else(|e| {
        eprintln!("wordfreq: cannot read {input}: {e}");
        exit(1)
    })
}

/// Occurrences of each word; one `String` allocated per occurrence, most of them dropped at
/// once (the heap traffic a profiler should see).
fn count(text: &[u8]) -> HashMap<String, u64> {
    let mut counts = HashMap::new();
    for word in text.split(|b| !b.is_ascii_alphanumeric()).filter(|w| !w.is_empty()) {
        let word = String::from_utf8(word.to_ascii_lowercase()).expect("ASCII is UTF-8");
        *counts.entry(word).or_insert(0) += 1;
    }
    counts
}

/// `(count, word)` by count descending, then word ascending: the words grouped by count in a
/// `BTreeMap`, each group sorted.
fn rank(counts: HashMap<String, u64>) -> Vec<(u64, String)> {
    let mut groups: BTreeMap<Reverse<u64>, Vec<String>> = BTreeMap::new();
    for (word, count) in counts {
        groups.entry(Reverse(count)).or_default().push(word);
    }
    let mut ranking = Vec::new();
    for (Reverse(count), mut words) in groups {
        words.sort_unstable();
        ranking.extend(words.into_iter().map(|w| (count, w)));
    }
    ranking
}

/// The names in `dir`, sorted by bytes.
fn list(dir: &Path) -> std::io::Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        names.push(entry?.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    Ok(names)
}
