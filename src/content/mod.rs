//! QIP Content request handling (`spec/qip-content.md` A.6.1, A.7, A.10, B.3;
//! `spec/memory-tools.md` 1):
//!
//! * [`multipart`]: the strict parser of the `multipart/form-data` request the memory tools
//!   accept (B.3), with byte offsets for rejection mode 0;
//! * [`uniforms`]: the uniform key grammar and the value parsing of Go `qip run` (A.7);
//! * [`form`]: the byte-exact `-F` body builder of Go `qip run` (A.10);
//! * [`contract`]: a target's Content contract read from its module (A.2–A.6, C.9);
//! * [`run`]: running a target in the bounded interpreter in the order of B.2;
//! * [`component`]: the exports all our Content components share, as the macro
//!   [`content_component!`](crate::content_component).

pub mod component;
pub mod contract;
pub mod form;
pub mod multipart;
pub mod run;
pub mod uniforms;
