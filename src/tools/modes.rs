//! The rejection modes of the interpreting tools (page table, heat map, report): the one table
//! from which every front end takes its mode numbers and sentences. The README's table, the
//! WIT documentation and docs/rejections.md are rendered from [`TOOL_MODES`] and checked
//! against it by `tests/rejection_tables.rs`. The heap analyzer has its own table,
//! [`heap::MODES`](super::heap::MODES), of the same [`Mode`] rows.
//!
//! A rejection is reported as `detail = offset * 10 + mode`, `offset` a byte offset into the
//! request (docs/request.md).

use alloc::format;
use alloc::string::String;

use crate::content::run::Cause;

/// One row of a rejection-mode table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mode {
    /// The mode, `detail % 10`.
    pub number: u32,
    /// The cause, as a phrase without a final period (`target trapped`).
    pub cause: &'static str,
    /// What the offset, `detail / 10`, points at, as a phrase without a final period.
    pub offset: &'static str,
}

impl Mode {
    /// The row as one sentence for a person: `target trapped; the offset points at …`.
    pub fn sentence(&self) -> String {
        format!("{}; the offset points at the {}", self.cause, self.offset)
    }
}

/// Mode 0: the request does not parse.
pub const MALFORMED: Mode = Mode {
    number: 0,
    cause: "malformed multipart request, or arguments that cannot be written as one (a uniform key \
            outside printable ASCII, a file containing the boundary's delimiter line)",
    offset: "first byte that broke the grammar; 0 when the request cannot be written",
};
/// Mode 1: the target module does not decode or validate.
pub const INVALID: Mode = Mode {
    number: 1,
    cause: "target module invalid or outside WebAssembly 2.0",
    offset: "component part start + the validator's offset in the module",
};
/// Mode 2: the target breaks the Content contract.
pub const CONTRACT: Mode = Mode {
    number: 2,
    cause: "target violates the Content contract (exports, getters, input region, an input above its \
            capacity or not UTF-8)",
    offset: "component part start",
};
/// Mode 3: a target uniform cannot be applied.
pub const UNIFORM: Mode = Mode {
    number: 3,
    cause: "bad target uniform (no such setter, bad setter signature, value not parseable)",
    offset: "offending uniform part's body start",
};
/// Mode 4: the target trapped.
pub const TRAP: Mode = Mode {
    number: 4,
    cause: "target trapped",
    offset: "component part start + offset of the trapping instruction",
};
/// Mode 5: the instruction budget ran out.
pub const BUDGET: Mode = Mode {
    number: 5,
    cause: "instruction budget exhausted",
    offset: "component part start + offset of the next instruction",
};
/// Mode 6: the target rejected its input.
pub const REJECTED: Mode = Mode {
    number: 6,
    cause: "target rejected its input",
    offset: "input part body start + the target's own offset (when it declares failure modes); the \
             request length without an input part",
};
/// Mode 7: the target's result is not a valid output.
pub const OUTPUT: Mode = Mode {
    number: 7,
    cause: "target returned an invalid output (range, capacity, UTF-8, reserved bits, an input offset \
            past its input)",
    offset: "component part start",
};
/// Mode 8: the heat map or report has no page to show.
pub const NOTHING_TO_REPORT: Mode = Mode {
    number: 8,
    cause: "nothing to report (heat map and report: no page at or above first_page was read or written)",
    offset: "request length",
};
/// Mode 9: a limit of the tool itself.
pub const LIMIT: Mode = Mode {
    number: 9,
    cause: "a limit of ours was exceeded (input above 8 MiB, module above 1 MiB, memory above 192 MiB, \
            call depth, value stack, an output above the tool's capacity)",
    offset: "component part start; the input part body start for the input limit; the request length \
             for the output limit",
};

/// The table of the interpreting tools, in mode order (`TOOL_MODES[m].number == m`).
pub const TOOL_MODES: [Mode; 10] =
    [MALFORMED, INVALID, CONTRACT, UNIFORM, TRAP, BUDGET, REJECTED, OUTPUT, NOTHING_TO_REPORT, LIMIT];

/// The mode of a run failure's cause. A number, not a row: the Content components need only
/// the number, and a reference to a row would link its sentences into them.
pub fn of(cause: &Cause) -> u32 {
    match cause {
        Cause::Invalid { .. } => INVALID.number,
        Cause::Contract => CONTRACT.number,
        Cause::Uniform { .. } => UNIFORM.number,
        Cause::Trap { .. } => TRAP.number,
        Cause::Budget { .. } => BUDGET.number,
        Cause::Rejected { .. } => REJECTED.number,
        Cause::Output => OUTPUT.number,
        Cause::Limit | Cause::Setup => LIMIT.number,
        Cause::NothingToReport => NOTHING_TO_REPORT.number,
        Cause::Unresolved | Cause::Entry => CONTRACT.number,
    }
}

/// The sentence of `mode` in `table` (see [`Mode::sentence`]), or `unknown rejection mode`
/// for a mode the table does not have.
pub fn describe(table: &[Mode], mode: u32) -> String {
    match table.iter().find(|m| m.number == mode) {
        Some(m) => m.sentence(),
        None => String::from("unknown rejection mode"),
    }
}

/// The sentence for rejection `mode` of the interpreting tools ([`TOOL_MODES`]).
pub fn mode_description(mode: u32) -> String {
    describe(&TOOL_MODES, mode)
}

/// Checks a table's shape (tests of both tables): row `m` is mode `m`, and no two rows share
/// a cause.
#[cfg(test)]
pub(crate) fn assert_table_shape(table: &[Mode]) {
    for (m, row) in table.iter().enumerate() {
        assert_eq!(row.number as usize, m);
        for other in &table[..m] {
            assert_ne!(row.cause, other.cause);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_in_mode_order_and_distinct() {
        assert_table_shape(&TOOL_MODES);
        assert_eq!(
            mode_description(5),
            "instruction budget exhausted; the offset points at the component part start + offset of \
             the next instruction"
        );
        assert_eq!(mode_description(10), "unknown rejection mode");
    }

    #[test]
    fn causes_map_to_their_rows() {
        assert_eq!(of(&Cause::Invalid { offset: 3 }), 1);
        assert_eq!(of(&Cause::Contract), 2);
        assert_eq!(of(&Cause::Uniform { index: 0 }), 3);
        assert_eq!(of(&Cause::Trap { offset: 0, kind: crate::wasm::TrapKind::Unreachable }), 4);
        assert_eq!(of(&Cause::Budget { offset: 0 }), 5);
        assert_eq!(of(&Cause::Rejected { offset: None, mode: None }), 6);
        assert_eq!(of(&Cause::Output), 7);
        assert_eq!(of(&Cause::Limit), 9);
    }
}
