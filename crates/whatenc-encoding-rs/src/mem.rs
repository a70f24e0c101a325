//! m
/// x
pub fn utf8_valid_up_to(bytes: &[u8]) -> usize {
    match core::str::from_utf8(bytes) {
        Ok(_) => bytes.len(),
        Err(e) => e.valid_up_to(),
    }
}
/// x
pub fn ascii_valid_up_to(bytes: &[u8]) -> usize {
    bytes.iter().position(|&b| b >= 0x80).unwrap_or(bytes.len())
}
