//! The benchmark: whatenc against its peers on every document and operation, in one
//! process, on the same input, the implementations of each case measured interleaved. Prints result lines; with `--write FILE` also writes
//! the Markdown report, merging result lines from `--merge FILE` (the
//! `fast-legacy-encode` run). `bench/run.sh` does all of it.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt::Write as _;

use whatenc::EncoderErrorMode;
use whatenc_bench::{
    Candidate, Document, LANGUAGES, Op, Rotation, SHORT_TOTAL, Settings, documents_matching, print_result,
    short_windows,
};

/// (document, operation) → implementation → MB/s.
type Results = BTreeMap<(String, Op), BTreeMap<String, f64>>;

const WHATENC: &str = "whatenc";
const ENCODING_RS: &str = "encoding_rs";
/// encoding_rs's API on whatenc (crates/whatenc-encoding-rs).
const COMPAT: &str = "whatenc-encoding-rs";
const FAST_LEGACY: &str = "encoding_rs fast-legacy-encode";
const RUST_ENCODING: &str = "rust-encoding";
const STD: &str = "std::str::from_utf8";
const SIMDUTF8: &str = "simdutf8";
/// simdutf8's SSE4.2 kernel, called directly: what simdutf8 (and so encoding_rs's
/// UTF-8 validation) runs on a CPU without AVX2. Measured when whatenc is capped
/// below AVX2, so that its kernels there meet the peer's kernels of the same CPUs.
const SIMDUTF8_SSE42: &str = "simdutf8 SSE4.2";
const MEMCPY: &str = "memcpy";
/// whatenc as measured in the `fast-legacy-encode` process.
const FAST_LEGACY_WHATENC: &str = "whatenc (fast-legacy run)";
/// The headings from which an existing report's tail is kept (the first found):
/// the hand-written profiles and change log, and the command-line figures.
const KEPT_SECTIONS: [&str; 2] = ["## Profiles and what each change bought", "## Command-line tool"];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let filter = value("--filter");
    // `--op TEXT` measures only the operations whose name contains TEXT.
    let only = value("--op");
    let settings = Settings::from_env();
    // `--tier NAME` caps whatenc's kernels (as `WHATENC_MAX_TIER` does), to measure a
    // lower tier on this machine.
    if let Some(tier) = value("--tier") {
        whatenc::set_max_tier(tier.parse().unwrap_or_else(|()| panic!("unknown tier {tier}")));
    }
    eprintln!(
        "whatenc kernels: {} (cap {}); {} inputs",
        whatenc::active_tier(),
        whatenc::max_tier(),
        if settings.rotate { "rotating" } else { "repeated" }
    );
    let mut results = Results::new();
    let mut record = |document: &Document, op: Op, implementation: &str, mb_per_s: f64| {
        print_result(document, op, implementation, mb_per_s);
        results.entry((document.name(), op)).or_default().insert(implementation.to_string(), mb_per_s);
    };
    for document in documents_matching(filter.as_deref()) {
        measure_document(&settings, &document, only.as_deref(), &mut record);
    }
    if let Some(path) = value("--merge") {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        for line in text.lines() {
            let fields: Vec<&str> = line.split('\t').collect();
            if let ["RESULT", document, op, implementation, rate] = fields.as_slice() {
                let (Some(op), Ok(rate)) = (Op::from_name(op), rate.parse()) else { continue };
                results.entry((document.to_string(), op)).or_default().insert(implementation.to_string(), rate);
            }
        }
    }
    if let Some(path) = value("--write") {
        // Sections written by hand or by other tools (the change log, the command-line
        // figures) are kept.
        let kept = std::fs::read_to_string(&path)
            .ok()
            .and_then(|old| {
                KEPT_SECTIONS.iter().filter_map(|h| old.find(h)).min().map(|start| old[start..].to_string())
            })
            .unwrap_or_default();
        let report = format!("{}\n{kept}", report(&settings, &results));
        std::fs::write(&path, report).unwrap_or_else(|e| panic!("{path}: {e}"));
        eprintln!("wrote {path}");
    }
}

/// Measures every operation on one document, for whatenc and each peer that has it,
/// the implementations of an operation interleaved ([`Settings::measure_interleaved`]).
///
/// The implementations of an operation write into one shared output buffer (of the
/// output's kind), so that all of them write to the same memory: where a case is
/// bound by the caches (a copy of a document of hundreds of KB), which physical pages
/// a buffer got would otherwise make one side look faster.
/// Whether to measure [`SIMDUTF8_SSE42`]: whatenc is capped below AVX2 on an x86_64
/// CPU with SSE4.2.
#[cfg(target_arch = "x86_64")]
fn measures_sse42() -> bool {
    whatenc::active_tier() < whatenc::Tier::Avx2 && std::arch::is_x86_feature_detected!("sse4.2")
}

/// simdutf8's SSE4.2 kernel on `bytes`: the valid prefix's length.
#[cfg(target_arch = "x86_64")]
fn sse42_valid_up_to(bytes: &[u8]) -> usize {
    assert!(std::arch::is_x86_feature_detected!("sse4.2"));
    // SAFETY: the CPU has SSE4.2, as just checked.
    unsafe { simdutf8::compat::imp::x86::sse42::validate_utf8(bytes) }
        .map_or_else(|e| e.valid_up_to(), |()| bytes.len())
}

fn measure_document(
    settings: &Settings,
    document: &Document,
    only: Option<&str>,
    record: &mut impl FnMut(&Document, Op, &str, f64),
) {
    // The version of the document each call takes (one version unless rotating).
    let rotation = &Rotation::new(document, settings.rotate);
    // The same versions with stray bytes, for the UTF-8 documents.
    let stray = &(document.encoding == whatenc::UTF_8).then(|| rotation.with_stray_bytes());
    let bytes_len = rotation.mean_len(|v| v.bytes.len());
    let text_len = rotation.mean_len(|v| v.text.len());
    let units_len = rotation.mean_len(|v| v.units.len());
    // The shared buffers fit the longest version.
    let (bytes, text, units) =
        (rotation.max_len(|v| v.bytes.len()), rotation.max_len(|v| v.text.len()), rotation.max_len(|v| v.units.len()));
    let bytes = bytes.max(stray.as_ref().map_or(0, |stray| stray.max_len(|v| v.bytes.len())));
    let encoding = document.encoding;
    let peer = encoding_rs::Encoding::for_label(encoding.name().as_bytes()).expect("known to encoding_rs");
    let compat = whatenc_encoding_rs::Encoding::for_label(encoding.name().as_bytes()).expect("known to the compat API");
    let rust_encoding = encoding::label::encoding_from_whatwg_label(encoding.name());
    let out_len = text * 12 + units * 12 + 64;
    let string = &RefCell::new(String::with_capacity(bytes * 3 + 64));
    let utf16 = &RefCell::new(vec![0u16; bytes + 64]);
    let out = &RefCell::new(vec![0u8; out_len]);
    // A case below 1.25, whatenc / encoding_rs, which a noisy repetition could have
    // put on the wrong side of 1.0, or below it by much (a loss worth a second look):
    // it runs more repetitions (see `Settings::confirm`). From 0.8 up only, a case
    // of one noisy repetition at 0.69 went into the table unconfirmed (the AVX2
    // tier's fr.txt short pieces → `String`, 1.31 and 1.37 when measured again).
    let close = |medians: &[(&str, f64)]| {
        let rate = |name| medians.iter().find(|(n, _)| *n == name).map(|&(_, rate)| rate);
        rate(WHATENC).zip(rate(ENCODING_RS)).is_some_and(|(ours, theirs)| ours / theirs < 1.25)
    };
    let mut measure = |op: Op, input_len: usize, mut candidates: Vec<Candidate<'_>>| {
        if only.is_some_and(|only| !op.name().contains(only)) {
            return;
        }
        for (implementation, mb_per_s) in settings.measure_interleaved_confirming(input_len, &mut candidates, close) {
            record(document, op, implementation, mb_per_s);
        }
    };
    // A candidate that appends to the shared String.
    let to_string = |name, f: fn(&[u8], &mut String)| {
        Candidate::new(name, move || {
            let mut string = string.borrow_mut();
            string.clear();
            f(&rotation.next().bytes, &mut string);
            string.len()
        })
    };

    // Decode to String.
    let mut candidates = vec![
        Candidate::new(WHATENC, || {
            let mut string = string.borrow_mut();
            string.clear();
            let _ = encoding.new_decoder().decode_to_string(&rotation.next().bytes, &mut string, true);
            string.len()
        }),
        Candidate::new(ENCODING_RS, || {
            let mut string = string.borrow_mut();
            string.clear();
            let _ = peer.new_decoder_without_bom_handling().decode_to_string(&rotation.next().bytes, &mut string, true);
            string.len()
        }),
        Candidate::new(COMPAT, || {
            let mut string = string.borrow_mut();
            string.clear();
            let _ =
                compat.new_decoder_without_bom_handling().decode_to_string(&rotation.next().bytes, &mut string, true);
            string.len()
        }),
    ];
    if let Some(rust_encoding) = rust_encoding {
        candidates.push(Candidate::new(RUST_ENCODING, || {
            let mut string = string.borrow_mut();
            string.clear();
            let _ = rust_encoding.decode_to(&rotation.next().bytes, encoding::DecoderTrap::Replace, &mut *string);
            string.len()
        }));
    }
    if encoding.name() == "UTF-8" {
        // What a program without a decoder would do with valid UTF-8: validate, then
        // copy into the String.
        candidates
            .push(to_string(STD, |bytes, string| string.push_str(std::str::from_utf8(bytes).unwrap_or_default())));
        candidates.push(to_string(SIMDUTF8, |bytes, string| {
            string.push_str(simdutf8::basic::from_utf8(bytes).unwrap_or_default());
        }));
        #[cfg(target_arch = "x86_64")]
        if measures_sse42() {
            candidates.push(to_string(SIMDUTF8_SSE42, |bytes, string| {
                let valid = sse42_valid_up_to(bytes);
                // SAFETY: simdutf8's kernel found `bytes[..valid]` valid UTF-8.
                string.push_str(unsafe { std::str::from_utf8_unchecked(&bytes[..valid]) });
            }));
        }
        // The physical limit: the same bytes (`text` is `bytes`, valid UTF-8)
        // appended, unchecked.
        candidates.push(Candidate::new(MEMCPY, || {
            let mut string = string.borrow_mut();
            string.clear();
            string.push_str(&rotation.next().text);
            string.len()
        }));
    }
    measure(Op::DecodeToString, bytes_len, candidates);

    // Decode to UTF-16.
    measure(
        Op::DecodeToUtf16,
        bytes_len,
        vec![
            Candidate::new(WHATENC, || {
                encoding.new_decoder().decode_to_utf16(&rotation.next().bytes, &mut utf16.borrow_mut(), true).written
            }),
            Candidate::new(ENCODING_RS, || {
                peer.new_decoder_without_bom_handling()
                    .decode_to_utf16(&rotation.next().bytes, &mut utf16.borrow_mut(), true)
                    .2
            }),
            Candidate::new(COMPAT, || {
                compat
                    .new_decoder_without_bom_handling()
                    .decode_to_utf16(&rotation.next().bytes, &mut utf16.borrow_mut(), true)
                    .2
            }),
        ],
    );

    if encoding.has_encoder() {
        let new_encoder = || encoding.new_encoder_with(EncoderErrorMode::Html).expect("has an encoder");
        // Encode from &str, "html" error mode.
        let mut candidates = vec![
            Candidate::new(WHATENC, || {
                new_encoder().encode_from_utf8(&rotation.next().text, &mut out.borrow_mut(), true).written
            }),
            Candidate::new(ENCODING_RS, || {
                peer.new_encoder().encode_from_utf8(&rotation.next().text, &mut out.borrow_mut(), true).2
            }),
            Candidate::new(COMPAT, || {
                compat.new_encoder().encode_from_utf8(&rotation.next().text, &mut out.borrow_mut(), true).2
            }),
        ];
        if let Some(rust_encoding) = rust_encoding {
            // rust-encoding appends to a Vec: the shared buffer, emptied.
            candidates.push(Candidate::new(RUST_ENCODING, || {
                let mut vec = out.borrow_mut();
                vec.clear();
                let _ = rust_encoding.encode_to(&rotation.next().text, encoding::EncoderTrap::NcrEscape, &mut *vec);
                let written = vec.len();
                vec.resize(out_len, 0);
                written
            }));
        }
        if encoding.name() == "UTF-8" {
            // Encoding &str to UTF-8 is a copy for every implementation: the limit.
            candidates.push(Candidate::new(MEMCPY, || {
                let text = &rotation.next().text;
                out.borrow_mut()[..text.len()].copy_from_slice(text.as_bytes());
                text.len()
            }));
        }
        measure(Op::EncodeFromStr, text_len, candidates);

        // Encode from UTF-16.
        measure(
            Op::EncodeFromUtf16,
            units_len * 2,
            vec![
                Candidate::new(WHATENC, || {
                    new_encoder().encode_from_utf16(&rotation.next().units, &mut out.borrow_mut(), true).written
                }),
                Candidate::new(ENCODING_RS, || {
                    peer.new_encoder().encode_from_utf16(&rotation.next().units, &mut out.borrow_mut(), true).2
                }),
                Candidate::new(COMPAT, || {
                    compat.new_encoder().encode_from_utf16(&rotation.next().units, &mut out.borrow_mut(), true).2
                }),
            ],
        );
    }

    if encoding.name() == "UTF-8" {
        // Short calls: pieces of the document, a new decoder each, into a small buffer
        // that each piece reuses. Their offsets change from call to call (so that no
        // branch learns them), but they come from one version of the document: from
        // 64 versions, each piece would wait for memory, whoever decodes it.
        let short = |decode: fn(&[u8], &mut [u16], &mut String) -> usize| {
            let (calls, units, string) = (
                std::cell::Cell::new(0u64),
                RefCell::new(vec![0u16; 300]),
                RefCell::new(String::with_capacity(3 * 256 + 64)),
            );
            move || {
                let text = &document.text;
                let call = calls.get();
                calls.set(call + 1);
                let (mut units, mut string) = (units.borrow_mut(), string.borrow_mut());
                short_windows(text, call).map(|w| decode(&text.as_bytes()[w], &mut units, &mut string)).sum::<usize>()
            }
        };
        measure(
            Op::DecodeShortToUtf16,
            SHORT_TOTAL,
            vec![
                Candidate::new(
                    WHATENC,
                    short(|bytes, units, _| whatenc::UTF_8.new_decoder().decode_to_utf16(bytes, units, true).written),
                ),
                Candidate::new(
                    ENCODING_RS,
                    short(|bytes, units, _| {
                        encoding_rs::UTF_8.new_decoder_without_bom_handling().decode_to_utf16(bytes, units, true).2
                    }),
                ),
            ],
        );
        measure(
            Op::DecodeShortToString,
            SHORT_TOTAL,
            vec![
                Candidate::new(
                    WHATENC,
                    short(|bytes, _, string| {
                        string.clear();
                        whatenc::UTF_8.new_decoder().decode_to_string(bytes, string, true).written
                    }),
                ),
                Candidate::new(
                    ENCODING_RS,
                    short(|bytes, _, string| {
                        string.clear();
                        encoding_rs::UTF_8.new_decoder_without_bom_handling().decode_to_string(bytes, string, true).1
                    }),
                ),
            ],
        );

        #[cfg_attr(
            not(target_arch = "x86_64"),
            expect(unused_mut, reason = "simdutf8's SSE4.2 kernel is added on x86_64")
        )]
        let mut candidates = vec![
            Candidate::new(WHATENC, || {
                whatenc::hooks::utf8_decode_without_bom_or_fail(&rotation.next().bytes).map_or(0, |t| t.len())
            }),
            Candidate::new(ENCODING_RS, || encoding_rs::Encoding::utf8_valid_up_to(&rotation.next().bytes)),
            Candidate::new(STD, || std::str::from_utf8(&rotation.next().bytes).map_or(0, str::len)),
            Candidate::new(SIMDUTF8, || simdutf8::basic::from_utf8(&rotation.next().bytes).map_or(0, str::len)),
            Candidate::new(MEMCPY, || {
                let bytes = &rotation.next().bytes;
                out.borrow_mut()[..bytes.len()].copy_from_slice(bytes);
                bytes.len()
            }),
        ];
        #[cfg(target_arch = "x86_64")]
        if measures_sse42() {
            candidates.insert(4, Candidate::new(SIMDUTF8_SSE42, || sse42_valid_up_to(&rotation.next().bytes)));
        }
        measure(Op::ValidateUtf8, bytes_len, candidates);
    }

    // Bytes taken for another encoding than theirs, as a page served with the wrong
    // label: a legacy document as UTF-8, a legacy or UTF-8 one as UTF-16LE. The decoders then
    // meet an error every few bytes (or units), each a turn of their loops.
    let mislabeled = |op: Op, taken_for: &'static whatenc::Encoding| {
        let peer = encoding_rs::Encoding::for_label(taken_for.name().as_bytes()).expect("known to encoding_rs");
        let candidates: Vec<Candidate<'_>> = match op {
            Op::DecodeMislabeledUtf8ToUtf16 | Op::DecodeMislabeledUtf16ToUtf16 => vec![
                Candidate::new(WHATENC, move || {
                    taken_for
                        .new_decoder()
                        .decode_to_utf16(&rotation.next().bytes, &mut utf16.borrow_mut(), true)
                        .written
                }),
                Candidate::new(ENCODING_RS, move || {
                    peer.new_decoder_without_bom_handling()
                        .decode_to_utf16(&rotation.next().bytes, &mut utf16.borrow_mut(), true)
                        .2
                }),
            ],
            _ => vec![
                Candidate::new(WHATENC, move || {
                    let mut string = string.borrow_mut();
                    string.clear();
                    let _ = taken_for.new_decoder().decode_to_string(&rotation.next().bytes, &mut string, true);
                    string.len()
                }),
                Candidate::new(ENCODING_RS, move || {
                    let mut string = string.borrow_mut();
                    string.clear();
                    let _ = peer.new_decoder_without_bom_handling().decode_to_string(
                        &rotation.next().bytes,
                        &mut string,
                        true,
                    );
                    string.len()
                }),
            ],
        };
        (op, candidates)
    };
    let cases = if document.is_legacy() {
        vec![
            mislabeled(Op::DecodeMislabeledUtf8ToString, whatenc::UTF_8),
            mislabeled(Op::DecodeMislabeledUtf8ToUtf16, whatenc::UTF_8),
            mislabeled(Op::DecodeMislabeledUtf16ToString, whatenc::UTF_16LE),
            mislabeled(Op::DecodeMislabeledUtf16ToUtf16, whatenc::UTF_16LE),
        ]
    } else if encoding.name() == "UTF-8" {
        vec![
            mislabeled(Op::DecodeMislabeledUtf16ToString, whatenc::UTF_16LE),
            mislabeled(Op::DecodeMislabeledUtf16ToUtf16, whatenc::UTF_16LE),
        ]
    } else {
        vec![]
    };
    for (op, candidates) in cases {
        measure(op, bytes_len, candidates);
    }

    // A UTF-8 document with stray bytes of another encoding: an error every thousand
    // bytes, each the end of the bulk copy of the valid text before it.
    if let Some(stray) = stray {
        let stray_len = stray.mean_len(|v| v.bytes.len());
        let peer = encoding_rs::UTF_8;
        measure(
            Op::DecodeStrayToString,
            stray_len,
            vec![
                Candidate::new(WHATENC, move || {
                    let mut string = string.borrow_mut();
                    string.clear();
                    let _ = whatenc::UTF_8.new_decoder().decode_to_string(&stray.next().bytes, &mut string, true);
                    string.len()
                }),
                Candidate::new(ENCODING_RS, move || {
                    let mut string = string.borrow_mut();
                    string.clear();
                    let _ = peer.new_decoder_without_bom_handling().decode_to_string(
                        &stray.next().bytes,
                        &mut string,
                        true,
                    );
                    string.len()
                }),
            ],
        );
        measure(
            Op::DecodeStrayToUtf16,
            stray_len,
            vec![
                Candidate::new(WHATENC, move || {
                    whatenc::UTF_8
                        .new_decoder()
                        .decode_to_utf16(&stray.next().bytes, &mut utf16.borrow_mut(), true)
                        .written
                }),
                Candidate::new(ENCODING_RS, move || {
                    peer.new_decoder_without_bom_handling()
                        .decode_to_utf16(&stray.next().bytes, &mut utf16.borrow_mut(), true)
                        .2
                }),
            ],
        );
    }

    // A text into windows-1252, which has few of its characters, in the "html" error
    // mode (a form of a windows-1252 page submits it so): a reference for each of
    // the others, each the end of a turn of the encoders' loops.
    let latin1 =
        LANGUAGES.iter().any(|&(language, legacy)| language == document.language && legacy == ["windows-1252"]);
    if encoding.name() == "UTF-8" && !latin1 {
        let (target, peer) = (whatenc::WINDOWS_1252, encoding_rs::WINDOWS_1252);
        let new_encoder = move || target.new_encoder_with(EncoderErrorMode::Html).expect("has an encoder");
        measure(
            Op::EncodeWithReferencesFromStr,
            text_len,
            vec![
                Candidate::new(WHATENC, move || {
                    new_encoder().encode_from_utf8(&rotation.next().text, &mut out.borrow_mut(), true).written
                }),
                Candidate::new(ENCODING_RS, move || {
                    peer.new_encoder().encode_from_utf8(&rotation.next().text, &mut out.borrow_mut(), true).2
                }),
            ],
        );
        measure(
            Op::EncodeWithReferencesFromUtf16,
            units_len * 2,
            vec![
                Candidate::new(WHATENC, move || {
                    new_encoder().encode_from_utf16(&rotation.next().units, &mut out.borrow_mut(), true).written
                }),
                Candidate::new(ENCODING_RS, move || {
                    peer.new_encoder().encode_from_utf16(&rotation.next().units, &mut out.borrow_mut(), true).2
                }),
            ],
        );
    }
}

/// The version of the package `name` in the workspace's Cargo.lock (the benchmark
/// runs from the workspace root), if it is there once.
fn locked_version(name: &str) -> Option<String> {
    let lock = std::fs::read_to_string("Cargo.lock").ok()?;
    let mut versions = lock.split("[[package]]").filter_map(|package| {
        let mut lines = package.lines().map(str::trim);
        let _ = lines.find(|l| *l == format!("name = \"{name}\""))?;
        lines.find_map(|l| l.strip_prefix("version = \"")).map(|v| v.trim_end_matches('"').to_string())
    });
    let version = versions.next()?;
    versions.next().is_none().then_some(version)
}

/// The Markdown report.
fn report(settings: &Settings, results: &Results) -> String {
    let command = |program: &str, args: &[&str]| {
        std::process::Command::new(program)
            .args(args)
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default()
    };
    let cpu = whatenc_bench::cpu_model();
    let mut out = String::new();
    writeln!(out, "# Benchmarks\n").unwrap();
    let counted = whatenc_bench::insn_file().is_some();
    let script = match (counted, cfg!(target_arch = "x86_64")) {
        (false, _) => "bench/run.sh",
        (true, true) => "bench/x86-insns.sh",
        (true, false) => "bench/aarch64-insns.sh",
    };
    writeln!(out, "Generated by `bash {script}` (do not edit by hand).\n").unwrap();
    writeln!(out, "- Date: {}", command("date", &["-u", "+%Y-%m-%d %H:%M UTC"])).unwrap();
    if counted {
        writeln!(out, "- Machine: {cpu}").unwrap();
    } else {
        writeln!(out, "- Machine: {cpu}, {} cores", std::thread::available_parallelism().map_or(0, |n| n.get()))
            .unwrap();
    }
    writeln!(out, "- Compiler: {}", command("rustc", &["--version"])).unwrap();
    // Flags change code layout, and with it the speed of both sides (see "Session 15"
    // in BENCHMARKS.md): say which ones built this table. Only `RUSTFLAGS` from the
    // environment is seen, not flags from `.cargo/config.toml`.
    if let Some(flags) = option_env!("RUSTFLAGS").filter(|flags| !flags.trim().is_empty()) {
        writeln!(out, "- Built with RUSTFLAGS=`{flags}` (both whatenc and its peers)").unwrap();
    }
    let peers: Vec<String> = ["encoding_rs", "encoding", "simdutf8"]
        .iter()
        .map(|name| format!("{name} {}", locked_version(name).unwrap_or_else(|| "?".to_string())))
        .collect();
    writeln!(out, "- Peers (from Cargo.lock): {}", peers.join(", ")).unwrap();
    writeln!(out, "- whatenc's kernels: {} tier (cap: {})", whatenc::active_tier(), whatenc::max_tier()).unwrap();
    writeln!(
        out,
        "- Inputs: {}",
        if settings.rotate {
            "rotating: each call takes the next of 64 versions of the document, its sentences shuffled"
        } else {
            "repeated: each call takes the same document"
        }
    )
    .unwrap();
    writeln!(
        out,
        "- The \"mislabeled\" operations decode a legacy document's bytes as UTF-8, and a legacy \
         or UTF-8 document's as UTF-16LE, as for a page served with the wrong label: text with \
         an error every few bytes or units."
    )
    .unwrap();
    writeln!(
        out,
        "- The \"with stray bytes\" operations decode a UTF-8 document with a byte of \
         windows-1252 (0xE9, é) inserted every {} bytes, as a page of UTF-8 into which some \
         text of another encoding was pasted: an error every thousand bytes, valid text between.",
        whatenc_bench::STRAY_EVERY
    )
    .unwrap();
    writeln!(
        out,
        "- The \"with references\" operations encode the text of a UTF-8 document (of the \
         languages whose legacy encoding is not windows-1252) into windows-1252 in the \"html\" \
         error mode, as a form of a windows-1252 page submits it: `&#N;` for each character \
         windows-1252 does not have."
    )
    .unwrap();
    if counted {
        writeln!(
            out,
            "- Method: instructions counted, not time: each implementation of a case makes one call on \
             each of the {} versions of the document between two marks, and its rate is bytes of input per \
             thousand aarch64 instructions executed (MB/s on a machine that runs one instruction a \
             nanosecond). Ratio = whatenc / encoding_rs (default build), the inverse of the ratio of \
             instructions.\n",
            whatenc_bench::ROTATION
        )
        .unwrap();
    } else {
        writeln!(
            out,
            "- Method: the implementations of a case are measured interleaved: in each of {} \
             repetitions, each runs in turn for {} ms of the thread's CPU time, the one that \
             starts rotating from repetition to repetition; where whatenc / encoding_rs came out \
             below 1.25, {} more repetitions follow; the median of all is shown, in MB/s of \
             input. Ratio = whatenc / encoding_rs (default build).\n",
            settings.repetitions,
            settings.duration.as_millis(),
            settings.repetitions * settings.confirm
        )
        .unwrap();
    }

    let ratios: Vec<(String, Op, f64)> = results
        .iter()
        .filter_map(|((document, op), rates)| {
            Some((document.clone(), *op, rates.get(WHATENC)? / rates.get(ENCODING_RS)?))
        })
        .collect();
    if !ratios.is_empty() {
        let geomean = (ratios.iter().map(|(_, _, r)| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
        let misses: Vec<&(String, Op, f64)> = ratios.iter().filter(|(_, _, r)| *r < 1.0).collect();
        writeln!(out, "## Summary\n").unwrap();
        writeln!(out, "- Cases: {}; geometric mean of whatenc / encoding_rs: **{geomean:.2}**", ratios.len()).unwrap();
        writeln!(out, "- Cases where whatenc is slower than encoding_rs: {}", misses.len()).unwrap();
        for op in Op::ALL {
            let of_op: Vec<f64> = ratios.iter().filter(|(_, o, _)| *o == op).map(|(_, _, r)| *r).collect();
            if of_op.is_empty() {
                continue;
            }
            let geomean = (of_op.iter().map(|r| r.ln()).sum::<f64>() / of_op.len() as f64).exp();
            let below = of_op.iter().filter(|r| **r < 1.0).count();
            writeln!(out, "  - {}: geometric mean {geomean:.2}, {below} of {} below 1.0", op.name(), of_op.len())
                .unwrap();
        }
        let same: Vec<_> = misses.iter().filter(|(document, op, _)| same_work(document, *op, results)).collect();
        writeln!(
            out,
            "  - of which the same work done the same way on both sides, whose ratio is noise \
             around 1.0 ([same work](#same-work) below): {}",
            same.len()
        )
        .unwrap();
        for (document, op, ratio) in &misses {
            let same = if same_work(document, *op, results) { " (same work)" } else { "" };
            writeln!(out, "  - below 1.0: {document}, {}: {ratio:.2}{same}", op.name()).unwrap();
        }
        writeln!(out).unwrap();
        targets(&mut out, results);
    }

    // The columns that have a figure (simdutf8's SSE4.2 kernel only below AVX2).
    let columns: Vec<&str> =
        [WHATENC, ENCODING_RS, COMPAT, FAST_LEGACY, RUST_ENCODING, STD, SIMDUTF8, SIMDUTF8_SSE42, MEMCPY]
            .into_iter()
            .filter(|c| results.values().any(|rates| rates.contains_key(*c)))
            .collect();
    writeln!(
        out,
        "The {FAST_LEGACY} column comes from a separate process (the feature would change the \
         default build's numbers); there whatenc is measured again, interleaved with it, and \
         the target above compares those two. In the decode-to-String rows of UTF-8 documents, \
         the {STD} and {SIMDUTF8} columns validate and then copy into the String, which is what \
         a program does without a decoder; in the validate rows they only validate.\n"
    )
    .unwrap();
    writeln!(
        out,
        "<a id=\"same-work\"></a>*Same work*: a case below 1.0 where whatenc and encoding_rs do \
         the same work in the same way, so that the ratio is noise around 1.0: UTF-8 encoded \
         from &str, a copy of the text on both sides (both call the C library's `memcpy`, the \
         {MEMCPY} column, but where whatenc has a loop of its own: on `AMD EPYC` Zen 5 from 3 \
         to 24 KiB, on Zen 3 from 128 KiB, on Zen 1 from 8 KiB, on Intel's without FSRM from 8 to \
         512 KiB), and UTF-8 validation at the SSE2 and portable tiers, where whatenc calls \
         simdutf8's `compat` kernel as encoding_rs does; in both, whatenc within 3% of encoding_rs (more would be a cost of its own).\n"
    )
    .unwrap();
    writeln!(out, "## All cases\n").unwrap();
    writeln!(out, "| document | operation | ratio | {} |", columns.join(" | ")).unwrap();
    writeln!(out, "|---|---|---:|{}", "---:|".repeat(columns.len())).unwrap();
    for ((document, op), rates) in results {
        let ratio = match (rates.get(WHATENC), rates.get(ENCODING_RS)) {
            (Some(a), Some(b)) => format!("{:.2}", a / b),
            _ => String::new(),
        };
        let cells: Vec<String> =
            columns.iter().map(|c| rates.get(*c).map_or(String::new(), |r| format!("{r:.0}"))).collect();
        writeln!(out, "| {document} | {} | {ratio} | {} |", op.name(), cells.join(" | ")).unwrap();
    }
    out
}

/// The targets beyond the ratio to encoding_rs, each with how many cases
/// miss it and the worst case.
/// Whether `document`'s case of `op` is one where whatenc and encoding_rs run the
/// same code (see the report's "same work"): UTF-8 encoded from &str, UTF-8 validated
/// at the SSE2 and portable tiers; in both, whatenc within 3% of encoding_rs (more
/// would be a cost of its own around that code).
fn same_work(document: &str, op: Op, results: &Results) -> bool {
    let Some(rates) = results.get(&(document.to_owned(), op)) else { return false };
    let close = rates.get(WHATENC).zip(rates.get(ENCODING_RS)).is_some_and(|(ours, theirs)| ours / theirs >= 0.97);
    close
        && match op {
            Op::EncodeFromStr => document.ends_with(" UTF-8"),
            Op::ValidateUtf8 => matches!(whatenc::active_tier(), whatenc::Tier::Portable | whatenc::Tier::Sse2),
            _ => false,
        }
}

fn targets(out: &mut String, results: &Results) {
    /// The cases that miss (`value < 1.0`), and the count checked.
    fn line(out: &mut String, what: &str, values: Vec<(String, f64)>) {
        let misses: Vec<&(String, f64)> = values.iter().filter(|(_, v)| *v < 1.0).collect();
        let worst = values.iter().min_by(|a, b| a.1.total_cmp(&b.1));
        let worst = worst.map_or(String::new(), |(case, v)| format!("; lowest {v:.2} ({case})"));
        writeln!(out, "- {what}: {} of {} below 1.0{worst}", misses.len(), values.len()).unwrap();
    }
    let legacy =
        |document: &str| !["UTF-8", "UTF-16LE", "UTF-16BE"].iter().any(|e| document.ends_with(&format!(" {e}")));
    let utf8 = |document: &str| document.ends_with(" UTF-8");
    let ratio = |document: &str, op: Op, a: &str, b: &str| {
        let rates = results.get(&(document.to_string(), op))?;
        Some((format!("{document}, {}", op.name()), rates.get(a)? / rates.get(b)?))
    };
    let documents: Vec<&String> =
        results.keys().map(|(document, _)| document).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    let collect = |filter: &dyn Fn(&str) -> bool, ops: &[Op], a: &str, b: &str| -> Vec<(String, f64)> {
        documents
            .iter()
            .filter(|d| filter(d))
            .flat_map(|d| ops.iter().filter_map(move |op| ratio(d, *op, a, b)))
            .collect()
    };
    writeln!(out, "### The other targets\n").unwrap();
    line(
        out,
        "Legacy encoding from &str, whatenc / encoding_rs with fast-legacy-encode (same process)",
        collect(&legacy, &[Op::EncodeFromStr], FAST_LEGACY_WHATENC, FAST_LEGACY),
    );
    line(
        out,
        "Legacy encoding from &str, whatenc / rust-encoding",
        collect(&legacy, &[Op::EncodeFromStr], WHATENC, RUST_ENCODING),
    );
    line(
        out,
        "UTF-8 validation and UTF-8 → String, whatenc / simdutf8",
        collect(&utf8, &[Op::ValidateUtf8, Op::DecodeToString], WHATENC, SIMDUTF8),
    );
    let sse42 = collect(&utf8, &[Op::ValidateUtf8, Op::DecodeToString], WHATENC, SIMDUTF8_SSE42);
    if !sse42.is_empty() {
        line(
            out,
            "The same at this tier, whatenc / simdutf8's SSE4.2 kernel (what simdutf8, and so encoding_rs's \
             UTF-8 validation, run on a CPU without AVX2; the encoding_rs column above runs AVX2 on this CPU \
             whatever whatenc's cap)",
            sse42,
        );
    }
    // Within 2× of memcpy: memcpy's time is at least half of whatenc's. Each operation
    // has its own memcpy candidate, measured interleaved with it: a copy of the input
    // into a buffer as large as the operation's output.
    let within = |op: Op| -> Vec<(String, f64)> {
        documents
            .iter()
            .filter(|d| utf8(d) && d.contains(".html"))
            .filter_map(|d| {
                let rates = results.get(&(d.to_string(), op))?;
                Some((format!("{d}, {}", op.name()), 2.0 * rates.get(WHATENC)? / rates.get(MEMCPY)?))
            })
            .collect()
    };
    let mut html = within(Op::ValidateUtf8);
    html.extend(within(Op::DecodeToString));
    line(out, "Mostly-ASCII pages (.html, UTF-8), 2 × whatenc / memcpy (1.0 = half memcpy's speed)", html);
    line(
        out,
        "UTF-8 → UTF-8 encoding from &str (a copy for every implementation), whatenc / memcpy",
        collect(&utf8, &[Op::EncodeFromStr], WHATENC, MEMCPY),
    );
    line(out, "The same, encoding_rs / memcpy", collect(&utf8, &[Op::EncodeFromStr], ENCODING_RS, MEMCPY));
    let all = |_: &str| true;
    let streaming = [Op::DecodeToString, Op::DecodeToUtf16, Op::EncodeFromStr, Op::EncodeFromUtf16];
    line(
        out,
        "encoding_rs's API on whatenc, whatenc-encoding-rs / encoding_rs",
        collect(&all, &streaming, COMPAT, ENCODING_RS),
    );
    line(out, "The compat layer's cost, whatenc-encoding-rs / whatenc", collect(&all, &streaming, COMPAT, WHATENC));
    writeln!(out).unwrap();
}
