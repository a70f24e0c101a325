#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target into fuzz/seeds/<target>/.

Sources: the sample files in samples/ and the web-platform-tests cases in
crates/whatenc/tests/data/wpt/*.json (see ATTRIBUTION.md there). Each seed is a
target's header (see fuzz/src/convert.rs and fuzz/src/adaptors.rs) and a payload.
Seed names are the SHA-1 of their content, as libFuzzer names corpus files, so a
run is reproducible and re-running this script changes nothing.

    python3 fuzz/seed.py            # rewrites fuzz/seeds/
"""

import hashlib
import json
import os
import random
import re
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEEDS = os.path.join(ROOT, "fuzz", "seeds")
WPT = os.path.join(ROOT, "crates", "whatenc", "tests", "data", "wpt")
SAMPLES = os.path.join(ROOT, "samples")

# `Encoding::all()`: the order of the standard's table of names and labels (documented).
ALL = (
    ["UTF-8", "IBM866"]
    + ["ISO-8859-%s" % n for n in ["2", "3", "4", "5", "6", "7", "8", "8-I", "10", "13", "14", "15", "16"]]
    + ["KOI8-R", "KOI8-U", "macintosh", "windows-874"]
    + ["windows-125%d" % n for n in range(9)]
    + ["x-mac-cyrillic", "GBK", "gb18030", "Big5", "EUC-JP", "ISO-2022-JP", "Shift_JIS", "EUC-KR"]
    + ["replacement", "UTF-16BE", "UTF-16LE", "x-user-defined"]
)
assert len(ALL) == 40
NO_ENCODER = {"replacement", "UTF-16BE", "UTF-16LE"}
WITH_ENCODER = [name for name in ALL if name not in NO_ENCODER]

# The samples, with the Python codec that reads them well enough to seed encoders.
SAMPLE_FILES = {
    "de.utf-16le-bom.txt": ("UTF-16LE", "utf-16"),
    "el.windows-1253.txt": ("windows-1253", "cp1253"),
    "fr.windows-1252.txt": ("windows-1252", "cp1252"),
    "ja.euc-jp.txt": ("EUC-JP", "euc_jp"),
    "ja.iso-2022-jp.txt": ("ISO-2022-JP", "iso2022_jp"),
    "ja.shift_jis.txt": ("Shift_JIS", "shift_jis"),
    "ko.euc-kr.txt": ("EUC-KR", "euc_kr"),
    "ru.koi8-r.txt": ("KOI8-R", "koi8_r"),
    "zh_cn.gbk.txt": ("GBK", "gbk"),
    "zh_tw.big5.txt": ("Big5", "big5"),
}
SAMPLE_BYTES = 1024  # the start of each sample is enough to seed from

# Encode payload forms (`units_from`): 0 UTF-8 text, 1 UTF-16LE, 2 the alphabet.
TEXT, UTF16, ALPHABET = 0, 1, 2
# Indexes into `ALPHABET` in fuzz/src/lib.rs.
ESC, SO, SI, A = 0, 1, 2, 3


def dec_index(name):
    return ALL.index(name)


def enc_index(name):
    return WITH_ENCODER.index(name)


class Corpus:
    def __init__(self):
        self.files = {}

    def add(self, target, data):
        name = hashlib.sha1(data).hexdigest()
        self.files[(target, name)] = data

    def write(self):
        shutil.rmtree(SEEDS, ignore_errors=True)
        for (target, name), data in sorted(self.files.items()):
            os.makedirs(os.path.join(SEEDS, target), exist_ok=True)
            with open(os.path.join(SEEDS, target, name), "wb") as f:
                f.write(data)


def bom_bits(encoding, ignore_bom):
    """A TextDecoder's BOM handling: remove the encoding's own BOM unless ignoreBOM."""
    if ignore_bom or encoding not in ("UTF-8", "UTF-16BE", "UTF-16LE"):
        return 0
    return 2


def main():
    rng = random.Random(12)
    corpus = Corpus()

    def decode_seed(encoding, payload, fatal, bom):
        form = rng.randrange(4)
        bound = rng.randrange(4) == 0
        flags = int(fatal) | form << 1 | bom << 3 | int(bound) << 5
        corpus.add("decode", bytes([dec_index(encoding), flags, rng.randrange(256), rng.randrange(25)]) + payload)

    def encode_seed(encoding, form, payload, fatal):
        input_form = rng.randrange(3)
        bound = rng.randrange(4) == 0
        flags = int(fatal) | input_form << 1 | int(bound) << 3 | form << 4
        corpus.add("encode", bytes([enc_index(encoding), flags, rng.randrange(256), rng.randrange(25)]) + payload)

    def adaptor_seed(target, index, form_or_bom, payload, fatal):
        failures = rng.randrange(8)
        flags = int(fatal) | form_or_bom << 1 | failures << 3
        head = bytes([index, flags, rng.randrange(256), rng.randrange(256), rng.randrange(256), rng.randrange(256)])
        corpus.add(target, head + payload)

    # Decoders: every WPT decode case, and every stream case's bytes joined.
    with open(os.path.join(WPT, "cases.json")) as f:
        cases = json.load(f)
    for i, case in enumerate(cases):
        payload = bytes(case["bytes"])
        fatal = case["mode"] == "fatal"
        bom = bom_bits(case["encoding"], case.get("ignoreBOM"))
        decode_seed(case["encoding"], payload, fatal, bom)
        if i % 4 == 0:
            target = "decode_writer" if i % 8 == 0 else "decode_reader"
            adaptor_seed(target, dec_index(case["encoding"]), bom >> 1 << 1 | rng.randrange(2), payload, fatal)
    with open(os.path.join(WPT, "stream_cases.json")) as f:
        streams = json.load(f)
    for case in streams:
        payload = b"".join(bytes(call["bytes"]) for call in case["calls"])
        fatal = case["mode"] == "fatal"
        bom = bom_bits(case["encoding"], case.get("ignoreBOM"))
        decode_seed(case["encoding"], payload, fatal, bom)
        adaptor_seed(rng.choice(["decode_writer", "decode_reader"]), dec_index(case["encoding"]), bom, payload, fatal)

    # Encoders: every WPT encode case (UTF-8 text), and the round-trip strings as UTF-16.
    with open(os.path.join(WPT, "encode_cases.json")) as f:
        encode_cases = json.load(f)
    for i, case in enumerate(encode_cases):
        payload = case["input"].encode("utf-8", "surrogatepass")
        for fatal in (False, True):
            encode_seed(case["encoding"], TEXT, payload, fatal)
        if i % 3 == 0:
            adaptor_seed("encode_writer", enc_index(case["encoding"]), TEXT, payload, rng.randrange(2) == 1)
    with open(os.path.join(WPT, "roundtrip_cases.json")) as f:
        raw = f.read()
    # Read \uXXXX escapes as code units ourselves: the strings hold lone surrogates.
    for match in re.finditer(r'"input": "((?:[^"\\]|\\.)*)"', raw):
        units = []
        for esc, char in re.findall(r"\\u([0-9a-fA-F]{4})|(.)", match.group(1)):
            if esc:
                units.append(int(esc, 16))
            else:
                encoded = char.encode("utf-16-le")
                units.extend(int.from_bytes(encoded[i : i + 2], "little") for i in range(0, len(encoded), 2))
        payload = b"".join(u.to_bytes(2, "little") for u in units)
        encode_seed("UTF-8", UTF16, payload, False)
        encode_seed("gb18030", UTF16, payload, True)

    # The samples: bytes for the decoders, their text for the encoders (every encoder
    # gets each text: most of it is unmappable, which exercises the error modes).
    for name, (encoding, codec) in sorted(SAMPLE_FILES.items()):
        with open(os.path.join(SAMPLES, name), "rb") as f:
            data = f.read()
        head = data[:SAMPLE_BYTES]
        for fatal in (False, True):
            decode_seed(encoding, head, fatal, rng.choice([0, 1, 2]))
        adaptor_seed("decode_writer", dec_index(encoding), rng.choice([0, 1]), head, rng.randrange(2) == 1)
        adaptor_seed("decode_reader", dec_index(encoding), rng.choice([0, 1]), head, rng.randrange(2) == 1)
        text = data.decode(codec, "replace")[:300].encode("utf-8")
        target = encoding if encoding in WITH_ENCODER else "UTF-8"
        encode_seed(target, TEXT, text, False)
        encode_seed(rng.choice(WITH_ENCODER), TEXT, text, True)
        adaptor_seed("encode_writer", enc_index(target), TEXT, text, rng.randrange(2) == 1)

    # The worst characters for the encoders' bounds (issue 12 bug 1: ISO-2022-JP
    # writes each U+000E, U+000F, U+001B as "&#65533;" in "html" mode).
    worst = [bytes([ESC] * 5), bytes([ESC, SO, SI] * 40), bytes([ESC, A] * 20)]
    for payload in worst:
        encode_seed("ISO-2022-JP", ALPHABET, payload, False)
        adaptor_seed("encode_writer", enc_index("ISO-2022-JP"), ALPHABET, payload, False)
    for encoding in WITH_ENCODER:
        encode_seed(encoding, ALPHABET, bytes(range(32)), rng.randrange(2) == 1)
    corpus.add("encode", bytes([enc_index("ISO-2022-JP"), 0x08 | ALPHABET << 4, 0, 0]) + bytes([ESC] * 5))

    corpus.write()
    sizes = {}
    for (target, _), data in corpus.files.items():
        count, total = sizes.get(target, (0, 0))
        sizes[target] = (count + 1, total + len(data))
    for target, (count, total) in sorted(sizes.items()):
        print(f"{target}: {count} seeds, {total} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
