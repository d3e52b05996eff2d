//! The fixed trace of a class's visitor: for a class whose `__visit_members` path takes no
//! decision on the object's contents, the 4-byte loads and `__visit` calls it makes are the
//! same for every object of that class, at the same offsets from the payload. They are found
//! once per module by evaluating the code symbolically, and replayed per object instead of
//! running the interpreter (docs/heap.md "Without DWARF").
//!
//! The evaluation follows `__visit_members(payload, 0)` with the payload pointer as a symbol
//! and the class id as the one thing it knows of memory: values are constants, the payload
//! pointer plus a constant, or a word loaded at such an address. Any operator outside that
//! small set, a branch on a loaded word, a loaded word used in arithmetic or as an address, a
//! store, an import, an indirect call or a trap ends it without a trace, and the interpreter
//! runs that class's objects as before. What it does follow, it follows exactly as the
//! interpreter would (WebAssembly 3.0 §4.4 for the operators, structured control included),
//! so the replay gives the same references, in the same order, with the same slot addresses.

use alloc::collections::BTreeMap;
use alloc::rc::Rc;
use alloc::vec;
use alloc::vec::Vec;

use crate::wasm::Operator;
use crate::wasm::binary::code::Body;
use crate::wasm::binary::operators::{Imm, Instr};
use crate::wasm::binary::types::BlockType;

/// An address `payload + delta` (32-bit wrapping, as `i32.add` computes it) plus a load's
/// static `offset` (added without wrapping, WebAssembly 3.0 §4.4.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Address {
    /// The dynamic address's distance from the payload pointer.
    pub(crate) delta: i32,
    /// The memarg offset.
    pub(crate) offset: u32,
}

impl Address {
    /// The effective address for an object whose payload is at `payload`.
    #[inline]
    pub(crate) fn at(self, payload: u32) -> u64 {
        u64::from(payload.wrapping_add(self.delta as u32)) + u64::from(self.offset)
    }

    /// Whether this is the header word holding the object's class id (`payload - 8`).
    #[inline]
    pub(crate) fn is_header(self) -> bool {
        i64::from(self.delta) + i64::from(self.offset) == -8
    }
}

/// One observable step of a visitor run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// An `i32.load`; at `payload - 8` ([`Address::is_header`]) it reads the class id, which
    /// the trace assumes is the class's.
    Load { at: Address },
    /// `__visit` of the word at `at` (which an earlier step loaded).
    Visit { at: Address },
}

/// A symbolic 32-bit value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sym {
    Const(i32),
    /// The payload pointer plus a constant.
    Payload(i32),
    /// The word loaded at an address.
    Word(Address),
}

/// What the evaluation reads of the module.
pub(crate) struct Program<'p, 'a> {
    /// Number of imported functions.
    pub(crate) imported: u32,
    /// The bodies of the defined functions.
    pub(crate) bodies: &'p [Body<'a>],
    /// `(parameters, results)` of each defined function when all its parameters are `i32`;
    /// `None` otherwise.
    pub(crate) signatures: Vec<Option<(u32, u32)>>,
    /// The function whose calls are the recorded visits.
    pub(crate) visit: u32,
}

/// Operators one trace may evaluate, over all its calls.
const MAX_STEPS: usize = 1 << 16;
/// Calls one trace may nest.
const MAX_DEPTH: u32 = 16;
/// Locals of one function the evaluation keeps at most.
const MAX_LOCALS: usize = 1 << 12;
/// Operators of one body the evaluation decodes at most.
const MAX_BODY_OPS: usize = 1 << 14;

/// Ended without a trace.
struct Untraceable;

/// A body decoded for the evaluation: its instructions, and for each `block`, `loop` and
/// `if` the index of its `end`, for each `if` that of its `else`.
struct Decoded<'a> {
    code: Vec<Instr<'a>>,
    ends: Vec<usize>,
    elses: Vec<Option<usize>>,
}

/// Traces the classes of one program, decoding each body it enters once.
pub(crate) struct Tracer<'t, 'p, 'a> {
    program: &'t Program<'p, 'a>,
    /// The function traced: `__visit_members`.
    start: u32,
    /// Decoded bodies by defined-function index; `None` for one that cannot be traced.
    decoded: BTreeMap<usize, Option<Rc<Decoded<'a>>>>,
}

impl<'t, 'p, 'a> Tracer<'t, 'p, 'a> {
    /// A tracer of `start(payload, cookie)` (`__visit_members`).
    pub(crate) fn new(program: &'t Program<'p, 'a>, start: u32) -> Self {
        Tracer { program, start, decoded: BTreeMap::new() }
    }

    /// The trace of `start(payload, 0)` for an object of class `rtid`, and the functions it
    /// enters below `start` in order; `None` when it depends on more than the class id.
    pub(crate) fn trace(&mut self, rtid: u32) -> Option<(Vec<Step>, Vec<u32>)> {
        let start = self.start;
        let mut run = Run {
            tracer: self,
            rtid,
            steps: Vec::with_capacity(16),
            entered: Vec::with_capacity(4),
            budget: MAX_STEPS,
        };
        run.call(start, vec![Sym::Payload(0), Sym::Const(0)], 0).ok()?;
        Some((run.steps, run.entered))
    }

    fn body(&mut self, func: u32) -> Result<Rc<Decoded<'a>>, Untraceable> {
        let k = func.checked_sub(self.program.imported).ok_or(Untraceable)? as usize;
        let bodies = self.program.bodies;
        self.decoded
            .entry(k)
            .or_insert_with(|| {
                let code = decode(bodies.get(k)?).ok()?;
                let (ends, elses) = matching(&code).ok()?;
                Some(Rc::new(Decoded { code, ends, elses }))
            })
            .clone()
            .ok_or(Untraceable)
    }
}

struct Run<'r, 't, 'p, 'a> {
    tracer: &'r mut Tracer<'t, 'p, 'a>,
    rtid: u32,
    steps: Vec<Step>,
    entered: Vec<u32>,
    budget: usize,
}

/// An open `block`, `loop` or `if`: where its `end` is (the instruction index) and the operand
/// stack height at its start.
struct Label {
    is_loop: bool,
    start: usize,
    end: usize,
    height: usize,
}

impl Run<'_, '_, '_, '_> {
    fn call(&mut self, func: u32, mut locals: Vec<Sym>, depth: u32) -> Result<(), Untraceable> {
        let decoded = self.tracer.body(func)?;
        let Decoded { code, ends, elses } = &*decoded;
        // A visitor's operand stack and block nesting stay shallow (`__visit_members` nests
        // one block per class id).
        let mut stack: Vec<Sym> = Vec::with_capacity(8);
        let mut labels: Vec<Label> = Vec::with_capacity(code.len().min(64));
        let mut pc = 0;
        while pc < code.len() {
            self.budget = self.budget.checked_sub(1).ok_or(Untraceable)?;
            let ins = &code[pc];
            pc += 1;
            // A branch to label `l`: `None` leaves the function.
            let branch = |l: u32, stack: &mut Vec<Sym>, labels: &mut Vec<Label>| -> Option<usize> {
                let depth = labels.len().checked_sub(l as usize + 1)?;
                let (is_loop, start, end, height) = {
                    let t = &labels[depth];
                    (t.is_loop, t.start, t.end, t.height)
                };
                stack.truncate(height);
                if is_loop {
                    labels.truncate(depth + 1);
                    Some(start + 1)
                } else {
                    labels.truncate(depth);
                    Some(end + 1)
                }
            };
            let pop = |stack: &mut Vec<Sym>| stack.pop().ok_or(Untraceable);
            match ins.op {
                Operator::Nop => {}
                Operator::Drop => {
                    pop(&mut stack)?;
                }
                Operator::I32Const => match ins.imm {
                    Imm::I32(v) => stack.push(Sym::Const(v)),
                    _ => return Err(Untraceable),
                },
                Operator::LocalGet => {
                    stack.push(locals.get(ins.index() as usize).copied().unwrap_or(Sym::Const(0)));
                }
                Operator::LocalSet | Operator::LocalTee => {
                    let v = pop(&mut stack)?;
                    let i = ins.index() as usize;
                    if i >= MAX_LOCALS {
                        return Err(Untraceable);
                    }
                    if i >= locals.len() {
                        locals.resize(i + 1, Sym::Const(0));
                    }
                    locals[i] = v;
                    if ins.op == Operator::LocalTee {
                        stack.push(v);
                    }
                }
                Operator::I32Add | Operator::I32Sub => {
                    let (b, a) = (pop(&mut stack)?, pop(&mut stack)?);
                    let sub = ins.op == Operator::I32Sub;
                    let f = |x: i32, y: i32| if sub { x.wrapping_sub(y) } else { x.wrapping_add(y) };
                    stack.push(match (a, b) {
                        (Sym::Const(x), Sym::Const(y)) => Sym::Const(f(x, y)),
                        (Sym::Payload(d), Sym::Const(c)) => Sym::Payload(f(d, c)),
                        (Sym::Const(c), Sym::Payload(d)) if !sub => Sym::Payload(d.wrapping_add(c)),
                        _ => return Err(Untraceable),
                    });
                }
                Operator::I32Eqz => match pop(&mut stack)? {
                    Sym::Const(c) => stack.push(Sym::Const(i32::from(c == 0))),
                    _ => return Err(Untraceable),
                },
                Operator::I32Load => {
                    let Sym::Payload(delta) = pop(&mut stack)? else { return Err(Untraceable) };
                    let at = Address { delta, offset: ins.memarg().offset };
                    self.steps.push(Step::Load { at });
                    stack.push(if at.is_header() { Sym::Const(self.rtid as i32) } else { Sym::Word(at) });
                }
                Operator::Call => {
                    let f = ins.index();
                    if f == self.tracer.program.visit {
                        let _cookie = pop(&mut stack)?;
                        match pop(&mut stack)? {
                            Sym::Word(at) => self.steps.push(Step::Visit { at }),
                            // A null reference: the recorder's entry is dropped as no object.
                            Sym::Const(0) => {}
                            _ => return Err(Untraceable),
                        }
                        continue;
                    }
                    let k = f.checked_sub(self.tracer.program.imported).ok_or(Untraceable)? as usize;
                    let (params, results) =
                        self.tracer.program.signatures.get(k).copied().flatten().ok_or(Untraceable)?;
                    if results != 0 || depth >= MAX_DEPTH || stack.len() < params as usize {
                        return Err(Untraceable);
                    }
                    let args = stack.split_off(stack.len() - params as usize);
                    self.entered.push(f);
                    self.call(f, args, depth + 1)?;
                }
                Operator::Block | Operator::Loop | Operator::If => {
                    if ins.block_type() != BlockType::Empty {
                        return Err(Untraceable);
                    }
                    let at = pc - 1;
                    let label =
                        Label { is_loop: ins.op == Operator::Loop, start: at, end: ends[at], height: 0 };
                    if ins.op == Operator::If {
                        let Sym::Const(c) = pop(&mut stack)? else { return Err(Untraceable) };
                        if c == 0 {
                            match elses[at] {
                                Some(e) => pc = e + 1,
                                None => {
                                    pc = ends[at] + 1;
                                    continue;
                                }
                            }
                        }
                    }
                    labels.push(Label { height: stack.len(), ..label });
                }
                // The end of an `if`'s then-arm: skip the else-arm.
                Operator::Else => {
                    let label = labels.pop().ok_or(Untraceable)?;
                    pc = label.end + 1;
                }
                Operator::End => {
                    if labels.pop().is_none() {
                        return Ok(());
                    }
                }
                Operator::Br => match branch(ins.index(), &mut stack, &mut labels) {
                    Some(to) => pc = to,
                    None => return Ok(()),
                },
                Operator::BrIf => {
                    let Sym::Const(c) = pop(&mut stack)? else { return Err(Untraceable) };
                    if c != 0 {
                        match branch(ins.index(), &mut stack, &mut labels) {
                            Some(to) => pc = to,
                            None => return Ok(()),
                        }
                    }
                }
                Operator::BrTable => {
                    let Sym::Const(c) = pop(&mut stack)? else { return Err(Untraceable) };
                    let Imm::BrTable(table) = &ins.imm else { return Err(Untraceable) };
                    // The labels, then the default: entry `c`, or the last.
                    let l = table
                        .labels()
                        .take((c as u32 as usize).saturating_add(1))
                        .last()
                        .ok_or(Untraceable)?;
                    match branch(l, &mut stack, &mut labels) {
                        Some(to) => pc = to,
                        None => return Ok(()),
                    }
                }
                Operator::Return => return Ok(()),
                _ => return Err(Untraceable),
            }
        }
        Ok(())
    }
}

/// The body's instructions through its final `end`.
fn decode<'a>(body: &Body<'a>) -> Result<Vec<Instr<'a>>, Untraceable> {
    let mut r = body.instructions().map_err(|_| Untraceable)?;
    // Most instructions of a visitor take two bytes or fewer.
    let mut code = Vec::with_capacity(r.remaining() / 2);
    while !r.eof() {
        if code.len() >= MAX_BODY_OPS {
            return Err(Untraceable);
        }
        code.push(r.instr().map_err(|_| Untraceable)?);
    }
    Ok(code)
}

/// For each `block`, `loop` and `if`, the index of its `end`; for each `if`, of its `else`.
fn matching(code: &[Instr<'_>]) -> Result<(Vec<usize>, Vec<Option<usize>>), Untraceable> {
    let (mut ends, mut elses) = (vec![0; code.len()], vec![None; code.len()]);
    let mut open = Vec::new();
    for (i, ins) in code.iter().enumerate() {
        match ins.op {
            Operator::Block | Operator::Loop | Operator::If => open.push(i),
            Operator::Else => elses[*open.last().ok_or(Untraceable)?] = Some(i),
            Operator::End => {
                if let Some(o) = open.pop() {
                    ends[o] = i;
                }
            }
            _ => {}
        }
    }
    Ok((ends, elses))
}
