//! Line and column of a position in decoded text, kept up to date chunk by chunk.

/// A line and a column, both from 1. Lines are ended by U+000A; columns count
/// Unicode scalar values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// The line, from 1.
    pub line: u64,
    /// The column, from 1.
    pub column: u64,
}

impl Default for Position {
    fn default() -> Self {
        Position { line: 1, column: 1 }
    }
}

impl Position {
    /// Moves past `text`.
    #[inline]
    pub fn advance(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let newlines = count_newlines(bytes);
        if newlines == 0 {
            self.column += count_chars(bytes);
        } else {
            self.line += newlines;
            let last = bytes.iter().rposition(|&b| b == b'\n').unwrap_or(0);
            self.column = 1 + count_chars(&bytes[last + 1..]);
        }
    }

    /// `self` moved past `text`.
    pub fn after(mut self, text: &str) -> Position {
        self.advance(text);
        self
    }
}

/// The number of line feeds in `bytes`.
fn count_newlines(bytes: &[u8]) -> u64 {
    count_bytes(bytes, |b| b == b'\n')
}

/// The number of scalar values in UTF-8 `bytes`: the bytes that are not
/// continuation bytes.
fn count_chars(bytes: &[u8]) -> u64 {
    count_bytes(bytes, |b| (b as i8) >= -0x40)
}

/// The number of bytes in `bytes` for which `matches` holds: counted in blocks of
/// 255 into one byte per lane, which the compiler vectorizes 16 or 32 lanes wide
/// (a `u64` sum would use 2 or 4).
#[inline]
pub fn count_bytes(bytes: &[u8], matches: impl Fn(u8) -> bool) -> u64 {
    bytes.chunks(255).map(|block| u64::from(block.iter().fold(0u8, |n, &b| n + u8::from(matches(b))))).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns() {
        let mut position = Position::default();
        position.advance("ab");
        assert_eq!(position, Position { line: 1, column: 3 });
        position.advance("c\nde");
        assert_eq!(position, Position { line: 2, column: 3 });
        position.advance("日本\n\n語");
        assert_eq!(position, Position { line: 4, column: 2 });
        assert_eq!(Position::default().after("\n"), Position { line: 2, column: 1 });
        // Long texts, counted in blocks.
        let long = "é\n".repeat(1000) + "abc";
        assert_eq!(Position::default().after(&long), Position { line: 1001, column: 4 });
        assert_eq!(count_chars("日".repeat(600).as_bytes()), 600);
    }
}
