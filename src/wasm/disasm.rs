//! A readable listing of one function's internal form: what the translator made of a body,
//! for debugging a miscount or a slow loop (`qip-memory count --dump-ir FUNC`).
//!
//! One line per op: its position `pc`, the function-relative index of the Wasm instruction it
//! stands for (`instr`), that instruction's place in its fuel block (`cum`, 1-based) and byte
//! offset in the module, then the op as [`Op`]'s `Display` prints it. Every fuel block starts
//! with its `Fuel` op and a blank line before it; operands that index a side table (branch
//! targets with moves, `br_table` entries, `v128` constants, shuffles, table pairs) are resolved
//! after a `;`. The exception handlers follow the code, inner before outer: the instructions
//! each protects and its clauses, each with the target it lands on.

use alloc::string::String;
use core::fmt::Write;

use super::error::FuncIndex;
use super::ir::{BranchTarget, Op};
use super::module::{CatchKind, CompiledFunc, Module};

impl Module {
    /// The listing of defined function `func`'s internal code (see the module docs), or `None`
    /// when `func` is imported or out of range.
    pub fn disassemble(&self, func: FuncIndex) -> Option<String> {
        let body = self.body(func.0)?;
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = write_listing(&mut out, func, body);
        Some(out)
    }
}

fn write_listing(out: &mut String, func: FuncIndex, f: &CompiledFunc) -> core::fmt::Result {
    writeln!(
        out,
        "{func}: {} params, {} locals, frame {} slots, {} ops, {} instructions",
        f.num_params,
        f.num_locals - f.num_params,
        f.frame_size,
        f.code.len(),
        f.instr_offsets.len()
    )?;
    writeln!(out, "{:>6} {:>6} {:>4} {:>8}  op", "pc", "instr", "cum", "offset")?;
    for (pc, op) in f.code.iter().enumerate() {
        if matches!(op, Op::Fuel { .. }) && pc > 0 {
            out.push('\n');
        }
        let instr = f.idx.get(pc).copied().unwrap_or(0);
        let offset = f.instr_offsets.get(instr as usize).copied().unwrap_or(f.end_offset);
        let cum = f.cum.get(pc).copied().unwrap_or(0);
        write!(out, "{pc:>6} {instr:>6} {cum:>4} {:>8}  {op}", alloc::format!("0x{offset:x}"))?;
        write_side_table(out, f, op)?;
        out.push('\n');
    }
    for h in &f.handlers {
        write!(out, "\nhandler instr {}..{}:", h.from, h.to)?;
        for c in f.catches.iter().skip(h.start as usize).take(h.len as usize) {
            match *c {
                CatchKind::Catch { tag, target, exn } => {
                    match tag {
                        Some(t) => write!(out, " catch tag {t} ")?,
                        None => out.write_str(" catch_all ")?,
                    }
                    write_target(out, f.targets.get(target as usize))?;
                    if let Some(e) = exn {
                        write!(out, " exnref s{e}")?;
                    }
                }
                CatchKind::Delegate { from: u32::MAX } => out.write_str(" delegate to the caller")?,
                CatchKind::Delegate { from } => write!(out, " delegate to instr {from}")?,
            }
        }
    }
    if !f.handlers.is_empty() {
        out.push('\n');
    }
    Ok(())
}

/// The side-table entries an op refers to, after `" ; "`.
fn write_side_table(out: &mut String, f: &CompiledFunc, op: &Op) -> core::fmt::Result {
    match *op {
        Op::BrIfTarget { t, .. } => {
            out.push_str(" ; ");
            write_target(out, f.targets.get(t as usize))
        }
        Op::BrTable { start, len, .. } => {
            out.push_str(" ;");
            for i in start..start.saturating_add(len) {
                out.push(' ');
                write_target(out, f.targets.get(i as usize))?;
            }
            Ok(())
        }
        Op::ConstV128 { idx, .. } => match f.v128s.get(idx as usize) {
            Some(v) => write!(out, " ; 0x{v:032x}"),
            None => Ok(()),
        },
        Op::Shuffle { idx, .. } => match f.shuffles.get(idx as usize) {
            Some(lanes) => write!(out, " ; lanes {lanes:?}"),
            None => Ok(()),
        },
        Op::TableCopy { pair, .. } => match f.pairs.get(pair as usize) {
            Some((dst, src)) => write!(out, " ; table {dst} <- table {src}"),
            None => Ok(()),
        },
        Op::TableInit { pair, .. } => match f.pairs.get(pair as usize) {
            Some((table, seg)) => write!(out, " ; table {table} <- elem {seg}"),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

fn write_target(out: &mut String, t: Option<&BranchTarget>) -> core::fmt::Result {
    let Some(t) = t else { return out.write_str("?") };
    match t.kind {
        super::ir::TargetKind::Return => write!(out, "[return s{}..+{} charge={}]", t.src, t.n, t.charge),
        kind => {
            write!(out, "[{kind:?} @{} move s{}..+{} to s{} charge={}]", t.pc, t.src, t.n, t.dst, t.charge)
        }
    }
}
