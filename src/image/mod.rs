//! Image containers written by the tools.
//!
//! * [`ktx2`]: QIP's canonical RGBA8 sRGB KTX2 layout (docs/heat-map.md), the output of
//!   `qip-interpret-memory-thermal-ktx2.wasm`.
//! * [`view`]: the heat map drawn for people (opaque, labelled, viridis), with [`font`], a
//!   small bitmap font of our own.

pub mod font;
pub mod ktx2;
pub mod view;
