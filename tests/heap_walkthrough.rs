//! The README's "Find the leak" walkthrough, run as written: the shell lines between its
//! `walkthrough:begin` and `walkthrough:end` markers (with `make as-fixtures` and the release
//! build already done by `make test`), from the repository root. The output blocks the README
//! shows after it must be what `diff` and `retainers` print, and DevTools' own heap snapshot
//! model (tests/heapsnapshot/check.mjs) must see what the README says it shows.
//!
//! Expected by hand from tests/assemblyscript/leak.ts: between the dumps 40 requests each make
//! a Session (12-byte payload → 32 bytes), an AuditEntry (8 → 32), a name "session NN" (20
//! bytes of UTF-16 → 48) and a 64-byte scratch ArrayBuffer (→ 96); the log's backing store
//! grows from 16 slots (64 bytes → 96) to 64 (256 → 288). So +40 Sessions of 1,280 bytes and
//! 41 new ArrayBuffers of 40 × 96 + 288 = 4,128 bytes, one of 96 freed.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The walkthrough's shell lines and the `text` blocks after it, from the README.
fn walkthrough() -> (Vec<String>, Vec<String>) {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let begin = readme.find("<!-- walkthrough:begin").expect("README has the walkthrough");
    let end = readme[begin..].find("<!-- walkthrough:end -->").unwrap() + begin;
    let block = &readme[begin..end];
    let sh = &block[block.find("```sh\n").unwrap() + 6..block.rfind("```").unwrap()];
    let lines = sh.lines().map(String::from).collect();
    let after = &readme[end..];
    let after = &after[..after.find("\n### ").unwrap_or(after.len())];
    let texts = after.split("```text\n").skip(1).map(|t| t[..t.find("```").unwrap()].to_string()).collect();
    (lines, texts)
}

#[test]
fn the_find_the_leak_walkthrough_runs_as_written() {
    let (lines, texts) = walkthrough();
    let mut outputs = Vec::new();
    for line in &lines {
        let command = line.split('#').next().unwrap().trim();
        if command.starts_with("make as-fixtures") || command.starts_with("cargo build") {
            continue; // done by `make test` before the tests run
        }
        let words: Vec<&str> = command.split_whitespace().collect();
        match words.as_slice() {
            ["mkdir", "-p", dir] => std::fs::create_dir_all(root().join(dir)).unwrap(),
            ["qip-memory", args @ ..] => {
                let o = Command::new(env!("CARGO_BIN_EXE_qip-memory"))
                    .current_dir(root())
                    .args(args)
                    .output()
                    .expect("the binary runs");
                let stdout = String::from_utf8(o.stdout).unwrap();
                assert!(o.status.success(), "{line}: {}", String::from_utf8_lossy(&o.stderr));
                outputs.push((args[1].to_string(), stdout));
            }
            other => panic!("the walkthrough has a line this test does not know: {other:?}"),
        }
    }
    let out = |cmd: &str| outputs.iter().find(|(c, _)| c == cmd).map(|(_, o)| o.clone()).unwrap();
    // The README's blocks are what the commands print.
    assert_eq!(texts.len(), 2, "a diff block and a retainers block");
    assert_eq!(out("diff"), texts[0]);
    assert_eq!(out("retainers"), texts[1]);
    // And they say what the program does (see the module comment).
    let squeeze = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let diff = squeeze(&out("diff"));
    assert!(diff.contains("+40 40 0 1,280 B (1.2 KiB) 0 B +1,280 B (+1.2 KiB) leak/Session"), "{diff}");
    assert!(diff.contains("+40 40 0 1,280 B (1.2 KiB) 0 B +1,280 B (+1.2 KiB) leak/AuditEntry"), "{diff}");
    assert!(diff.contains("+40 40 0 1,920 B (1.9 KiB) 0 B +1,920 B (+1.9 KiB) ~lib/string/String"), "{diff}");
    assert!(
        diff.contains("+40 41 1 4,128 B (4.0 KiB) 96 B +4,032 B (+3.9 KiB) ~lib/arraybuffer/ArrayBuffer"),
        "{diff}"
    );
    let retainers = out("retainers");
    assert!(retainers.contains("1. global leak/auditLog"), "{retainers}");
    assert!(retainers.contains("   .session → leak/Session @ "), "{retainers}");

    // What the README says DevTools shows.
    let check = root().join("tests/heapsnapshot/check.mjs");
    assert!(
        root().join("tests/heapsnapshot/node_modules/heap-snapshot-toolkit").exists(),
        "run `make heapsnapshot-deps`"
    );
    let o = Command::new("node")
        .arg(&check)
        .arg(root().join("target/leak/leak.1.heapsnapshot"))
        .arg(root().join("target/leak/leak.2.heapsnapshot"))
        .output()
        .expect("node runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let aggregates: BTreeMap<&str, u64> = v["aggregates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["name"].as_str().unwrap(), a["count"].as_u64().unwrap()))
        .collect();
    assert_eq!(aggregates["leak/Session"], 50);
    let nodes = v["nodes"].as_array().unwrap();
    let by_id: BTreeMap<u64, &serde_json::Value> =
        nodes.iter().map(|n| (n["id"].as_u64().unwrap(), n)).collect();
    // Each edge into a node, as DevTools' Retainers panel lists it: (edge name, holder).
    let mut into: BTreeMap<u64, Vec<(String, u64)>> = BTreeMap::new();
    for n in nodes {
        for e in n["edges"].as_array().unwrap() {
            let to = e["to"].as_u64().unwrap();
            into.entry(to)
                .or_default()
                .push((e["name"].as_str().unwrap().to_string(), n["id"].as_u64().unwrap()));
        }
    }
    for session in nodes.iter().filter(|n| n["className"] == "leak/Session") {
        assert_eq!(session["distance"], 3);
        let id = session["id"].as_u64().unwrap();
        let [(edge, entry)] = into[&id].as_slice() else { panic!("one retainer: {:?}", into[&id]) };
        assert_eq!((edge.as_str(), by_id[entry]["className"].as_str()), ("session", Some("leak/AuditEntry")));
        let [(index, array)] = into[entry].as_slice() else { panic!("{:?}", into[entry]) };
        assert!(index.parse::<u32>().is_ok());
        assert_eq!(by_id[array]["className"], "~lib/array/Array<leak/AuditEntry>");
        let root_edges = &into[array];
        assert!(root_edges.contains(&("leak/auditLog".to_string(), 1)), "{root_edges:?}");
        assert_eq!(by_id[&1]["name"], "(GC roots)");
    }
    let comparison: BTreeMap<&str, u64> = v["diff"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap(), r["addedCount"].as_u64().unwrap()))
        .collect();
    assert_eq!(comparison["leak/Session"], 40);
}
