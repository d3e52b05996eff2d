//! The code section's entries (spec 5.5.13): each function body, its locals, then its
//! instructions.

use alloc::vec::Vec;

use super::operators::Instr;
use super::reader::Reader;
use crate::wasm::error::Invalid;

/// One function body: the bytes after its size (locals declarations, then instructions).
#[derive(Debug, Clone)]
pub(crate) struct Body<'a> {
    reader: Reader<'a>,
}

// The heap analyzer without DWARF (`heap-runtime`) reads bodies by these; the interpreter only
// takes a body's reader.
#[cfg_attr(not(feature = "heap-runtime"), allow(dead_code))]
impl<'a> Body<'a> {
    /// The body's bytes.
    pub(crate) fn bytes(&self) -> &'a [u8] {
        self.reader.rest()
    }

    /// A reader over the whole body (locals, then instructions).
    pub(crate) fn reader(&self) -> Reader<'a> {
        self.reader.clone()
    }

    /// The module offset of the body's first byte.
    pub(crate) fn offset(&self) -> usize {
        self.reader.offset()
    }

    /// A reader at the body's first instruction, past the locals declarations.
    pub(crate) fn instructions(&self) -> Result<Reader<'a>, Invalid> {
        let mut r = self.reader.clone();
        for _ in 0..r.len()? {
            r.u32()?;
            r.val_type()?;
        }
        Ok(r)
    }

    /// The body's instructions with their module offsets, up to the first that does not
    /// decode (none if the locals do not).
    pub(crate) fn instrs(&self) -> impl Iterator<Item = (usize, Instr<'a>)> + 'a {
        let mut r = self.instructions().ok();
        core::iter::from_fn(move || {
            let r = r.as_mut()?;
            if r.eof() {
                return None;
            }
            let at = r.offset();
            r.instr().ok().map(|i| (at, i))
        })
    }
}

/// The bodies of a code section whose contents `r` reads: a count, then each body's size and
/// bytes.
pub(crate) fn bodies<'a>(r: &mut Reader<'a>) -> Result<Vec<Body<'a>>, Invalid> {
    let n = r.len()?;
    let mut out = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let size = r.u32()? as usize;
        if size > r.remaining() {
            return Err(Invalid::LengthOutOfBounds);
        }
        out.push(Body { reader: r.sub(size)? });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wasm::binary::operators::Operator;

    #[test]
    fn bodies_and_their_instructions() {
        // Two bodies: `(local i32) i32.const 5 drop end` and `end`.
        let contents = [2, 7, 1, 1, 0x7F, 0x41, 5, 0x1A, 0x0B, 1, 0x0B];
        let mut r = Reader::new(&contents, 100);
        let b = bodies(&mut r).unwrap();
        assert!(r.eof());
        assert_eq!((b.len(), b[0].offset(), b[1].offset()), (2, 102, 110));
        let ops: Vec<(usize, Operator)> = b[0].instrs().map(|(at, i)| (at, i.op)).collect();
        assert_eq!(ops, [(105, Operator::I32Const), (107, Operator::Drop), (108, Operator::End)]);
        assert_eq!(b[1].bytes(), [0x0B]);
        let mut short = Reader::new(&[1, 9, 0], 0);
        assert_eq!(bodies(&mut short).unwrap_err(), Invalid::LengthOutOfBounds);
    }
}
