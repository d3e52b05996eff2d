//! QIP Content request handling (docs/request.md, docs/content.md, docs/uniforms.md):
//!
//! * [`multipart`]: the strict parser of the `multipart/form-data` request the memory tools
//!   accept, with byte offsets for rejection mode 0;
//! * [`uniforms`]: the uniform key grammar and the value parsing of Go `qip run`;
//! * [`form`]: the byte-exact `-F` body builder of Go `qip run`;
//! * [`contract`]: a target's Content contract read from its module;
//! * [`run`]: running a target in the bounded interpreter in the order of docs/request.md, "The
//!   run";
//! * [`component`]: the exports all our Content components share, as the macro
//!   [`content_component!`](crate::content_component).

pub mod component;
pub mod contract;
pub mod form;
pub mod multipart;
pub mod run;
pub mod uniforms;
