//! Image containers written by the tools.
//!
//! * [`ktx2`]: QIP's canonical RGBA8 sRGB KTX2 layout (`qip-content.md` F.1), the output of
//!   `qip-interpret-memory-thermal-ktx2.wasm`.

pub mod ktx2;
