//! The `whatenc` command. For now: `whatenc list`.
fn main() {}
