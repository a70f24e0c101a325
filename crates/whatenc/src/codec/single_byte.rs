//! The single-byte decoder and encoder, shared by the 28 legacy single-byte
//! encodings (`encoding.bs` § "Legacy single-byte encodings").

use super::{ByteSink, DecodeHandler, ENCODE_STEP, EncodeHandler, EncodeStatus, Input, Sink, Source, Status};

/// The most bytes the decoder takes byte by byte before it tries the bulk loop again.
pub(crate) const BLOCK: usize = 16;

/// The single-byte decoder. It has no state: each byte is one code point or an error.
#[derive(Debug, Clone)]
pub(crate) struct SingleByteDecoder {
    index: &'static SingleByteIndex,
}

impl SingleByteDecoder {
    pub(crate) fn new(index: &'static SingleByteIndex) -> Self {
        SingleByteDecoder { index }
    }
}

impl DecodeHandler for SingleByteDecoder {
    #[inline]
    fn decode<S: Sink>(&mut self, src: &[u8], dst: &mut S, _last: bool) -> (Status, usize) {
        let index = self.index;
        let table = &index.decode;
        let mut pos = 0;
        loop {
            // Steps 2–3 in bulk: ASCII bytes are code points, others the index code
            // point for byte − 0x80, while it is not null.
            pos += dst.decode_single_byte_bulk(&src[pos..], index);
            if pos == src.len() {
                return (Status::InputEmpty, pos);
            }
            if dst.room() < S::STEP {
                return (Status::OutputFull, pos);
            }
            // The same byte by byte for at most a block (the end of the input or of the
            // room, or a block the bulk loop left), up to a null byte.
            pos += dst.decode_single_byte_run(&src[pos..src.len().min(pos + BLOCK)], table);
            if let Some(&byte) = src.get(pos)
                && byte >= 0x80
                && table[(byte - 0x80) as usize] == 0
                && dst.room() >= S::STEP
            {
                // Step 4: null is an error.
                return (Status::Error { len: 1, restored: 0 }, pos + 1);
            }
        }
    }
}

/// The single-byte encoder: one reverse-table lookup per non-ASCII scalar value.
#[derive(Debug, Clone)]
pub(crate) struct SingleByteEncoder {
    index: &'static SingleByteIndex,
}

impl SingleByteEncoder {
    pub(crate) fn new(index: &'static SingleByteIndex) -> Self {
        SingleByteEncoder { index }
    }
}

impl EncodeHandler for SingleByteEncoder {
    #[inline]
    fn encode<S: Source>(&mut self, src: &mut S, dst: &mut ByteSink<'_>, _last: bool) -> EncodeStatus {
        // Steps 1–2 (end-of-queue, ASCII) and 3–4 (the index pointer + 0x80, or
        // error with the code point), in a loop for each form of input.
        let (status, read) = match src.rest_input() {
            Input::Utf8(text) => encode_str::<false>(text, dst, self.index, &mut false),
            Input::Utf16(units) => encode_utf16::<false>(units, dst, self.index, &mut false),
        };
        src.advance(read);
        status
    }

    #[inline]
    fn encode_html<S: Source>(
        &mut self,
        src: &mut S,
        dst: &mut ByteSink<'_>,
        _last: bool,
        had_unmappable: &mut bool,
    ) -> EncodeStatus {
        let (status, read) = match src.rest_input() {
            Input::Utf8(text) => encode_str::<true>(text, dst, self.index, had_unmappable),
            Input::Utf16(units) => encode_utf16::<true>(units, dst, self.index, had_unmappable),
        };
        src.advance(read);
        status
    }
}

/// The encoder's loop over `&str`: ASCII runs in bulk, other scalar values of the
/// BMP decoded from their UTF-8 in place and looked up in the page table, as many
/// as the room holds without checking it again. Returns the status and bytes consumed.
/// With `HTML` ("html" error mode), an unmappable scalar value's reference is written
/// here and the loop goes on (`had_unmappable` set); it never returns
/// [`EncodeStatus::Unmappable`] then.
#[inline]
fn encode_str<const HTML: bool>(
    text: &str,
    dst: &mut ByteSink<'_>,
    index: &SingleByteIndex,
    had_unmappable: &mut bool,
) -> (EncodeStatus, usize) {
    let bytes = text.as_bytes();
    let mut pos = 0;
    let (mut steps_from, mut back_off) = (0, STEPS_BACK_OFF);
    loop {
        if pos == bytes.len() {
            return (EncodeStatus::InputEmpty, pos);
        }
        let room = dst.room();
        if room < ENCODE_STEP {
            return (EncodeStatus::OutputFull, pos);
        }
        // Whole steps of 64 bytes with AVX-512: ASCII and the run (Latin letters,
        // Cyrillic, Greek) in vectors, other characters in the index one at a time
        // into them; after a call that stopped inside its first step, not again for
        // `STEPS_BACK_OFF` bytes.
        if pos >= steps_from {
            let run = (index.run_start, index.run_len, index.run_delta);
            let (read, written) = crate::simd::encode_utf8_single_byte_steps(&bytes[pos..], dst.spare(), run, index);
            dst.commit(written);
            pos += read;
            if read < 64 {
                steps_from = pos + back_off;
                back_off = (2 * back_off).min(STEPS_BACK_OFF_MAX);
            } else {
                back_off = STEPS_BACK_OFF;
            }
            if read != 0 {
                continue;
            }
        }
        if bytes[pos] < 0x80 && bytes.get(pos + 1).is_some_and(u8::is_ascii) {
            // Step 2 for a run of ASCII, in bulk.
            let n = crate::simd::copy_ascii_to_ascii(&bytes[pos..], dst.spare());
            dst.commit(n);
            pos += n;
            continue;
        }
        // Every step writes one byte (an error writes none), so this many fit.
        let steps = room - ENCODE_STEP + 1;
        let out = &mut dst.spare()[..steps];
        let mut written = 0;
        let mut unmappable = None;
        while written < steps {
            let Some(&lead) = bytes.get(pos) else { break };
            let (code_point, len) = if lead < 0x80 {
                if bytes.get(pos + 1).is_some_and(u8::is_ascii) {
                    break;
                }
                (lead as u32, 1)
            } else {
                // `text` is valid UTF-8: a lead byte's continuation bytes follow it.
                super::decode_utf8_at(bytes, pos)
            };
            // Step 3: the index pointer + 0x80 (ASCII is its own entry; U+0000 the
            // one whose byte is 0). Beyond the BMP (looked up as U+FFFF, a
            // noncharacter), a scalar value is in no single-byte index.
            let byte = index.byte_for_unit(u16::try_from(code_point).unwrap_or(0xFFFF));
            if byte == 0 && code_point != 0 {
                unmappable = Some((char::from_u32(code_point).unwrap_or('\u{FFFD}'), len));
                break;
            }
            out[written] = byte;
            written += 1;
            pos += len;
        }
        dst.commit(written);
        if let Some((c, len)) = unmappable {
            // Step 4: error with the code point.
            if !HTML {
                return (EncodeStatus::Unmappable(c), pos + len);
            }
            // At least a step's room is left: each byte before it was one of the
            // `steps`.
            dst.push_reference(c);
            *had_unmappable = true;
            pos += len;
        }
    }
}

/// Bytes of text that [`encode_str`] takes without its AVX-512 steps after they
/// stopped within their first step; twice as many after each such stop in a row, up
/// to `STEPS_BACK_OFF_MAX`.
const STEPS_BACK_OFF: usize = 256;
const STEPS_BACK_OFF_MAX: usize = 4096;

/// Units per block of the encoder's table loop.
const UNIT_BLOCK: usize = 16;

/// The encoder's loop over UTF-16: units in the index's linear run (and ASCII) in
/// bulk, then the first unit out of it by table: unmappable, an error (or its
/// reference); otherwise a table block of units, up to the first one not in the
/// index. Returns the status and units consumed. With `HTML` ("html" error mode), an
/// unmappable scalar value's reference is written here and the loop goes on
/// (`had_unmappable` set); it never returns [`EncodeStatus::Unmappable`] then.
///
/// The bulk loop goes first each time, also right after an unmappable one: its last
/// block keeps the units before the first one out of the run (one store and a
/// count), so in text that mixes letters the encoding has with others its set-up
/// costs less than the units it spares one at a time. "html" mode, windows-1252 from
/// UTF-16, rotating, `AMD EPYC` Zen 4: cs.txt 64.0 → 46.3 µs, tr.txt 91.5 → 65.3,
/// vi.txt 193 → 144 (encoding_rs 62.3, 92.6, 251), against one unit at a time for a
/// block after each reference and a kernel that left its last block to the scalar loop.
#[inline]
fn encode_utf16<const HTML: bool>(
    units: &[u16],
    dst: &mut ByteSink<'_>,
    index: &SingleByteIndex,
    had_unmappable: &mut bool,
) -> (EncodeStatus, usize) {
    let mut pos = 0;
    let (mut steps_from, mut back_off) = (0, STEPS_BACK_OFF);
    loop {
        if pos == units.len() {
            return (EncodeStatus::InputEmpty, pos);
        }
        let room = dst.room();
        if room < ENCODE_STEP {
            return (EncodeStatus::OutputFull, pos);
        }
        // Every step writes one byte (an error writes none; a reference is a step of
        // its own, after which the room is checked again), so this many fit.
        let steps = (room - ENCODE_STEP + 1).min(units.len() - pos);
        // Whole steps of 32 units with AVX-512: ASCII and the run in vectors, other
        // units in the index one at a time into them; after a call that stopped
        // inside its first step, not again for a while (as in `encode_str`).
        if pos >= steps_from {
            let run = (index.run_start, index.run_len, index.run_delta);
            let read = crate::simd::encode_utf16_single_byte_steps(&units[pos..pos + steps], dst.spare(), run, index);
            dst.commit(read);
            pos += read;
            if read < 32 {
                steps_from = pos + back_off / 2;
                back_off = (2 * back_off).min(STEPS_BACK_OFF_MAX);
            } else {
                back_off = STEPS_BACK_OFF;
            }
            if read != 0 {
                continue;
            }
        }
        let first = units[pos];
        // An unmappable first unit at once, not after a block that looked up fifteen
        // more for nothing (text of another script: one after another).
        if first < 0x80 || first.wrapping_sub(index.run_start) < index.run_len || index.byte_for_unit(first) != 0 {
            // ASCII and the run in vectors, the index's other units looked up into
            // them, up to one it does not have.
            let (src, out) = (&units[pos..pos + steps], &mut dst.spare()[..steps]);
            let run = (index.run_start, index.run_len, index.run_delta);
            let read = crate::simd::encode_utf16_in_index(src, out, run, index)
                .unwrap_or_else(|| encode_utf16_in_index(src, out, index));
            dst.commit(read);
            pos += read;
            if read == steps {
                continue;
            }
        }
        // Not in the index (surrogates never are): error with the scalar value. At
        // least a step's room is left: each byte before it was one of the `steps`.
        let (c, len) = super::read_utf16(units[pos], units.get(pos + 1).copied());
        if !HTML {
            return (EncodeStatus::Unmappable(c), pos + len);
        }
        dst.push_reference(c);
        *had_unmappable = true;
        pos += len;
    }
}

/// The longest prefix of `units` that fits in `out` and whose units are in the
/// index, encoded, where `simd` has no kernel for it (the portable tier, aarch64):
/// units in the index's run (and ASCII) in bulk, then others by table a block at a
/// time (all sixteen bytes written in one store and those up to the first unit not
/// in the index, or U+0000, kept), or one at a time at the end. Returns its length.
#[inline(always)]
fn encode_utf16_in_index(units: &[u16], out: &mut [u8], index: &SingleByteIndex) -> usize {
    let limit = units.len().min(out.len());
    let mut pos = 0;
    while pos < limit {
        let unit = units[pos];
        if unit < 0x80 || unit.wrapping_sub(index.run_start) < index.run_len {
            pos += crate::simd::encode_utf16_linear(
                &units[pos..limit],
                &mut out[pos..limit],
                index.run_start,
                index.run_len,
                index.run_delta,
            );
            if pos == limit {
                break;
            }
        }
        // A unit neither ASCII nor in the run: not in the index, the caller's error
        // (before a block that would look up fifteen more for nothing).
        let first = index.byte_for_unit(units[pos]);
        if first == 0 {
            return pos;
        }
        match (units[pos..limit].first_chunk::<UNIT_BLOCK>(), out[pos..limit].first_chunk_mut::<UNIT_BLOCK>()) {
            (Some(block), Some(out)) => {
                // Looked up into a local array, then stored in one piece: stored a
                // byte at a time and read back, they would stall the loads.
                let mut bytes = [0u8; UNIT_BLOCK];
                for (byte, &unit) in bytes.iter_mut().zip(block) {
                    *byte = index.byte_for_unit(unit);
                }
                *out = bytes;
                pos += bytes.iter().position(|&byte| byte == 0).unwrap_or(UNIT_BLOCK);
            }
            _ => {
                out[pos] = first;
                pos += 1;
            }
        }
    }
    pos
}

/// The tables of one single-byte index, generated into `tables/single_byte.rs`, and
/// tables derived from them at compile time.
#[derive(Debug)]
pub(crate) struct SingleByteIndex {
    /// The index code point for each pointer (byte − 0x80); 0 stands for null.
    pub(crate) decode: [u16; 128],
    /// The code unit of each byte: ASCII, then `decode`.
    pub(crate) utf16: [u16; 256],
    /// The UTF-8 of each byte, least significant byte first, with its length in the
    /// top byte (0 for null, so the whole value is 0 only for null).
    pub(crate) utf8: [u32; 256],
    /// For each 128-code-point page of the BMP, its number in `data` (0: the empty page).
    pages: [u8; 512],
    /// Pages of bytes for code points (0: not in the index); page 1 is ASCII.
    data: &'static [u8],
    /// The longest run of code points (at least 0x80) whose bytes are consecutive:
    /// its first code point, length, and code point − byte.
    pub(crate) run_start: u16,
    pub(crate) run_len: u16,
    pub(crate) run_delta: u16,
    /// The byte of `run_start`.
    pub(crate) run_byte: u8,
}

impl crate::simd::ByteLookup for SingleByteIndex {
    #[inline(always)]
    fn byte_at(&self, src: &[u8], at: usize) -> u8 {
        let (code_point, _) = if src[at] < 0x80 { (u32::from(src[at]), 1) } else { super::decode_utf8_at(src, at) };
        // Beyond the BMP, a scalar value is in no single-byte index.
        u16::try_from(code_point).map_or(0, |unit| self.byte_for_unit(unit))
    }

    #[inline(always)]
    fn byte_of_unit(&self, unit: u16) -> u8 {
        self.byte_for_unit(unit)
    }
}

impl SingleByteIndex {
    /// The index from the generated tables: the decode table, the page numbers of
    /// the code points' pages, and the pages.
    pub(crate) const fn new(decode: [u16; 128], pages: &'static [u8], data: &'static [u8]) -> Self {
        let mut utf16 = [0u16; 256];
        let mut utf8 = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let c = if i < 128 { i as u32 } else { decode[i - 128] as u32 };
            // Checked as the statics are built, so at compile time: the decoders copy
            // these code points into `str`s and UTF-16 as they are, so a surrogate
            // here would make the output invalid.
            assert!(!(c >= 0xD800 && c <= 0xDFFF), "a single-byte index maps a byte to a surrogate");
            utf16[i] = c as u16;
            utf8[i] = if c < 0x80 {
                if i < 128 { c | 1 << 24 } else { 0 }
            } else if c < 0x800 {
                (0xC0 | c >> 6) | (0x80 | (c & 0x3F)) << 8 | 2 << 24
            } else {
                (0xE0 | c >> 12) | (0x80 | ((c >> 6) & 0x3F)) << 8 | (0x80 | (c & 0x3F)) << 16 | 3 << 24
            };
            i += 1;
        }
        let mut bmp_pages = [0u8; 512];
        let mut i = 0;
        while i < pages.len() && i < 512 {
            bmp_pages[i] = pages[i];
            i += 1;
        }
        // The longest run of pointers whose code points are consecutive too (and
        // whose bytes are what the encoder gives back for them).
        let (mut run_start, mut run_len, mut run_delta) = (0x80u16, 1u16, 0u16);
        let mut start = 0;
        while start < 128 {
            let first = decode[start];
            let mut len = 0;
            while start + len < 128 && first != 0 && decode[start + len] == first + len as u16 && {
                let c = first as usize + len;
                data[(bmp_pages[c >> 7] as usize) << 7 | (c & 0x7F)] as usize == start + len + 0x80
            } {
                len += 1;
            }
            if len as u16 > run_len {
                (run_start, run_len, run_delta) = (first, len as u16, first.wrapping_sub(start as u16 + 0x80));
            }
            start += if len == 0 { 1 } else { len };
        }
        let run_byte = run_start.wrapping_sub(run_delta) as u8;
        SingleByteIndex { decode, utf16, utf8, pages: bmp_pages, data, run_start, run_len, run_delta, run_byte }
    }

    /// The byte for a UTF-16 code unit: ASCII is itself, and 0 stands for a code
    /// point not in the index (or a surrogate).
    #[inline(always)]
    pub(crate) fn byte_for_unit(&self, unit: u16) -> u8 {
        let page = self.pages[(unit >> 7) as usize];
        self.data.get((page as usize) << 7 | (unit & 0x7F) as usize).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use alloc::string::String;
    use alloc::vec::Vec;

    /// The UTF-8 block loop writes past a character and puts back what was there:
    /// decoding into a `str` of two- and three-byte characters, at every output
    /// length, leaves the whole buffer valid and the bytes past the output as they were.
    #[test]
    fn utf8_blocks_keep_the_rest_of_a_str() {
        let bytes: Vec<u8> = (0..200u32).map(|i| if i % 7 == 0 { b' ' } else { 0xE1 + (i % 20) as u8 }).collect();
        let expected = crate::WINDOWS_1253.decode(&bytes).0.into_owned();
        for len in 0..expected.len() + 8 {
            let mut buf: String = "é€".repeat(len / 5 + 2);
            let original = buf.clone();
            let progress = crate::WINDOWS_1253.new_decoder().decode_to_str(&bytes, buf.as_mut_str(), true);
            assert!(expected.starts_with(&buf[..progress.written]), "{len}");
            // Past the output, only the scratch bytes and then the continuation bytes of
            // a cut character changed (to zero).
            let scratch_end = progress.written + crate::simd::utf8_out::SCRATCH;
            for (i, (&now, &was)) in buf.as_bytes().iter().zip(original.as_bytes()).enumerate().skip(progress.written) {
                assert!(now == was || (now == 0 && i < scratch_end + 3), "{len} {i}");
            }
            assert!(core::str::from_utf8(buf.as_bytes()).is_ok());
        }
    }
}
