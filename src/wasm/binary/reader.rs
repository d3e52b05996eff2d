//! The primitive encodings of the binary format (spec 5.1 "Conventions", 5.2 "Values"):
//! bytes, LEB128 integers, floats as their bits, names, vector lengths.
//!
//! A [`Reader`] walks a slice of a module and knows the module offset of its first byte, so
//! every error names the byte where it was found.

use super::proposals::{self, Site};
use crate::wasm::error::{Invalid, LoadError};

/// A cursor over part of a module's bytes.
#[derive(Debug, Clone)]
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// The module offset of `bytes[0]`.
    base: usize,
}

impl<'a> Reader<'a> {
    /// A reader over `bytes`, whose first byte is at module offset `base`.
    pub(crate) fn new(bytes: &'a [u8], base: usize) -> Self {
        Reader { bytes, pos: 0, base }
    }

    /// The module offset of the next byte.
    pub(crate) fn offset(&self) -> usize {
        self.base + self.pos
    }

    /// Whether every byte has been read.
    pub(crate) fn eof(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    /// Bytes left.
    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// The bytes not read yet.
    pub(crate) fn rest(&self) -> &'a [u8] {
        &self.bytes[self.pos..]
    }

    /// An error of kind `why` at the next byte.
    #[cold]
    pub(crate) fn error(&self, why: Invalid) -> LoadError {
        LoadError::invalid(self.offset(), why)
    }

    /// Runs a decoder; if it fails for any reason but the end of the bytes, the reader goes
    /// back to where the decoder started, so that the error names the first byte of what
    /// could not be decoded.
    pub(crate) fn attempt<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, Invalid>,
    ) -> Result<T, Invalid> {
        let start = self.pos;
        let r = f(self);
        if let Err(e) = &r
            && *e != Invalid::UnexpectedEnd
        {
            self.pos = start;
        }
        r
    }

    /// `why`, the 2.0 reason a decoder failed at the next byte, unless that byte is the sign of
    /// a later proposal at `site` (docs/interpreter.md, "Proposals after 2.0").
    #[cold]
    #[inline(never)]
    pub(crate) fn or_sign(&self, why: Invalid, site: Site) -> Invalid {
        proposals::or(why, site, self.peek().map_or(0, u32::from))
    }

    /// The next byte if `f` accepts it (consumed), else `why` with the byte not consumed.
    pub(crate) fn byte_as<T>(&mut self, why: Invalid, f: impl FnOnce(u8) -> Option<T>) -> Result<T, Invalid> {
        let v = f(self.peek()?).ok_or(why)?;
        self.pos += 1;
        Ok(v)
    }

    /// The next byte, not consumed.
    pub(crate) fn peek(&self) -> Result<u8, Invalid> {
        self.bytes.get(self.pos).copied().ok_or(Invalid::UnexpectedEnd)
    }

    /// One byte.
    pub(crate) fn u8(&mut self) -> Result<u8, Invalid> {
        let b = self.peek()?;
        self.pos += 1;
        Ok(b)
    }

    /// The next `n` bytes.
    pub(crate) fn bytes(&mut self, n: usize) -> Result<&'a [u8], Invalid> {
        if n > self.remaining() {
            return Err(Invalid::UnexpectedEnd);
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// A reader over the next `n` bytes, which this one skips.
    pub(crate) fn sub(&mut self, n: usize) -> Result<Reader<'a>, Invalid> {
        let base = self.offset();
        Ok(Reader::new(self.bytes(n)?, base))
    }

    /// An unsigned LEB128 integer of at most `bits` bits (spec 5.2.2): at most
    /// `ceil(bits / 7)` bytes, and the unused bits of the last byte zero.
    fn leb_u(&mut self, bits: u32) -> Result<u64, Invalid> {
        let mut result = 0u64;
        let mut shift = 0;
        loop {
            let b = self.u8()?;
            result |= ((b & 0x7F) as u64) << shift;
            if shift + 7 >= bits {
                // The last byte a `bits`-bit number may have.
                if b & 0x80 != 0 {
                    return Err(Invalid::IntegerTooLong);
                }
                if (b as u32) >> (bits - shift) != 0 {
                    return Err(Invalid::IntegerTooLarge);
                }
                return Ok(result);
            }
            if b & 0x80 == 0 {
                return Ok(result);
            }
            shift += 7;
        }
    }

    /// A signed LEB128 integer of at most `bits` bits, sign-extended to 64: in its last
    /// possible byte, the unused bits must all equal the sign bit.
    fn leb_s(&mut self, bits: u32) -> Result<i64, Invalid> {
        let mut result = 0i64;
        let mut shift = 0;
        loop {
            let b = self.u8()?;
            result |= ((b & 0x7F) as i64) << shift;
            if shift + 7 >= bits {
                if b & 0x80 != 0 {
                    return Err(Invalid::IntegerTooLong);
                }
                // Bits `bits - shift - 1 ..= 6` of the byte: the sign bit and the unused ones.
                let used = bits - shift;
                let high = (b as i8) << 1 >> used.min(7);
                if high != 0 && high != -1 {
                    return Err(Invalid::IntegerTooLarge);
                }
                let unused = 64 - bits;
                return Ok((result << unused) >> unused);
            }
            shift += 7;
            if b & 0x80 == 0 {
                // Sign-extend from the last byte's bit 6.
                return Ok(if shift < 64 && b & 0x40 != 0 { result | (-1i64 << shift) } else { result });
            }
        }
    }

    /// A `u32` (spec 5.2.2).
    pub(crate) fn u32(&mut self) -> Result<u32, Invalid> {
        self.attempt(|r| r.leb_u(32)).map(|v| v as u32)
    }

    /// A vector length or any other count: a `u32` that cannot exceed the bytes left, since
    /// every element takes at least one byte (so no count makes us allocate more than the
    /// module's size).
    pub(crate) fn len(&mut self) -> Result<u32, Invalid> {
        let n = self.u32()?;
        if n as usize > self.remaining() {
            return Err(Invalid::LengthOutOfBounds);
        }
        Ok(n)
    }

    /// An `s32` (spec 5.2.2).
    pub(crate) fn s32(&mut self) -> Result<i32, Invalid> {
        self.attempt(|r| r.leb_s(32)).map(|v| v as i32)
    }

    /// An `s33` (block types).
    pub(crate) fn s33(&mut self) -> Result<i64, Invalid> {
        self.attempt(|r| r.leb_s(33))
    }

    /// An `s64` (spec 5.2.2).
    pub(crate) fn s64(&mut self) -> Result<i64, Invalid> {
        self.attempt(|r| r.leb_s(64))
    }

    /// An `f32` as its IEEE 754 bits (little-endian, spec 5.2.3).
    pub(crate) fn f32_bits(&mut self) -> Result<u32, Invalid> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    /// An `f64` as its IEEE 754 bits.
    pub(crate) fn f64_bits(&mut self) -> Result<u64, Invalid> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    /// The next `N` bytes as an array.
    pub(crate) fn array<const N: usize>(&mut self) -> Result<[u8; N], Invalid> {
        let mut a = [0; N];
        a.copy_from_slice(self.bytes(N)?);
        Ok(a)
    }

    /// A name (spec 5.2.4): a length and that many bytes of UTF-8.
    pub(crate) fn name(&mut self) -> Result<&'a str, Invalid> {
        self.attempt(|r| {
            let n = r.u32()? as usize;
            if n > r.remaining() {
                return Err(Invalid::LengthOutOfBounds);
            }
            core::str::from_utf8(r.bytes(n)?).map_err(|_| Invalid::Utf8)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u32_of(b: &[u8]) -> Result<u32, Invalid> {
        Reader::new(b, 0).u32()
    }
    fn s32_of(b: &[u8]) -> Result<i32, Invalid> {
        Reader::new(b, 0).s32()
    }
    fn s64_of(b: &[u8]) -> Result<i64, Invalid> {
        Reader::new(b, 0).s64()
    }
    fn s33_of(b: &[u8]) -> Result<i64, Invalid> {
        Reader::new(b, 0).s33()
    }

    // Expected values worked out by hand from the LEB128 rules of spec 5.2.2.
    #[test]
    fn unsigned_leb128() {
        assert_eq!(u32_of(&[0x00]), Ok(0));
        assert_eq!(u32_of(&[0xE5, 0x8E, 0x26]), Ok(624_485));
        assert_eq!(u32_of(&[0x80, 0x00]), Ok(0), "padding with zero bytes is allowed");
        assert_eq!(u32_of(&[0xFF, 0xFF, 0xFF, 0xFF, 0x0F]), Ok(u32::MAX));
        assert_eq!(u32_of(&[0xFF, 0xFF, 0xFF, 0xFF, 0x1F]), Err(Invalid::IntegerTooLarge));
        assert_eq!(u32_of(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x00]), Err(Invalid::IntegerTooLong));
        assert_eq!(u32_of(&[0x80]), Err(Invalid::UnexpectedEnd));
    }

    #[test]
    fn signed_leb128() {
        assert_eq!(s32_of(&[0x7F]), Ok(-1));
        assert_eq!(s32_of(&[0x3F]), Ok(63));
        assert_eq!(s32_of(&[0xC0, 0x00]), Ok(64));
        assert_eq!(s32_of(&[0xC0, 0xBB, 0x78]), Ok(-123_456));
        assert_eq!(s32_of(&[0x80, 0x80, 0x80, 0x80, 0x78]), Ok(i32::MIN));
        assert_eq!(s32_of(&[0xFF, 0xFF, 0xFF, 0xFF, 0x07]), Ok(i32::MAX));
        // The last byte's unused bits must repeat the sign bit (bit 3 of a fifth byte).
        assert_eq!(s32_of(&[0xFF, 0xFF, 0xFF, 0xFF, 0x0F]), Err(Invalid::IntegerTooLarge));
        assert_eq!(s32_of(&[0x80, 0x80, 0x80, 0x80, 0x70]), Err(Invalid::IntegerTooLarge));
        assert_eq!(s32_of(&[0xFF, 0xFF, 0xFF, 0xFF, 0x7F]), Ok(-1), "a padded -1");
        assert_eq!(s32_of(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x00]), Err(Invalid::IntegerTooLong));
        assert_eq!(s64_of(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7F]), Ok(i64::MIN));
        assert_eq!(s64_of(&[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00]), Ok(i64::MAX));
        assert_eq!(
            s64_of(&[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
            Err(Invalid::IntegerTooLarge)
        );
        assert_eq!(
            s64_of(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7E]),
            Err(Invalid::IntegerTooLarge)
        );
        // s33: a fifth byte holds bits 28..31 (its bits 0..3), the sign (bit 4) and two unused
        // bits that must repeat the sign. 0x0F: bits 28..31 set, sign clear: 2^32 - 1.
        assert_eq!(s33_of(&[0xFF, 0xFF, 0xFF, 0xFF, 0x0F]), Ok(u32::MAX as i64));
        assert_eq!(s33_of(&[0xFF, 0xFF, 0xFF, 0xFF, 0x7F]), Ok(-1));
        assert_eq!(s33_of(&[0xFF, 0xFF, 0xFF, 0xFF, 0x1F]), Err(Invalid::IntegerTooLarge));
        assert_eq!(s33_of(&[0xFF, 0xFF, 0xFF, 0xFF, 0x2F]), Err(Invalid::IntegerTooLarge));
    }

    #[test]
    fn names_are_utf8() {
        assert_eq!(Reader::new(&[2, b'h', b'i'], 0).name(), Ok("hi"));
        assert_eq!(Reader::new(&[2, 0xC3, 0xA4], 0).name(), Ok("ä"));
        assert_eq!(Reader::new(&[1, 0xC3], 0).name(), Err(Invalid::Utf8));
        assert_eq!(Reader::new(&[3, b'h'], 0).name(), Err(Invalid::LengthOutOfBounds));
    }

    #[test]
    fn errors_name_the_first_byte_of_what_failed() {
        let mut r = Reader::new(&[0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00], 100);
        assert_eq!(r.u8(), Ok(1));
        assert_eq!(r.u32(), Err(Invalid::IntegerTooLong));
        assert_eq!(r.offset(), 101, "back at the integer's first byte");
        let mut r = Reader::new(&[0x80, 0x80], 100);
        assert_eq!(r.u32(), Err(Invalid::UnexpectedEnd));
        assert_eq!(r.offset(), 102, "an unexpected end is at the end");
        let mut r = Reader::new(&[1, 0xFF], 100);
        assert_eq!(r.name(), Err(Invalid::Utf8));
        assert_eq!(r.offset(), 100);
    }

    #[test]
    fn lengths_cannot_exceed_the_bytes_left() {
        assert_eq!(Reader::new(&[2, 0, 0], 0).len(), Ok(2));
        assert_eq!(Reader::new(&[3, 0, 0], 0).len(), Err(Invalid::LengthOutOfBounds));
    }
}
