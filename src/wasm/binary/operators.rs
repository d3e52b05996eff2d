//! Every operator of WebAssembly 2.0 and of the threads proposal, defined once (spec 5.4
//! "Instructions" for the encodings, 3.3 "Instructions" for the types; the threads proposal's
//! `document/core/binary/instructions.rst` and `valid/instructions.rst` for the `0xFE` group):
//! its name, its encoding, its immediates, its text-format name and, where it has one, its fixed
//! type `[params] -> [results]`.
//!
//! From [`for_each_operator`] come the [`Operator`] enum, the decoding tables (opcode byte or
//! prefixed sub-opcode to operator), each operator's immediate kind and type, and its text
//! name. The decoder ([`Reader::instr`]) reads any operator with the same few lines, the
//! validator checks every operator of fixed type from its entry, and the translator's kinds
//! (`ir::Binop` and the others) name the operators they stand for.
//!
//! Variant names follow the text format in camel case (`i32.trunc_sat_f32_s` is
//! `I32TruncSatF32S`), as in most Rust Wasm crates.

use super::proposals::{self, Proposal, Site};
use super::reader::Reader;
use super::types::{BlockType, MemArg, ValType};
use crate::wasm::error::Invalid;

/// The table. Each entry: `Name = opcode, immediate, "text name", type;` where the type is
/// `[params -> results]`, or `special` for an operator the validator types itself (control,
/// variables, calls, references, tables, bulk memory). Four groups: one-byte opcodes, the
/// `0xFC` prefix, the `0xFE` prefix (the atomics of the threads proposal, refused in a build with
/// `only-2-0`) and the `0xFD` (SIMD) prefix, whose sub-opcodes are LEB128 `u32`s. SIMD
/// comes last (the translator tells a SIMD operator by its place).
///
/// Immediates: `none`; `block` (a block type); `label`; `br_table`; `func`; `call_indirect`
/// (type and table); `local`; `global`; `table`; `mem(A)` (a memarg whose natural alignment
/// is 2^A bytes); `zero` (a reserved zero byte, the memory index of 2.0); `i32`, `i64`, `f32`,
/// `f64`, `v128` (constants); `shuffle` (16 lane indices); `lane(N)` (a lane index below
/// N); `mem_lane(A)` (a memarg, then a lane index below 16 / 2^A); `select_t` (one value
/// type); `ref_null` (a reference type); `memory_init` (a data index, then a zero byte);
/// `data`; `memory_copy` (two zero bytes); `table_init` (an element index, then a table);
/// `elem`; `table_copy` (destination and source tables); `atomic(C, A)` (a memarg whose
/// alignment must be exactly 2^A bytes, the access width, for an atomic operator of class
/// [`AtomicClass`] `C`); `fence` (`atomic.fence`'s reserved zero byte); `tag` (a tag index);
/// `try_table` (a block type, then the catch clauses: a count, then each clause's kind byte,
/// its tag index for kinds 0 and 1, and its label). The exception-handling operators (`try` to
/// `try_table`, the legacy ones included) follow the reference instructions.
macro_rules! for_each_operator {
    ($m:ident) => {
        $m! {
            Unreachable = 0x00, none, "unreachable", special;
            Nop = 0x01, none, "nop", [->];
            Block = 0x02, block, "block", special;
            Loop = 0x03, block, "loop", special;
            If = 0x04, block, "if", special;
            Else = 0x05, none, "else", special;
            End = 0x0B, none, "end", special;
            Br = 0x0C, label, "br", special;
            BrIf = 0x0D, label, "br_if", special;
            BrTable = 0x0E, br_table, "br_table", special;
            Return = 0x0F, none, "return", special;
            Call = 0x10, func, "call", special;
            CallIndirect = 0x11, call_indirect, "call_indirect", special;
            ReturnCall = 0x12, func, "return_call", special;
            ReturnCallIndirect = 0x13, call_indirect, "return_call_indirect", special;
            Drop = 0x1A, none, "drop", special;
            Select = 0x1B, none, "select", special;
            TypedSelect = 0x1C, select_t, "select", special;
            LocalGet = 0x20, local, "local.get", special;
            LocalSet = 0x21, local, "local.set", special;
            LocalTee = 0x22, local, "local.tee", special;
            GlobalGet = 0x23, global, "global.get", special;
            GlobalSet = 0x24, global, "global.set", special;
            TableGet = 0x25, table, "table.get", special;
            TableSet = 0x26, table, "table.set", special;
            I32Load = 0x28, mem(2), "i32.load", [I32 -> I32];
            I64Load = 0x29, mem(3), "i64.load", [I32 -> I64];
            F32Load = 0x2A, mem(2), "f32.load", [I32 -> F32];
            F64Load = 0x2B, mem(3), "f64.load", [I32 -> F64];
            I32Load8S = 0x2C, mem(0), "i32.load8_s", [I32 -> I32];
            I32Load8U = 0x2D, mem(0), "i32.load8_u", [I32 -> I32];
            I32Load16S = 0x2E, mem(1), "i32.load16_s", [I32 -> I32];
            I32Load16U = 0x2F, mem(1), "i32.load16_u", [I32 -> I32];
            I64Load8S = 0x30, mem(0), "i64.load8_s", [I32 -> I64];
            I64Load8U = 0x31, mem(0), "i64.load8_u", [I32 -> I64];
            I64Load16S = 0x32, mem(1), "i64.load16_s", [I32 -> I64];
            I64Load16U = 0x33, mem(1), "i64.load16_u", [I32 -> I64];
            I64Load32S = 0x34, mem(2), "i64.load32_s", [I32 -> I64];
            I64Load32U = 0x35, mem(2), "i64.load32_u", [I32 -> I64];
            I32Store = 0x36, mem(2), "i32.store", [I32 I32 ->];
            I64Store = 0x37, mem(3), "i64.store", [I32 I64 ->];
            F32Store = 0x38, mem(2), "f32.store", [I32 F32 ->];
            F64Store = 0x39, mem(3), "f64.store", [I32 F64 ->];
            I32Store8 = 0x3A, mem(0), "i32.store8", [I32 I32 ->];
            I32Store16 = 0x3B, mem(1), "i32.store16", [I32 I32 ->];
            I64Store8 = 0x3C, mem(0), "i64.store8", [I32 I64 ->];
            I64Store16 = 0x3D, mem(1), "i64.store16", [I32 I64 ->];
            I64Store32 = 0x3E, mem(2), "i64.store32", [I32 I64 ->];
            MemorySize = 0x3F, zero, "memory.size", [-> I32];
            MemoryGrow = 0x40, zero, "memory.grow", [I32 -> I32];
            I32Const = 0x41, i32, "i32.const", [-> I32];
            I64Const = 0x42, i64, "i64.const", [-> I64];
            F32Const = 0x43, f32, "f32.const", [-> F32];
            F64Const = 0x44, f64, "f64.const", [-> F64];
            I32Eqz = 0x45, none, "i32.eqz", [I32 -> I32];
            I32Eq = 0x46, none, "i32.eq", [I32 I32 -> I32];
            I32Ne = 0x47, none, "i32.ne", [I32 I32 -> I32];
            I32LtS = 0x48, none, "i32.lt_s", [I32 I32 -> I32];
            I32LtU = 0x49, none, "i32.lt_u", [I32 I32 -> I32];
            I32GtS = 0x4A, none, "i32.gt_s", [I32 I32 -> I32];
            I32GtU = 0x4B, none, "i32.gt_u", [I32 I32 -> I32];
            I32LeS = 0x4C, none, "i32.le_s", [I32 I32 -> I32];
            I32LeU = 0x4D, none, "i32.le_u", [I32 I32 -> I32];
            I32GeS = 0x4E, none, "i32.ge_s", [I32 I32 -> I32];
            I32GeU = 0x4F, none, "i32.ge_u", [I32 I32 -> I32];
            I64Eqz = 0x50, none, "i64.eqz", [I64 -> I32];
            I64Eq = 0x51, none, "i64.eq", [I64 I64 -> I32];
            I64Ne = 0x52, none, "i64.ne", [I64 I64 -> I32];
            I64LtS = 0x53, none, "i64.lt_s", [I64 I64 -> I32];
            I64LtU = 0x54, none, "i64.lt_u", [I64 I64 -> I32];
            I64GtS = 0x55, none, "i64.gt_s", [I64 I64 -> I32];
            I64GtU = 0x56, none, "i64.gt_u", [I64 I64 -> I32];
            I64LeS = 0x57, none, "i64.le_s", [I64 I64 -> I32];
            I64LeU = 0x58, none, "i64.le_u", [I64 I64 -> I32];
            I64GeS = 0x59, none, "i64.ge_s", [I64 I64 -> I32];
            I64GeU = 0x5A, none, "i64.ge_u", [I64 I64 -> I32];
            F32Eq = 0x5B, none, "f32.eq", [F32 F32 -> I32];
            F32Ne = 0x5C, none, "f32.ne", [F32 F32 -> I32];
            F32Lt = 0x5D, none, "f32.lt", [F32 F32 -> I32];
            F32Gt = 0x5E, none, "f32.gt", [F32 F32 -> I32];
            F32Le = 0x5F, none, "f32.le", [F32 F32 -> I32];
            F32Ge = 0x60, none, "f32.ge", [F32 F32 -> I32];
            F64Eq = 0x61, none, "f64.eq", [F64 F64 -> I32];
            F64Ne = 0x62, none, "f64.ne", [F64 F64 -> I32];
            F64Lt = 0x63, none, "f64.lt", [F64 F64 -> I32];
            F64Gt = 0x64, none, "f64.gt", [F64 F64 -> I32];
            F64Le = 0x65, none, "f64.le", [F64 F64 -> I32];
            F64Ge = 0x66, none, "f64.ge", [F64 F64 -> I32];
            I32Clz = 0x67, none, "i32.clz", [I32 -> I32];
            I32Ctz = 0x68, none, "i32.ctz", [I32 -> I32];
            I32Popcnt = 0x69, none, "i32.popcnt", [I32 -> I32];
            I32Add = 0x6A, none, "i32.add", [I32 I32 -> I32];
            I32Sub = 0x6B, none, "i32.sub", [I32 I32 -> I32];
            I32Mul = 0x6C, none, "i32.mul", [I32 I32 -> I32];
            I32DivS = 0x6D, none, "i32.div_s", [I32 I32 -> I32];
            I32DivU = 0x6E, none, "i32.div_u", [I32 I32 -> I32];
            I32RemS = 0x6F, none, "i32.rem_s", [I32 I32 -> I32];
            I32RemU = 0x70, none, "i32.rem_u", [I32 I32 -> I32];
            I32And = 0x71, none, "i32.and", [I32 I32 -> I32];
            I32Or = 0x72, none, "i32.or", [I32 I32 -> I32];
            I32Xor = 0x73, none, "i32.xor", [I32 I32 -> I32];
            I32Shl = 0x74, none, "i32.shl", [I32 I32 -> I32];
            I32ShrS = 0x75, none, "i32.shr_s", [I32 I32 -> I32];
            I32ShrU = 0x76, none, "i32.shr_u", [I32 I32 -> I32];
            I32Rotl = 0x77, none, "i32.rotl", [I32 I32 -> I32];
            I32Rotr = 0x78, none, "i32.rotr", [I32 I32 -> I32];
            I64Clz = 0x79, none, "i64.clz", [I64 -> I64];
            I64Ctz = 0x7A, none, "i64.ctz", [I64 -> I64];
            I64Popcnt = 0x7B, none, "i64.popcnt", [I64 -> I64];
            I64Add = 0x7C, none, "i64.add", [I64 I64 -> I64];
            I64Sub = 0x7D, none, "i64.sub", [I64 I64 -> I64];
            I64Mul = 0x7E, none, "i64.mul", [I64 I64 -> I64];
            I64DivS = 0x7F, none, "i64.div_s", [I64 I64 -> I64];
            I64DivU = 0x80, none, "i64.div_u", [I64 I64 -> I64];
            I64RemS = 0x81, none, "i64.rem_s", [I64 I64 -> I64];
            I64RemU = 0x82, none, "i64.rem_u", [I64 I64 -> I64];
            I64And = 0x83, none, "i64.and", [I64 I64 -> I64];
            I64Or = 0x84, none, "i64.or", [I64 I64 -> I64];
            I64Xor = 0x85, none, "i64.xor", [I64 I64 -> I64];
            I64Shl = 0x86, none, "i64.shl", [I64 I64 -> I64];
            I64ShrS = 0x87, none, "i64.shr_s", [I64 I64 -> I64];
            I64ShrU = 0x88, none, "i64.shr_u", [I64 I64 -> I64];
            I64Rotl = 0x89, none, "i64.rotl", [I64 I64 -> I64];
            I64Rotr = 0x8A, none, "i64.rotr", [I64 I64 -> I64];
            F32Abs = 0x8B, none, "f32.abs", [F32 -> F32];
            F32Neg = 0x8C, none, "f32.neg", [F32 -> F32];
            F32Ceil = 0x8D, none, "f32.ceil", [F32 -> F32];
            F32Floor = 0x8E, none, "f32.floor", [F32 -> F32];
            F32Trunc = 0x8F, none, "f32.trunc", [F32 -> F32];
            F32Nearest = 0x90, none, "f32.nearest", [F32 -> F32];
            F32Sqrt = 0x91, none, "f32.sqrt", [F32 -> F32];
            F32Add = 0x92, none, "f32.add", [F32 F32 -> F32];
            F32Sub = 0x93, none, "f32.sub", [F32 F32 -> F32];
            F32Mul = 0x94, none, "f32.mul", [F32 F32 -> F32];
            F32Div = 0x95, none, "f32.div", [F32 F32 -> F32];
            F32Min = 0x96, none, "f32.min", [F32 F32 -> F32];
            F32Max = 0x97, none, "f32.max", [F32 F32 -> F32];
            F32Copysign = 0x98, none, "f32.copysign", [F32 F32 -> F32];
            F64Abs = 0x99, none, "f64.abs", [F64 -> F64];
            F64Neg = 0x9A, none, "f64.neg", [F64 -> F64];
            F64Ceil = 0x9B, none, "f64.ceil", [F64 -> F64];
            F64Floor = 0x9C, none, "f64.floor", [F64 -> F64];
            F64Trunc = 0x9D, none, "f64.trunc", [F64 -> F64];
            F64Nearest = 0x9E, none, "f64.nearest", [F64 -> F64];
            F64Sqrt = 0x9F, none, "f64.sqrt", [F64 -> F64];
            F64Add = 0xA0, none, "f64.add", [F64 F64 -> F64];
            F64Sub = 0xA1, none, "f64.sub", [F64 F64 -> F64];
            F64Mul = 0xA2, none, "f64.mul", [F64 F64 -> F64];
            F64Div = 0xA3, none, "f64.div", [F64 F64 -> F64];
            F64Min = 0xA4, none, "f64.min", [F64 F64 -> F64];
            F64Max = 0xA5, none, "f64.max", [F64 F64 -> F64];
            F64Copysign = 0xA6, none, "f64.copysign", [F64 F64 -> F64];
            I32WrapI64 = 0xA7, none, "i32.wrap_i64", [I64 -> I32];
            I32TruncF32S = 0xA8, none, "i32.trunc_f32_s", [F32 -> I32];
            I32TruncF32U = 0xA9, none, "i32.trunc_f32_u", [F32 -> I32];
            I32TruncF64S = 0xAA, none, "i32.trunc_f64_s", [F64 -> I32];
            I32TruncF64U = 0xAB, none, "i32.trunc_f64_u", [F64 -> I32];
            I64ExtendI32S = 0xAC, none, "i64.extend_i32_s", [I32 -> I64];
            I64ExtendI32U = 0xAD, none, "i64.extend_i32_u", [I32 -> I64];
            I64TruncF32S = 0xAE, none, "i64.trunc_f32_s", [F32 -> I64];
            I64TruncF32U = 0xAF, none, "i64.trunc_f32_u", [F32 -> I64];
            I64TruncF64S = 0xB0, none, "i64.trunc_f64_s", [F64 -> I64];
            I64TruncF64U = 0xB1, none, "i64.trunc_f64_u", [F64 -> I64];
            F32ConvertI32S = 0xB2, none, "f32.convert_i32_s", [I32 -> F32];
            F32ConvertI32U = 0xB3, none, "f32.convert_i32_u", [I32 -> F32];
            F32ConvertI64S = 0xB4, none, "f32.convert_i64_s", [I64 -> F32];
            F32ConvertI64U = 0xB5, none, "f32.convert_i64_u", [I64 -> F32];
            F32DemoteF64 = 0xB6, none, "f32.demote_f64", [F64 -> F32];
            F64ConvertI32S = 0xB7, none, "f64.convert_i32_s", [I32 -> F64];
            F64ConvertI32U = 0xB8, none, "f64.convert_i32_u", [I32 -> F64];
            F64ConvertI64S = 0xB9, none, "f64.convert_i64_s", [I64 -> F64];
            F64ConvertI64U = 0xBA, none, "f64.convert_i64_u", [I64 -> F64];
            F64PromoteF32 = 0xBB, none, "f64.promote_f32", [F32 -> F64];
            I32ReinterpretF32 = 0xBC, none, "i32.reinterpret_f32", [F32 -> I32];
            I64ReinterpretF64 = 0xBD, none, "i64.reinterpret_f64", [F64 -> I64];
            F32ReinterpretI32 = 0xBE, none, "f32.reinterpret_i32", [I32 -> F32];
            F64ReinterpretI64 = 0xBF, none, "f64.reinterpret_i64", [I64 -> F64];
            I32Extend8S = 0xC0, none, "i32.extend8_s", [I32 -> I32];
            I32Extend16S = 0xC1, none, "i32.extend16_s", [I32 -> I32];
            I64Extend8S = 0xC2, none, "i64.extend8_s", [I64 -> I64];
            I64Extend16S = 0xC3, none, "i64.extend16_s", [I64 -> I64];
            I64Extend32S = 0xC4, none, "i64.extend32_s", [I64 -> I64];
            RefNull = 0xD0, ref_null, "ref.null", special;
            RefIsNull = 0xD1, none, "ref.is_null", special;
            RefFunc = 0xD2, func, "ref.func", special;
            Try = 0x06, block, "try", special;
            Catch = 0x07, tag, "catch", special;
            Throw = 0x08, tag, "throw", special;
            Rethrow = 0x09, label, "rethrow", special;
            ThrowRef = 0x0A, none, "throw_ref", special;
            Delegate = 0x18, label, "delegate", special;
            CatchAll = 0x19, none, "catch_all", special;
            TryTable = 0x1F, try_table, "try_table", special;
        @0xFC
            I32TruncSatF32S = 0, none, "i32.trunc_sat_f32_s", [F32 -> I32];
            I32TruncSatF32U = 1, none, "i32.trunc_sat_f32_u", [F32 -> I32];
            I32TruncSatF64S = 2, none, "i32.trunc_sat_f64_s", [F64 -> I32];
            I32TruncSatF64U = 3, none, "i32.trunc_sat_f64_u", [F64 -> I32];
            I64TruncSatF32S = 4, none, "i64.trunc_sat_f32_s", [F32 -> I64];
            I64TruncSatF32U = 5, none, "i64.trunc_sat_f32_u", [F32 -> I64];
            I64TruncSatF64S = 6, none, "i64.trunc_sat_f64_s", [F64 -> I64];
            I64TruncSatF64U = 7, none, "i64.trunc_sat_f64_u", [F64 -> I64];
            MemoryInit = 8, memory_init, "memory.init", special;
            DataDrop = 9, data, "data.drop", special;
            MemoryCopy = 10, memory_copy, "memory.copy", special;
            MemoryFill = 11, zero, "memory.fill", special;
            TableInit = 12, table_init, "table.init", special;
            ElemDrop = 13, elem, "elem.drop", special;
            TableCopy = 14, table_copy, "table.copy", special;
            TableGrow = 15, table, "table.grow", special;
            TableSize = 16, table, "table.size", special;
            TableFill = 17, table, "table.fill", special;
        @0xFE
            MemoryAtomicNotify = 0x00, atomic(Notify, 2), "memory.atomic.notify", [I32 I32 -> I32];
            MemoryAtomicWait32 = 0x01, atomic(Wait, 2), "memory.atomic.wait32", [I32 I32 I64 -> I32];
            MemoryAtomicWait64 = 0x02, atomic(Wait, 3), "memory.atomic.wait64", [I32 I64 I64 -> I32];
            AtomicFence = 0x03, fence, "atomic.fence", [->];
            I32AtomicLoad = 0x10, atomic(Load, 2), "i32.atomic.load", [I32 -> I32];
            I64AtomicLoad = 0x11, atomic(Load, 3), "i64.atomic.load", [I32 -> I64];
            I32AtomicLoad8U = 0x12, atomic(Load, 0), "i32.atomic.load8_u", [I32 -> I32];
            I32AtomicLoad16U = 0x13, atomic(Load, 1), "i32.atomic.load16_u", [I32 -> I32];
            I64AtomicLoad8U = 0x14, atomic(Load, 0), "i64.atomic.load8_u", [I32 -> I64];
            I64AtomicLoad16U = 0x15, atomic(Load, 1), "i64.atomic.load16_u", [I32 -> I64];
            I64AtomicLoad32U = 0x16, atomic(Load, 2), "i64.atomic.load32_u", [I32 -> I64];
            I32AtomicStore = 0x17, atomic(Store, 2), "i32.atomic.store", [I32 I32 ->];
            I64AtomicStore = 0x18, atomic(Store, 3), "i64.atomic.store", [I32 I64 ->];
            I32AtomicStore8 = 0x19, atomic(Store, 0), "i32.atomic.store8", [I32 I32 ->];
            I32AtomicStore16 = 0x1A, atomic(Store, 1), "i32.atomic.store16", [I32 I32 ->];
            I64AtomicStore8 = 0x1B, atomic(Store, 0), "i64.atomic.store8", [I32 I64 ->];
            I64AtomicStore16 = 0x1C, atomic(Store, 1), "i64.atomic.store16", [I32 I64 ->];
            I64AtomicStore32 = 0x1D, atomic(Store, 2), "i64.atomic.store32", [I32 I64 ->];
            I32AtomicRmwAdd = 0x1E, atomic(Add, 2), "i32.atomic.rmw.add", [I32 I32 -> I32];
            I64AtomicRmwAdd = 0x1F, atomic(Add, 3), "i64.atomic.rmw.add", [I32 I64 -> I64];
            I32AtomicRmw8AddU = 0x20, atomic(Add, 0), "i32.atomic.rmw8.add_u", [I32 I32 -> I32];
            I32AtomicRmw16AddU = 0x21, atomic(Add, 1), "i32.atomic.rmw16.add_u", [I32 I32 -> I32];
            I64AtomicRmw8AddU = 0x22, atomic(Add, 0), "i64.atomic.rmw8.add_u", [I32 I64 -> I64];
            I64AtomicRmw16AddU = 0x23, atomic(Add, 1), "i64.atomic.rmw16.add_u", [I32 I64 -> I64];
            I64AtomicRmw32AddU = 0x24, atomic(Add, 2), "i64.atomic.rmw32.add_u", [I32 I64 -> I64];
            I32AtomicRmwSub = 0x25, atomic(Sub, 2), "i32.atomic.rmw.sub", [I32 I32 -> I32];
            I64AtomicRmwSub = 0x26, atomic(Sub, 3), "i64.atomic.rmw.sub", [I32 I64 -> I64];
            I32AtomicRmw8SubU = 0x27, atomic(Sub, 0), "i32.atomic.rmw8.sub_u", [I32 I32 -> I32];
            I32AtomicRmw16SubU = 0x28, atomic(Sub, 1), "i32.atomic.rmw16.sub_u", [I32 I32 -> I32];
            I64AtomicRmw8SubU = 0x29, atomic(Sub, 0), "i64.atomic.rmw8.sub_u", [I32 I64 -> I64];
            I64AtomicRmw16SubU = 0x2A, atomic(Sub, 1), "i64.atomic.rmw16.sub_u", [I32 I64 -> I64];
            I64AtomicRmw32SubU = 0x2B, atomic(Sub, 2), "i64.atomic.rmw32.sub_u", [I32 I64 -> I64];
            I32AtomicRmwAnd = 0x2C, atomic(And, 2), "i32.atomic.rmw.and", [I32 I32 -> I32];
            I64AtomicRmwAnd = 0x2D, atomic(And, 3), "i64.atomic.rmw.and", [I32 I64 -> I64];
            I32AtomicRmw8AndU = 0x2E, atomic(And, 0), "i32.atomic.rmw8.and_u", [I32 I32 -> I32];
            I32AtomicRmw16AndU = 0x2F, atomic(And, 1), "i32.atomic.rmw16.and_u", [I32 I32 -> I32];
            I64AtomicRmw8AndU = 0x30, atomic(And, 0), "i64.atomic.rmw8.and_u", [I32 I64 -> I64];
            I64AtomicRmw16AndU = 0x31, atomic(And, 1), "i64.atomic.rmw16.and_u", [I32 I64 -> I64];
            I64AtomicRmw32AndU = 0x32, atomic(And, 2), "i64.atomic.rmw32.and_u", [I32 I64 -> I64];
            I32AtomicRmwOr = 0x33, atomic(Or, 2), "i32.atomic.rmw.or", [I32 I32 -> I32];
            I64AtomicRmwOr = 0x34, atomic(Or, 3), "i64.atomic.rmw.or", [I32 I64 -> I64];
            I32AtomicRmw8OrU = 0x35, atomic(Or, 0), "i32.atomic.rmw8.or_u", [I32 I32 -> I32];
            I32AtomicRmw16OrU = 0x36, atomic(Or, 1), "i32.atomic.rmw16.or_u", [I32 I32 -> I32];
            I64AtomicRmw8OrU = 0x37, atomic(Or, 0), "i64.atomic.rmw8.or_u", [I32 I64 -> I64];
            I64AtomicRmw16OrU = 0x38, atomic(Or, 1), "i64.atomic.rmw16.or_u", [I32 I64 -> I64];
            I64AtomicRmw32OrU = 0x39, atomic(Or, 2), "i64.atomic.rmw32.or_u", [I32 I64 -> I64];
            I32AtomicRmwXor = 0x3A, atomic(Xor, 2), "i32.atomic.rmw.xor", [I32 I32 -> I32];
            I64AtomicRmwXor = 0x3B, atomic(Xor, 3), "i64.atomic.rmw.xor", [I32 I64 -> I64];
            I32AtomicRmw8XorU = 0x3C, atomic(Xor, 0), "i32.atomic.rmw8.xor_u", [I32 I32 -> I32];
            I32AtomicRmw16XorU = 0x3D, atomic(Xor, 1), "i32.atomic.rmw16.xor_u", [I32 I32 -> I32];
            I64AtomicRmw8XorU = 0x3E, atomic(Xor, 0), "i64.atomic.rmw8.xor_u", [I32 I64 -> I64];
            I64AtomicRmw16XorU = 0x3F, atomic(Xor, 1), "i64.atomic.rmw16.xor_u", [I32 I64 -> I64];
            I64AtomicRmw32XorU = 0x40, atomic(Xor, 2), "i64.atomic.rmw32.xor_u", [I32 I64 -> I64];
            I32AtomicRmwXchg = 0x41, atomic(Xchg, 2), "i32.atomic.rmw.xchg", [I32 I32 -> I32];
            I64AtomicRmwXchg = 0x42, atomic(Xchg, 3), "i64.atomic.rmw.xchg", [I32 I64 -> I64];
            I32AtomicRmw8XchgU = 0x43, atomic(Xchg, 0), "i32.atomic.rmw8.xchg_u", [I32 I32 -> I32];
            I32AtomicRmw16XchgU = 0x44, atomic(Xchg, 1), "i32.atomic.rmw16.xchg_u", [I32 I32 -> I32];
            I64AtomicRmw8XchgU = 0x45, atomic(Xchg, 0), "i64.atomic.rmw8.xchg_u", [I32 I64 -> I64];
            I64AtomicRmw16XchgU = 0x46, atomic(Xchg, 1), "i64.atomic.rmw16.xchg_u", [I32 I64 -> I64];
            I64AtomicRmw32XchgU = 0x47, atomic(Xchg, 2), "i64.atomic.rmw32.xchg_u", [I32 I64 -> I64];
            I32AtomicRmwCmpxchg = 0x48, atomic(Cmpxchg, 2), "i32.atomic.rmw.cmpxchg", [I32 I32 I32 -> I32];
            I64AtomicRmwCmpxchg = 0x49, atomic(Cmpxchg, 3), "i64.atomic.rmw.cmpxchg", [I32 I64 I64 -> I64];
            I32AtomicRmw8CmpxchgU = 0x4A, atomic(Cmpxchg, 0), "i32.atomic.rmw8.cmpxchg_u", [I32 I32 I32 -> I32];
            I32AtomicRmw16CmpxchgU = 0x4B, atomic(Cmpxchg, 1), "i32.atomic.rmw16.cmpxchg_u", [I32 I32 I32 -> I32];
            I64AtomicRmw8CmpxchgU = 0x4C, atomic(Cmpxchg, 0), "i64.atomic.rmw8.cmpxchg_u", [I32 I64 I64 -> I64];
            I64AtomicRmw16CmpxchgU = 0x4D, atomic(Cmpxchg, 1), "i64.atomic.rmw16.cmpxchg_u", [I32 I64 I64 -> I64];
            I64AtomicRmw32CmpxchgU = 0x4E, atomic(Cmpxchg, 2), "i64.atomic.rmw32.cmpxchg_u", [I32 I64 I64 -> I64];
        @0xFD
            V128Load = 0, mem(4), "v128.load", [I32 -> V128];
            V128Load8x8S = 1, mem(3), "v128.load8x8_s", [I32 -> V128];
            V128Load8x8U = 2, mem(3), "v128.load8x8_u", [I32 -> V128];
            V128Load16x4S = 3, mem(3), "v128.load16x4_s", [I32 -> V128];
            V128Load16x4U = 4, mem(3), "v128.load16x4_u", [I32 -> V128];
            V128Load32x2S = 5, mem(3), "v128.load32x2_s", [I32 -> V128];
            V128Load32x2U = 6, mem(3), "v128.load32x2_u", [I32 -> V128];
            V128Load8Splat = 7, mem(0), "v128.load8_splat", [I32 -> V128];
            V128Load16Splat = 8, mem(1), "v128.load16_splat", [I32 -> V128];
            V128Load32Splat = 9, mem(2), "v128.load32_splat", [I32 -> V128];
            V128Load64Splat = 10, mem(3), "v128.load64_splat", [I32 -> V128];
            V128Store = 11, mem(4), "v128.store", [I32 V128 ->];
            V128Const = 12, v128, "v128.const", [-> V128];
            I8x16Shuffle = 13, shuffle, "i8x16.shuffle", [V128 V128 -> V128];
            I8x16Swizzle = 14, none, "i8x16.swizzle", [V128 V128 -> V128];
            I8x16Splat = 15, none, "i8x16.splat", [I32 -> V128];
            I16x8Splat = 16, none, "i16x8.splat", [I32 -> V128];
            I32x4Splat = 17, none, "i32x4.splat", [I32 -> V128];
            I64x2Splat = 18, none, "i64x2.splat", [I64 -> V128];
            F32x4Splat = 19, none, "f32x4.splat", [F32 -> V128];
            F64x2Splat = 20, none, "f64x2.splat", [F64 -> V128];
            I8x16ExtractLaneS = 21, lane(16), "i8x16.extract_lane_s", [V128 -> I32];
            I8x16ExtractLaneU = 22, lane(16), "i8x16.extract_lane_u", [V128 -> I32];
            I8x16ReplaceLane = 23, lane(16), "i8x16.replace_lane", [V128 I32 -> V128];
            I16x8ExtractLaneS = 24, lane(8), "i16x8.extract_lane_s", [V128 -> I32];
            I16x8ExtractLaneU = 25, lane(8), "i16x8.extract_lane_u", [V128 -> I32];
            I16x8ReplaceLane = 26, lane(8), "i16x8.replace_lane", [V128 I32 -> V128];
            I32x4ExtractLane = 27, lane(4), "i32x4.extract_lane", [V128 -> I32];
            I32x4ReplaceLane = 28, lane(4), "i32x4.replace_lane", [V128 I32 -> V128];
            I64x2ExtractLane = 29, lane(2), "i64x2.extract_lane", [V128 -> I64];
            I64x2ReplaceLane = 30, lane(2), "i64x2.replace_lane", [V128 I64 -> V128];
            F32x4ExtractLane = 31, lane(4), "f32x4.extract_lane", [V128 -> F32];
            F32x4ReplaceLane = 32, lane(4), "f32x4.replace_lane", [V128 F32 -> V128];
            F64x2ExtractLane = 33, lane(2), "f64x2.extract_lane", [V128 -> F64];
            F64x2ReplaceLane = 34, lane(2), "f64x2.replace_lane", [V128 F64 -> V128];
            I8x16Eq = 35, none, "i8x16.eq", [V128 V128 -> V128];
            I8x16Ne = 36, none, "i8x16.ne", [V128 V128 -> V128];
            I8x16LtS = 37, none, "i8x16.lt_s", [V128 V128 -> V128];
            I8x16LtU = 38, none, "i8x16.lt_u", [V128 V128 -> V128];
            I8x16GtS = 39, none, "i8x16.gt_s", [V128 V128 -> V128];
            I8x16GtU = 40, none, "i8x16.gt_u", [V128 V128 -> V128];
            I8x16LeS = 41, none, "i8x16.le_s", [V128 V128 -> V128];
            I8x16LeU = 42, none, "i8x16.le_u", [V128 V128 -> V128];
            I8x16GeS = 43, none, "i8x16.ge_s", [V128 V128 -> V128];
            I8x16GeU = 44, none, "i8x16.ge_u", [V128 V128 -> V128];
            I16x8Eq = 45, none, "i16x8.eq", [V128 V128 -> V128];
            I16x8Ne = 46, none, "i16x8.ne", [V128 V128 -> V128];
            I16x8LtS = 47, none, "i16x8.lt_s", [V128 V128 -> V128];
            I16x8LtU = 48, none, "i16x8.lt_u", [V128 V128 -> V128];
            I16x8GtS = 49, none, "i16x8.gt_s", [V128 V128 -> V128];
            I16x8GtU = 50, none, "i16x8.gt_u", [V128 V128 -> V128];
            I16x8LeS = 51, none, "i16x8.le_s", [V128 V128 -> V128];
            I16x8LeU = 52, none, "i16x8.le_u", [V128 V128 -> V128];
            I16x8GeS = 53, none, "i16x8.ge_s", [V128 V128 -> V128];
            I16x8GeU = 54, none, "i16x8.ge_u", [V128 V128 -> V128];
            I32x4Eq = 55, none, "i32x4.eq", [V128 V128 -> V128];
            I32x4Ne = 56, none, "i32x4.ne", [V128 V128 -> V128];
            I32x4LtS = 57, none, "i32x4.lt_s", [V128 V128 -> V128];
            I32x4LtU = 58, none, "i32x4.lt_u", [V128 V128 -> V128];
            I32x4GtS = 59, none, "i32x4.gt_s", [V128 V128 -> V128];
            I32x4GtU = 60, none, "i32x4.gt_u", [V128 V128 -> V128];
            I32x4LeS = 61, none, "i32x4.le_s", [V128 V128 -> V128];
            I32x4LeU = 62, none, "i32x4.le_u", [V128 V128 -> V128];
            I32x4GeS = 63, none, "i32x4.ge_s", [V128 V128 -> V128];
            I32x4GeU = 64, none, "i32x4.ge_u", [V128 V128 -> V128];
            F32x4Eq = 65, none, "f32x4.eq", [V128 V128 -> V128];
            F32x4Ne = 66, none, "f32x4.ne", [V128 V128 -> V128];
            F32x4Lt = 67, none, "f32x4.lt", [V128 V128 -> V128];
            F32x4Gt = 68, none, "f32x4.gt", [V128 V128 -> V128];
            F32x4Le = 69, none, "f32x4.le", [V128 V128 -> V128];
            F32x4Ge = 70, none, "f32x4.ge", [V128 V128 -> V128];
            F64x2Eq = 71, none, "f64x2.eq", [V128 V128 -> V128];
            F64x2Ne = 72, none, "f64x2.ne", [V128 V128 -> V128];
            F64x2Lt = 73, none, "f64x2.lt", [V128 V128 -> V128];
            F64x2Gt = 74, none, "f64x2.gt", [V128 V128 -> V128];
            F64x2Le = 75, none, "f64x2.le", [V128 V128 -> V128];
            F64x2Ge = 76, none, "f64x2.ge", [V128 V128 -> V128];
            V128Not = 77, none, "v128.not", [V128 -> V128];
            V128And = 78, none, "v128.and", [V128 V128 -> V128];
            V128AndNot = 79, none, "v128.andnot", [V128 V128 -> V128];
            V128Or = 80, none, "v128.or", [V128 V128 -> V128];
            V128Xor = 81, none, "v128.xor", [V128 V128 -> V128];
            V128Bitselect = 82, none, "v128.bitselect", [V128 V128 V128 -> V128];
            V128AnyTrue = 83, none, "v128.any_true", [V128 -> I32];
            V128Load8Lane = 84, mem_lane(0), "v128.load8_lane", [I32 V128 -> V128];
            V128Load16Lane = 85, mem_lane(1), "v128.load16_lane", [I32 V128 -> V128];
            V128Load32Lane = 86, mem_lane(2), "v128.load32_lane", [I32 V128 -> V128];
            V128Load64Lane = 87, mem_lane(3), "v128.load64_lane", [I32 V128 -> V128];
            V128Store8Lane = 88, mem_lane(0), "v128.store8_lane", [I32 V128 ->];
            V128Store16Lane = 89, mem_lane(1), "v128.store16_lane", [I32 V128 ->];
            V128Store32Lane = 90, mem_lane(2), "v128.store32_lane", [I32 V128 ->];
            V128Store64Lane = 91, mem_lane(3), "v128.store64_lane", [I32 V128 ->];
            V128Load32Zero = 92, mem(2), "v128.load32_zero", [I32 -> V128];
            V128Load64Zero = 93, mem(3), "v128.load64_zero", [I32 -> V128];
            F32x4DemoteF64x2Zero = 94, none, "f32x4.demote_f64x2_zero", [V128 -> V128];
            F64x2PromoteLowF32x4 = 95, none, "f64x2.promote_low_f32x4", [V128 -> V128];
            I8x16Abs = 96, none, "i8x16.abs", [V128 -> V128];
            I8x16Neg = 97, none, "i8x16.neg", [V128 -> V128];
            I8x16Popcnt = 98, none, "i8x16.popcnt", [V128 -> V128];
            I8x16AllTrue = 99, none, "i8x16.all_true", [V128 -> I32];
            I8x16Bitmask = 100, none, "i8x16.bitmask", [V128 -> I32];
            I8x16NarrowI16x8S = 101, none, "i8x16.narrow_i16x8_s", [V128 V128 -> V128];
            I8x16NarrowI16x8U = 102, none, "i8x16.narrow_i16x8_u", [V128 V128 -> V128];
            F32x4Ceil = 103, none, "f32x4.ceil", [V128 -> V128];
            F32x4Floor = 104, none, "f32x4.floor", [V128 -> V128];
            F32x4Trunc = 105, none, "f32x4.trunc", [V128 -> V128];
            F32x4Nearest = 106, none, "f32x4.nearest", [V128 -> V128];
            I8x16Shl = 107, none, "i8x16.shl", [V128 I32 -> V128];
            I8x16ShrS = 108, none, "i8x16.shr_s", [V128 I32 -> V128];
            I8x16ShrU = 109, none, "i8x16.shr_u", [V128 I32 -> V128];
            I8x16Add = 110, none, "i8x16.add", [V128 V128 -> V128];
            I8x16AddSatS = 111, none, "i8x16.add_sat_s", [V128 V128 -> V128];
            I8x16AddSatU = 112, none, "i8x16.add_sat_u", [V128 V128 -> V128];
            I8x16Sub = 113, none, "i8x16.sub", [V128 V128 -> V128];
            I8x16SubSatS = 114, none, "i8x16.sub_sat_s", [V128 V128 -> V128];
            I8x16SubSatU = 115, none, "i8x16.sub_sat_u", [V128 V128 -> V128];
            F64x2Ceil = 116, none, "f64x2.ceil", [V128 -> V128];
            F64x2Floor = 117, none, "f64x2.floor", [V128 -> V128];
            I8x16MinS = 118, none, "i8x16.min_s", [V128 V128 -> V128];
            I8x16MinU = 119, none, "i8x16.min_u", [V128 V128 -> V128];
            I8x16MaxS = 120, none, "i8x16.max_s", [V128 V128 -> V128];
            I8x16MaxU = 121, none, "i8x16.max_u", [V128 V128 -> V128];
            F64x2Trunc = 122, none, "f64x2.trunc", [V128 -> V128];
            I8x16AvgrU = 123, none, "i8x16.avgr_u", [V128 V128 -> V128];
            I16x8ExtAddPairwiseI8x16S = 124, none, "i16x8.extadd_pairwise_i8x16_s", [V128 -> V128];
            I16x8ExtAddPairwiseI8x16U = 125, none, "i16x8.extadd_pairwise_i8x16_u", [V128 -> V128];
            I32x4ExtAddPairwiseI16x8S = 126, none, "i32x4.extadd_pairwise_i16x8_s", [V128 -> V128];
            I32x4ExtAddPairwiseI16x8U = 127, none, "i32x4.extadd_pairwise_i16x8_u", [V128 -> V128];
            I16x8Abs = 128, none, "i16x8.abs", [V128 -> V128];
            I16x8Neg = 129, none, "i16x8.neg", [V128 -> V128];
            I16x8Q15MulrSatS = 130, none, "i16x8.q15mulr_sat_s", [V128 V128 -> V128];
            I16x8AllTrue = 131, none, "i16x8.all_true", [V128 -> I32];
            I16x8Bitmask = 132, none, "i16x8.bitmask", [V128 -> I32];
            I16x8NarrowI32x4S = 133, none, "i16x8.narrow_i32x4_s", [V128 V128 -> V128];
            I16x8NarrowI32x4U = 134, none, "i16x8.narrow_i32x4_u", [V128 V128 -> V128];
            I16x8ExtendLowI8x16S = 135, none, "i16x8.extend_low_i8x16_s", [V128 -> V128];
            I16x8ExtendHighI8x16S = 136, none, "i16x8.extend_high_i8x16_s", [V128 -> V128];
            I16x8ExtendLowI8x16U = 137, none, "i16x8.extend_low_i8x16_u", [V128 -> V128];
            I16x8ExtendHighI8x16U = 138, none, "i16x8.extend_high_i8x16_u", [V128 -> V128];
            I16x8Shl = 139, none, "i16x8.shl", [V128 I32 -> V128];
            I16x8ShrS = 140, none, "i16x8.shr_s", [V128 I32 -> V128];
            I16x8ShrU = 141, none, "i16x8.shr_u", [V128 I32 -> V128];
            I16x8Add = 142, none, "i16x8.add", [V128 V128 -> V128];
            I16x8AddSatS = 143, none, "i16x8.add_sat_s", [V128 V128 -> V128];
            I16x8AddSatU = 144, none, "i16x8.add_sat_u", [V128 V128 -> V128];
            I16x8Sub = 145, none, "i16x8.sub", [V128 V128 -> V128];
            I16x8SubSatS = 146, none, "i16x8.sub_sat_s", [V128 V128 -> V128];
            I16x8SubSatU = 147, none, "i16x8.sub_sat_u", [V128 V128 -> V128];
            F64x2Nearest = 148, none, "f64x2.nearest", [V128 -> V128];
            I16x8Mul = 149, none, "i16x8.mul", [V128 V128 -> V128];
            I16x8MinS = 150, none, "i16x8.min_s", [V128 V128 -> V128];
            I16x8MinU = 151, none, "i16x8.min_u", [V128 V128 -> V128];
            I16x8MaxS = 152, none, "i16x8.max_s", [V128 V128 -> V128];
            I16x8MaxU = 153, none, "i16x8.max_u", [V128 V128 -> V128];
            I16x8AvgrU = 155, none, "i16x8.avgr_u", [V128 V128 -> V128];
            I16x8ExtMulLowI8x16S = 156, none, "i16x8.extmul_low_i8x16_s", [V128 V128 -> V128];
            I16x8ExtMulHighI8x16S = 157, none, "i16x8.extmul_high_i8x16_s", [V128 V128 -> V128];
            I16x8ExtMulLowI8x16U = 158, none, "i16x8.extmul_low_i8x16_u", [V128 V128 -> V128];
            I16x8ExtMulHighI8x16U = 159, none, "i16x8.extmul_high_i8x16_u", [V128 V128 -> V128];
            I32x4Abs = 160, none, "i32x4.abs", [V128 -> V128];
            I32x4Neg = 161, none, "i32x4.neg", [V128 -> V128];
            I32x4AllTrue = 163, none, "i32x4.all_true", [V128 -> I32];
            I32x4Bitmask = 164, none, "i32x4.bitmask", [V128 -> I32];
            I32x4ExtendLowI16x8S = 167, none, "i32x4.extend_low_i16x8_s", [V128 -> V128];
            I32x4ExtendHighI16x8S = 168, none, "i32x4.extend_high_i16x8_s", [V128 -> V128];
            I32x4ExtendLowI16x8U = 169, none, "i32x4.extend_low_i16x8_u", [V128 -> V128];
            I32x4ExtendHighI16x8U = 170, none, "i32x4.extend_high_i16x8_u", [V128 -> V128];
            I32x4Shl = 171, none, "i32x4.shl", [V128 I32 -> V128];
            I32x4ShrS = 172, none, "i32x4.shr_s", [V128 I32 -> V128];
            I32x4ShrU = 173, none, "i32x4.shr_u", [V128 I32 -> V128];
            I32x4Add = 174, none, "i32x4.add", [V128 V128 -> V128];
            I32x4Sub = 177, none, "i32x4.sub", [V128 V128 -> V128];
            I32x4Mul = 181, none, "i32x4.mul", [V128 V128 -> V128];
            I32x4MinS = 182, none, "i32x4.min_s", [V128 V128 -> V128];
            I32x4MinU = 183, none, "i32x4.min_u", [V128 V128 -> V128];
            I32x4MaxS = 184, none, "i32x4.max_s", [V128 V128 -> V128];
            I32x4MaxU = 185, none, "i32x4.max_u", [V128 V128 -> V128];
            I32x4DotI16x8S = 186, none, "i32x4.dot_i16x8_s", [V128 V128 -> V128];
            I32x4ExtMulLowI16x8S = 188, none, "i32x4.extmul_low_i16x8_s", [V128 V128 -> V128];
            I32x4ExtMulHighI16x8S = 189, none, "i32x4.extmul_high_i16x8_s", [V128 V128 -> V128];
            I32x4ExtMulLowI16x8U = 190, none, "i32x4.extmul_low_i16x8_u", [V128 V128 -> V128];
            I32x4ExtMulHighI16x8U = 191, none, "i32x4.extmul_high_i16x8_u", [V128 V128 -> V128];
            I64x2Abs = 192, none, "i64x2.abs", [V128 -> V128];
            I64x2Neg = 193, none, "i64x2.neg", [V128 -> V128];
            I64x2AllTrue = 195, none, "i64x2.all_true", [V128 -> I32];
            I64x2Bitmask = 196, none, "i64x2.bitmask", [V128 -> I32];
            I64x2ExtendLowI32x4S = 199, none, "i64x2.extend_low_i32x4_s", [V128 -> V128];
            I64x2ExtendHighI32x4S = 200, none, "i64x2.extend_high_i32x4_s", [V128 -> V128];
            I64x2ExtendLowI32x4U = 201, none, "i64x2.extend_low_i32x4_u", [V128 -> V128];
            I64x2ExtendHighI32x4U = 202, none, "i64x2.extend_high_i32x4_u", [V128 -> V128];
            I64x2Shl = 203, none, "i64x2.shl", [V128 I32 -> V128];
            I64x2ShrS = 204, none, "i64x2.shr_s", [V128 I32 -> V128];
            I64x2ShrU = 205, none, "i64x2.shr_u", [V128 I32 -> V128];
            I64x2Add = 206, none, "i64x2.add", [V128 V128 -> V128];
            I64x2Sub = 209, none, "i64x2.sub", [V128 V128 -> V128];
            I64x2Mul = 213, none, "i64x2.mul", [V128 V128 -> V128];
            I64x2Eq = 214, none, "i64x2.eq", [V128 V128 -> V128];
            I64x2Ne = 215, none, "i64x2.ne", [V128 V128 -> V128];
            I64x2LtS = 216, none, "i64x2.lt_s", [V128 V128 -> V128];
            I64x2GtS = 217, none, "i64x2.gt_s", [V128 V128 -> V128];
            I64x2LeS = 218, none, "i64x2.le_s", [V128 V128 -> V128];
            I64x2GeS = 219, none, "i64x2.ge_s", [V128 V128 -> V128];
            I64x2ExtMulLowI32x4S = 220, none, "i64x2.extmul_low_i32x4_s", [V128 V128 -> V128];
            I64x2ExtMulHighI32x4S = 221, none, "i64x2.extmul_high_i32x4_s", [V128 V128 -> V128];
            I64x2ExtMulLowI32x4U = 222, none, "i64x2.extmul_low_i32x4_u", [V128 V128 -> V128];
            I64x2ExtMulHighI32x4U = 223, none, "i64x2.extmul_high_i32x4_u", [V128 V128 -> V128];
            F32x4Abs = 224, none, "f32x4.abs", [V128 -> V128];
            F32x4Neg = 225, none, "f32x4.neg", [V128 -> V128];
            F32x4Sqrt = 227, none, "f32x4.sqrt", [V128 -> V128];
            F32x4Add = 228, none, "f32x4.add", [V128 V128 -> V128];
            F32x4Sub = 229, none, "f32x4.sub", [V128 V128 -> V128];
            F32x4Mul = 230, none, "f32x4.mul", [V128 V128 -> V128];
            F32x4Div = 231, none, "f32x4.div", [V128 V128 -> V128];
            F32x4Min = 232, none, "f32x4.min", [V128 V128 -> V128];
            F32x4Max = 233, none, "f32x4.max", [V128 V128 -> V128];
            F32x4PMin = 234, none, "f32x4.pmin", [V128 V128 -> V128];
            F32x4PMax = 235, none, "f32x4.pmax", [V128 V128 -> V128];
            F64x2Abs = 236, none, "f64x2.abs", [V128 -> V128];
            F64x2Neg = 237, none, "f64x2.neg", [V128 -> V128];
            F64x2Sqrt = 239, none, "f64x2.sqrt", [V128 -> V128];
            F64x2Add = 240, none, "f64x2.add", [V128 V128 -> V128];
            F64x2Sub = 241, none, "f64x2.sub", [V128 V128 -> V128];
            F64x2Mul = 242, none, "f64x2.mul", [V128 V128 -> V128];
            F64x2Div = 243, none, "f64x2.div", [V128 V128 -> V128];
            F64x2Min = 244, none, "f64x2.min", [V128 V128 -> V128];
            F64x2Max = 245, none, "f64x2.max", [V128 V128 -> V128];
            F64x2PMin = 246, none, "f64x2.pmin", [V128 V128 -> V128];
            F64x2PMax = 247, none, "f64x2.pmax", [V128 V128 -> V128];
            I32x4TruncSatF32x4S = 248, none, "i32x4.trunc_sat_f32x4_s", [V128 -> V128];
            I32x4TruncSatF32x4U = 249, none, "i32x4.trunc_sat_f32x4_u", [V128 -> V128];
            F32x4ConvertI32x4S = 250, none, "f32x4.convert_i32x4_s", [V128 -> V128];
            F32x4ConvertI32x4U = 251, none, "f32x4.convert_i32x4_u", [V128 -> V128];
            I32x4TruncSatF64x2SZero = 252, none, "i32x4.trunc_sat_f64x2_s_zero", [V128 -> V128];
            I32x4TruncSatF64x2UZero = 253, none, "i32x4.trunc_sat_f64x2_u_zero", [V128 -> V128];
            F64x2ConvertLowI32x4S = 254, none, "f64x2.convert_low_i32x4_s", [V128 -> V128];
            F64x2ConvertLowI32x4U = 255, none, "f64x2.convert_low_i32x4_u", [V128 -> V128];
        }
    };
}

/// What follows an operator's opcode in the binary (see [`for_each_operator`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ImmKind {
    None,
    Tag,
    TryTable,
    Block,
    Label,
    BrTable,
    Func,
    CallIndirect,
    Local,
    Global,
    Table,
    /// A memarg; the natural alignment as a power of two.
    Mem(u8),
    Zero,
    I32,
    I64,
    F32,
    F64,
    V128,
    Shuffle,
    /// A lane index below the given lane count.
    Lane(u8),
    /// A memarg (natural alignment as a power of two), then a lane index.
    MemLane(u8),
    SelectT,
    RefNull,
    MemoryInit,
    Data,
    MemoryCopy,
    TableInit,
    Elem,
    TableCopy,
    /// The memarg of an atomic operator: its class and its alignment, which must be exactly
    /// the access width, as a power of two (1 to 8 bytes).
    Atomic(AtomicClass, u8),
    /// `atomic.fence`'s reserved zero byte.
    Fence,
}

/// What an atomic operator of the threads proposal does with the `2^A` bytes its memarg names
/// (the proposal's overview, "Atomic Memory Accesses" and "Wait and Notify operators"). The
/// width, not the value type, decides the rest: an `i64` operation on 4 bytes works on the
/// low 32 bits of its operands and zero-extends what it returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AtomicClass {
    /// `t.atomic.load`: the bytes, zero-extended.
    Load,
    /// `t.atomic.store`: the operand's low bytes.
    Store,
    /// `t.atomic.rmw.add`: old + operand (wrapping); returns the old value, as every
    /// read-modify-write does.
    Add,
    /// `t.atomic.rmw.sub`: old − operand (wrapping).
    Sub,
    /// `t.atomic.rmw.and`.
    And,
    /// `t.atomic.rmw.or`.
    Or,
    /// `t.atomic.rmw.xor`.
    Xor,
    /// `t.atomic.rmw.xchg`: the operand replaces the old value.
    Xchg,
    /// `t.atomic.rmw.cmpxchg`: the replacement is written when the old value equals the
    /// expected one (both cut to the width); the old value is returned either way.
    Cmpxchg,
    /// `memory.atomic.wait32`, `wait64`: compares, then waits or not.
    Wait,
    /// `memory.atomic.notify`: wakes waiters (there are none), returns how many.
    Notify,
}

/// An operator's fixed type, packed in 16 bits: four 4-bit fields, the three parameters and
/// the result, each `1 + ValType` or 0 for none. `u16::MAX` marks an operator the validator
/// types itself. Every fixed-type operator of 2.0 has at most three parameters and one result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sig(u16);

impl Sig {
    /// The operator is typed by the validator's own rules.
    pub(crate) const SPECIAL: Sig = Sig(u16::MAX);

    const fn new(params: &[ValType], result: &[ValType]) -> Sig {
        let mut bits = 0u16;
        let mut i = 0;
        while i < params.len() {
            bits |= (params[i] as u16 + 1) << (4 * i);
            i += 1;
        }
        if !result.is_empty() {
            bits |= (result[0] as u16 + 1) << 12;
        }
        Sig(bits)
    }

    /// Whether the validator types the operator itself.
    pub(crate) fn is_special(self) -> bool {
        self == Sig::SPECIAL
    }

    fn field(self, i: u32) -> Option<ValType> {
        match (self.0 >> (4 * i)) & 0xF {
            0 => None,
            n => Some(super::types::ALL_VAL_TYPES[n as usize - 1]),
        }
    }

    /// The parameters, in order.
    pub(crate) fn params(self) -> impl DoubleEndedIterator<Item = ValType> {
        let n = (0..3).take_while(|&i| self.field(i).is_some()).count() as u32;
        (0..n).filter_map(move |i| self.field(i))
    }

    /// The result, if any.
    pub(crate) fn result(self) -> Option<ValType> {
        self.field(3)
    }
}

/// What the table says of one operator.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Info {
    pub(crate) imm: ImmKind,
    pub(crate) sig: Sig,
}

macro_rules! imm_kind {
    (none) => {
        ImmKind::None
    };
    (block) => {
        ImmKind::Block
    };
    (label) => {
        ImmKind::Label
    };
    (br_table) => {
        ImmKind::BrTable
    };
    (func) => {
        ImmKind::Func
    };
    (call_indirect) => {
        ImmKind::CallIndirect
    };
    (local) => {
        ImmKind::Local
    };
    (global) => {
        ImmKind::Global
    };
    (table) => {
        ImmKind::Table
    };
    (mem($a:literal)) => {
        ImmKind::Mem($a)
    };
    (zero) => {
        ImmKind::Zero
    };
    (i32) => {
        ImmKind::I32
    };
    (i64) => {
        ImmKind::I64
    };
    (f32) => {
        ImmKind::F32
    };
    (f64) => {
        ImmKind::F64
    };
    (v128) => {
        ImmKind::V128
    };
    (shuffle) => {
        ImmKind::Shuffle
    };
    (lane($n:literal)) => {
        ImmKind::Lane($n)
    };
    (mem_lane($a:literal)) => {
        ImmKind::MemLane($a)
    };
    (select_t) => {
        ImmKind::SelectT
    };
    (ref_null) => {
        ImmKind::RefNull
    };
    (memory_init) => {
        ImmKind::MemoryInit
    };
    (data) => {
        ImmKind::Data
    };
    (memory_copy) => {
        ImmKind::MemoryCopy
    };
    (table_init) => {
        ImmKind::TableInit
    };
    (elem) => {
        ImmKind::Elem
    };
    (table_copy) => {
        ImmKind::TableCopy
    };
    (atomic($c:ident, $a:literal)) => {
        ImmKind::Atomic(AtomicClass::$c, $a)
    };
    (fence) => {
        ImmKind::Fence
    };
    (tag) => {
        ImmKind::Tag
    };
    (try_table) => {
        ImmKind::TryTable
    };
}

macro_rules! sig {
    (special) => { Sig::SPECIAL };
    ([$($p:ident)* -> $($r:ident)*]) => { Sig::new(&[$(ValType::$p),*], &[$(ValType::$r),*]) };
}

macro_rules! define_operators {
    (
        $( $p:ident = $pc:literal, $pimm:ident $(($($parg:tt)*))?, $ptext:literal, $psig:tt; )*
        @0xFC
        $( $c:ident = $cc:literal, $cimm:ident $(($($carg:tt)*))?, $ctext:literal, $csig:tt; )*
        @0xFE
        $( $e:ident = $ec:literal, $eimm:ident $(($($earg:tt)*))?, $etext:literal, $esig:tt; )*
        @0xFD
        $( $d:ident = $dc:literal, $dimm:ident $(($($darg:tt)*))?, $dtext:literal, $dsig:tt; )*
    ) => {
        /// An operator of WebAssembly 2.0 or of the threads proposal, without its immediates.
        /// Generated from the operator table of `src/wasm/binary/operators.rs`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(u16)]
        #[allow(missing_docs)]
        pub enum Operator {
            $($p,)*
            $($c,)*
            $($e,)*
            $($d,)*
        }

        /// Text names, by [`Operator`] discriminant.
        static NAMES: &[&str] = &[$($ptext,)* $($ctext,)* $($etext,)* $($dtext,)*];

        /// Immediates and types, by [`Operator`] discriminant.
        static INFO: &[Info] = &[
            $(Info { imm: imm_kind!($pimm $(($($parg)*))?), sig: sig!($psig) },)*
            $(Info { imm: imm_kind!($cimm $(($($carg)*))?), sig: sig!($csig) },)*
            $(Info { imm: imm_kind!($eimm $(($($earg)*))?), sig: sig!($esig) },)*
            $(Info { imm: imm_kind!($dimm $(($($darg)*))?), sig: sig!($dsig) },)*
        ];

        /// One-byte opcodes.
        static PLAIN: [Option<Operator>; 256] = {
            let mut t = [None; 256];
            $(t[$pc] = Some(Operator::$p);)*
            t
        };

        /// `0xFC` sub-opcodes.
        static PREFIX_FC: [Option<Operator>; 18] = {
            let mut t = [None; 18];
            $(t[$cc] = Some(Operator::$c);)*
            t
        };

        /// `0xFE` sub-opcodes (the atomics of the threads proposal).
        static PREFIX_FE: [Option<Operator>; 0x4F] = {
            let mut t = [None; 0x4F];
            $(t[$ec] = Some(Operator::$e);)*
            t
        };

        /// `0xFD` sub-opcodes (SIMD).
        static PREFIX_FD: [Option<Operator>; 256] = {
            let mut t = [None; 256];
            $(t[$dc] = Some(Operator::$d);)*
            t
        };

        impl Operator {
            /// Every operator, in table order: `ALL[op as usize] == op`.
            pub(crate) const ALL: &'static [Operator] =
                &[$(Operator::$p,)* $(Operator::$c,)* $(Operator::$e,)* $(Operator::$d,)*];

            /// The number of operators.
            pub(crate) const COUNT: usize = Operator::ALL.len();

            /// The operator's encoding: the opcode byte, and the sub-opcode of a prefixed one.
            pub fn encoding(self) -> (u8, Option<u32>) {
                match self {
                    $(Operator::$p => ($pc, None),)*
                    $(Operator::$c => (0xFC, Some($cc)),)*
                    $(Operator::$e => (0xFE, Some($ec)),)*
                    $(Operator::$d => (0xFD, Some($dc)),)*
                }
            }
        }
    };
}

for_each_operator!(define_operators);

impl Operator {
    /// The text format's name (`i32.add`).
    pub fn name(self) -> &'static str {
        NAMES[self as usize]
    }

    pub(crate) fn info(self) -> Info {
        INFO[self as usize]
    }
}

impl Operator {
    /// The proposal after 2.0 a one-byte operator belongs to, if any: the tail calls and the
    /// exception-handling operators (the atomics have a prefix of their own).
    #[inline(always)]
    pub(crate) const fn proposal(self) -> Option<Proposal> {
        use Operator as O;
        match self {
            O::ReturnCall | O::ReturnCallIndirect => Some(Proposal::TailCalls),
            O::Try
            | O::Catch
            | O::Throw
            | O::Rethrow
            | O::ThrowRef
            | O::Delegate
            | O::CatchAll
            | O::TryTable => Some(Proposal::ExceptionHandling),
            _ => None,
        }
    }
}

impl core::fmt::Display for Operator {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// The targets of a `br_table`, read once by the decoder and walked again on demand.
#[derive(Debug, Clone)]
pub(crate) struct BrTable<'a> {
    /// Labels before the default.
    len: u32,
    /// The labels, then the default, as LEB128 `u32`s (already checked).
    reader: Reader<'a>,
}

impl<'a> BrTable<'a> {
    /// The number of labels, not counting the default.
    pub(crate) fn len(&self) -> u32 {
        self.len
    }

    /// The labels, then the default label.
    pub(crate) fn labels(&self) -> impl Iterator<Item = u32> + 'a {
        let mut r = self.reader.clone();
        (0..=self.len).map(move |_| r.u32().unwrap_or(0))
    }

    /// The default label.
    pub(crate) fn default(&self) -> u32 {
        self.labels().last().unwrap_or(0)
    }
}

/// One catch clause of a `try_table` (the exception-handling proposal): which exceptions it
/// catches, whether it hands over the `exnref` too, and the label it branches to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CatchClause {
    /// The tag caught, `None` for `catch_all` and `catch_all_ref`.
    pub(crate) tag: Option<u32>,
    /// `catch_ref` or `catch_all_ref`: the exception's `exnref` follows its values.
    pub(crate) with_ref: bool,
    /// The label, relative to the `try_table`'s enclosing block.
    pub(crate) label: u32,
}

/// The catch clauses of a `try_table`, read once by the decoder and walked again on demand.
#[derive(Debug, Clone)]
pub(crate) struct Catches<'a> {
    len: u32,
    /// The clauses, as encoded (already checked).
    reader: Reader<'a>,
}

impl<'a> Catches<'a> {
    /// The clauses, in order.
    pub(crate) fn clauses(&self) -> impl Iterator<Item = CatchClause> + 'a {
        let mut r = self.reader.clone();
        (0..self.len).map(move |_| {
            catch_clause(&mut r).unwrap_or(CatchClause { tag: None, with_ref: false, label: 0 })
        })
    }
}

/// One catch clause (kind 0 `catch x l`, 1 `catch_ref x l`, 2 `catch_all l`, 3
/// `catch_all_ref l`).
fn catch_clause(r: &mut Reader<'_>) -> Result<CatchClause, Invalid> {
    let kind = r.byte_as(Invalid::CatchKind, |b| (b <= 3).then_some(b))?;
    let tag = if kind < 2 { Some(r.u32()?) } else { None };
    Ok(CatchClause { tag, with_ref: kind & 1 == 1, label: r.u32()? })
}

/// An operator's immediates.
#[derive(Debug, Clone)]
pub(crate) enum Imm<'a> {
    None,
    /// A label, function, local, global, table, data or element index.
    Index(u32),
    /// `call_indirect` (type, table), `table.init` (element, table) and `table.copy`
    /// (destination, source).
    Pair(u32, u32),
    Block(BlockType),
    BrTable(BrTable<'a>),
    MemArg(MemArg),
    Lane(u8),
    MemLane(MemArg, u8),
    /// `i32.const`.
    I32(i32),
    /// `i64.const`.
    I64(i64),
    /// `f32.const`, `f64.const` and `v128.const` as their bits.
    Bits(u128),
    Shuffle([u8; 16]),
    /// `select t` and `ref.null t`.
    Type(ValType),
    /// `try_table`: its block type and catch clauses.
    TryTable(BlockType, Catches<'a>),
}

/// One decoded instruction.
#[derive(Debug, Clone)]
pub(crate) struct Instr<'a> {
    pub(crate) op: Operator,
    pub(crate) imm: Imm<'a>,
}

impl Instr<'_> {
    /// The index immediate (label, function, local, global, table, data, element), or the first
    /// of a pair.
    pub(crate) fn index(&self) -> u32 {
        match self.imm {
            Imm::Index(i) | Imm::Pair(i, _) => i,
            _ => 0,
        }
    }

    /// The second index of a pair.
    pub(crate) fn second(&self) -> u32 {
        match self.imm {
            Imm::Pair(_, j) => j,
            _ => 0,
        }
    }

    /// The memarg of a memory access.
    pub(crate) fn memarg(&self) -> MemArg {
        match self.imm {
            Imm::MemArg(m) | Imm::MemLane(m, _) => m,
            _ => MemArg::default(),
        }
    }

    /// The lane index of a lane operator.
    pub(crate) fn lane(&self) -> u8 {
        match self.imm {
            Imm::Lane(l) | Imm::MemLane(_, l) => l,
            _ => 0,
        }
    }

    /// The block type of `block`, `loop`, `if`, `try` and `try_table`.
    pub(crate) fn block_type(&self) -> BlockType {
        match self.imm {
            Imm::Block(b) | Imm::TryTable(b, _) => b,
            _ => BlockType::Empty,
        }
    }
}

/// An opcode that is not 2.0's (`sub` is `u32::MAX` for none): the sign of a later proposal
/// if it is one.
#[cold]
fn illegal(byte: u8, sub: u32) -> Invalid {
    let code = if byte >= 0xFB { proposals::prefixed(byte, sub) } else { byte.into() };
    proposals::or(Invalid::Opcode { byte, sub }, Site::Op, code)
}

impl<'a> Reader<'a> {
    /// One instruction (spec 5.4): its opcode, then its immediates as the table says.
    pub(crate) fn instr(&mut self) -> Result<Instr<'a>, Invalid> {
        let op = self.attempt(|r| {
            let b = r.u8()?;
            match b {
                0xFC | 0xFD => {
                    let sub = r.u32()?;
                    let table: &[Option<Operator>] = if b == 0xFC { &PREFIX_FC } else { &PREFIX_FD };
                    table.get(sub as usize).copied().flatten().ok_or_else(|| illegal(b, sub))
                }
                0xFE if Proposal::Threads.runs() => {
                    let sub = r.u32()?;
                    PREFIX_FE.get(sub as usize).copied().flatten().ok_or_else(|| illegal(b, sub))
                }
                // The prefix of GC, and of threads without the feature: the prefix is the
                // sign, the sub-opcode (if it decodes) what the message shows.
                0xFB | 0xFE => Err(illegal(b, r.u32().unwrap_or(u32::MAX))),
                _ => match PLAIN[b as usize] {
                    // An operator of a proposal this build leaves out (`only-2-0`) is its sign.
                    Some(op) if op.proposal().is_some_and(|p| !p.runs()) => Err(illegal(b, u32::MAX)),
                    Some(op) => Ok(op),
                    None => Err(illegal(b, u32::MAX)),
                },
            }
        })?;
        let imm = match op.info().imm {
            ImmKind::None => Imm::None,
            ImmKind::Block => Imm::Block(self.block_type()?),
            ImmKind::Label
            | ImmKind::Func
            | ImmKind::Local
            | ImmKind::Global
            | ImmKind::Table
            | ImmKind::Data
            | ImmKind::Elem
            | ImmKind::Tag => Imm::Index(self.u32()?),
            ImmKind::TryTable => {
                if !Proposal::ExceptionHandling.runs() {
                    unreachable!();
                }
                let bt = self.block_type()?;
                let len = self.len()?;
                let start = self.clone();
                for _ in 0..len {
                    catch_clause(self)?;
                }
                let used = start.remaining() - self.remaining();
                Imm::TryTable(bt, Catches { len, reader: start.clone().sub(used)? })
            }
            ImmKind::CallIndirect | ImmKind::TableInit | ImmKind::TableCopy => {
                let a = self.u32()?;
                Imm::Pair(a, self.u32()?)
            }
            ImmKind::BrTable => {
                let len = self.len()?;
                let start = self.clone();
                for _ in 0..=len {
                    self.u32()?;
                }
                let used = start.remaining() - self.remaining();
                let reader = start.clone().sub(used)?;
                Imm::BrTable(BrTable { len, reader })
            }
            ImmKind::Mem(_) | ImmKind::Atomic(..) => Imm::MemArg(self.memarg()?),
            ImmKind::MemLane(_) => {
                let m = self.memarg()?;
                Imm::MemLane(m, self.u8()?)
            }
            ImmKind::Zero => {
                self.zero()?;
                Imm::None
            }
            ImmKind::MemoryCopy => {
                self.zero()?;
                self.zero()?;
                Imm::None
            }
            // Its byte is reserved for orderings, not a memory index: no multi-memory sign.
            ImmKind::Fence => {
                self.byte_as(Invalid::ZeroByte, |b| (b == 0).then_some(()))?;
                Imm::None
            }
            ImmKind::MemoryInit => {
                let data = self.u32()?;
                self.zero()?;
                Imm::Index(data)
            }
            ImmKind::I32 => Imm::I32(self.s32()?),
            ImmKind::I64 => Imm::I64(self.s64()?),
            ImmKind::F32 => Imm::Bits(self.f32_bits()? as u128),
            ImmKind::F64 => Imm::Bits(self.f64_bits()? as u128),
            ImmKind::V128 => Imm::Bits(u128::from_le_bytes(self.array()?)),
            ImmKind::Shuffle => Imm::Shuffle(self.array()?),
            ImmKind::Lane(_) => Imm::Lane(self.u8()?),
            ImmKind::SelectT => {
                if self.u32()? != 1 {
                    return Err(Invalid::SelectArity);
                }
                Imm::Type(self.val_type()?)
            }
            ImmKind::RefNull => Imm::Type(self.ref_type()?.into()),
        };
        Ok(Instr { op, imm })
    }

    /// The reserved zero byte of 2.0's memory instructions, a memory index in multi-memory: one
    /// byte that names another memory is the proposal's sign (a zero written in more bytes, or
    /// an index past 127, stays malformed).
    fn zero(&mut self) -> Result<(), Invalid> {
        self.byte_as(Invalid::ZeroByte, |b| (b == 0).then_some(())).map_err(|e| match self.peek() {
            Ok(index @ 1..0x80) => proposals::or(e, Site::MemoryIndex, index.into()),
            _ => e,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_agree_with_the_enum() {
        assert_eq!(NAMES.len(), Operator::ALL.len());
        assert_eq!(INFO.len(), Operator::ALL.len());
        for (i, &op) in Operator::ALL.iter().enumerate() {
            assert_eq!(op as usize, i);
            let (byte, sub) = op.encoding();
            let found = match sub {
                None => PLAIN[byte as usize],
                Some(s) if byte == 0xFC => PREFIX_FC[s as usize],
                Some(s) if byte == 0xFE => PREFIX_FE[s as usize],
                Some(s) => PREFIX_FD[s as usize],
            };
            assert_eq!(found, Some(op), "{}", op.name());
        }
        // 193 one-byte operators: 172 of the MVP, then typed `select`, `table.get`/`set`, five
        // sign extensions, three reference instructions, the two tail calls and the eight of
        // exception handling; 18 after 0xFC; 236 SIMD operators; 67 atomics after 0xFE:
        // notify, two waits, the fence, 7 loads, 7 stores, and 7 widths of each of the six
        // read-modify-writes and of the compare-exchange.
        assert_eq!(PLAIN.iter().flatten().count(), 193);
        assert_eq!(PREFIX_FC.iter().flatten().count(), 18);
        assert_eq!(PREFIX_FD.iter().flatten().count(), 236);
        assert_eq!(PREFIX_FE.iter().flatten().count(), 67);
        // The alignment of each atomic is the width its name says: an explicit `8` to `64`,
        // else its type's (`memory.atomic.notify` reads an `i32`).
        for &op in Operator::ALL {
            if let ImmKind::Atomic(_, a) = op.info().imm {
                let name = op.name();
                let explicit = ["8", "16", "32", "64"].iter().position(|w| {
                    ["load", "store", "rmw", "wait"].iter().any(|k| name.contains(&alloc::format!("{k}{w}")))
                });
                let natural = explicit.unwrap_or(if name.starts_with("i64") { 3 } else { 2 });
                assert_eq!(a as usize, natural, "{name}");
            }
        }
    }

    #[test]
    fn signatures_unpack() {
        let s = Operator::V128Bitselect.info().sig;
        assert_eq!(s.params().collect::<alloc::vec::Vec<_>>(), [ValType::V128; 3]);
        assert_eq!(s.result(), Some(ValType::V128));
        let s = Operator::I64Store32.info().sig;
        assert_eq!(s.params().collect::<alloc::vec::Vec<_>>(), [ValType::I32, ValType::I64]);
        assert_eq!(s.result(), None);
        assert!(Operator::Block.info().sig.is_special());
        assert!(!Operator::Nop.info().sig.is_special());
    }

    #[test]
    fn decodes_immediates() {
        fn decode(b: &[u8]) -> Instr<'_> {
            let mut r = Reader::new(b, 0);
            let i = r.instr().unwrap();
            assert!(r.eof(), "{b:?} left bytes");
            i
        }
        let i = decode(&[0x41, 0x7F]);
        assert_eq!(i.op, Operator::I32Const);
        assert!(matches!(i.imm, Imm::I32(-1)));
        let i = decode(&[0x28, 0x02, 0x10]);
        assert_eq!((i.op, i.memarg()), (Operator::I32Load, MemArg { align: 2, offset: 16 }));
        let i = decode(&[0x0E, 0x02, 0x00, 0x01, 0x02]);
        let Imm::BrTable(t) = i.imm else { panic!() };
        assert_eq!(t.labels().collect::<alloc::vec::Vec<_>>(), [0, 1, 2]);
        assert_eq!(t.default(), 2);
        let i = decode(&[0xFD, 0x6E]);
        assert_eq!(i.op, Operator::I8x16Add);
        // A sub-opcode written with a redundant LEB128 byte is the same operator.
        let i = decode(&[0xFD, 0xEE, 0x00]);
        assert_eq!(i.op, Operator::I8x16Add);
        let i = decode(&[0xFC, 0x0A, 0x00, 0x00]);
        assert_eq!(i.op, Operator::MemoryCopy);
        assert!(Reader::new(&[0xFC, 0x0A, 0x01, 0x00], 0).instr().is_err());
        assert_eq!(
            Reader::new(&[0x17], 0).instr().err(),
            Some(Invalid::Opcode { byte: 0x17, sub: u32::MAX })
        );
        assert_eq!(
            Reader::new(&[0xFD, 0x9A, 0x01], 0).instr().err(),
            Some(Invalid::Opcode { byte: 0xFD, sub: 154 })
        );
    }
}
