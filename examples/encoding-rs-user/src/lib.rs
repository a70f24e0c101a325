//! A small library written against encoding_rs 0.8's API, the way its users write
//! it: this crate depends on `encoding_rs = { package = "whatenc-encoding-rs", .. }`,
//! and `tests/real.rs` builds the very same source (`src/user.rs`) against the real
//! encoding_rs to show that it needs no change.

mod user;

pub use user::*;
