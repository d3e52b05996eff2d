//! What `--stats` adds for a program (docs/programs.md, "Statistics"): how it ended, and where
//! its stack and heap were found, one `name value` line each on stderr.

use qip_memory::run::{End, Finished, HeapSource, StackSource};

use crate::target::Loaded;

/// The `--stats` lines of a program's run (none for a Content target's, whose statistics are
/// the counters alone).
pub fn program_lines(loaded: &Loaded, finished: &Finished) -> String {
    if loaded.kind == qip_memory::run::Kind::Content {
        return String::new();
    }
    let mut s = String::new();
    match &finished.end {
        End::Exit(code) => s += &format!("exit_code {code}\n"),
        End::Return(values) => {
            for v in values {
                s += &format!("result {}\n", v);
            }
        }
        End::Stopped(f) => s += &format!("stopped {}\n", f.message),
        End::Output { .. } => {}
    }
    let layout = &finished.layout;
    match layout.stack {
        Some(sp) => {
            let how = match sp.source {
                StackSource::Content => "global 0 (Content contract)",
                StackSource::Named => "named __stack_pointer",
                StackSource::Llvm => "global 0 of an LLVM module",
            };
            let top = sp.top.map_or_else(|| "unknown".to_owned(), |t| t.to_string());
            s += &format!("stack_pointer global {} ({how}), top {top}\n", sp.global);
        }
        None => s += "stack_pointer none (no __stack_pointer global, not LLVM output)\n",
    }
    if let Some(h) = layout.heap {
        let how = match h.source {
            HeapSource::HeapBase => "__heap_base",
            HeapSource::AfterDataAndStack => "after the data and the stack",
        };
        s += &format!("heap_start {} ({how})\n", h.start);
    }
    s += &format!("io_ranges {}\n", layout.io.len());
    s
}

/// Prints [`program_lines`] to stderr.
pub fn print_program(loaded: &Loaded, finished: &Finished) {
    crate::out::stderr(&program_lines(loaded, finished));
}
