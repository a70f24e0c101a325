//! Portable kernels that work a machine word at a time.

const WORD: usize = core::mem::size_of::<usize>();
const HIGH_BITS: usize = usize::from_ne_bytes([0x80; WORD]);

/// Code units (or bytes) a step of the chunked loops below: the loops are written
/// for LLVM's vectorizer, which makes each step a few SSE2 or NEON instructions.
const CHUNK: usize = 16;

/// The length of the longest ASCII prefix of `bytes`.
#[inline]
pub(crate) fn ascii_prefix_len(bytes: &[u8]) -> usize {
    let mut pos = 0;
    // Whole chunks of ASCII first (one OR across 32 bytes a step), then words.
    while let Some(chunk) = bytes.get(pos..).and_then(|rest| rest.first_chunk::<{ 2 * CHUNK }>()) {
        if chunk.iter().fold(0, |acc, &byte| acc | byte) >= 0x80 {
            break;
        }
        pos += 2 * CHUNK;
    }
    let mut words = bytes[pos..].chunks_exact(WORD);
    for word in &mut words {
        let value = usize::from_ne_bytes(word.try_into().unwrap_or([0; WORD]));
        let high = value & HIGH_BITS;
        if high != 0 {
            // The first non-ASCII byte in memory order.
            let offset =
                if cfg!(target_endian = "little") { high.trailing_zeros() / 8 } else { high.leading_zeros() / 8 };
            return pos + offset as usize;
        }
        pos += WORD;
    }
    for &byte in words.remainder() {
        if byte >= 0x80 {
            return pos;
        }
        pos += 1;
    }
    pos
}

/// The offset of the first `needle` in `haystack`: 32 bytes a step (one compare and
/// OR across the chunk, which LLVM vectorizes), then the byte in that chunk.
/// (For the prescan's searches and `io`'s `read_line`.)
#[inline]
pub(crate) fn find_byte(needle: u8, haystack: &[u8]) -> Option<usize> {
    let mut pos = 0;
    while let Some(chunk) = haystack.get(pos..).and_then(|rest| rest.first_chunk::<{ 2 * CHUNK }>()) {
        if chunk.iter().fold(false, |acc, &byte| acc | (byte == needle)) {
            break;
        }
        pos += 2 * CHUNK;
    }
    haystack[pos..].iter().position(|&byte| byte == needle).map(|i| pos + i)
}

/// Copies `src` to `dst`, of the same length.
#[inline]
pub(crate) fn copy_bytes(src: &[u8], dst: &mut [u8]) {
    dst.copy_from_slice(src);
}

/// Copies the longest ASCII prefix of `src` that fits in `dst`; returns its length.
/// In one pass, 2 × [`CHUNK`] bytes a step: each step is stored whole, and the bytes
/// after the run among it (within `dst`) are scratch. A scan, then a copy, called
/// `memcpy` for each run; in one pass, the single-byte encoders from `&str` at the
/// portable tier took less time: cs.txt −22%, pt.txt, fr.txt and de.txt −9%, en.html
/// −5%, ru.txt −4% (rotating, `Intel Xeon` Cascade Lake).
#[inline]
pub(crate) fn copy_ascii_to_ascii(src: &[u8], dst: &mut [u8]) -> usize {
    let limit = src.len().min(dst.len());
    let (src, dst) = (&src[..limit], &mut dst[..limit]);
    let mut n = 0;
    while let (Some(chunk), Some(out)) =
        (src[n..].first_chunk::<{ 2 * CHUNK }>(), dst[n..].first_chunk_mut::<{ 2 * CHUNK }>())
    {
        if chunk.iter().fold(0, |acc, &byte| acc | byte) >= 0x80 {
            // The prefix's half (or both halves) stored whole: no more than 15 bytes
            // past the prefix are written (the encoders promise 16). Each a copy of a
            // size known to the compiler: one of a length chosen at run time was a
            // call to `memcpy`, in the encoders' loop after each ASCII run (portable
            // tier, fr.txt windows-1252 from `&str` 73 → 88 µs in a build where this
            // was not inlined, `AMD EPYC` Zen 4).
            let ascii = ascii_prefix_len(chunk);
            if ascii < CHUNK {
                let (head, _) = out.split_first_chunk_mut::<CHUNK>().expect("a chunk of 2 × CHUNK");
                *head = *chunk.first_chunk::<CHUNK>().expect("a chunk of 2 × CHUNK");
            } else {
                *out = *chunk;
            }
            return n + ascii;
        }
        *out = *chunk;
        n += 2 * CHUNK;
    }
    for (out, &byte) in dst[n..].iter_mut().zip(&src[n..]) {
        if byte >= 0x80 {
            break;
        }
        *out = byte;
        n += 1;
    }
    n
}

/// The ASCII bytes at the start of a chunk that has a non-ASCII one (a word at a
/// time); called, not inlined, so that the loop that calls it stays vector code.
#[inline(never)]
fn ascii_in_chunk(chunk: &[u8; CHUNK]) -> usize {
    ascii_prefix_len(chunk)
}

/// Widens the longest ASCII prefix of `src` that fits in `dst`; returns its length.
/// In one pass, [`CHUNK`] bytes a step: each step's units are stored whole, and
/// those after the run (up to `CHUNK - 1`, within `dst`) are scratch.
#[inline]
pub(crate) fn copy_ascii_to_utf16(src: &[u8], dst: &mut [u16]) -> usize {
    let limit = src.len().min(dst.len());
    let (src, dst) = (&src[..limit], &mut dst[..limit]);
    let mut n = 0;
    while let (Some(chunk), Some(out)) = (src[n..].first_chunk::<CHUNK>(), dst[n..].first_chunk_mut::<CHUNK>()) {
        let units = chunk.map(u16::from);
        *out = units;
        // The check on the widened units: on the bytes, LLVM did not vectorize the
        // loop.
        if units.iter().fold(0, |acc, &unit| acc | unit) >= 0x80 {
            return n + ascii_in_chunk(chunk);
        }
        n += CHUNK;
    }
    for (out, &byte) in dst[n..].iter_mut().zip(&src[n..]) {
        if byte >= 0x80 {
            break;
        }
        *out = u16::from(byte);
        n += 1;
    }
    n
}

/// Narrows the longest run of ASCII code units of `src` that fits in `dst`; returns
/// its length.
#[inline]
pub(crate) fn copy_utf16_ascii_to_bytes(src: &[u16], dst: &mut [u8]) -> usize {
    let limit = src.len().min(dst.len());
    let (src, dst) = (&src[..limit], &mut dst[..limit]);
    let mut n = 0;
    while let (Some(units), Some(out)) = (src[n..].first_chunk::<CHUNK>(), dst[n..].first_chunk_mut::<CHUNK>()) {
        if units.iter().fold(0, |acc, &unit| acc | unit) >= 0x80 {
            break;
        }
        *out = units.map(|unit| unit as u8);
        n += CHUNK;
    }
    for (out, &unit) in dst[n..].iter_mut().zip(&src[n..]) {
        if unit >= 0x80 {
            break;
        }
        *out = unit as u8;
        n += 1;
    }
    n
}

/// Decodes a chunk of bytes that are ASCII (as themselves) or in `start..start + len`
/// (as `byte + delta`), without a branch per byte (LLVM vectorizes it); returns
/// whether every byte was one of those (else `out` holds garbage).
#[inline(always)]
fn decode_linear_chunk(block: &[u8; CHUNK], out: &mut [u16; CHUNK], start: u8, len: u8, delta: u16) -> bool {
    let ok = block.iter().fold(true, |acc, &byte| acc & (byte < 0x80 || byte.wrapping_sub(start) < len));
    *out = block.map(|byte| if byte < 0x80 { byte as u16 } else { (byte as u16).wrapping_add(delta) });
    ok
}

/// Bytes per block of the single-byte table kernels.
pub(crate) const TABLE_BLOCK: usize = 16;

/// The fewest non-ASCII bytes for which [`decode_table_to_utf8`] decodes a block
/// whole through the table rather than copying its ASCII prefix and decoding its first
/// non-ASCII byte.
pub(crate) const DENSE_BLOCK: u32 = 3;

/// The room in `dst` that [`decode_table_to_utf8`] wants before a block.
pub(crate) const UTF8_BLOCK_ROOM: usize = 64;

/// Decodes bytes of a single-byte encoding into UTF-8 through `table` (each byte's
/// UTF-8, least significant byte first, with its length in the top byte; 0 for
/// null), a block of 16 bytes at a time while 16 are left and `dst` has 64 bytes of
/// room: an ASCII block is copied; a block with few non-ASCII bytes has its ASCII
/// prefix copied and its first non-ASCII byte decoded; other blocks are decoded byte
/// by byte. Stops before a null byte; returns the bytes read and written. (It and
/// the SSE2 twin leave up to 16 scratch bytes after the output.)
#[inline]
pub(crate) fn decode_table_to_utf8(src: &[u8], dst: &mut [u8], table: &[u32; 256]) -> (usize, usize) {
    decode_table_to_utf8_with(src, dst, table, |src, dst| {
        dst[..TABLE_BLOCK].copy_from_slice(&src[..TABLE_BLOCK]);
        TABLE_BLOCK
    })
}

/// [`decode_table_to_utf8`] with `ascii_blocks` for the ASCII blocks: given the
/// input from an ASCII block on (at least 16 bytes) and the output from where it
/// goes ([`UTF8_BLOCK_ROOM`] bytes of room or more), it copies that block and may
/// copy the ASCII blocks after it that the loop would take (each with 16 bytes of
/// input left and that room before it); returns the bytes copied.
#[inline(always)]
pub(crate) fn decode_table_to_utf8_with(
    src: &[u8],
    dst: &mut [u8],
    table: &[u32; 256],
    ascii_blocks: impl Fn(&[u8], &mut [u8]) -> usize,
) -> (usize, usize) {
    let (mut read, mut written) = (0, 0);
    while let Some(block) = src[read..].first_chunk::<TABLE_BLOCK>() {
        if dst.len() - written < UTF8_BLOCK_ROOM {
            break;
        }
        let [low, high] = [&block[..8], &block[8..]]
            .map(|half| u64::from_le_bytes(half.try_into().unwrap_or([0; 8])) & 0x8080_8080_8080_8080);
        if low | high == 0 {
            let n = ascii_blocks(&src[read..], &mut dst[written..]);
            read += n;
            written += n;
            continue;
        }
        if low.count_ones() + high.count_ones() >= DENSE_BLOCK {
            for (i, &byte) in block.iter().enumerate() {
                let entry = table[byte as usize];
                if entry == 0 {
                    return (read + i, written);
                }
                dst[written..written + 4].copy_from_slice(&entry.to_le_bytes());
                written += (entry >> 24) as usize;
            }
            read += TABLE_BLOCK;
            continue;
        }
        let ascii = if low != 0 { low.trailing_zeros() / 8 } else { 8 + high.trailing_zeros() / 8 } as usize;
        // The whole block (the room allows it; the bytes after the prefix are written
        // over next): a copy of the prefix's own length was a call to `memcpy` (13% of
        // fr.txt windows-1252 → `String` at the portable tier, `AMD EPYC` Zen 4).
        dst[written..written + TABLE_BLOCK].copy_from_slice(block);
        read += ascii;
        written += ascii;
        let entry = table[block[ascii] as usize];
        if entry == 0 {
            break;
        }
        dst[written..written + 4].copy_from_slice(&entry.to_le_bytes());
        read += 1;
        written += (entry >> 24) as usize;
    }
    (read, written)
}

/// Decodes bytes of a single-byte encoding into UTF-16, a block of 16 bytes at a
/// time while 16 are left and fit in `dst`: a block of bytes that are ASCII or in
/// `start..start + len` as in [`decode_linear_chunk`], any other through `table`
/// (each byte's code unit, 0 for null), unless the block has a unit of 0 (null, or
/// the byte 0x00). Returns the bytes consumed.
// Not inlined: inlined into the portable tier's caller, its loop was compiled with
// its source pointer spilled to the stack once the AVX-512 steps came before it
// (vi.txt windows-1258 → UTF-16 84 µs against 70, `AMD EPYC` Zen 4).
#[inline(never)]
pub(crate) fn decode_table_to_utf16(
    src: &[u8],
    dst: &mut [u16],
    table: &[u16; 256],
    start: u8,
    len: u8,
    delta: u16,
) -> usize {
    let mut pos = 0;
    while let Some(block) = src[pos..].first_chunk::<TABLE_BLOCK>() {
        let Some(out) = dst[pos..].first_chunk_mut::<TABLE_BLOCK>() else { break };
        if !decode_linear_chunk(block, out, start, len, delta) {
            let mut zero = false;
            for (unit, &byte) in out.iter_mut().zip(block) {
                *unit = table[byte as usize];
                zero |= *unit == 0;
            }
            if zero {
                break;
            }
        }
        pos += TABLE_BLOCK;
    }
    pos
}

/// Encodes the longest run of code units of `src` that fits in `dst` and that are
/// ASCII (written as themselves) or in `start..start + len` (written as
/// `unit - delta`); returns its length. `start` is at least 0x80, `len` at least 1,
/// and every unit of the range minus `delta` is a byte. The kernels may write bytes of
/// `dst` past the run (the encoder writes over them next).
#[inline]
pub(crate) fn encode_utf16_linear(src: &[u16], dst: &mut [u8], start: u16, len: u16, delta: u16) -> usize {
    let limit = src.len().min(dst.len());
    let (src, dst) = (&src[..limit], &mut dst[..limit]);
    let mut n = 0;
    // Whole chunks without a branch per unit (LLVM vectorizes them): ASCII ones while
    // they last, with half the work, then any in the range; then one at a time. Each
    // loop ends once a call (the encoder calls again after each unit out of the
    // range), so no branch alternates between them. English (curly quotes out of
    // windows-1252's range) −17% time, German and French +3–5% (their first
    // accented letter ends the first loop), Czech and Turkish +4% (rotating, `Intel
    // Xeon` Cascade Lake, portable tier).
    while let (Some(units), Some(out)) = (src[n..].first_chunk::<CHUNK>(), dst[n..].first_chunk_mut::<CHUNK>()) {
        if !units.iter().fold(true, |acc, &unit| acc & (unit < 0x80)) {
            break;
        }
        *out = units.map(|unit| unit as u8);
        n += CHUNK;
    }
    while let (Some(units), Some(out)) = (src[n..].first_chunk::<CHUNK>(), dst[n..].first_chunk_mut::<CHUNK>()) {
        if !units.iter().fold(true, |acc, &unit| acc & (unit < 0x80 || unit.wrapping_sub(start) < len)) {
            break;
        }
        *out = units.map(|unit| if unit < 0x80 { unit as u8 } else { unit.wrapping_sub(delta) as u8 });
        n += CHUNK;
    }
    for (out, &unit) in dst[n..].iter_mut().zip(&src[n..]) {
        if unit < 0x80 {
            *out = unit as u8;
        } else if unit.wrapping_sub(start) < len {
            *out = unit.wrapping_sub(delta) as u8;
        } else {
            break;
        }
        n += 1;
    }
    n
}

/// Turns UTF-16 bytes (big- or little-endian) into code units while they are not
/// surrogates and fit in `dst`; returns the units written (each consumed two bytes).
#[inline]
pub(crate) fn utf16_bytes_to_units(src: &[u8], dst: &mut [u16], big_endian: bool) -> usize {
    let mut n = 0;
    while let (Some(bytes), Some(out)) =
        (src.get(2 * n..).and_then(|rest| rest.first_chunk::<{ 2 * CHUNK }>()), dst[n..].first_chunk_mut::<CHUNK>())
    {
        let units: [u16; CHUNK] = core::array::from_fn(|k| {
            let pair = [bytes[2 * k], bytes[2 * k + 1]];
            if big_endian { u16::from_be_bytes(pair) } else { u16::from_le_bytes(pair) }
        });
        if units.iter().fold(false, |acc, &unit| acc | (unit & 0xF800 == 0xD800)) {
            break;
        }
        *out = units;
        n += CHUNK;
    }
    for (out, pair) in dst[n..].iter_mut().zip(src[2 * n..].chunks_exact(2)) {
        let unit =
            if big_endian { u16::from_be_bytes([pair[0], pair[1]]) } else { u16::from_le_bytes([pair[0], pair[1]]) };
        if (0xD800..=0xDFFF).contains(&unit) {
            break;
        }
        *out = unit;
        n += 1;
    }
    n
}

/// The blocks of eight units in a row without a surrogate after which
/// `utf16_to_utf8::bmp_replacing_to_utf8` stops (there the block kernel's work
/// hides the check).
pub(crate) const CALM_BLOCKS: usize = 4;

/// The most units [`utf16_bytes_replacing_lone_surrogates`] takes in a call, after
/// which its caller goes on with it only if it met a lone surrogate. Legacy bytes
/// taken for UTF-16LE → UTF-16, against stopping after four blocks in a row
/// without a surrogate (the check of which cost the loop half its speed): KOI8-R
/// Russian 29.3 → 9.1 µs, windows-1256 Arabic 5.0 → 1.8, where errors are dense;
/// windows-1251 Russian 2.9 → 3.2, where they are sparse (with 512 units, 1.6 and
/// 4.7; `AMD EPYC` Zen 4, AVX-512 tier).
pub(crate) const REPLACING_SPAN: usize = 128;

/// Eight code units with each surrogate replaced by U+FFFD, and whether there was
/// one, when none of them is a surrogate pair (a leading surrogate followed by a
/// trailing one; `next` follows the eighth unit); `None` when one is. Without
/// pairs, and with the unit before the block not a leading surrogate, every
/// surrogate of the block is lone.
#[inline(always)]
pub(crate) fn lone_surrogates_replaced(block: [u16; 8], next: u16) -> Option<([u16; 8], bool)> {
    let surrogates = block.iter().fold(0, |acc, &unit| acc | u16::from(unit & 0xF800 == 0xD800));
    if surrogates == 0 {
        return Some((block, false));
    }
    let pairs = (0..8).fold(false, |acc, k| {
        let after = if k < 7 { block[k + 1] } else { next };
        acc | (block[k] & 0xFC00 == 0xD800 && after & 0xFC00 == 0xDC00)
    });
    if pairs {
        return None;
    }
    Some((block.map(|unit| if unit & 0xF800 == 0xD800 { 0xFFFD } else { unit }), true))
}

/// Turns UTF-16 bytes (big- or little-endian) into code units, each lone surrogate
/// into U+FFFD, eight units at a time while nine are left (the ninth tells whether
/// a leading surrogate at the eighth has its trailing one) and eight fit in `dst`;
/// the unit before `src` must not be a leading surrogate. Stops before a leading
/// surrogate whose trailing one is the first unit past the last block (the caller
/// takes the pair), and after [`REPLACING_SPAN`] units. Returns the units consumed
/// and written (each two bytes), and whether a lone surrogate was among them (if
/// not, errors are sparse here, and the caller's bulk copy is faster).
///
/// A surrogate pair is a leading surrogate followed by a trailing one; any other
/// surrogate is lone, and the UTF-16 decoder's handler replaces each lone one (its
/// two bytes) by U+FFFD, whatever surrounds it. So the units of a block come out
/// with no branch on their values: in bytes of another encoding taken for UTF-16,
/// a lone surrogate comes every few units.
///
/// Sixteen units a step (then eight, once, where sixteen no longer fit), in arrays
/// of 16-bit lanes that LLVM turns into vector code (SSE2 on x86_64; NEON on aarch64
/// is likely, not checked). Legacy bytes taken for UTF-16LE → UTF-16, portable tier,
/// rotating, `AMD EPYC` Zen 5, MB/s, against eight units a step in two 64-bit words
/// of four lanes each (bit tricks that LLVM left scalar), in two code layouts (the
/// second with `-align-all-nofallthru-blocks=5`): el.txt windows-1253 2,096 → 9,055
/// and 2,124 → 9,000, ru.txt KOI8-R 2,191 → 9,156 and 2,238 → 9,120, ar.txt
/// windows-1256 1,878 → 8,807 and 1,937 → 8,735, ko.txt EUC-KR 3,602 → 8,732 and
/// 3,667 → 8,958, th.txt windows-874 4,550 → 8,277 and 4,625 → 8,204, ja.txt
/// Shift_JIS 7,379 → 9,216 and 7,393 → 9,298 (whatenc / encoding_rs, el.txt 1.04 →
/// 4.53).
#[inline]
pub(crate) fn utf16_bytes_replacing_lone_surrogates(src: &[u8], dst: &mut [u16], big_endian: bool) -> (usize, bool) {
    if big_endian { replacing_lone_surrogates::<true>(src, dst) } else { replacing_lone_surrogates::<false>(src, dst) }
}

/// [`utf16_bytes_replacing_lone_surrogates`] for one byte order (big-endian with
/// `BE`).
#[inline(always)]
fn replacing_lone_surrogates<const BE: bool>(src: &[u8], dst: &mut [u16]) -> (usize, bool) {
    const L: usize = 16;
    let span = dst.len().min(REPLACING_SPAN);
    let dst = &mut dst[..span];
    let mut n = 0;
    // All ones when the unit before the block leads a pair.
    let mut lead_before = 0u16;
    let mut lone_seen = 0u16;
    while let (Some(bytes), Some(out)) = (
        src.get(2 * n..).and_then(|rest| rest.first_chunk::<{ 2 * L + 2 }>()),
        dst.get_mut(n..).and_then(|rest| rest.first_chunk_mut::<L>()),
    ) {
        // Each step a loop of its own over arrays of lanes, each array its own `let`:
        // with one `let` of a tuple of them (kept in memory), LLVM left the steps
        // scalar (el.txt 2,200 MB/s against 8,980; see below).
        let mut units = [0u16; L];
        let mut next = [0u16; L];
        for k in 0..L {
            let (a, b) = (bytes[2 * k], bytes[2 * k + 1]);
            let (c, d) = (bytes[2 * k + 2], bytes[2 * k + 3]);
            units[k] = if BE { u16::from_be_bytes([a, b]) } else { u16::from_le_bytes([a, b]) };
            next[k] = if BE { u16::from_be_bytes([c, d]) } else { u16::from_le_bytes([c, d]) };
        }
        let mut lead = [0u16; L];
        let mut trail = [0u16; L];
        let mut next_trail = [0u16; L];
        for k in 0..L {
            lead[k] = u16::from(units[k] & 0xFC00 == 0xD800).wrapping_neg();
            trail[k] = u16::from(units[k] & 0xFC00 == 0xDC00).wrapping_neg();
            next_trail[k] = u16::from(next[k] & 0xFC00 == 0xDC00).wrapping_neg();
        }
        // Whether the unit before each leads a pair.
        let mut before = [0u16; L];
        before[0] = lead_before;
        before[1..].copy_from_slice(&lead[..L - 1]);
        let mut seen = 0;
        for k in 0..L {
            let lone = (lead[k] & !next_trail[k]) | (trail[k] & !before[k]);
            out[k] = (units[k] & !lone) | (0xFFFD & lone);
            seen |= lone;
        }
        lone_seen |= seen;
        lead_before = lead[L - 1] & next_trail[L - 1];
        n += L;
    }
    // Eight units, once, where sixteen no longer fit.
    if let (Some(bytes), Some(out)) = (
        src.get(2 * n..).and_then(|rest| rest.first_chunk::<18>()),
        dst.get_mut(n..).and_then(|rest| rest.first_chunk_mut::<8>()),
    ) {
        let seen;
        (seen, lead_before) = replace_lone_in_last_eight::<BE>(bytes, out, lead_before);
        lone_seen |= seen;
        n += 8;
    }
    if lead_before != 0 {
        // The last block's last unit leads a pair whose trailing unit is past it.
        n -= 1;
    }
    (n, lone_seen != 0)
}

/// The eight units at the end of [`replacing_lone_surrogates`] (their bytes and the
/// next unit's in `bytes`), one at a time, after a unit that leads a pair where
/// `lead_before` is all ones; returns all ones if a lone surrogate was among them,
/// and the same as `lead_before` for the last unit. Not inlined, and with
/// `lead_before` by value: inlined, or given `&mut lead_before` (which then lived
/// in memory), it made LLVM leave the steps of sixteen partly scalar (el.txt
/// windows-1253 taken for UTF-16LE → UTF-16, portable tier, 4,700 and 2,650 MB/s
/// against 8,980; `AMD EPYC` Zen 5).
#[inline(never)]
fn replace_lone_in_last_eight<const BE: bool>(
    bytes: &[u8; 18],
    out: &mut [u16; 8],
    mut lead_before: u16,
) -> (u16, u16) {
    let unit = |k: usize| {
        let pair = [bytes[2 * k], bytes[2 * k + 1]];
        if BE { u16::from_be_bytes(pair) } else { u16::from_le_bytes(pair) }
    };
    let is = |unit: u16, high: u16| u16::from(unit & 0xFC00 == high).wrapping_neg();
    let mut seen = 0;
    for (k, out) in out.iter_mut().enumerate() {
        let (this, next) = (unit(k), unit(k + 1));
        let (lead, next_trail) = (is(this, 0xD800), is(next, 0xDC00));
        let lone = (lead & !next_trail) | (is(this, 0xDC00) & !lead_before);
        *out = (this & !lone) | (0xFFFD & lone);
        seen |= lone;
        // The unit leads a pair (so the next is its trailing unit, not lone).
        lead_before = lead & next_trail;
    }
    (seen, lead_before)
}

/// The code units of UTF-16 bytes (big- or little-endian; an odd last byte is not
/// one) before the first surrogate: four at a time in a 64-bit word, with no branch
/// on each unit's value (in legacy CJK bytes taken for UTF-16, two in five units
/// are at U+D800 or above, and a branch on that, which the per-unit check made,
/// was missed often).
#[inline]
pub(crate) fn units_before_surrogate(src: &[u8], big_endian: bool) -> usize {
    const LOW_BITS: u64 = 0x0001_0001_0001_0001;
    // The bits of a unit's high byte that tell a surrogate, where that byte sits in
    // a 16-bit lane of a word read little-endian.
    let (mask, surrogate) =
        if big_endian { (0x00F8 * LOW_BITS, 0x00D8 * LOW_BITS) } else { (0xF800 * LOW_BITS, 0xD800 * LOW_BITS) };
    let mut n = 0;
    while let Some(bytes) = src.get(2 * n..).and_then(|rest| rest.first_chunk::<8>()) {
        // A lane of zero is a surrogate; the lowest lane whose top bit the test sets
        // is the first zero lane (a borrow only reaches lanes above it).
        let lanes = (u64::from_le_bytes(*bytes) & mask) ^ surrogate;
        let zero = lanes.wrapping_sub(LOW_BITS) & !lanes & (0x8000 * LOW_BITS);
        if zero != 0 {
            return n + (zero.trailing_zeros() / 16) as usize;
        }
        n += 4;
    }
    for pair in src[2 * n..].chunks_exact(2) {
        let high = if big_endian { pair[0] } else { pair[1] };
        if high & 0xF8 == 0xD8 {
            break;
        }
        n += 1;
    }
    n
}

/// Narrows the run of ASCII code units at the start of UTF-16 bytes (big- or
/// little-endian) into `dst` as far as it fits; returns the units copied.
#[inline]
pub(crate) fn utf16_bytes_ascii_to_bytes(src: &[u8], dst: &mut [u8], big_endian: bool) -> usize {
    let mut n = 0;
    while let (Some(bytes), Some(out)) =
        (src.get(2 * n..).and_then(|rest| rest.first_chunk::<{ 2 * CHUNK }>()), dst[n..].first_chunk_mut::<CHUNK>())
    {
        let units: [u16; CHUNK] = core::array::from_fn(|k| {
            let pair = [bytes[2 * k], bytes[2 * k + 1]];
            if big_endian { u16::from_be_bytes(pair) } else { u16::from_le_bytes(pair) }
        });
        if units.iter().fold(0, |acc, &unit| acc | unit) >= 0x80 {
            break;
        }
        *out = units.map(|unit| unit as u8);
        n += CHUNK;
    }
    for (out, pair) in dst[n..].iter_mut().zip(src[2 * n..].chunks_exact(2)) {
        let unit =
            if big_endian { u16::from_be_bytes([pair[0], pair[1]]) } else { u16::from_le_bytes([pair[0], pair[1]]) };
        if unit >= 0x80 {
            break;
        }
        *out = unit as u8;
        n += 1;
    }
    n
}

/// The ASCII run at `read` (its first byte ASCII), widened into `dst` at `written`
/// eight bytes a step, whole (the units past the run are scratch, overwritten by what
/// follows; they stay within `dst` when it has room for as many units as `src` has
/// bytes left, as each byte makes at most one unit); after two steps, the rest of the
/// run in bulk ([`super::copy_ascii_to_utf16`]), so that the short runs between
/// letters of other scripts make no call. Returns where the run ends, in both, or
/// where fewer than eight bytes (or units of room) are left.
#[inline(always)]
pub(crate) fn widen_ascii_run(src: &[u8], dst: &mut [u16], mut read: usize, mut written: usize) -> (usize, usize) {
    let mut steps = 0;
    while let Some(chunk) = src[read..].first_chunk::<8>() {
        let Some(out) = dst.get_mut(written..).and_then(|d| d.first_chunk_mut::<8>()) else { break };
        *out = core::array::from_fn(|k| u16::from(chunk[k]));
        let high = u64::from_le_bytes(*chunk) & 0x8080_8080_8080_8080;
        if high != 0 {
            let n = (high.trailing_zeros() / 8) as usize;
            return (read + n, written + n);
        }
        read += 8;
        written += 8;
        steps += 1;
        if steps == 2 {
            let n = super::copy_ascii_to_utf16(&src[read..], &mut dst[written..]);
            return (read + n, written + n);
        }
    }
    (read, written)
}

/// The bounds of the byte after the lead byte `lead` in the standard's UTF-8 decoder:
/// A0 to BF after E0 (no overlong forms), 80 to 9F after ED (no surrogates), 90 to BF
/// after F0 (no overlong forms), 80 to 8F after F4 (nothing past U+10FFFF), 80 to BF
/// otherwise.
#[inline(always)]
pub(crate) const fn utf8_second_byte_bounds(lead: u8) -> (u8, u8) {
    match lead {
        0xE0 => (0xA0, 0xBF),
        0xED => (0x80, 0x9F),
        0xF0 => (0x90, 0xBF),
        0xF4 => (0x80, 0x8F),
        _ => (0x80, 0xBF),
    }
}

/// Whether `src` starts with a sequence that is invalid, or cut by the end of `src`,
/// in the standard's UTF-8 decoder: its longest valid prefix is then empty. False for
/// an empty `src`, and for one that starts with an ASCII byte.
#[inline(always)]
pub(crate) fn utf8_starts_with_error(src: &[u8]) -> bool {
    let Some(&lead) = src.first() else { return false };
    let width = match lead {
        0x00..=0x7F => return false,
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return true,
    };
    let Some(sequence) = src.get(..width) else { return true };
    let (lower, upper) = utf8_second_byte_bounds(lead);
    !(lower..=upper).contains(&sequence[1]) || sequence[2..].iter().any(|&b| b & 0xC0 != 0x80)
}

/// The body of [`utf8_prefix_to_utf16`]: decodes to UTF-16 the longest prefix of `src` that is whole, valid UTF-8, in one
/// pass (each byte checked as it is decoded, with the bounds of the standard's UTF-8
/// decoder, [`utf8_second_byte_bounds`], or [`three_byte_unit`] in runs of three-byte
/// characters); stops before a sequence that is invalid or cut by the end of `src`,
/// or, with `HAND_OVER` (only with vector runs: below SSSE3 there is no vector kernel
/// to hand over to), where the characters that are not ASCII come close together
/// (as in [`utf8_to_utf16_sparse`]) with [`DENSE_MIN`] bytes or more left, which it
/// says. Returns the bytes read, the units written, and whether it stopped there.
/// `dst.len() >= src.len()`. Runs of two-byte and of three-byte characters go to
/// `run` ([`Runs`]: [`two_byte_run`] and [`three_byte_run`], or vector twins), which
/// decodes the longest run of them from where it is given.
///
/// [`utf8_prefix_pass`] with [`three_byte_run`] and no hand-over: all of
/// [`super::utf8_prefix_to_utf16`] below SSSE3; returns the bytes read and the units
/// written. A function of its
/// own: inlined into the loop that called it twice (with the hand-over), it measured 13% slower on Korean
/// text (SSE2 tier, `Intel Xeon` Cascade Lake).
#[inline(never)]
pub(crate) fn utf8_prefix_to_utf16(src: &[u8], dst: &mut [u16]) -> (usize, usize) {
    let (read, written, _) = utf8_prefix_pass::<false, _>(src, dst, ScalarRuns);
    (read, written)
}

#[inline(always)]
pub(crate) fn utf8_prefix_pass<const HAND_OVER: bool, R: Runs>(
    src: &[u8],
    dst: &mut [u16],
    run: R,
) -> (usize, usize, bool) {
    assert!(dst.len() >= src.len());
    let (mut read, mut written) = (0, 0);
    // Where the last character that was not ASCII started, and the heat then.
    let (mut last, mut heat) = (0usize, 0usize);
    // Dense text is handed over only where enough of it is left to pay for the vector
    // kernels' set-up.
    let dense_end = if HAND_OVER { src.len().saturating_sub(DENSE_MIN) } else { 0 };
    // A byte `b` is a continuation byte from `lower` to `upper`.
    let within = |b: Option<&u8>, lower: u8, upper: u8| b.is_some_and(|&b| (lower..=upper).contains(&b));
    while let Some(&lead) = src.get(read) {
        // With a vector `run`, a run of three-byte characters counts once it is
        // decoded (see `LONG_RUN`), and two-byte letters only in long words (see
        // `LONG_TWO_BYTE_WORD`).
        if HAND_OVER && lead >= 0x80 && !(0xC2..=0xEF).contains(&lead) {
            heat = heat.saturating_sub(read - last) + SPARSE_GAP;
            last = read;
            if heat >= SPARSE_HEAT && read < dense_end {
                return (read, written, true);
            }
        }
        match lead {
            0x00..=0x7F => {
                (read, written) = run.ascii(src, dst, read, written);
                if src.get(read).is_some_and(|&b| b < 0x80) {
                    dst[written] = u16::from(src[read]);
                    read += 1;
                    written += 1;
                }
            }
            0xC2..=0xDF => {
                if !within(src.get(read + 1), 0x80, 0xBF) {
                    break;
                }
                dst[written] = (u16::from(lead & 0x1F) << 6) | u16::from(src[read + 1] & 0x3F);
                read += 2;
                written += 1;
                // A run only where another two-byte lead follows: a letter alone
                // among ASCII (German, French, Czech) takes no more than before.
                if src.get(read).is_some_and(|b| (0xC2..=0xDF).contains(b)) {
                    let (r, w) = run.two_byte(src, dst, read, written);
                    if HAND_OVER && w - written >= LONG_TWO_BYTE_WORD - 1 {
                        // Only long words count, at each letter.
                        heat = heat.saturating_sub(read - 2 - last) + SPARSE_GAP + (w - written) * (SPARSE_GAP - 2);
                        last = r - 2;
                        if heat >= SPARSE_HEAT && r < dense_end {
                            return (r, w, true);
                        }
                    }
                    (read, written) = (r, w);
                }
            }
            0xE0..=0xEF => {
                // A run of three-byte characters (most of CJK and the Indic and
                // Southeast Asian scripts).
                let Some(unit) = src.get(read..read + 3).and_then(three_byte_unit) else {
                    break;
                };
                dst[written] = unit;
                // A run only where another three-byte lead follows: a lone
                // punctuation mark (’, “, —) among Latin text skips the vector set-up.
                let (r, w) = if src.get(read + 3).is_some_and(|&b| b & 0xF0 == 0xE0) {
                    run.three_byte(src, dst, read + 3, written + 1)
                } else {
                    (read + 3, written + 1)
                };
                if HAND_OVER {
                    if w - written >= LONG_RUN {
                        // A long run: a vector `run` takes such text faster than the
                        // vector kernels would (a check, then the conversion), so it
                        // cools the text.
                        heat = 0;
                        last = r - 3;
                    } else {
                        // A short run (Korean words) counts as one character, where
                        // it started.
                        heat = heat.saturating_sub(read - last) + SPARSE_GAP;
                        last = read;
                        if heat >= SPARSE_HEAT && r < dense_end {
                            return (r, w, true);
                        }
                    }
                }
                (read, written) = (r, w);
            }
            0xF0..=0xF4 => {
                let (lower, upper) = utf8_second_byte_bounds(lead);
                if !within(src.get(read + 1), lower, upper)
                    || !within(src.get(read + 2), 0x80, 0xBF)
                    || !within(src.get(read + 3), 0x80, 0xBF)
                {
                    break;
                }
                let c = (u32::from(lead & 0x07) << 18)
                    | (u32::from(src[read + 1] & 0x3F) << 12)
                    | (u32::from(src[read + 2] & 0x3F) << 6)
                    | u32::from(src[read + 3] & 0x3F);
                // Four bytes make two units.
                let c = c - 0x1_0000;
                dst[written] = 0xD800 | (c >> 10) as u16;
                dst[written + 1] = 0xDC00 | (c & 0x3FF) as u16;
                read += 4;
                written += 2;
            }
            _ => break,
        }
    }
    (read, written, false)
}

/// The UTF-16 unit of the three bytes `b` (`b.len() == 3`) if they are a whole, valid
/// three-byte sequence: a lead byte from E0 to EF and two continuation bytes, not
/// overlong (below U+0800, the standard's bound of A0 after E0) and not a surrogate
/// (the bound of 9F after ED).
#[inline(always)]
fn three_byte_unit(b: &[u8]) -> Option<u16> {
    let (b0, b1, b2) = (b[0], b[1], b[2]);
    let unit = (u16::from(b0 & 0x0F) << 12) | (u16::from(b1 & 0x3F) << 6) | u16::from(b2 & 0x3F);
    let shape = b0 & 0xF0 == 0xE0 && b1 & 0xC0 == 0x80 && b2 & 0xC0 == 0x80;
    (shape && unit >= 0x800 && unit & 0xF800 != 0xD800).then_some(unit)
}

/// Decodes the longest run of whole, valid three-byte sequences ([`three_byte_unit`])
/// at the start of `src` into `dst`, while it has room; returns the characters (one
/// unit each, three bytes each). Four at a step, two ([`two_three_byte_units`]), then
/// one.
///
/// ```text
/// "日本語a" → 3 (nine bytes read); "\xE0\x80\x80" (overlong) → 0
/// ```
#[inline(always)]
pub(crate) fn three_byte_run(src: &[u8], dst: &mut [u16], mut read: usize, mut written: usize) -> (usize, usize) {
    while let (Some(bytes), Some(out)) = (src.get(read..read + 8), dst.get_mut(written..written + 2)) {
        let (good, pair) = two_three_byte_units(le_word(bytes));
        if !good {
            break;
        }
        out.copy_from_slice(&pair);
        read += 6;
        written += 2;
    }
    while let (Some(three), Some(out)) = (src.get(read..read + 3), dst.get_mut(written)) {
        let Some(unit) = three_byte_unit(three) else { break };
        *out = unit;
        read += 3;
        written += 1;
    }
    (read, written)
}

/// The first eight bytes of `bytes` (at least eight) as a little-endian word.
#[inline(always)]
fn le_word(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes.first_chunk::<8>().copied().unwrap_or([0; 8]))
}

/// The end of a step of a vector twin of [`three_byte_run`] at `read` and `written`
/// (five characters at most), whose first `shaped` characters have the shape of
/// three-byte sequences and whose first `good` units are in bounds: `Err` with where
/// the run ends, when fewer than five are both, or `Ok` with where the next step
/// starts. Whole steps advance by a constant, so that the next step's load does not
/// wait for this one's masks (with the advance computed from them, Japanese text ran
/// a third slower).
#[cfg_attr(any(whatenc_portable, not(any(target_arch = "x86_64", target_arch = "aarch64"))), allow(dead_code))]
#[inline(always)]
pub(crate) fn three_byte_step_end(
    shaped: u32,
    good: u32,
    read: usize,
    written: usize,
) -> Result<(usize, usize), (usize, usize)> {
    let k = shaped.min(good) as usize;
    if k < 5 {
        return Err((read + 3 * k, written + k));
    }
    Ok((read + 15, written + 5))
}

/// What decodes the runs of two-byte and of three-byte characters for
/// [`utf8_prefix_to_utf16`]: [`two_byte_run`] and [`three_byte_run`]
/// ([`ScalarRuns`]) or vector twins. A trait, so that the runs are inlined into the
/// loop (a function item passed as `impl Fn` was called instead).
pub(crate) trait Runs: Copy {
    /// Widens the ASCII run at `src[read..]` into `dst[written..]`, as
    /// [`widen_ascii_run`] does; returns where it stopped in each.
    #[inline(always)]
    fn ascii(self, src: &[u8], dst: &mut [u16], read: usize, written: usize) -> (usize, usize) {
        widen_ascii_run(src, dst, read, written)
    }
    /// Decodes the run of whole, valid three-byte sequences at `src[read..]` into
    /// `dst[written..]`, as [`three_byte_run`] does; returns where it stopped in each.
    fn three_byte(self, src: &[u8], dst: &mut [u16], read: usize, written: usize) -> (usize, usize);
    /// The same for two-byte sequences, as [`two_byte_run`] does.
    #[inline(always)]
    fn two_byte(self, src: &[u8], dst: &mut [u16], read: usize, written: usize) -> (usize, usize) {
        two_byte_run(src, dst, read, written)
    }
}

/// Decodes the longest run of whole, valid two-byte sequences (a lead from C2 to
/// DF, a continuation byte) at `src[read..]` into `dst[written..]`, while it has
/// room; returns where it stopped in each. Four at a step in a 64-bit word (the
/// sequences in its 16-bit lanes), then one.
///
/// ```text
/// "жыл a" → four bytes read, two units; "\xC1\xBF" (overlong) → none
/// ```
#[inline(always)]
pub(crate) fn two_byte_run(src: &[u8], dst: &mut [u16], mut read: usize, mut written: usize) -> (usize, usize) {
    /// A 16-bit value in each lane.
    const fn lanes(value: u64) -> u64 {
        value * 0x0001_0001_0001_0001
    }
    while let (Some(eight), Some(out)) = (src.get(read..read + 8), dst.get_mut(written..written + 4)) {
        let word = u64::from_le_bytes(eight.try_into().unwrap_or([0; 8]));
        // Leads 110xxxxx with continuation bytes 10xxxxxx, and not C0 or C1 (bits
        // 1 to 4 of the lead not all zero: adding 0x7FFF carries into bit 15 of the
        // lane).
        let leads = word & lanes(0x1E);
        if word & lanes(0xC0E0) != lanes(0x80C0) || (leads + lanes(0x7FFF)) & lanes(0x8000) != lanes(0x8000) {
            break;
        }
        let units = (word & lanes(0x1F)) << 6 | (word >> 8) & lanes(0x3F);
        for (i, out) in out.iter_mut().enumerate() {
            *out = (units >> (16 * i)) as u16;
        }
        read += 8;
        written += 4;
    }
    while let (Some(&[lead @ 0xC2..=0xDF, trail @ 0x80..=0xBF]), Some(out)) =
        (src.get(read..read + 2), dst.get_mut(written))
    {
        *out = (u16::from(lead & 0x1F) << 6) | u16::from(trail & 0x3F);
        read += 2;
        written += 1;
    }
    (read, written)
}

/// [`three_byte_run`] as a [`Runs`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct ScalarRuns;

impl Runs for ScalarRuns {
    #[inline(always)]
    fn three_byte(self, src: &[u8], dst: &mut [u16], read: usize, written: usize) -> (usize, usize) {
        three_byte_run(src, dst, read, written)
    }
}

/// [`three_byte_unit`] for two sequences at once: whether the low six bytes of `word`
/// (little-endian) are two whole, valid three-byte sequences, and their units if
/// so. Without a branch, so that callers can join the answers for several words.
#[inline(always)]
fn two_three_byte_units(word: u64) -> (bool, [u16; 2]) {
    // Leads E0 to EF (bytes 0 and 3), continuation bytes between.
    let shaped = word & 0xC0C0_F0C0_C0F0 == 0x8080_E080_80E0;
    let unit = |w: u64| ((w & 0x0F) << 12 | (w >> 8 & 0x3F) << 6 | (w >> 16 & 0x3F)) as u16;
    let units = [unit(word), unit(word >> 24)];
    // Not overlong, not a surrogate.
    let allowed = |unit: u16| (unit >= 0x800) & (unit & 0xF800 != 0xD800);
    (shaped & allowed(units[0]) & allowed(units[1]), units)
}

/// Transcodes valid UTF-8 to UTF-16; the caller guarantees `dst.len() >= s.len()`.
/// Returns the units written.
#[inline]
pub(crate) fn utf8_to_utf16(s: &str, dst: &mut [u16]) -> usize {
    utf8_to_utf16_while::<false>(s, dst).1
}

/// [`utf8_to_utf16`] while the characters that are not ASCII are sparse: it stops
/// before one that comes too soon after the others (more than one in
/// [`SPARSE_GAP`] bytes, over a few of them). Returns (bytes read, units written).
///
/// The SSSE3 and AVX2 kernels hand it text with a few such characters among ASCII:
/// see `ssse3::SPARSE_BYTES`.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[cfg_attr(whatenc_portable, allow(dead_code))]
#[inline(never)]
pub(crate) fn utf8_to_utf16_sparse(s: &str, dst: &mut [u16]) -> (usize, usize) {
    utf8_to_utf16_while::<true>(s, dst)
}

/// The bytes that each character that is not ASCII may take on average, for
/// [`utf8_to_utf16_sparse`]: the "heat" grows by this much at each such character
/// and falls by one a byte, and at [`SPARSE_HEAT`] the loop stops.
pub(crate) const SPARSE_GAP: usize = 16;

/// The fewest bytes left at which [`utf8_prefix_to_utf16`] hands dense text to the
/// vector kernels.
const DENSE_MIN: usize = 128;

/// The characters of a run of three-byte characters at which [`utf8_prefix_pass`]
/// with a vector `run` keeps the text rather than hand it over. With such a `run`,
/// a run of three-byte characters counts towards a hand-over as one character, and
/// only when it is shorter than this; a longer one cools the text. Chinese,
/// Japanese and Thai come in long runs, which `run` decodes in one pass (five
/// characters a step with SSSE3) faster than the vector kernels' two; Korean words
/// are short, separated by spaces, and go to the vector kernels. Counting each
/// character, as the scalar `run` once did, handed much of Japanese text over: ja.txt
/// 1385 → 1662 MB/s without that (AVX2 tier, `Intel Xeon` Cascade Lake).
const LONG_RUN: usize = 8;

/// The two-byte letters in a row from which [`utf8_prefix_pass`] with a vector `run`
/// counts them towards a hand-over (the scalar `run` once counted every one). Words of Cyrillic, Greek, Arabic or Hebrew letters are that long, and such
/// text goes to the vector kernels as before; the letters of Latin scripts come alone
/// or in pairs among ASCII, and the one pass takes them faster than the vector
/// kernels' two: tr.html 0.42 → 0.38 s, cs.html 0.43 → 0.38 s for a fixed workload
/// (AVX2 tier; SSSE3 tier 0.45 → 0.38 and 0.47 → 0.38), Cyrillic, Korean and
/// Vietnamese unchanged (`Intel Xeon` Cascade Lake).
const LONG_TWO_BYTE_WORD: usize = 4;

/// See [`SPARSE_GAP`]: about six characters close together.
const SPARSE_HEAT: usize = 4 * SPARSE_GAP;

/// [`utf8_to_utf16`], or [`utf8_to_utf16_sparse`] when `SPARSE`.
#[inline(always)]
fn utf8_to_utf16_while<const SPARSE: bool>(s: &str, dst: &mut [u16]) -> (usize, usize) {
    let bytes = s.as_bytes();
    let mut read = 0;
    let mut written = 0;
    // Where the last character that was not ASCII started, and the heat then.
    let (mut last, mut heat) = (0usize, 0usize);
    while let Some(&lead) = bytes.get(read) {
        if SPARSE && lead >= 0x80 {
            heat = heat.saturating_sub(read - last) + SPARSE_GAP;
            last = read;
            if heat >= SPARSE_HEAT {
                break;
            }
        }
        // `s` is valid UTF-8, so each lead byte is followed by its continuation bytes.
        match lead {
            0x00..=0x7F => {
                // `dst` has room for as many units as `s` has bytes (`written <= read`).
                (read, written) = widen_ascii_run(bytes, dst, read, written);
                if bytes.get(read).is_some_and(|&b| b < 0x80) {
                    // The last bytes.
                    dst[written] = bytes[read] as u16;
                    read += 1;
                    written += 1;
                }
            }
            0xC0..=0xDF => {
                dst[written] = ((lead as u16 & 0x1F) << 6) | (bytes[read + 1] as u16 & 0x3F);
                read += 2;
                written += 1;
            }
            0xE0..=0xEF => {
                // Runs of three-byte characters (CJK text), four a step when the
                // leads at 0, 3, 6 and 9 are all three-byte leads (the input is valid,
                // so the bytes between are their continuations).
                while let (false, Some(run), Some(out)) = (
                    SPARSE,
                    bytes[read..].first_chunk::<12>(),
                    dst.get_mut(written..).and_then(|d| d.first_chunk_mut::<4>()),
                ) {
                    if (run[0] & run[3] & run[6] & run[9]) & 0xF0 != 0xE0
                        || (run[0] | run[3] | run[6] | run[9]) & 0xF0 != 0xE0
                    {
                        break;
                    }
                    *out = core::array::from_fn(|k| {
                        ((run[3 * k] as u16 & 0x0F) << 12)
                            | ((run[3 * k + 1] as u16 & 0x3F) << 6)
                            | (run[3 * k + 2] as u16 & 0x3F)
                    });
                    read += 12;
                    written += 4;
                }
                let Some(&lead) = bytes.get(read) else { break };
                if lead & 0xF0 != 0xE0 {
                    continue;
                }
                dst[written] = ((lead as u16 & 0x0F) << 12)
                    | ((bytes[read + 1] as u16 & 0x3F) << 6)
                    | (bytes[read + 2] as u16 & 0x3F);
                read += 3;
                written += 1;
            }
            _ => {
                let c = ((lead as u32 & 0x07) << 18)
                    | ((bytes[read + 1] as u32 & 0x3F) << 12)
                    | ((bytes[read + 2] as u32 & 0x3F) << 6)
                    | (bytes[read + 3] as u32 & 0x3F);
                let c = c - 0x10000;
                dst[written] = 0xD800 | (c >> 10) as u16;
                dst[written + 1] = 0xDC00 | (c & 0x3FF) as u16;
                read += 4;
                written += 2;
            }
        }
    }
    (read, written)
}

/// Code units in a chunk of [`chunk_to_utf8`].
pub(crate) const CHUNK_UNITS: usize = 32;

/// Room a chunk of [`chunk_to_utf8`] needs: three bytes a unit (96), the fourth
/// byte of the last unit's store and the room kept before each unit (at most 8),
/// rounded up so that a store at an offset below 128 needs no bounds check.
pub(crate) const CHUNK_ROOM: usize = 128 + 8;

/// Writes [`CHUNK_UNITS`] code units that are not surrogates as UTF-8 at the start
/// of `out`, from `pairs` (units `2k` and `2k + 1` in the low and high half of
/// `pairs[k]`); returns the bytes written (the rest of `out` may be overwritten).
///
/// In two passes with no branch on a unit's length (it mispredicts in text): the
/// first computes the bytes of each pair of units and their length in its lane, a
/// loop that LLVM turns into vector code (SSE2 on x86_64, NEON on aarch64); the
/// second stores each lane's bytes at the sum of the lengths before it, a store and
/// an add a lane (a pair of one- and two-byte units, or one unit of any mix).
#[inline(always)]
pub(crate) fn chunk_to_utf8(pairs: &[u32; CHUNK_UNITS / 2], out: &mut [u8; CHUNK_ROOM]) -> usize {
    let any = pairs.iter().fold(0, |acc, &pair| acc | pair);
    if (any | any >> 16) & 0xF800 == 0 {
        // One- and two-byte units only (Latin, Greek, Cyrillic, Hebrew, Arabic
        // text): two to four bytes a pair, in a 32-bit word.
        let mut words = [0u32; CHUNK_UNITS / 2];
        let mut lengths = [0u8; CHUNK_UNITS / 2];
        for ((&units, word), length) in pairs.iter().zip(&mut words).zip(&mut lengths) {
            let first_two = units & 0xFF80 != 0;
            let second_two = units & 0xFF80_0000 != 0;
            let first = u32::from(first_two).wrapping_neg();
            let second = u32::from(second_two).wrapping_neg();
            // Each unit's two-byte form in its half, then each half's own form chosen.
            let two = 0x80C0_80C0 | ((units >> 6) & 0x001F_001F) | ((units & 0x003F_003F) << 8);
            let both = units ^ ((units ^ two) & ((first & 0xFFFF) | (second & 0xFFFF_0000)));
            // After a one-byte first unit, the second's bytes move down one.
            let packed = (both & 0xFF) | ((both >> 8) & 0x00FF_FF00);
            *word = (both & first) | (packed & !first);
            *length = 2 + u8::from(first_two) + u8::from(second_two);
        }
        let mut at = 0;
        for (&word, &length) in words.iter().zip(&lengths) {
            // At most 60: the bound only spares a check.
            let to = at & 127;
            out[to..to + 4].copy_from_slice(&word.to_le_bytes());
            at += usize::from(length);
        }
        return at;
    }
    // Any mix (CJK text with its spaces and punctuation, Vietnamese): one to three
    // bytes a unit, the first two in one 16-bit lane and the third in another.
    let units: [u16; CHUNK_UNITS] = core::array::from_fn(|k| (pairs[k / 2] >> (16 * (k % 2))) as u16);
    let mut low = [0u16; CHUNK_UNITS];
    let mut high = [0u16; CHUNK_UNITS];
    let mut lengths = [0u8; CHUNK_UNITS];
    for (((&c, low), high), length) in units.iter().zip(&mut low).zip(&mut high).zip(&mut lengths) {
        let at_least_two = c & 0xFF80 != 0;
        let three = c & 0xF800 != 0;
        let two_mask = u16::from(at_least_two).wrapping_neg();
        let three_mask = u16::from(three).wrapping_neg();
        let two_bytes = (0xC0 | (c >> 6)) | ((0x80 | (c & 0x3F)) << 8);
        let three_bytes = (0xE0 | (c >> 12)) | ((0x80 | ((c >> 6) & 0x3F)) << 8);
        *low = (c & !two_mask) | (two_bytes & two_mask & !three_mask) | (three_bytes & three_mask);
        *high = 0x80 | (c & 0x3F);
        *length = 1 + u8::from(at_least_two) + u8::from(three);
    }
    let mut at = 0;
    for ((&low, &high), &length) in low.iter().zip(&high).zip(&lengths) {
        // At most 93: the bound only spares a check.
        let to = at & 127;
        out[to..to + 4].copy_from_slice(&(u32::from(low) | u32::from(high) << 16).to_le_bytes());
        at += usize::from(length);
    }
    at
}

/// One in each 16-bit lane of a 64-bit word (the word-at-a-time UTF-16 kernels').
pub(crate) const LANES: u64 = 0x0001_0001_0001_0001;

/// Four code units from eight UTF-16 bytes (big- or little-endian), in the 16-bit
/// lanes of a word, the first lowest.
#[inline(always)]
pub(crate) fn utf16_word(bytes: [u8; 8], big_endian: bool) -> u64 {
    let w = u64::from_le_bytes(bytes);
    if big_endian { ((w >> 8) & (0x00FF * LANES)) | ((w & (0x00FF * LANES)) << 8) } else { w }
}

/// The three bytes of the UTF-8 form of a code point from U+0800 to U+FFFF, as a
/// little-endian word (first byte lowest; the fourth byte is zero).
#[inline(always)]
pub(crate) const fn three_byte_word(c: u32) -> u32 {
    0x0080_80E0 | (c >> 12) | (((c >> 6) & 0x3F) << 8) | ((c & 0x3F) << 16)
}

/// Four code units below U+0800 as UTF-8 at `out[at..]` (`at` at most 8): unit k in
/// bits 16k to 16k + 15 of `units`. Returns the bytes written.
///
/// In one 64-bit word, four units at once and with no branch on a unit's length
/// (it mispredicts in text): each unit's one or two bytes in its lane, then each
/// lane stored at its offset, unit k at k plus the two-byte units before it (a
/// prefix sum by one multiplication); a one-byte unit's store of two bytes is
/// overwritten by the next unit's.
#[inline(always)]
pub(crate) fn below_0x800_to_utf8(units: u64, out: &mut [u8; 32], at: usize) -> usize {
    // Bit 15 of each lane whose unit is 0x80 or more (no carry leaves a lane: each
    // unit is below 0x800).
    let top = (units + 0x7F80 * LANES) & (0x8000 * LANES);
    let two = top >> 15;
    let mask = top | (top - two);
    let pairs = (0x80C0 * LANES) | ((units >> 6) & (0x1F * LANES)) | ((units & (0x3F * LANES)) << 8);
    let pairs = units ^ ((units ^ pairs) & mask);
    let inclusive = two.wrapping_mul(LANES);
    let offsets = inclusive - two + 0x0003_0002_0001_0000;
    for k in 0..4 {
        let to = (at + ((offsets >> (16 * k)) & 0xF) as usize) & 15;
        out[to..to + 2].copy_from_slice(&((pairs >> (16 * k)) as u16).to_le_bytes());
    }
    4 + (inclusive >> 48) as usize
}

/// Writes eight code units that are not surrogates as UTF-8 at the start of `out`;
/// returns the bytes written (the rest of `out` may be overwritten).
#[inline(always)]
pub(crate) fn block_to_utf8(block: [u16; 8], out: &mut [u8; 32]) -> usize {
    if block.iter().fold(0, |acc, &unit| acc | unit) < 0x800 {
        // One- and two-byte units only (Latin, Greek, Cyrillic, Hebrew, Arabic text):
        // four units to a 64-bit word, twice.
        let [a, b, c, d, e, f, g, h] = block.map(u64::from);
        let first = below_0x800_to_utf8(a | b << 16 | c << 32 | d << 48, out, 0);
        return first + below_0x800_to_utf8(e | f << 16 | g << 32 | h << 48, out, first);
    }
    let mut words = [0u32; 8];
    for (&unit, word) in block.iter().zip(&mut words) {
        let c = u32::from(unit);
        *word = three_byte_word(c);
    }
    if block.iter().fold(u16::MAX, |acc, &unit| acc.min(unit)) >= 0x800 {
        // Three-byte units only (CJK text): unit i at 3i.
        for (i, word) in words.iter().enumerate() {
            out[3 * i..3 * i + 4].copy_from_slice(&word.to_le_bytes());
        }
        return 24;
    }
    // Any mix: each unit's one to three bytes as a little-endian word, at the sum of
    // the lengths before it.
    let mut lengths = [0u8; 8];
    for ((&unit, word), length) in block.iter().zip(&mut words).zip(&mut lengths) {
        let c = u32::from(unit);
        let at_least_two = u32::from(c >= 0x80).wrapping_neg();
        let three = u32::from(c >= 0x800).wrapping_neg();
        let two = 0x80C0 | (c >> 6) | ((c & 0x3F) << 8);
        *word = (c & !at_least_two) | (two & at_least_two & !three) | (*word & three);
        *length = 1 + u8::from(c >= 0x80) + u8::from(c >= 0x800);
    }
    let lengths = u64::from_le_bytes(lengths);
    let inclusive = lengths.wrapping_mul(0x0101_0101_0101_0101);
    // At most 21 (seven units of three bytes): the bound only spares a check.
    let at = (inclusive - lengths).to_le_bytes();
    for (&word, &at) in words.iter().zip(&at) {
        let at = usize::from(at.min(28));
        out[at..at + 4].copy_from_slice(&word.to_le_bytes());
    }
    (inclusive >> 56) as usize
}

/// The length of the longest valid UTF-8 prefix of `bytes` (as
/// `Utf8Error::valid_up_to`), for short inputs: the ASCII bytes of a word at a time, runs of
/// three-byte characters two at a time ([`two_three_byte_units`]; CJK pieces of 16
/// to 63 bytes 10% faster than one at a time), the rest a character at a time with
/// the bounds of the standard's UTF-8 decoder ([`utf8_second_byte_bounds`]). Below
/// the tiers with UTF-8 check kernels, it takes the inputs shorter than
/// [`SHORT_UTF8`], for which simdutf8's set-up (a copy of the input into a 64-byte
/// block) costs more than the check.
///
/// ```text
/// "añ日𝄞" → 10; "a\xC0\x80" → 1; "a\xE2\x82" (cut) → 1
/// ```
#[inline]
pub(crate) fn short_utf8_valid_up_to(bytes: &[u8]) -> usize {
    let mut read = 0;
    while let Some(&lead) = bytes.get(read) {
        if lead < 0x80 {
            // The ASCII bytes at the start of the next eight: this one and up to seven
            // more (all eight: no high bit, 64 trailing zeros). Text of letters with
            // accents has a few between two of them; a step of one byte for a word
            // that was not all ASCII made short pieces of it → `String`, portable
            // tier, 16–20% slower (cs.txt 1,572 against 1,895 MB/s, tr.txt 1,559
            // against 1,814, vi.txt 1,212 against 1,419; rotating, `AMD EPYC` Zen 5).
            read += match bytes[read..].first_chunk::<8>() {
                Some(word) => (u64::from_le_bytes(*word) & 0x8080_8080_8080_8080).trailing_zeros() as usize / 8,
                None => 1,
            };
            continue;
        }
        let valid = match lead {
            0xC2..=0xDF => bytes.get(read + 1).is_some_and(|&b| b & 0xC0 == 0x80).then_some(2),
            0xE0..=0xEF => {
                // Two at a step while they last (CJK text), then one.
                while let Some(eight) = bytes.get(read..read + 8)
                    && two_three_byte_units(le_word(eight)).0
                {
                    read += 6;
                }
                // Anything but another three-byte lead goes round the loop again.
                if bytes.get(read).is_none_or(|&b| b & 0xF0 != 0xE0) {
                    continue;
                }
                bytes.get(read..read + 3).and_then(three_byte_unit).map(|_| 3)
            }
            0xF0..=0xF4 => bytes.get(read..read + 4).and_then(|sequence| {
                let (lower, upper) = utf8_second_byte_bounds(lead);
                ((lower..=upper).contains(&sequence[1]) && sequence[2..].iter().all(|&b| b & 0xC0 == 0x80)).then_some(4)
            }),
            _ => None,
        };
        let Some(len) = valid else { break };
        read += len;
    }
    read
}

/// The inputs shorter than this go to [`short_utf8_valid_up_to`] below the tiers
/// with UTF-8 check kernels.
pub(crate) const SHORT_UTF8: usize = 64;

/// The look at the first [`SHORT_UTF8`] bytes of UTF-8 that the copies of a valid
/// prefix take before their one-pass kernels where an error is likely close (text
/// of errors, as a legacy encoding taken for UTF-8): an error there is found
/// without the kernels' set-up. Returns the valid bytes at the start, and whether
/// that settles the prefix ([`utf8_head_settles`]). Otherwise the kernel goes on
/// from there (a character boundary).
#[inline]
pub(crate) fn utf8_head(src: &[u8]) -> (usize, bool) {
    let head = &src[..src.len().min(SHORT_UTF8)];
    let valid = short_utf8_valid_up_to(head);
    (valid, utf8_head_settles(valid, head.len(), src.len()))
}

/// A run of valid UTF-8 at least this long before an error makes the copy after
/// the error skip the [`utf8_head`] look: errors so far apart (a UTF-8 page with a
/// stray byte of another encoding here and there) are not text of errors, and the
/// look only cost them (en.txt UTF-8 with an error every 1000 bytes → `String`, 3.9
/// → 3.1 µs, AVX-512 tier, rotating, `AMD EPYC` Zen 4).
pub(crate) const LONG_VALID: usize = SHORT_UTF8;

/// Whether `valid` bytes of a head of `head` bytes (the first of `len`) that are
/// valid UTF-8 settle the valid prefix of all `len`: an error before the head's
/// last three bytes is one whatever follows it, and a head that is all of the
/// input has nothing after it. The rule of [`utf8_head`], and of the look that
/// decoding to UTF-16 takes with its own scalar pass.
#[inline(always)]
pub(crate) fn utf8_head_settles(valid: usize, head: usize, len: usize) -> bool {
    valid + 3 < head || head == len
}

/// The length of the longest valid UTF-8 prefix of `bytes` (as
/// `Utf8Error::valid_up_to`): the twin of the UTF-8 validation kernels.
// Only the AVX-512 and AVX2 kernels' tests use it.
#[cfg_attr(not(all(target_arch = "x86_64", not(whatenc_portable), test)), allow(dead_code))]
pub(crate) fn utf8_valid_up_to(bytes: &[u8]) -> usize {
    core::str::from_utf8(bytes).map_or_else(|e| e.valid_up_to(), str::len)
}

/// Copies the longest valid UTF-8 prefix of `src` that fits into the start of `dst`;
/// returns its length: the twin of the fused validate-and-copy kernels.
// Only the AVX-512 and AVX2 kernels' tests use it.
#[cfg_attr(not(all(target_arch = "x86_64", not(whatenc_portable), test)), allow(dead_code))]
pub(crate) fn copy_valid_utf8_prefix(src: &[u8], dst: &mut [core::mem::MaybeUninit<u8>]) -> usize {
    let src = &src[..src.len().min(dst.len())];
    let valid = &src[..utf8_valid_up_to(src)];
    for (out, &byte) in dst.iter_mut().zip(valid) {
        out.write(byte);
    }
    valid.len()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::utf16_to_utf8;
    use super::*;
    use alloc::string::String;
    use alloc::vec;
    use alloc::vec::Vec;

    /// An ISA's twins of the ASCII kernels, for [`ascii_kernels_match_twins`]; the
    /// UTF-16-bytes ones where it has them.
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable)))]
    pub(crate) struct AsciiKernels<'a> {
        pub(crate) copy_ascii_to_ascii: &'a dyn Fn(&[u8], &mut [u8]) -> usize,
        pub(crate) copy_ascii_to_utf16: &'a dyn Fn(&[u8], &mut [u16]) -> usize,
        pub(crate) copy_utf16_ascii_to_bytes: &'a dyn Fn(&[u16], &mut [u8]) -> usize,
        pub(crate) utf16_bytes_to_units: Option<Utf16BytesKernel<'a, u16>>,
        pub(crate) utf16_bytes_ascii_to_bytes: Option<Utf16BytesKernel<'a, u8>>,
    }

    /// A twin of [`encode_utf16_linear`].
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable)))]
    pub(crate) type LinearEncoder<'a> = &'a dyn Fn(&[u16], &mut [u8], u16, u16, u16) -> usize;

    /// A twin of [`decode_table_to_utf16`].
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable)))]
    pub(crate) type TableToUtf16<'a> = &'a dyn Fn(&[u8], &mut [u16], &[u16; 256], u8, u8, u16) -> usize;

    /// A twin of [`decode_table_to_utf8`].
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable)))]
    pub(crate) type TableToUtf8<'a> = &'a dyn Fn(&[u8], &mut [u8], &[u32; 256]) -> (usize, usize);

    /// A kernel from UTF-16 bytes (and whether big-endian) to units or bytes.
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable)))]
    pub(crate) type Utf16BytesKernel<'a, T> = &'a dyn Fn(&[u8], &mut [T], bool) -> usize;

    /// The ASCII kernels `kernels` against their scalar twins: every length up to
    /// 140 at each alignment below `starts`, with the first non-ASCII unit (or
    /// surrogate) at every fifth position and around the ends and the 16-unit
    /// boundaries, and output buffers shorter and longer than the input; nothing
    /// written more than 16 units past the reported run.
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable)))]
    pub(crate) fn ascii_kernels_match_twins(kernels: &AsciiKernels<'_>, starts: usize) {
        const FILL: u8 = 0xEE;
        let base: Vec<u8> = (0..200u8).map(|i| b'a' + i % 26).collect();
        for start in 0..starts {
            for len in 0..140 {
                for bad in (0..=len).filter(|b| b % 5 == 0 || *b + 3 > len || (14..19).contains(&(b % 32))) {
                    let mut bytes = base.clone();
                    if bad < len {
                        bytes[start + bad] = 0x80 | bad as u8;
                    }
                    let src = &bytes[start..start + len];
                    let units: Vec<u16> =
                        src.iter().map(|&b| if b >= 0x80 { 0x100 + b as u16 } else { b as u16 }).collect();
                    for out_len in [0, len / 2, len.saturating_sub(1), len, len + 40] {
                        let (mut a, mut b) = (vec![FILL; out_len], vec![0u8; out_len]);
                        let n = (kernels.copy_ascii_to_ascii)(src, &mut a);
                        assert_eq!(n, copy_ascii_to_ascii(src, &mut b), "{start} {len} {bad} {out_len}");
                        assert_eq!(a[..n], b[..n]);
                        assert!(a[(n + 16).min(out_len)..].iter().all(|&x| x == FILL), "scratch");
                        let (mut a, mut b) = (vec![0xEEEEu16; out_len], vec![0u16; out_len]);
                        let n = (kernels.copy_ascii_to_utf16)(src, &mut a);
                        assert_eq!(n, copy_ascii_to_utf16(src, &mut b), "{start} {len} {bad} {out_len}");
                        assert_eq!(a[..n], b[..n]);
                        assert!(a[(n + 16).min(out_len)..].iter().all(|&x| x == 0xEEEE), "scratch");
                        let (mut a, mut b) = (vec![FILL; out_len], vec![0u8; out_len]);
                        let n = (kernels.copy_utf16_ascii_to_bytes)(&units, &mut a);
                        assert_eq!(n, copy_utf16_ascii_to_bytes(&units, &mut b), "{start} {len} {bad} {out_len}");
                        assert_eq!(a[..n], b[..n]);
                        assert!(a[(n + 16).min(out_len)..].iter().all(|&x| x == FILL), "scratch");
                        let (mut a, mut b) = (vec![0xEEEEu16; out_len], vec![0u16; out_len]);
                        let (mut c, mut d) = (vec![FILL; out_len], vec![0u8; out_len]);
                        for big_endian in [false, true] {
                            // The non-ASCII unit becomes a surrogate (or not, 0x1xx).
                            let bytes: Vec<u8> = units
                                .iter()
                                .map(|&u| if u >= 0x100 && bad % 2 == 0 { u + 0xD700 } else { u })
                                .flat_map(|u| if big_endian { u.to_be_bytes() } else { u.to_le_bytes() })
                                .collect();
                            for cut in [bytes.len(), bytes.len().saturating_sub(1)] {
                                let src = &bytes[..cut];
                                if let Some(kernel) = kernels.utf16_bytes_to_units {
                                    let n = kernel(src, &mut a, big_endian);
                                    assert_eq!(n, utf16_bytes_to_units(src, &mut b, big_endian));
                                    assert_eq!(a[..n], b[..n]);
                                }
                                if let Some(kernel) = kernels.utf16_bytes_ascii_to_bytes {
                                    c.fill(FILL);
                                    let n = kernel(src, &mut c, big_endian);
                                    assert_eq!(n, utf16_bytes_ascii_to_bytes(src, &mut d, big_endian));
                                    assert_eq!(c[..n], d[..n]);
                                    assert!(c[(n + 16).min(out_len)..].iter().all(|&x| x == FILL), "scratch");
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// An ISA's twin of [`encode_utf16_linear`] against it: runs of several
    /// single-byte encodings (with and without a delta), ASCII mixed in, of every
    /// length to 120 units at 17 alignments, a unit in or out of the run at every
    /// seventh place and around the ends and the 16-unit boundaries, into outputs
    /// shorter and longer than the run; nothing written more than 16 bytes past it.
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable)))]
    pub(crate) fn encode_utf16_linear_matches_twin(kernel: LinearEncoder<'_>) {
        const FILL: u8 = 0xEE;
        let runs =
            [(0x80u16, 1u16, 0u16), (0xA0, 96, 0), (0x410, 64, 0x350), (0x3A3, 44, 0x2D0), (0xFF00, 0x100, 0xFF00)];
        for (start, len, delta) in runs {
            let inside: Vec<u16> =
                (0..200u16).map(|i| if i % 3 == 0 { 0x20 + i % 90 } else { start + i % len }).collect();
            for offset in 0..17 {
                for count in 0..120 {
                    for bad in (0..=count).filter(|b| b % 7 == 0 || *b + 2 > count || (14..18).contains(&(b % 32))) {
                        for special in [0x7F, 0x80u16, 0x100, start - 1, start.wrapping_add(len), 0xD800, 0xFFFF] {
                            let mut units = inside[offset..offset + count].to_vec();
                            if bad < count {
                                units[bad] = special;
                            }
                            for out_len in [0, count / 2, count, count + 40] {
                                let (mut a, mut b) = (vec![FILL; out_len], vec![0u8; out_len]);
                                let n = encode_utf16_linear(&units, &mut b, start, len, delta);
                                let got = kernel(&units, &mut a, start, len, delta);
                                assert_eq!(got, n, "{start:#x} {offset} {count} {bad} {special:#x} {out_len}");
                                assert_eq!(a[..n], b[..n]);
                                assert!(a[(n + 16).min(out_len)..].iter().all(|&x| x == FILL), "scratch");
                            }
                        }
                    }
                }
            }
        }
    }

    /// An ISA's twins of the table decoders against theirs: runs of bytes in and out
    /// of the linear run of several encodings, with a special byte at every fifth
    /// position and at every alignment, and output buffers of several lengths.
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable)))]
    pub(crate) fn decode_table_matches_twins(to_utf16: TableToUtf16<'_>, to_utf8: Option<TableToUtf8<'_>>) {
        let runs = [(0x80u8, 1u8, 0u16), (0xA0, 96, 0), (0xC0, 64, 0x350), (0xD3, 44, 0x2D0), (0x80, 128, 0xFF00)];
        for &(start, len, delta) in &runs {
            // A table where the run maps linearly, a few bytes are null, and the rest
            // map to code points of each UTF-8 length.
            let mut utf16 = [0u16; 256];
            let mut utf8 = [0u32; 256];
            for byte in 0..=255u8 {
                let c = if byte < 0x80 {
                    byte as u32
                } else if byte.wrapping_sub(start) < len {
                    (byte as u16).wrapping_add(delta) as u32
                } else if byte % 7 == 0 {
                    0
                } else {
                    [0xE9, 0x3B1, 0x20AC, 0x0E01][byte as usize % 4]
                };
                utf16[byte as usize] = c as u16;
                let mut buf = [0u8; 4];
                let n = char::from_u32(c).map_or(0, |ch| ch.encode_utf8(&mut buf).len());
                utf8[byte as usize] =
                    if c == 0 && byte >= 0x80 { 0 } else { u32::from_le_bytes(buf) | (n as u32) << 24 };
            }
            let inside: Vec<u8> = (0..120u8)
                .map(|i| match i % 5 {
                    0 => 0x20 + i % 64,
                    1 | 2 => start.wrapping_add(i % len),
                    _ => b'a' + i % 26,
                })
                .collect();
            for offset in 0..17 {
                for count in (0..90).step_by(7) {
                    for bad in (0..=count).step_by(5) {
                        for special in [0x00, 0x7F, 0x80, 0x85, 0x9F, 0xA0, 0xBF, 0xC0, 0xD2, 0xD3, 0xFE, 0xFF] {
                            let mut bytes = inside[offset..offset + count].to_vec();
                            if bad < count {
                                bytes[bad] = special;
                                if count > 40 {
                                    // A dense stretch, so that whole blocks go through the table.
                                    for b in &mut bytes[count - 20..] {
                                        *b |= 0x80;
                                    }
                                }
                            }
                            for out_len in [0, count / 2, count, count + 3, 3 * count + 64] {
                                let (mut a, mut b) = (vec![0u16; out_len], vec![0u16; out_len]);
                                let n = to_utf16(&bytes, &mut a, &utf16, start, len, delta);
                                assert_eq!(n, decode_table_to_utf16(&bytes, &mut b, &utf16, start, len, delta));
                                assert_eq!(a[..n], b[..n]);
                                if let Some(to_utf8) = to_utf8 {
                                    let (mut a, mut b) = (vec![0u8; out_len], vec![0u8; out_len]);
                                    let (read, written) = to_utf8(&bytes, &mut a, &utf8);
                                    assert_eq!((read, written), decode_table_to_utf8(&bytes, &mut b, &utf8));
                                    assert_eq!(a[..written], b[..written]);
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// `src[..read]` decoded by the standard library, and where its valid prefix ends.
    fn std_prefix(src: &[u8], read: usize) -> (Vec<u16>, usize) {
        let valid_up_to = core::str::from_utf8(src).map_or_else(|e| e.valid_up_to(), str::len);
        let units = core::str::from_utf8(&src[..read]).expect("a valid prefix").encode_utf16().collect();
        (units, valid_up_to)
    }

    /// Checks [`utf8_prefix_to_utf16`] and [`super::super::utf8_prefix_to_utf16`]
    /// on `src`: the scalar pass stops where the valid prefix ends, unless the text
    /// turned dense first (at a character boundary before it); the pair always goes
    /// to the end of the valid prefix.
    fn check_prefix(src: &[u8]) {
        let mut out = vec![0u16; src.len()];
        let (read, written, dense) = utf8_prefix_pass::<true, _>(src, &mut out, ScalarRuns);
        let (units, valid_up_to) = std_prefix(src, read);
        assert_eq!(out[..written], units[..], "{src:02X?}");
        assert!(if dense { read <= valid_up_to } else { read == valid_up_to }, "{src:02X?}: {read} {dense}");
        // Without the hand-over, all of the valid prefix.
        let (read, written) = utf8_prefix_to_utf16(src, &mut out);
        let (units, _) = std_prefix(src, read);
        assert_eq!((read, &out[..written]), (valid_up_to, &units[..]), "{src:02X?}");
        let (read, written) = super::super::utf8_prefix_to_utf16(src, &mut out);
        let (units, _) = std_prefix(src, read);
        assert_eq!((read, &out[..written]), (valid_up_to, &units[..]), "{src:02X?}");
    }

    /// A small deterministic generator (xorshift64*) for the kernels' tests.
    /// The index of [`check_utf8_single_byte_steps`]: two characters out of the run
    /// (U+0100, U+20AC), with bytes; none else.
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable)))]
    pub(in super::super) struct Utf8Table;

    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable)))]
    impl Utf8Table {
        fn byte(c: u32) -> u8 {
            if c == 0x100 || c == 0x20AC { 0x80 + (c % 0x7F) as u8 } else { 0 }
        }
    }

    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable)))]
    impl super::super::ByteLookup for Utf8Table {
        fn byte_at(&self, src: &[u8], at: usize) -> u8 {
            let c = core::str::from_utf8(&src[at..]).expect("valid").chars().next().expect("a character");
            Self::byte(c as u32)
        }
        fn byte_of_unit(&self, _: u16) -> u8 {
            unreachable!("only characters of UTF-8 are asked")
        }
    }

    /// Checks steps from UTF-8 into a single-byte encoding (`steps`: the text, the
    /// output, the run, the index, whether the run is of three-byte UTF-8), of `step`
    /// bytes, on random text of ASCII, characters of the run (Latin-1's, as
    /// themselves, Cyrillic's, with a delta, or Thai's, three bytes of UTF-8 each) and
    /// others of each UTF-8 length, in [`Utf8Table`] or not, from every offset: what
    /// they read is encoded as the run and the table say, they stop at the start of a
    /// character in neither or near the end of the input or the room, and they write
    /// no more than `scratch` bytes past what they return.
    #[cfg(all(any(target_arch = "x86_64", target_arch = "aarch64"), not(whatenc_portable)))]
    pub(in super::super) fn check_utf8_single_byte_steps(
        step: usize,
        scratch: usize,
        steps: impl Fn(&[u8], &mut [u8], (u16, u16, u16), &Utf8Table, bool) -> (usize, usize),
    ) {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut next = move || rng.next();
        for round in 0..3_000u64 {
            let (start, len, delta) =
                [(0xA0u16, 96u16, 0u16), (0x410, 64, 0x350), (0xE01, 58, 0xD60)][(round % 3) as usize];
            let wide = start >= 0x800;
            // One character in `rarity` is out of the run.
            let rarity = [4, 40, 400, 1_000_000][(round / 3 % 4) as usize];
            let text: alloc::string::String = (0..20 + next() % 300)
                .map(|_| {
                    let pick = next();
                    let c = if pick % rarity == 0 {
                        [0x100, 0x20AC, 0x1F600, u32::from(start - 1), u32::from(start + len)][(pick / 7 % 5) as usize]
                    } else if pick % 3 == 0 {
                        u32::from(start) + (pick >> 8) as u32 % u32::from(len)
                    } else {
                        0x20 + (pick >> 8) as u32 % 0x5F
                    };
                    char::from_u32(c).expect("not a surrogate")
                })
                .collect();
            for offset in [0, 1, 2, 3] {
                let Some(src) = text.get(offset..) else { continue };
                let room = step + (next() % 400) as usize;
                let mut out = alloc::vec![0xAAu8; room];
                let (read, written) = steps(src.as_bytes(), &mut out, (start, len, delta), &Utf8Table, wide);
                let mut expected = alloc::vec::Vec::new();
                let mut stop = src.len();
                for (at, c) in src.char_indices() {
                    let c = c as u32;
                    if c < 0x80 {
                        expected.push(c as u8);
                    } else if c.wrapping_sub(u32::from(start)) < u32::from(len) {
                        expected.push((c - u32::from(delta)) as u8);
                    } else if Utf8Table::byte(c) != 0 {
                        expected.push(Utf8Table::byte(c));
                    } else {
                        stop = at;
                        break;
                    }
                    if at + 1 > read {
                        break;
                    }
                }
                assert!(src.is_char_boundary(read) && read <= stop, "{round} {offset}: {read} {stop}");
                let chars = src[..read].chars().count();
                assert_eq!(out[..written], expected[..chars], "{round} {offset}");
                let past = (written + scratch).min(room);
                assert!(out[past..].iter().all(|&b| b == 0xAA), "wrote past the output: {round}");
                let reach = step + if wide { 2 } else { 1 };
                assert!(
                    read == stop || read + reach > src.len() || written + step > room,
                    "stopped early: {round} {offset}"
                );
            }
        }
    }

    /// A xorshift generator for the tests' random inputs (crate-wide).
    pub(crate) struct Rng(pub(crate) u64);
    impl Rng {
        pub(crate) fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        #[cfg_attr(any(not(any(target_arch = "x86_64", target_arch = "aarch64")), whatenc_portable), allow(dead_code))]
        pub(in super::super) fn below(&mut self, n: usize) -> usize {
            (self.next() >> 33) as usize % n
        }
    }

    /// UTF-16 with surrogates in every arrangement the handler meets (pairs, lone
    /// leading and trailing ones, a pair cut by a block's end), for the kernels that
    /// replace lone surrogates: units drawn from ASCII, other BMP units, leading
    /// and trailing surrogates, about two in `surrogates_in` of them surrogates.
    pub(in super::super) fn surrogate_text(seed: u64, len: usize, surrogates_in: u64) -> Vec<u16> {
        let mut rng = Rng(seed | 1);
        (0..len)
            .map(|_| {
                let state = rng.next();
                match (state >> 32) % surrogates_in {
                    0 => 0xD800 + (state % 0x400) as u16,
                    1 => 0xDC00 + (state % 0x400) as u16,
                    2 => (state % 0x80) as u16,
                    _ => [0x00E9, 0x4E2D, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF][(state % 6) as usize],
                }
            })
            .collect()
    }

    /// What [`utf16_bytes_replacing_lone_surrogates`] must give, from the handler's
    /// rule one unit at a time: the units consumed, whether a lone surrogate was
    /// among them, and the units written.
    pub(in super::super) fn replacing_lone_surrogates_naive(units: &[u16], room: usize) -> (usize, bool, Vec<u16>) {
        let room = room.min(REPLACING_SPAN);
        let mut blocks = 0;
        while 8 * (blocks + 1) < units.len() && 8 * (blocks + 1) <= room {
            blocks += 1;
        }
        let mut n = 8 * blocks;
        if n > 0 && (0xD800..0xDC00).contains(&units[n - 1]) && (0xDC00..0xE000).contains(&units[n]) {
            n -= 1;
        }
        let mut out = Vec::new();
        let mut lone_seen = false;
        let mut i = 0;
        while i < n {
            let unit = units[i];
            if (0xD800..0xDC00).contains(&unit) && units.get(i + 1).is_some_and(|next| (0xDC00..0xE000).contains(next))
            {
                out.extend_from_slice(&units[i..i + 2]);
                i += 2;
            } else {
                let lone = (0xD800..0xE000).contains(&unit);
                lone_seen |= lone;
                out.push(if lone { 0xFFFD } else { unit });
                i += 1;
            }
        }
        out.truncate(n);
        (n, lone_seen, out)
    }

    /// Every length to 80 units and a few around [`REPLACING_SPAN`], rooms around
    /// them, both byte orders, dense and sparse surrogates.
    #[test]
    fn replacing_lone_surrogates_matches_the_handler() {
        for surrogates_in in [3, 6, 40] {
            for len in (0..80).chain([511, 512, 513, 520, 1100]) {
                let units = surrogate_text(len as u64 * 7919 + surrogates_in, len, surrogates_in);
                for big_endian in [false, true] {
                    let bytes: Vec<u8> = units
                        .iter()
                        .flat_map(|&u| if big_endian { u.to_be_bytes() } else { u.to_le_bytes() })
                        .collect();
                    for room in [0, 7, 8, 9, 16, 17, len.saturating_sub(1), len, len + 8] {
                        let mut out = vec![0u16; room];
                        let got = utf16_bytes_replacing_lone_surrogates(&bytes, &mut out, big_endian);
                        let (expected_n, expected_seen, expected_out) = replacing_lone_surrogates_naive(&units, room);
                        assert_eq!(got, (expected_n, expected_seen), "{units:04X?} {room} {big_endian}");
                        let n = got.0;
                        assert_eq!(out[..n], expected_out[..], "{units:04X?} {room} {big_endian}");
                    }
                }
            }
        }
    }

    /// [`units_before_surrogate`] against a unit at a time: every length up to 19
    /// units (and an odd byte), a surrogate (each of its high bytes D8–DF) or none at
    /// each position, the other units near it (D7FF, E000, xxD8), both byte orders.
    #[test]
    fn units_before_surrogate_matches_one_at_a_time() {
        let others: [u16; 6] = [0xD7FF, 0xE000, 0x00D8, 0xF8D8, 0x0041, 0xFFFF];
        for len in 0..20usize {
            for at in 0..=len {
                for high in 0xD8..=0xDFu8 {
                    for k in 0..others.len() {
                        let units: Vec<u16> = (0..len)
                            .map(|i| if i == at { u16::from(high) << 8 | 0x12 } else { others[(k + i) % others.len()] })
                            .collect();
                        for big_endian in [false, true] {
                            let mut bytes: Vec<u8> = units
                                .iter()
                                .flat_map(|u| if big_endian { u.to_be_bytes() } else { u.to_le_bytes() })
                                .collect();
                            bytes.push(0xD8);
                            for end in [bytes.len() - 1, bytes.len()] {
                                let src = &bytes[..end];
                                let expected = units.iter().take_while(|&&u| !(0xD800..=0xDFFF).contains(&u)).count();
                                assert_eq!(
                                    units_before_surrogate(src, big_endian),
                                    expected,
                                    "{src:02X?} {big_endian}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    /// [`three_byte_run`] one character at a time, for the tests.
    fn three_byte_run_naive(src: &[u8], dst: &mut [u16], mut read: usize, mut written: usize) -> (usize, usize) {
        while let (Some(three), Some(out)) = (src.get(read..read + 3), dst.get_mut(written)) {
            let Some(unit) = three_byte_unit(three) else { break };
            *out = unit;
            read += 3;
            written += 1;
        }
        (read, written)
    }

    /// Compares `kernel`, a twin of [`three_byte_run`], with the naive loop on `src`
    /// from `read`, into `dst_len` units from `written`: where each stops, and the
    /// units up to there.
    fn same_run(
        kernel: &impl Fn(&[u8], &mut [u16], usize, usize) -> (usize, usize),
        src: &[u8],
        read: usize,
        written: usize,
        dst_len: usize,
    ) {
        let (mut a, mut b) = (vec![0u16; dst_len], vec![0u16; dst_len]);
        let (ra, wa) = kernel(src, &mut a, read, written);
        let (rb, wb) = three_byte_run_naive(src, &mut b, read, written);
        assert_eq!((ra, wa, &a[..wa]), (rb, wb, &b[..wb]), "{src:02X?} from {read}, {written} of {dst_len}");
        assert_eq!(ra - read, 3 * (wa - written));
    }

    /// Compares `kernel`, a twin of [`three_byte_run`], with the naive loop: every lead byte and
    /// second byte with the boundary values of the third, in each slot of the first
    /// two steps of runs of every length to 14 (cut by the end, or followed by ASCII);
    /// every second and third byte after the leads with bounds of their own (E0,
    /// ED) and two others, in the first and the last slot of each of the first two
    /// steps of five (one step of ten of the AVX2 twin); at every start,
    /// and with output that ends before a step's eight units.
    pub(in super::super) fn three_byte_run_cases(kernel: impl Fn(&[u8], &mut [u16], usize, usize) -> (usize, usize)) {
        let run: alloc::vec::Vec<u8> = "日本語の文字列、中文字符串，ภาษาไทย".bytes().collect();
        for len in 0..=14 {
            let mut src = run[..3 * len].to_vec();
            for tail in [&b""[..], b"a", &[b'a', b' ', 0xE4, 0xB8, 0x80]] {
                src.truncate(3 * len);
                src.extend_from_slice(tail);
                for slot in 0..len.min(10) {
                    for lead in 0xE0..=0xEF {
                        for second in 0..=255 {
                            for third in [0x00, 0x7F, 0x80, 0xBF, 0xC0, 0xFF] {
                                let mut bad = src.clone();
                                bad[3 * slot..3 * slot + 3].copy_from_slice(&[lead, second, third]);
                                same_run(&kernel, &bad, 0, 0, bad.len());
                            }
                        }
                    }
                }
            }
        }
        let mut src = run[..3 * 12].to_vec();
        for lead in [0xE0, 0xE1, 0xED, 0xEF] {
            for slot in [0, 4, 5, 9] {
                for second in 0..=255 {
                    for third in 0..=255 {
                        src[3 * slot..3 * slot + 3].copy_from_slice(&[lead, second, third]);
                        same_run(&kernel, &src, 0, 0, src.len());
                    }
                }
            }
        }
        // Every start in `src` and in `dst`, and every output length down to none.
        let src = [b"ab".as_slice(), &run, b"c", &run].concat();
        for read in 0..src.len() {
            for written in 0..4 {
                for dst_len in written..written + src.len() / 3 + 9 {
                    same_run(&kernel, &src, read, written, dst_len);
                }
            }
        }
    }

    /// Every sequence of one to three bytes after ASCII, every four-byte lead and
    /// second byte with the boundary values of the rest, then ASCII or the end.
    #[test]
    fn utf8_prefix_to_utf16_exhaustive_short_sequences() {
        for first in 0..=255u8 {
            for second in 0..=255u8 {
                check_prefix(&[b'a', first, second]);
                check_prefix(&[first, second, b'z']);
                if (0xC0..=0xDF).contains(&first) {
                    // In each slot of a run of two-byte characters: the four of the
                    // first word of `two_byte_run`, and one after it.
                    for slot in 0..6 {
                        let mut run = "жжжжжжж".as_bytes().to_vec();
                        run[2 * slot..2 * slot + 2].copy_from_slice(&[first, second]);
                        check_prefix(&run);
                    }
                }
                if (0xE0..=0xEF).contains(&first) {
                    for third in 0..=255u8 {
                        check_prefix(&[first, second, third]);
                        // The same after a three-byte character: the run loop's check.
                        check_prefix(&[0xE4, 0xB8, 0x80, first, second, third]);
                        // As either of two at a step, after a three-byte character.
                        check_prefix(&[0xE4, 0xB8, 0x80, 0xE4, 0xB8, 0x80, first, second, third]);
                        check_prefix(&[0xE4, 0xB8, 0x80, first, second, third, 0xE4, 0xB8, 0x80]);
                    }
                }
                if first >= 0xF0 {
                    for third in [0x7F, 0x80, 0xBF, 0xC0] {
                        for fourth in [0x41, 0x80, 0xBF, 0xC0] {
                            check_prefix(&[first, second, third, fourth, b'a']);
                            check_prefix(&[first, second, third, fourth]);
                        }
                    }
                }
            }
        }
    }

    /// [`utf8_starts_with_error`] against the standard library's `valid_up_to`: every
    /// sequence of up to four bytes over the bytes at the bounds of the decoder's
    /// ranges, and every pair of bytes.
    #[test]
    fn utf8_starts_with_error_matches_std() {
        let valid_up_to = |s: &[u8]| core::str::from_utf8(s).map_or_else(|e| e.valid_up_to(), str::len);
        let same = |s: &[u8]| {
            let expected = !s.is_empty() && valid_up_to(s) == 0;
            assert_eq!(utf8_starts_with_error(s), expected, "{s:02X?}");
        };
        let bounds = [
            0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE,
            0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
        ];
        same(&[]);
        for a in bounds {
            same(&[a]);
            for b in bounds {
                for c in bounds {
                    same(&[a, b, c]);
                    for d in bounds {
                        same(&[a, b, c, d]);
                        same(&[a, b, c, d, b'z']);
                    }
                }
            }
        }
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                same(&[a, b]);
            }
        }
    }

    /// Random text of every mix of ASCII and longer characters, with malformed
    /// bytes among them and cut at random lengths (either side of `HAND_OVER_FROM`,
    /// below which the pass counts nothing towards a hand-over): the dense hand-over
    /// on the way.
    #[test]
    fn utf8_prefix_to_utf16_random_mixes() {
        let pieces: [&[u8]; 10] = [
            b"ab",
            b" ",
            "\u{E9}".as_bytes(),
            "\u{434}".as_bytes(),
            "\u{4E2D}".as_bytes(),
            "\u{1F600}".as_bytes(),
            b"\x80",
            b"\xED\xA0\x80",
            b"\xF0\x9F",
            b"abcdefghijklmnop",
        ];
        let mut next = super::super::xorshift(11);
        for _ in 0..20_000 {
            let mix = next() as u32 | 1;
            let len = (next() % 700) as usize;
            let mut bytes = Vec::new();
            while bytes.len() < len {
                let k = (next() % 10) as u32;
                if mix & (1 << k) != 0 && (!(6..9).contains(&k) || next().is_multiple_of(20)) {
                    bytes.extend_from_slice(pieces[k as usize]);
                }
            }
            check_prefix(&bytes);
        }
        // Dense text longer than a piece for the vector kernels (pieces end inside
        // characters), with one error or none.
        for k in 0..40 {
            let mut bytes = "\u{434}\u{4E2D}ab\u{1F600}".repeat(700 + k * 37).into_bytes();
            if k % 2 == 1 {
                let at = (next() as usize) % bytes.len();
                bytes[at] = 0xFF;
            }
            check_prefix(&bytes);
        }
        // Short runs of three-byte characters between spaces (which a vector `run`
        // hands over), long runs with ASCII between (which it keeps), and the two
        // in turn; words of two-byte letters, long (which it hands over) and short
        // among ASCII (which it keeps); with one error or none.
        let texts = [
            "한국어 문장 입니다 ",
            "日本語の長い文章の一部です、とても長い。2026年",
            "ภาษาไทย ab 한국 ",
            "Русский текст и длинные слова, ",
            "Příliš žluťoučký kůň úpěl ďábelské ódy. ",
        ];
        for k in 0..100 {
            let mut bytes = texts[k % 5].repeat(20 + k * 13).into_bytes();
            if k % 2 == 1 {
                let at = (next() as usize) % bytes.len();
                bytes[at] = [0xFF, 0x80, 0xE0, 0xC3, 0xBF][k % 5];
            }
            check_prefix(&bytes);
        }
    }

    /// The scalar run, two characters a step, against the naive loop.
    #[test]
    fn three_byte_run_matches_the_naive_loop() {
        three_byte_run_cases(three_byte_run);
    }

    /// With a vector `run`, the pass hands over Cyrillic words and Korean ones, and
    /// keeps Czech (letters alone or in pairs among ASCII), Japanese (long runs) and
    /// English with punctuation marks of three bytes.
    #[test]
    fn vector_pass_hands_over_dense_words_only() {
        let hands_over = |text: &str| {
            let src = text.repeat(40).into_bytes();
            let mut dst = vec![0; src.len()];
            let (read, _, dense) = utf8_prefix_pass::<true, _>(&src, &mut dst, ScalarRuns);
            assert_eq!(dense, read < src.len(), "{text}");
            dense
        };
        assert!(hands_over("Русский текст и длинные слова, "));
        assert!(hands_over("한국어 문장 입니다 "));
        assert!(!hands_over("Příliš žluťoučký kůň úpěl ďábelské ódy. "));
        assert!(!hands_over("日本語の長い文章の一部です、とても長い。"));
        assert!(!hands_over("The quick brown fox jumps over the lazy dog — it’s here. "));
    }

    /// Naive twin of [`ascii_prefix_len`].
    fn naive_ascii_prefix_len(bytes: &[u8]) -> usize {
        bytes.iter().position(|&b| b >= 0x80).unwrap_or(bytes.len())
    }

    /// The chunked search against the naive one: every length to 100 (three chunks), the
    /// byte at every position, with and without other candidates (0x00, 0x80, 0xFF,
    /// the byte ± 1) around it.
    #[test]
    fn find_byte_equals_the_naive_search() {
        for byte in [0u8, 1, b'<', b'>', 0x7F, 0x80, 0xFE, 0xFF] {
            for fill in [0u8, 0x80, 0xFF, byte.wrapping_add(1), byte.wrapping_sub(1), b' '] {
                if fill == byte {
                    continue;
                }
                for len in 0..100 {
                    let mut haystack = alloc::vec![fill; len];
                    assert_eq!(find_byte(byte, &haystack), None);
                    for at in 0..len {
                        haystack[at] = byte;
                        assert_eq!(find_byte(byte, &haystack), haystack.iter().position(|&b| b == byte));
                        haystack[at] = fill;
                    }
                    if len > 2 {
                        haystack[len - 1] = byte;
                        haystack[len / 2] = byte;
                        assert_eq!(find_byte(byte, &haystack), Some(len / 2));
                    }
                }
            }
        }
    }

    #[test]
    fn ascii_prefix_len_matches_naive_at_every_alignment() {
        let mut buf = [b'a'; 80];
        for start in 0..WORD + 1 {
            for len in 0..64 {
                for bad in 0..=len {
                    let slice_end = start + len;
                    if bad < len {
                        buf[start + bad] = 0xC3;
                    }
                    let slice = &buf[start..slice_end];
                    assert_eq!(ascii_prefix_len(slice), naive_ascii_prefix_len(slice), "{start} {len} {bad}");
                    if bad < len {
                        buf[start + bad] = b'a';
                    }
                }
            }
        }
    }

    /// The one-pass copy against a scan and a copy: at every alignment, length (across
    /// two steps and a tail), place of the first byte that is not ASCII and room.
    #[test]
    fn copy_ascii_to_ascii_matches_naive_at_every_alignment() {
        let mut buf: alloc::vec::Vec<u8> = (0..120).map(|i| b'a' + i % 26).collect();
        for start in 0..WORD + 1 {
            for len in 0..100 {
                for bad in 0..=len {
                    if bad < len {
                        buf[start + bad] = 0xC3;
                    }
                    let src = &buf[start..start + len];
                    for room in [0, bad / 2, bad, len, len + 40] {
                        let mut out = alloc::vec![0u8; room];
                        let n = copy_ascii_to_ascii(src, &mut out);
                        assert_eq!(n, naive_ascii_prefix_len(&src[..len.min(room)]), "{start} {len} {bad} {room}");
                        assert_eq!(out[..n], src[..n], "{start} {len} {bad} {room}");
                    }
                    if bad < len {
                        buf[start + bad] = b'a' + (start + bad) as u8 % 26;
                    }
                }
            }
        }
    }

    /// Random arrays of units from each mix of the three length classes (one-byte,
    /// two-byte, three-byte), 2,000 a mix, for the UTF-16 → UTF-8 kernels' tests.
    fn each_class_mix<const N: usize>(next: &mut impl FnMut() -> u64, mut check: impl FnMut([u16; N])) {
        let classes: [&[u16]; 3] =
            [&[0, 0x41, 0x7F], &[0x80, 0xE9, 0x3B1, 0x7FF], &[0x800, 0x4E2D, 0xD7FF, 0xE000, 0xFFFF]];
        for mix in 1..8u32 {
            let pool: Vec<u16> =
                (0..3).filter(|c| mix & (1 << c) != 0).flat_map(|c| classes[c].iter().copied()).collect();
            for _ in 0..2000 {
                check(core::array::from_fn(|_| pool[(next() % pool.len() as u64) as usize]));
            }
        }
    }

    /// Every path of `block_to_utf8` (one- and two-byte units, three-byte units,
    /// mixed) against `char::encode_utf8`: each unit value of every class at each
    /// of the eight places, among random neighbours of each class mix.
    #[test]
    fn block_to_utf8_matches_char() {
        let mut next = super::super::xorshift(0x2545_F491_4F6C_DD1Du64);
        let check = |block: [u16; 8]| {
            let mut out = [0u8; 32];
            let n = block_to_utf8(block, &mut out);
            let expected = String::from_utf16(&block).unwrap();
            assert_eq!(&out[..n], expected.as_bytes(), "{block:x?}");
        };
        each_class_mix(&mut next, check);
        for unit in (0..=0xFFFFu16).filter(|u| !(0xD800..=0xDFFF).contains(u)) {
            for place in 0..8 {
                let mut block: [u16; 8] = core::array::from_fn(|_| [0x61, 0xE9][(next() & 1) as usize]);
                block[place] = unit;
                check(block);
            }
        }
    }

    /// The two-pass chunk kernel against `String::from_utf16`: random chunks from
    /// each mix of the three length classes (each mix takes its own path: one- and
    /// two-byte units only, or any), and every code point of the BMP at two places
    /// among random neighbours.
    #[test]
    fn chunk_to_utf8_matches_std() {
        let mut next = super::super::xorshift(0x9E37_79B9_7F4A_7C15);
        let check = |units: [u16; CHUNK_UNITS]| {
            let pairs = core::array::from_fn(|k| u32::from(units[2 * k]) | u32::from(units[2 * k + 1]) << 16);
            let mut out = [0u8; CHUNK_ROOM];
            let n = chunk_to_utf8(&pairs, &mut out);
            let expected = String::from_utf16(&units).unwrap();
            assert_eq!(&out[..n], expected.as_bytes(), "{units:x?}");
        };
        each_class_mix(&mut next, check);
        for unit in (0..=0xFFFFu16).filter(|u| !(0xD800..=0xDFFF).contains(u)) {
            for place in [usize::from(unit) % CHUNK_UNITS, (usize::from(unit) * 7 + 3) % CHUNK_UNITS] {
                let mut units: [u16; CHUNK_UNITS] =
                    core::array::from_fn(|_| [0x61, 0xE9, 0x4E2D][(next() % 3) as usize]);
                units[place] = unit;
                check(units);
            }
        }
    }

    /// UTF-8 → UTF-16 on random text in runs of each length class (the three-byte
    /// runs take four characters a step, ASCII eight bytes), from every character
    /// boundary.
    #[test]
    fn utf8_to_utf16_matches_std_on_runs() {
        let pools: [&[char]; 4] =
            [&['a', ' ', '7'], &['é', 'ж', 'ש'], &['中', 'あ', '한', '\u{FFFF}'], &['😀', '\u{10FFFF}']];
        let mut next = super::super::xorshift(0x9E37_79B9_7F4A_7C15u64);
        for _ in 0..40 {
            let mut text = String::new();
            while text.chars().count() < 120 {
                let which = (next() % 4) as usize;
                let pool = pools[which];
                // ASCII runs up to 40 long: eight bytes a step, and the bulk kernel
                // after 16.
                for _ in 0..next() % if which == 0 { 41 } else { 14 } {
                    text.push(pool[(next() % pool.len() as u64) as usize]);
                }
            }
            for (start, _) in text.char_indices() {
                let s = &text[start..];
                let mut out = vec![0u16; s.len()];
                let n = utf8_to_utf16(s, &mut out);
                assert_eq!(&out[..n], s.encode_utf16().collect::<Vec<_>>().as_slice(), "{s}");
                // The sparse loop: a prefix that ends on a character, as far as the
                // characters that are not ASCII stay sparse.
                out.fill(0);
                let (read, n) = utf8_to_utf16_sparse(s, &mut out);
                assert!(s.is_char_boundary(read), "{s}");
                assert!(out[..n].iter().copied().eq(s[..read].encode_utf16()), "{s}");
            }
        }
    }

    /// [`utf8_to_utf16_sparse`] goes to the end of text with a character that is not
    /// ASCII every [`SPARSE_GAP`] bytes or more, and stops soon where they come
    /// closer, right before one of them.
    #[test]
    fn utf8_to_utf16_sparse_stops_where_dense() {
        for c in ['\u{e9}', '\u{4e2d}', '\u{1F600}'] {
            let mut text = String::new();
            for gap in (SPARSE_GAP..SPARSE_GAP + 40).chain([SPARSE_GAP; 20]) {
                text.extend(core::iter::repeat_n('a', gap - c.len_utf8()));
                text.push(c);
            }
            let sparse = text.len();
            for _ in 0..40 {
                text.push(c);
                text.push(' ');
            }
            let mut out = vec![0u16; text.len()];
            let (read, n) = utf8_to_utf16_sparse(&text, &mut out);
            assert!(read > sparse && read < sparse + 6 * (c.len_utf8() + 1), "{c}: {read} of {}", text.len());
            assert!(text[read..].starts_with(c));
            assert!(out[..n].iter().copied().eq(text[..read].encode_utf16()));
            let (read, _) = utf8_to_utf16_sparse(&text[..sparse], &mut out);
            assert_eq!(read, sparse);
        }
    }

    #[test]
    fn transcoders_match_std() {
        let text = "a\u{e9}\u{4e2d}\u{1F600}zzzzzzzzzzzzzzzzz\u{7f}\u{80} x\u{7ff}\u{800}\u{ffff}\u{10000}\u{10ffff}y";
        for start in 0..text.len() {
            if !text.is_char_boundary(start) {
                continue;
            }
            let s = &text[start..];
            let mut out = vec![0u16; s.len()];
            let n = utf8_to_utf16(s, &mut out);
            assert_eq!(&out[..n], s.encode_utf16().collect::<Vec<_>>().as_slice());
            let units: Vec<u16> = s.encode_utf16().collect();
            let mut bytes = vec![0u8; s.len()];
            assert_eq!(utf16_to_utf8(&units, &mut bytes), (units.len(), s.len()));
            assert_eq!(&bytes, s.as_bytes());
        }
        // Every output size: whole scalar values only, in order, as far as they fit.
        let units: Vec<u16> = text.encode_utf16().collect();
        for size in 0..=text.len() {
            let mut bytes = vec![0u8; size];
            let (read, written) = utf16_to_utf8(&units, &mut bytes);
            let expected = String::from_utf16(&units[..read]).unwrap();
            assert_eq!(&bytes[..written], expected.as_bytes(), "{size}");
            assert!(text.len() - written < 4 || written + 4 > size, "{size}: stopped early");
        }
        let lone = [0x61, 0xD800, 0x62, 0xDC00];
        let mut bytes = [0u8; 8];
        assert_eq!(utf16_to_utf8(&lone, &mut bytes), (4, 8));
        assert_eq!(&bytes, "a\u{FFFD}b\u{FFFD}".as_bytes());
    }
}
