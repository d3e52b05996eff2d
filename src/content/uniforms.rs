//! Uniform keys and uniform values (docs/uniforms.md; keys: docs/request.md, "Fields").
//!
//! * Input: a key (the `<key>` of a `uniforms[<key>]` part, or of `-u key=value`) and a value's
//!   raw bytes together with the scalar type of the target's setter `uniform_set_<key>`.
//! * Output: whether the key is valid ([`valid_key`]) and the typed value ([`parse_value`]).
//!
//! Two sets of rules (docs/uniforms.md): [`parse_target_value`] for the uniforms our Content
//! components pass to the target they interpret, as QIP's Content interpreter wrapper parses
//! them; [`parse_value`] for `qip-memory run`, which stands in for Go `qip run`. The rest of
//! this page describes [`parse_value`], which mirrors the **Go `qip run` host column**:
//!
//! | type | accepted text |
//! | --- | --- |
//! | `i32` | `0x`/`0X` then one or more hex digits (base 16 of the rest), otherwise one or more decimal digits; value in `0..=4_294_967_295`; no sign, no space, no `_`. The value is **unsigned**. |
//! | `i64` | optional `+`/`-`, then `0x`/`0X` and one or more hex digits, or one or more decimal digits; the signed result must lie in `i64::MIN..=i64::MAX` (so `0xffffffffffffffff` is out of range, `-0x8000000000000000` is `i64::MIN`). |
//! | `f32`, `f64` | Go's `strconv.ParseFloat(text, 32 / 64)`: see below. |
//!
//! Float syntax (Go's floating-point literal syntax, as `strconv.ParseFloat` accepts it):
//!
//! * optional sign `+`/`-`;
//! * decimal: digits with at most one `.` and at least one digit (`1`, `1.`, `.5`), then an
//!   optional exponent `e`/`E`, optional sign, at least one digit;
//! * hexadecimal: `0x`/`0X`, hex digits with at most one `.` and at least one digit, then a
//!   **required** binary exponent `p`/`P`, optional sign, at least one decimal digit
//!   (`0x1p-2` = 0.25; `0x1e2` is an error);
//! * `_` may separate digits: every `_` must sit between two digits, or between the `0x` prefix
//!   and a digit (`1_000.5`, `1e1_0`, `0x_1p0` are accepted; `_1`, `1_`, `1__0`, `1_.5`,
//!   `1._5`, `1_e5` are not). Go's documentation states it for `ParseFloat` through "as defined
//!   by the Go syntax for floating-point literals", and Go's own tests accept
//!   `1_23.50_0_0e+1_2` = 1.235e14 without a base prefix: underscores are **not** limited to
//!   prefixed numbers in `ParseFloat` (that restriction belongs to `ParseInt`/`ParseUint`, which
//!   accept `_` only with base 0);
//! * the specials, ignoring ASCII case: `inf` and `infinity` with an optional sign, and `nan`
//!   **without** a sign (`+nan`, `-nan` are errors, as in Go);
//! * the exponent's value saturates like Go's: its digits are accumulated only while it is
//!   below 10,000 (so `1e+4294967296` overflows and `0e+01234567890123456789` is 0);
//! * the result is the nearest value of the target precision, ties to even (decimal input is
//!   rounded by `core`'s `str::parse`, which rounds correctly, exactly like Go; hexadecimal
//!   input is rounded here, also ties to even, subnormals included);
//! * a finite text whose rounded value is infinite at that precision (more than half an ULP
//!   above the largest finite value) is an error (Go's `ErrRange`); underflow to zero is not;
//! * NaN is Go's `math.NaN()`: f64 bits `0x7ff8_0000_0000_0001`; for f32 the value Go's
//!   `float32(math.NaN())` conversion gives on amd64 and arm64, bits `0x7fc0_0000`;
//! * `-0` keeps its sign.
//!
//! Differences from Go that remain: none known for valid UTF-8 input. Text that is not UTF-8 is
//! rejected here before parsing ([`UniformErrorKind::NotUtf8`]); Go would reject it as a syntax
//! error, so only the error kind differs.

use alloc::string::String;
use core::fmt::{self, Write as _};

/// Longest uniform key, in bytes (1–63 characters).
pub const MAX_KEY_LEN: usize = 63;

/// Whether `key` satisfies the uniform key grammar: 1–63 characters, the first in
/// `[a-z]`, the rest in `[a-z0-9_]`, not ending with `_`, not containing `__`.
pub fn valid_key(key: &str) -> bool {
    valid_key_bytes(key.as_bytes())
}

/// [`valid_key`] on raw bytes (a key taken from a multipart part name, which need not be UTF-8;
/// a valid key is always ASCII).
pub fn valid_key_bytes(key: &[u8]) -> bool {
    let Some((&first, _)) = key.split_first() else {
        return false;
    };
    key.len() <= MAX_KEY_LEN
        && first.is_ascii_lowercase()
        && key.iter().all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
        && key.last() != Some(&b'_')
        && !key.windows(2).any(|w| w == b"__")
}

/// The parameter type of a setter `uniform_set_<key>(T) -> T`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScalarType {
    /// `i32`, read as an **unsigned** 32-bit value.
    I32,
    /// `i64`, signed.
    I64,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
}

/// A parsed uniform value, ready to pass to a setter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum UniformValue {
    /// An `i32` uniform: the unsigned value (pass its bits as the Wasm `i32`).
    I32(u32),
    /// An `i64` uniform.
    I64(i64),
    /// An `f32` uniform (NaN is `0x7fc0_0000`).
    F32(f32),
    /// An `f64` uniform (NaN is `0x7ff8_0000_0000_0001`).
    F64(f64),
}

impl UniformValue {
    /// The value's type.
    pub fn ty(&self) -> ScalarType {
        match self {
            UniformValue::I32(_) => ScalarType::I32,
            UniformValue::I64(_) => ScalarType::I64,
            UniformValue::F32(_) => ScalarType::F32,
            UniformValue::F64(_) => ScalarType::F64,
        }
    }

    /// The value's bits as the setter receives them, zero-extended to 64 bits (`I64` as its
    /// two's complement, floats as their IEEE-754 bits).
    pub fn to_bits(&self) -> u64 {
        match *self {
            UniformValue::I32(v) => u64::from(v),
            UniformValue::I64(v) => v.cast_unsigned(),
            UniformValue::F32(v) => u64::from(v.to_bits()),
            UniformValue::F64(v) => v.to_bits(),
        }
    }
}

/// Why a uniform value was not accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UniformError {
    /// Byte offset in the value text: for [`UniformErrorKind::NotUtf8`] the first byte that is
    /// not valid UTF-8; for [`UniformErrorKind::Syntax`] the first byte that cannot continue a
    /// valid value (the text's length when the text ends too early, 0 for a text that is not a
    /// number at all); for [`UniformErrorKind::OutOfRange`] always 0 (the value as a whole).
    pub offset: usize,
    /// What is wrong.
    pub kind: UniformErrorKind,
}

/// The class of a [`UniformError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum UniformErrorKind {
    /// The text is not UTF-8.
    NotUtf8,
    /// The text is not a number of the setter's type (Go's `ErrSyntax`).
    Syntax,
    /// The number does not fit the setter's type (Go's `ErrRange`; for floats: a finite text
    /// that overflows the precision).
    OutOfRange,
}

impl UniformErrorKind {
    /// A one-line English reason.
    pub fn describe(self) -> &'static str {
        match self {
            UniformErrorKind::NotUtf8 => "uniform value is not UTF-8",
            UniformErrorKind::Syntax => "uniform value is not a number of the setter's type",
            UniformErrorKind::OutOfRange => "uniform value is out of range for the setter's type",
        }
    }
}

impl fmt::Display for UniformError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at offset 0x{:x})", self.kind.describe(), self.offset)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for UniformError {}

#[cold]
fn syntax(offset: usize) -> UniformError {
    UniformError { offset, kind: UniformErrorKind::Syntax }
}

#[cold]
fn out_of_range() -> UniformError {
    UniformError { offset: 0, kind: UniformErrorKind::OutOfRange }
}

/// Parses a uniform value for a setter of type `ty`, exactly as Go `qip run` does
/// (docs/uniforms.md, Go column; the rules are in the [module documentation](self)). The text is
/// used as given: no trimming (a multipart uniform value is the raw part body, docs/request.md).
///
/// # Errors
///
/// [`UniformErrorKind::NotUtf8`] when `text` is not UTF-8, [`UniformErrorKind::Syntax`] when
/// it is not a number of that type, [`UniformErrorKind::OutOfRange`] when it does not fit.
pub fn parse_value(ty: ScalarType, text: &[u8]) -> Result<UniformValue, UniformError> {
    if let Err(e) = core::str::from_utf8(text) {
        return Err(UniformError { offset: e.valid_up_to(), kind: UniformErrorKind::NotUtf8 });
    }
    match ty {
        ScalarType::I32 => parse_i32(text).map(UniformValue::I32),
        ScalarType::I64 => parse_i64(text).map(UniformValue::I64),
        ScalarType::F32 => parse_float(text, &F32_FORMAT).map(|bits| {
            // The result was built in the 32-bit format: its bits always fit (the fallback is
            // unreachable).
            UniformValue::F32(f32::from_bits(u32::try_from(bits).unwrap_or(F32_FORMAT_NAN)))
        }),
        ScalarType::F64 => parse_float(text, &F64_FORMAT).map(|bits| UniformValue::F64(f64::from_bits(bits))),
    }
}

/// Parses a value for a target's setter as QIP's Content interpreter wrapper does (the target
/// column of docs/uniforms.md; the Content components and the CLI's `-u`
/// for a target use it, the `run` host keeps [`parse_value`], Go `qip run`'s rules):
///
/// * `i32`: unsigned decimal first; when that fails and the text starts with `0x`/`0X`,
///   unsigned hexadecimal of the rest; 0…4,294,967,295. No sign, no spaces.
/// * `i64`: `0x`/`0X` then unsigned 64-bit hexadecimal, taken as its bit pattern
///   (`0xffffffffffffffff` is −1; a signed hex like `-0x10` is refused); else signed decimal
///   with an optional `+`/`-`, in `i64::MIN..=i64::MAX`.
/// * In both, `_` may stand between digits, not first or last (Zig's integer parser:
///   `1_000`, `1__0`; not `_1`, `1_`).
/// * `f32`, `f64`: as [`parse_value`], except that a finite text beyond the largest finite
///   value is ±infinity, not an error.
///
/// # Errors
/// As [`parse_value`]: not UTF-8, not a number of the type, out of range.
pub fn parse_target_value(ty: ScalarType, text: &[u8]) -> Result<UniformValue, UniformError> {
    if let Err(e) = core::str::from_utf8(text) {
        return Err(UniformError { offset: e.valid_up_to(), kind: UniformErrorKind::NotUtf8 });
    }
    let float = |format: &FloatFormat| match parse_float(text, format) {
        Err(UniformError { kind: UniformErrorKind::OutOfRange, .. }) => {
            Ok(format.infinity_bits(text.first() == Some(&b'-')))
        }
        other => other,
    };
    match ty {
        ScalarType::I32 => {
            let n = match zig_unsigned(text, false, u64::from(u32::MAX), 0) {
                Err(e) if has_hex_prefix(text) && e.kind == UniformErrorKind::Syntax => {
                    zig_unsigned(&text[2..], true, u64::from(u32::MAX), 2)?
                }
                other => other?,
            };
            Ok(UniformValue::I32(u32::try_from(n).map_err(|_| out_of_range())?))
        }
        ScalarType::I64 => {
            if has_hex_prefix(text) {
                return Ok(UniformValue::I64(zig_unsigned(&text[2..], true, u64::MAX, 2)?.cast_signed()));
            }
            let (neg, at) = match text.first() {
                Some(b'-') => (true, 1),
                Some(b'+') => (false, 1),
                _ => (false, 0),
            };
            let magnitude = zig_unsigned(&text[at..], false, 1 << 63, at)?;
            let v = if neg { -i128::from(magnitude) } else { i128::from(magnitude) };
            Ok(UniformValue::I64(i64::try_from(v).map_err(|_| out_of_range())?))
        }
        ScalarType::F32 => float(&F32_FORMAT)
            .map(|bits| UniformValue::F32(f32::from_bits(u32::try_from(bits).unwrap_or(F32_FORMAT_NAN)))),
        ScalarType::F64 => float(&F64_FORMAT).map(|bits| UniformValue::F64(f64::from_bits(bits))),
    }
}

/// Zig's `parseUnsigned` in base 10 or 16: [`parse_unsigned`]'s digits with `_` allowed
/// anywhere but first and last (`at` is `digits`' offset in the text, for error offsets).
fn zig_unsigned(digits: &[u8], hex: bool, max: u64, at: usize) -> Result<u64, UniformError> {
    match digits {
        [b'_', ..] => Err(syntax(at)),
        [.., b'_'] => Err(syntax(at + digits.len() - 1)),
        _ => digits_value(digits, hex, max, at, true),
    }
}

/// Whether `text` starts with `0x` or `0X`.
fn has_hex_prefix(text: &[u8]) -> bool {
    matches!(text, [b'0', b'x' | b'X', ..])
}

/// Go's `ParseUint(digits, base, 64)` for base 10 or 16 without underscores: one or more
/// digits, checked left to right (a bad byte is a syntax error at its offset, an overflow of
/// `max` is a range error at the digit that overflows, whichever comes first). `at` is the
/// offset of `digits` in the whole text, for error offsets.
fn parse_unsigned(digits: &[u8], hex: bool, max: u64, at: usize) -> Result<u64, UniformError> {
    digits_value(digits, hex, max, at, false)
}

/// One or more digits of base 10 or 16 (skipping `_` when `underscores`), left to right: a bad
/// byte is a syntax error at its offset, a value above `max` a range error.
fn digits_value(
    digits: &[u8],
    hex: bool,
    max: u64,
    at: usize,
    underscores: bool,
) -> Result<u64, UniformError> {
    if digits.is_empty() {
        return Err(syntax(at));
    }
    let base: u64 = if hex { 16 } else { 10 };
    let mut n: u64 = 0;
    for (i, &c) in digits.iter().enumerate() {
        let d = match c {
            b'_' if underscores => continue,
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' if hex => c - b'a' + 10,
            b'A'..=b'F' if hex => c - b'A' + 10,
            _ => return Err(syntax(at + i)),
        };
        n = n
            .checked_mul(base)
            .and_then(|n| n.checked_add(u64::from(d)))
            .filter(|&n| n <= max)
            .ok_or_else(out_of_range)?;
    }
    Ok(n)
}

/// `i32` (Go column): `0x`/`0X` → base 16 of the rest, else base 10; unsigned 32-bit.
fn parse_i32(text: &[u8]) -> Result<u32, UniformError> {
    let n = if has_hex_prefix(text) {
        parse_unsigned(&text[2..], true, u64::from(u32::MAX), 2)?
    } else {
        parse_unsigned(text, false, u64::from(u32::MAX), 0)?
    };
    // `n <= u32::MAX` was checked while parsing.
    u32::try_from(n).map_err(|_| out_of_range())
}

/// `i64` (Go column): optional sign, then `0x`/`0X` hex or decimal; range-checked signed.
fn parse_i64(text: &[u8]) -> Result<i64, UniformError> {
    let (neg, at) = match text.first() {
        Some(b'-') => (true, 1),
        Some(b'+') => (false, 1),
        _ => (false, 0),
    };
    let rest = &text[at..];
    let magnitude = if has_hex_prefix(rest) {
        parse_unsigned(&rest[2..], true, u64::MAX, at + 2)?
    } else {
        parse_unsigned(rest, false, u64::MAX, at)?
    };
    if neg {
        // -(2^63) is the most negative value; `0 - magnitude` in i128 cannot overflow.
        i64::try_from(-i128::from(magnitude)).map_err(|_| out_of_range())
    } else {
        i64::try_from(magnitude).map_err(|_| out_of_range())
    }
}

/// An IEEE-754 binary format.
struct FloatFormat {
    /// Precision in bits, the leading bit included (24 or 53).
    precision: u32,
    /// Exponent of the smallest normal value (−126 or −1022).
    min_exp: i64,
    /// Exponent of the largest finite value (127 or 1023).
    max_exp: i64,
    /// Total width in bits (32 or 64).
    width: u32,
    /// Bits of the NaN Go produces for this width.
    nan_bits: u64,
}

/// The f32 NaN of Go's `float32(math.NaN())`.
const F32_FORMAT_NAN: u32 = 0x7fc0_0000;

const F32_FORMAT: FloatFormat =
    FloatFormat { precision: 24, min_exp: -126, max_exp: 127, width: 32, nan_bits: F32_FORMAT_NAN as u64 };
const F64_FORMAT: FloatFormat =
    FloatFormat { precision: 53, min_exp: -1022, max_exp: 1023, width: 64, nan_bits: 0x7ff8_0000_0000_0001 };

impl FloatFormat {
    fn is_f32(&self) -> bool {
        self.width == 32
    }

    fn sign_bit(&self, neg: bool) -> u64 {
        u64::from(neg) << (self.width - 1)
    }

    fn infinity_bits(&self, neg: bool) -> u64 {
        let exp_bits = self.width - self.precision;
        (((1u64 << exp_bits) - 1) << (self.precision - 1)) | self.sign_bit(neg)
    }
}

/// Whether `c` is a digit of the mantissa (`0-9`, and `a-f`/`A-F` when `hex`).
fn is_digit(c: u8, hex: bool) -> bool {
    c.is_ascii_digit() || (hex && c.is_ascii_hexdigit())
}

/// The offset of the first `_` in `s` that does not sit between two digits (or between the
/// hex prefix, which ends at `prefix_end`, and a digit); `None` when all are well placed.
fn misplaced_underscore(s: &[u8], hex: bool, prefix_end: Option<usize>) -> Option<usize> {
    s.iter().enumerate().filter(|&(_, &c)| c == b'_').map(|(k, _)| k).find(|&k| {
        let after_digit = k.checked_sub(1).and_then(|p| s.get(p)).is_some_and(|&c| is_digit(c, hex))
            || prefix_end == Some(k);
        let before_digit = s.get(k + 1).is_some_and(|&c| is_digit(c, hex));
        !(after_digit && before_digit)
    })
}

/// Go's `strconv.ParseFloat(text, 32 or 64)`, returning the bits of the result in `format`.
fn parse_float(s: &[u8], format: &FloatFormat) -> Result<u64, UniformError> {
    let (neg, start) = match s.first() {
        Some(b'-') => (true, 1),
        Some(b'+') => (false, 1),
        _ => (false, 0),
    };
    let rest = &s[start..];
    if rest.eq_ignore_ascii_case(b"inf") || rest.eq_ignore_ascii_case(b"infinity") {
        return Ok(format.infinity_bits(neg));
    }
    if start == 0 && rest.eq_ignore_ascii_case(b"nan") {
        return Ok(format.nan_bits);
    }

    // Go treats `0x` as a prefix only when at least one byte follows it.
    let hex = s.len() > start + 2 && has_hex_prefix(rest);
    let mant_start = if hex { start + 2 } else { start };
    let mut j = mant_start;
    let mut saw_dot = false;
    let mut saw_digit = false;
    while let Some(&c) = s.get(j) {
        if c == b'.' {
            if saw_dot {
                break;
            }
            saw_dot = true;
        } else if is_digit(c, hex) {
            saw_digit = true;
        } else if c != b'_' {
            break;
        }
        j += 1;
    }
    if !saw_digit {
        return Err(syntax(j));
    }
    let mant_end = j;

    // Exponent: decimal digits, accumulated only while below 10,000 (Go's saturation).
    let exp_char = if hex { b'p' } else { b'e' };
    let mut exp: i64 = 0;
    let mut has_exp = false;
    if s.get(j).is_some_and(|&c| c.to_ascii_lowercase() == exp_char) {
        has_exp = true;
        j += 1;
        let exp_neg = match s.get(j) {
            Some(b'+') => {
                j += 1;
                false
            }
            Some(b'-') => {
                j += 1;
                true
            }
            _ => false,
        };
        if !s.get(j).is_some_and(u8::is_ascii_digit) {
            return Err(syntax(j));
        }
        while let Some(&c) = s.get(j) {
            if c.is_ascii_digit() {
                if exp < 10_000 {
                    exp = exp * 10 + i64::from(c - b'0');
                }
            } else if c != b'_' {
                break;
            }
            j += 1;
        }
        if exp_neg {
            exp = -exp;
        }
    } else if hex {
        return Err(syntax(j));
    }
    if let Some(k) = misplaced_underscore(&s[..j], hex, hex.then_some(mant_start)) {
        return Err(syntax(k));
    }
    if j != s.len() {
        return Err(syntax(j));
    }

    let mantissa = &s[mant_start..mant_end];
    let bits = if hex {
        hex_float_bits(mantissa, exp, neg, format)
    } else {
        decimal_float_bits(mantissa, has_exp.then_some(exp), neg, format)
    };
    // Infinity from a finite text: Go's ErrRange.
    if bits & !format.sign_bit(true) == format.infinity_bits(false) {
        return Err(out_of_range());
    }
    Ok(bits)
}

/// Rounds the decimal number `[-]mantissa e exp` (mantissa: digits, `_` and at most one `.`,
/// at least one digit; already validated) with `core`'s correctly rounding parser.
fn decimal_float_bits(mantissa: &[u8], exp: Option<i64>, neg: bool, format: &FloatFormat) -> u64 {
    let mut text = String::with_capacity(mantissa.len() + 9);
    if neg {
        text.push('-');
    }
    text.extend(mantissa.iter().filter(|&&c| c != b'_').map(|&c| char::from(c)));
    if let Some(exp) = exp {
        // `exp` is within ±99,999: the text stays within `core`'s exact exponent range.
        let _ = write!(text, "e{exp}");
    }
    // The text is `-?[0-9]*\.?[0-9]*(e-?[0-9]+)?` with at least one digit, which `core`
    // always accepts; the fallback (NaN) is unreachable and would be reported as a value.
    if format.is_f32() {
        u64::from(text.parse::<f32>().map_or(f32::NAN.to_bits(), f32::to_bits))
    } else {
        text.parse::<f64>().map_or(f64::NAN.to_bits(), f64::to_bits)
    }
}

/// Rounds the hexadecimal number `[-]0x mantissa p exp` (mantissa: hex digits, `_` and at most
/// one `.`; already validated) to `format`, to nearest, ties to even, subnormals included.
/// Overflow gives infinity.
fn hex_float_bits(mantissa: &[u8], exp: i64, neg: bool, format: &FloatFormat) -> u64 {
    // value = (mant + sticky·ε) · 2^scale, where `mant` takes digits while it is below 2^60
    // (so it holds at least 60 significant bits, at most 64) and `sticky` records whether any
    // later digit is nonzero.
    let mut mant: u64 = 0;
    let mut scale: i64 = exp;
    let mut sticky = false;
    let mut after_dot = false;
    for &c in mantissa {
        let d = match c {
            b'.' => {
                after_dot = true;
                continue;
            }
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => continue, // `_`
        };
        if mant >> 60 == 0 {
            mant = (mant << 4) | u64::from(d);
            if after_dot {
                scale -= 4;
            }
        } else {
            sticky |= d != 0;
            if !after_dot {
                scale += 4;
            }
        }
    }
    let sign = format.sign_bit(neg);
    if mant == 0 {
        return sign;
    }
    let p = i64::from(format.precision);
    let n = i64::from(64 - mant.leading_zeros()); // significant bits in `mant`, 1..=64
    let e = scale + n - 1; // exponent of the leading bit
    // Bits to keep: all of the precision for a normal result, fewer for a subnormal one.
    let keep = if e >= format.min_exp { p } else { p - (format.min_exp - e) };
    if keep < 0 {
        return sign; // below half the smallest subnormal: rounds to zero
    }
    let shift = n - keep; // bits to drop, ≤ 64 because keep ≥ 0 and n ≤ 64
    let mut m = if shift <= 0 {
        mant << (-shift) // keep ≤ 53 and n ≥ 1: at most 52 places, no bits lost
    } else {
        let kept = if shift >= 64 { 0 } else { mant >> shift };
        let dropped = if shift >= 64 { mant } else { mant & ((1u64 << shift) - 1) };
        let half = 1u64 << (shift - 1);
        let round_up = dropped > half || (dropped == half && (sticky || kept & 1 == 1));
        kept + u64::from(round_up)
    };
    if e >= format.min_exp {
        // Normal: m in [2^(p-1), 2^p]; a carry to 2^p moves to the next binade.
        let mut e = e;
        if m >> p != 0 {
            m >>= 1;
            e += 1;
        }
        if e > format.max_exp {
            return format.infinity_bits(neg);
        }
        // 1..=2·max_exp here (min_exp ≤ e ≤ max_exp); the fallback is unreachable.
        let biased = u64::try_from(e - format.min_exp + 1).unwrap_or(0);
        sign | (biased << (p - 1)) | (m & ((1u64 << (p - 1)) - 1))
    } else {
        // Subnormal: m counts units of the smallest subnormal; a carry to 2^(p-1) is exactly
        // the encoding of the smallest normal value.
        sign | m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;

    fn f64v(text: &str) -> Result<f64, UniformError> {
        match parse_value(ScalarType::F64, text.as_bytes())? {
            UniformValue::F64(v) => Ok(v),
            other => panic!("wrong type {other:?}"),
        }
    }

    fn f32v(text: &str) -> Result<f32, UniformError> {
        match parse_value(ScalarType::F32, text.as_bytes())? {
            UniformValue::F32(v) => Ok(v),
            other => panic!("wrong type {other:?}"),
        }
    }

    fn i32v(text: &str) -> Result<u32, UniformError> {
        match parse_value(ScalarType::I32, text.as_bytes())? {
            UniformValue::I32(v) => Ok(v),
            other => panic!("wrong type {other:?}"),
        }
    }

    fn i64v(text: &str) -> Result<i64, UniformError> {
        match parse_value(ScalarType::I64, text.as_bytes())? {
            UniformValue::I64(v) => Ok(v),
            other => panic!("wrong type {other:?}"),
        }
    }

    fn syn(offset: usize) -> UniformError {
        UniformError { offset, kind: UniformErrorKind::Syntax }
    }

    fn range() -> UniformError {
        UniformError { offset: 0, kind: UniformErrorKind::OutOfRange }
    }

    /// The 26 cases measured against QIP's Content interpreter wrapper: the six where Go
    /// `qip run` differs, and twenty where they agree.
    #[test]
    fn target_values_as_the_content_interpreter_parses_them() {
        let t = |ty, s: &str| parse_target_value(ty, s.as_bytes());
        use ScalarType::{F32, F64, I32, I64};
        // The six that differ from Go's column.
        assert_eq!(t(I32, "1_000"), Ok(UniformValue::I32(1000)));
        assert_eq!(parse_value(I32, b"1_000"), Err(syn(1)));
        assert_eq!(t(I64, "1_0"), Ok(UniformValue::I64(10)));
        assert_eq!(t(I64, "0xffffffffffffffff"), Ok(UniformValue::I64(-1)));
        assert_eq!(parse_value(I64, b"0xffffffffffffffff"), Err(range()));
        assert_eq!(t(F32, "1e39"), Ok(UniformValue::F32(f32::INFINITY)));
        assert_eq!(t(F64, "1e309"), Ok(UniformValue::F64(f64::INFINITY)));
        assert_eq!(t(F64, "-1e309"), Ok(UniformValue::F64(f64::NEG_INFINITY)));
        assert_eq!(t(I64, "-0x10"), Err(syn(2)));
        assert_eq!(parse_value(I64, b"-0x10"), Ok(UniformValue::I64(-16)));
        // The twenty that agree.
        for (ty, text, want) in [
            (I32, "0XfF", Ok(UniformValue::I32(255))),
            (I32, "0", Ok(UniformValue::I32(0))),
            (I32, "4294967295", Ok(UniformValue::I32(u32::MAX))),
            (I32, "4294967296", Err(range())),
            (I32, "-1", Err(syn(0))),
            (I32, "+5", Err(syn(0))),
            (I32, " 5", Err(syn(0))),
            (I32, "", Err(syn(0))),
            (I32, "1.5", Err(syn(1))),
            (I64, "+7", Ok(UniformValue::I64(7))),
            (I64, "-9223372036854775808", Ok(UniformValue::I64(i64::MIN))),
            (I64, "9223372036854775808", Err(range())),
            (F32, "0x1p3", Ok(UniformValue::F32(8.0))),
            (F32, "inf", Ok(UniformValue::F32(f32::INFINITY))),
            (F32, "-0", Ok(UniformValue::F32(-0.0))),
            (F64, "1_0.5", Ok(UniformValue::F64(10.5))),
            (F64, "0.1", Ok(UniformValue::F64(0.1))),
            (F64, "-inf", Ok(UniformValue::F64(f64::NEG_INFINITY))),
            (F64, "1e", Err(syn(2))),
        ] {
            assert_eq!(t(ty, text), want, "{ty:?} {text:?}");
            assert_eq!(parse_value(ty, text.as_bytes()), want, "{ty:?} {text:?} (Go agrees)");
        }
        // NaN: f32 bits 0x7fc0_0000 both ways.
        let Ok(UniformValue::F32(nan)) = t(F32, "nan") else { panic!("nan") };
        assert_eq!(nan.to_bits(), 0x7fc0_0000);
        // Underscores: between digits only, in decimal and hex.
        assert_eq!(t(I32, "1__0"), Ok(UniformValue::I32(10)));
        assert_eq!(t(I32, "0xf_f"), Ok(UniformValue::I32(255)));
        assert_eq!(t(I32, "_1"), Err(syn(0)));
        assert_eq!(t(I32, "1_"), Err(syn(1)));
        assert_eq!(t(I32, "0x_f"), Err(syn(2)));
        assert_eq!(t(I64, "-_1"), Err(syn(1)));
        assert_eq!(t(I64, "0x1_0000_0000_0000_0000"), Err(range()));
        assert_eq!(t(I32, "0x1_0000_0000"), Err(range()));
        assert_eq!(t(I32, "nope"), Err(syn(0)));
    }

    #[test]
    fn key_grammar() {
        assert!(valid_key("a"));
        assert!(valid_key("scale"));
        assert!(valid_key("inspect_memory_2"));
        assert!(valid_key("a1_b2"));
        // 63 characters: 'a' + 62 × 'b'.
        let k63 = format!("a{}", "b".repeat(62));
        assert!(valid_key(&k63));
        let k64 = format!("a{}", "b".repeat(63));
        assert!(!valid_key(&k64));
        assert!(!valid_key(""));
        assert!(!valid_key("1a")); // first must be [a-z]
        assert!(!valid_key("_a"));
        assert!(!valid_key("Scale")); // uppercase
        assert!(!valid_key("a_")); // trailing underscore
        assert!(!valid_key("a__b")); // double underscore
        assert!(!valid_key("a-b"));
        assert!(!valid_key("a b"));
        assert!(!valid_key("é"));
        assert!(!valid_key_bytes(b"a\xff"));
    }

    #[test]
    fn i32_go_column() {
        assert_eq!(i32v("0"), Ok(0));
        assert_eq!(i32v("4294967295"), Ok(u32::MAX));
        assert_eq!(i32v("007"), Ok(7));
        assert_eq!(i32v("0x10"), Ok(16));
        assert_eq!(i32v("0XfF"), Ok(255));
        assert_eq!(i32v("0xffffffff"), Ok(u32::MAX));
        // 4294967296 = 2^32: one past the maximum.
        assert_eq!(i32v("4294967296"), Err(range()));
        assert_eq!(i32v("0x100000000"), Err(range()));
        assert_eq!(i32v("-1"), Err(syn(0)));
        assert_eq!(i32v("+1"), Err(syn(0)));
        assert_eq!(i32v("1.5"), Err(syn(1)));
        assert_eq!(i32v(" 1"), Err(syn(0)));
        assert_eq!(i32v("1 "), Err(syn(1)));
        assert_eq!(i32v("1_000"), Err(syn(1)));
        assert_eq!(i32v(""), Err(syn(0)));
        assert_eq!(i32v("0x"), Err(syn(2))); // digits expected at offset 2
        assert_eq!(i32v("0x-1"), Err(syn(2)));
        assert_eq!(i32v("0x1g"), Err(syn(3)));
        assert_eq!(i32v("abc"), Err(syn(0)));
        // Overflow is reported before a later bad byte, as Go's left-to-right scan does.
        assert_eq!(i32v("99999999999x"), Err(range()));
    }

    #[test]
    fn i64_go_column() {
        assert_eq!(i64v("0"), Ok(0));
        assert_eq!(i64v("-5"), Ok(-5));
        assert_eq!(i64v("+5"), Ok(5));
        assert_eq!(i64v("9223372036854775807"), Ok(i64::MAX));
        assert_eq!(i64v("-9223372036854775808"), Ok(i64::MIN));
        assert_eq!(i64v("9223372036854775808"), Err(range()));
        assert_eq!(i64v("-9223372036854775809"), Err(range()));
        assert_eq!(i64v("0x10"), Ok(16));
        assert_eq!(i64v("-0x10"), Ok(-16));
        assert_eq!(i64v("+0X1f"), Ok(31));
        assert_eq!(i64v("0x7fffffffffffffff"), Ok(i64::MAX));
        assert_eq!(i64v("-0x8000000000000000"), Ok(i64::MIN));
        // Range-checked signed: the all-ones pattern is 2^64 − 1, not −1.
        assert_eq!(i64v("0xffffffffffffffff"), Err(range()));
        assert_eq!(i64v("0x8000000000000000"), Err(range()));
        assert_eq!(i64v("0x10000000000000000"), Err(range()));
        assert_eq!(i64v("-"), Err(syn(1)));
        assert_eq!(i64v("--1"), Err(syn(1)));
        assert_eq!(i64v("-0x"), Err(syn(3)));
        assert_eq!(i64v("0x+1"), Err(syn(2)));
        assert_eq!(i64v("1_0"), Err(syn(1)));
        assert_eq!(i64v("1e3"), Err(syn(1)));
        assert_eq!(i64v(""), Err(syn(0)));
    }

    #[test]
    fn float_decimal_forms() {
        assert_eq!(f64v("1"), Ok(1.0));
        assert_eq!(f64v("+1"), Ok(1.0));
        assert_eq!(f64v("-0.1"), Ok(-0.1));
        assert_eq!(f64v("1."), Ok(1.0));
        assert_eq!(f64v(".5"), Ok(0.5));
        assert_eq!(f64v("1.e2"), Ok(100.0));
        assert_eq!(f64v("1E23"), Ok(1e23));
        assert_eq!(f64v("625e-3"), Ok(0.625));
        assert_eq!(f64v("00012.500e+0010"), Ok(125_000_000_000.0));
        // -0 keeps its sign.
        assert_eq!(f64v("-0").map(f64::to_bits), Ok(0x8000_0000_0000_0000));
        assert_eq!(f32v("-0e0").map(f32::to_bits), Ok(0x8000_0000));
        // 1.5 in f32 is exact.
        assert_eq!(f32v("1.5"), Ok(1.5));
        // 0.1 rounds differently at each precision.
        assert_eq!(f32v("0.1"), Ok(0.1f32));
        assert_eq!(f64v("0.1"), Ok(0.1f64));
    }

    #[test]
    fn float_syntax_errors() {
        assert_eq!(f64v(""), Err(syn(0)));
        assert_eq!(f64v("."), Err(syn(1))); // no digit before the end
        assert_eq!(f64v("-"), Err(syn(1)));
        assert_eq!(f64v("1x"), Err(syn(1)));
        assert_eq!(f64v("1.1."), Err(syn(3))); // second dot ends the number
        assert_eq!(f64v("1e"), Err(syn(2)));
        assert_eq!(f64v("1e-"), Err(syn(3)));
        assert_eq!(f64v(".e-1"), Err(syn(1)));
        assert_eq!(f64v("1\x00.2"), Err(syn(1)));
        assert_eq!(f64v(" 1"), Err(syn(0)));
        assert_eq!(f64v("1 "), Err(syn(1)));
        assert_eq!(f64v("1p2"), Err(syn(1)));
        assert_eq!(f64v("++1"), Err(syn(1)));
    }

    #[test]
    fn float_specials() {
        for t in ["inf", "+Inf", "INF", "infinity", "+INFINITY", "Infinity"] {
            assert_eq!(f64v(t), Ok(f64::INFINITY), "{t}");
            assert_eq!(f32v(t), Ok(f32::INFINITY), "{t}");
        }
        for t in ["-inf", "-Infinity"] {
            assert_eq!(f64v(t), Ok(f64::NEG_INFINITY), "{t}");
            assert_eq!(f32v(t), Ok(f32::NEG_INFINITY), "{t}");
        }
        for t in ["nan", "NaN", "NAN"] {
            assert_eq!(f64v(t).map(f64::to_bits), Ok(0x7ff8_0000_0000_0001), "{t}");
            assert_eq!(f32v(t).map(f32::to_bits), Ok(0x7fc0_0000), "{t}");
        }
        // A sign is allowed on inf, not on nan; prefixes and extensions are errors.
        assert_eq!(f64v("+nan"), Err(syn(1)));
        assert_eq!(f64v("-nan"), Err(syn(1)));
        assert_eq!(f64v("infin"), Err(syn(0)));
        assert_eq!(f64v("infinityx"), Err(syn(0)));
        assert_eq!(f64v("nanx"), Err(syn(0)));
        assert_eq!(f64v("in"), Err(syn(0)));
    }

    #[test]
    fn float_hex() {
        // Go's own examples (strconv tests), value derived from the definition m × 2^p.
        assert_eq!(f64v("0x1p0"), Ok(1.0));
        assert_eq!(f64v("0x1p-2"), Ok(0.25));
        assert_eq!(f64v("0x.1p-2"), Ok(0.015625)); // 1/16 × 1/4
        assert_eq!(f64v("0x1ep-1"), Ok(15.0)); // 30 / 2
        assert_eq!(f64v("-0x1_ep-1"), Ok(-15.0));
        assert_eq!(f64v("0x1fFe2.P0"), Ok(131042.0)); // 0x1ffe2
        assert_eq!(f64v("0x0.fp4"), Ok(15.0));
        assert_eq!(f64v("0X1P+2"), Ok(4.0));
        assert_eq!(f32v("0x1p-100"), Ok(7.888609e-31));
        assert_eq!(f64v("-0x0p+01234567890123456789").map(f64::to_bits), Ok(0x8000_0000_0000_0000));
        // The exponent is required; `e` is a hex digit.
        assert_eq!(f64v("0x1e2"), Err(syn(5)));
        assert_eq!(f64v("0x"), Err(syn(1))); // not a prefix without a following byte
        assert_eq!(f64v("0x."), Err(syn(3)));
        assert_eq!(f64v("0x1"), Err(syn(3)));
        assert_eq!(f64v("0x.1"), Err(syn(4)));
        assert_eq!(f64v("0x1p"), Err(syn(4)));
        assert_eq!(f64v("0x1p+"), Err(syn(5)));
        assert_eq!(f64v("0xp1"), Err(syn(2)));
    }

    #[test]
    fn float_hex_rounding() {
        // Largest f64: 0x1.fffffffffffffp1023.
        assert_eq!(f64v("0x1.fffffffffffffp1023"), Ok(f64::MAX));
        assert_eq!(f64v("0x1fffffffffffffp+971"), Ok(f64::MAX));
        // Below half an ULP above MAX rounds down; exactly half (ties to even, MAX is odd)
        // and more overflow.
        assert_eq!(f64v("0x1.fffffffffffff7fffp1023"), Ok(f64::MAX));
        assert_eq!(f64v("0x1.fffffffffffff8p1023"), Err(range()));
        assert_eq!(f64v("0x1p1024"), Err(range()));
        assert_eq!(f64v("-0x1p1024"), Err(range()));
        // Halfway between 1 and 1 + 2^-52: ties to even → 1; just above → 1 + 2^-52.
        assert_eq!(f64v("0x1.00000000000008p0"), Ok(1.0));
        assert_eq!(f64v("0x1.000000000000081p0"), Ok(1.0 + f64::EPSILON));
        assert_eq!(f64v("0x1.00000000000018p0"), Ok(1.0 + 2.0 * f64::EPSILON)); // tie, odd → up
        // A nonzero digit past the 15 kept digits acts as sticky: 0x1.00000000000008 + tiny.
        let long = format!("0x1.00000000000008{}1p0", "0".repeat(100));
        assert_eq!(f64v(&long), Ok(1.0 + f64::EPSILON));
        // Subnormals: 0x0.00000000000010p-1022 = 2^-1074, the smallest; half of it is a tie
        // with zero (even) → 0; a bit more → 2^-1074.
        assert_eq!(f64v("0x0.00000000000010p-1022").map(f64::to_bits), Ok(1));
        assert_eq!(f64v("0x0.00000000000008p-1022").map(f64::to_bits), Ok(0));
        assert_eq!(f64v("0x0.000000000000081p-1022").map(f64::to_bits), Ok(1));
        assert_eq!(f64v("0x0.00000000000007fp-1022").map(f64::to_bits), Ok(0));
        // 0x0.fffffffffffff0p-1022 = largest subnormal (bits 0x000f_ffff_ffff_ffff).
        assert_eq!(f64v("0x0.fffffffffffff0p-1022").map(f64::to_bits), Ok(0x000f_ffff_ffff_ffff));
        // 0x1.fffffffffffff8p-1023 rounds (tie, odd) up to 2^-1022, the smallest normal.
        assert_eq!(f64v("0x1.fffffffffffff8p-1023").map(f64::to_bits), Ok(0x0010_0000_0000_0000));
        // Far below: zero, no error.
        assert_eq!(f64v("0x1p-4294967296"), Ok(0.0));
        assert_eq!(f64v("0x1p+4294967296"), Err(range()));
        // f32: largest 0x.ffffffp128; half an ULP above overflows.
        assert_eq!(f32v("0x.ffffffp128"), Ok(f32::MAX));
        assert_eq!(f32v("0x.ffffff7fp128"), Ok(f32::MAX));
        assert_eq!(f32v("0x.ffffff8p128"), Err(range()));
        assert_eq!(f32v("0x1.000001p0"), Ok(1.0)); // tie, even
        assert_eq!(f32v("0x1.0000011p0"), Ok(1.0 + f32::EPSILON));
        // f32 subnormals: 0x0.0000010p-125 = 2^-149 (bits 1); half → 0.
        assert_eq!(f32v("0x0.0000010p-125").map(f32::to_bits), Ok(1));
        assert_eq!(f32v("0x0.0000008p-125").map(f32::to_bits), Ok(0));
        assert_eq!(f32v("0x0.00000081p-125").map(f32::to_bits), Ok(1));
        assert_eq!(f32v("0x0.1234569p-125").map(f32::to_bits), Ok(0x0012_3457)); // rounded up
        assert_eq!(f32v("0x0.1234568p-125").map(f32::to_bits), Ok(0x0012_3456)); // tie, even
    }

    #[test]
    fn float_range() {
        assert_eq!(f64v("1.7976931348623157e308"), Ok(f64::MAX));
        assert_eq!(f64v("1.7976931348623158e308"), Ok(f64::MAX)); // within half an ULP
        assert_eq!(f64v("1.797693134862315808e308"), Err(range()));
        assert_eq!(f64v("1e309"), Err(range()));
        assert_eq!(f64v("-1e400000"), Err(range()));
        assert_eq!(f64v("1e+4294967296"), Err(range()));
        assert_eq!(f64v("1e-400000"), Ok(0.0));
        assert_eq!(f64v("5e-324").map(f64::to_bits), Ok(1));
        assert_eq!(f64v("2e-324"), Ok(0.0));
        assert_eq!(f64v("0e+01234567890123456789"), Ok(0.0));
        // f32: 3.4028235e38 is MAX; 3.4028236e38 overflows (beyond half an ULP).
        assert_eq!(f32v("340282346638528859811704183484516925440"), Ok(f32::MAX));
        assert_eq!(f32v("3.402823567e38"), Ok(f32::MAX));
        assert_eq!(f32v("3.4028235678e38"), Err(range()));
        assert_eq!(f32v("3.4028236e38"), Err(range()));
        assert_eq!(f32v("1e39"), Err(range()));
        // A value fine as f64 but not as f32.
        assert_eq!(f64v("1e39"), Ok(1e39));
        assert_eq!(f32v("1e-46"), Ok(0.0));
        // Ties to even directly at f32 precision (no double rounding through f64):
        // 1 + 2^-24 is halfway between 1 and the next f32 → 1.
        assert_eq!(f32v("1.000000059604644775390625"), Ok(1.0));
        assert_eq!(f32v("1.000000059604644775390626"), Ok(1.0 + f32::EPSILON));
    }

    #[test]
    fn float_exponent_saturates_like_go() {
        // Digits accumulate only while the exponent is below 10,000: leading zeros keep it at 0,
        // so "1e0000000000000000001" is 1e1.
        assert_eq!(f64v("1e0000000000000000001"), Ok(10.0));
        // Here the digits of 100000 stop at 10000 (1, 10, 100, 1000, 10000, then no more), so
        // the value is 1e-20001 × 1e10000 = 1e-10001 → 0, where the exact value 1e79999
        // would overflow; with 20000 the digits never reach the cap and the value is 0.1.
        let tiny = format!("0.{}1e100000", "0".repeat(20_000));
        assert_eq!(f64v(&tiny), Ok(0.0));
        let tenth = format!("0.{}1e20000", "0".repeat(20_000));
        assert_eq!(f64v(&tenth), Ok(0.1));
        // Exponent 99999 (the largest a saturated exponent can reach) still parses exactly.
        assert_eq!(f64v("0e99999"), Ok(0.0));
    }

    #[test]
    fn float_underscores() {
        // Go: "1_23.50_0_0e+1_2" = 123.5e12.
        assert_eq!(f64v("1_23.50_0_0e+1_2"), Ok(1.235e14));
        assert_eq!(f64v("1_000"), Ok(1000.0));
        assert_eq!(f64v("0x_1_2.3_4_5p+1_2"), Ok(74565.0)); // 0x12.345 × 4096
        // Misplaced underscores, with the offset of the offending `_`.
        assert_eq!(f64v("_123.5e+12"), Err(syn(0)));
        assert_eq!(f64v("-_123.5e+12"), Err(syn(1)));
        assert_eq!(f64v("+_123.5e+12"), Err(syn(1)));
        assert_eq!(f64v("1__23.5e+12"), Err(syn(1)));
        assert_eq!(f64v("123_.5e+12"), Err(syn(3)));
        assert_eq!(f64v("123._5e+12"), Err(syn(4)));
        assert_eq!(f64v("123.5_e+12"), Err(syn(5)));
        assert_eq!(f64v("123.5__0e+12"), Err(syn(5)));
        assert_eq!(f64v("123.5e_+12"), Err(syn(6))); // exponent must start with sign or digit
        assert_eq!(f64v("123.5e+_12"), Err(syn(7)));
        assert_eq!(f64v("123.5e+1__2"), Err(syn(8)));
        assert_eq!(f64v("123.5e+12_"), Err(syn(9)));
        assert_eq!(f64v("-_0x12.345p+12"), Err(syn(1)));
        assert_eq!(f64v("0x__12.345p+12"), Err(syn(2)));
        assert_eq!(f64v("0x12_.345p+12"), Err(syn(4)));
        assert_eq!(f64v("0x12.345_p+12"), Err(syn(8)));
        assert_eq!(f64v("0x12.345p+12_"), Err(syn(12)));
        assert_eq!(f32v("1_0"), Ok(10.0));
    }

    #[test]
    fn not_utf8() {
        // 0xff is never valid UTF-8; the first two bytes are.
        assert_eq!(
            parse_value(ScalarType::F64, b"1.\xff"),
            Err(UniformError { offset: 2, kind: UniformErrorKind::NotUtf8 })
        );
        assert_eq!(
            parse_value(ScalarType::I32, b"\xc3"),
            Err(UniformError { offset: 0, kind: UniformErrorKind::NotUtf8 })
        );
        // Multi-byte UTF-8 is UTF-8, but not a number.
        assert_eq!(parse_value(ScalarType::I64, "１".as_bytes()), Err(syn(0)));
    }

    #[test]
    fn value_bits() {
        assert_eq!(UniformValue::I32(u32::MAX).to_bits(), 0xffff_ffff);
        assert_eq!(UniformValue::I64(-1).to_bits(), u64::MAX);
        assert_eq!(UniformValue::F32(1.0).to_bits(), 0x3f80_0000);
        assert_eq!(UniformValue::F64(1.0).to_bits(), 0x3ff0_0000_0000_0000);
        assert_eq!(UniformValue::F32(0.0).ty(), ScalarType::F32);
    }
}
