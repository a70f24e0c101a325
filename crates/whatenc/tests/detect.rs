//! The statistical detector: right answers on text in each family, the same answer
//! whole or chunked, the default for ASCII and empty input, no panic on any bytes,
//! never x-user-defined or replacement, and the determination's detector step.

use whatenc::detect::{DetectOptions, EncodingDetector, Guess};
use whatenc::sniff::{HtmlOptions, Step, html};
use whatenc::{Encoding, REPLACEMENT, X_USER_DEFINED};

fn guess_chunked(bytes: &[u8], chunks: &[usize], options: &DetectOptions<'_>) -> Guess {
    let mut detector = EncodingDetector::new();
    let mut rest = bytes;
    let mut i = 0;
    while !rest.is_empty() {
        let n = chunks[i % chunks.len()].min(rest.len());
        detector.feed(&rest[..n]);
        rest = &rest[n..];
        i += 1;
    }
    detector.finish();
    detector.guess(options)
}

fn guess(bytes: &[u8], options: &DetectOptions<'_>) -> Guess {
    guess_chunked(bytes, &[usize::MAX], options)
}

/// Text in a language and the encodings that serve it.
const CASES: &[(&str, &[&str])] = &[
    ("Příliš žluťoučký kůň úpěl ďábelské ódy a pak šel domů.", &["windows-1250", "ISO-8859-2"]),
    ("Zażółć gęślą jaźń, powiedział wieczorem sąsiad.", &["windows-1250", "ISO-8859-2"]),
    ("Árvíztűrő tükörfúrógép és a többi szép magyar szó.", &["windows-1250", "ISO-8859-2"]),
    ("Lietuvos Respublikos Seimas priėmė įstatymą dėl švietimo.", &["windows-1257", "ISO-8859-13"]),
    ("Latvijas valsts valoda ir latviešu valoda, ko runā daudzi.", &["windows-1257", "ISO-8859-13"]),
    ("Les élèves ont déjà préparé une fête à l'école française.", &["windows-1252", "ISO-8859-15"]),
    ("Über die Brücke gingen fünf Mädchen und ein großer Hund.", &["windows-1252"]),
    ("Türkçe öğrenmek için çok çalışmak gerekir, değil mi?", &["windows-1254"]),
    (
        "Съешь же ещё этих мягких французских булок да выпей чаю.",
        &["windows-1251", "KOI8-R", "IBM866", "x-mac-cyrillic", "ISO-8859-5"],
    ),
    ("Україна є незалежною державою, її столиця Київ.", &["windows-1251", "KOI8-U"]),
    ("Ђаци су у среду пили љуту кафу код Џемаила у Београду.", &["windows-1251", "ISO-8859-5"]),
    ("Република Србија има своју владу, њен главни град је Београд.", &["windows-1251", "ISO-8859-5"]),
    ("Η γρήγορη καφέ αλεπού πηδάει πάνω από τον τεμπέλη σκύλο.", &["windows-1253", "ISO-8859-7"]),
    ("עברית היא שפה שמית ממשפחת השפות האפרו-אסיאתיות.", &["windows-1255", "ISO-8859-8"]),
    ("اللغة العربية هي أكثر اللغات السامية تحدثا في العالم.", &["windows-1256", "ISO-8859-6"]),
    ("ภาษาไทยเป็นภาษาราชการของประเทศไทยและมีผู้พูดหลายล้านคน", &["windows-874"]),
    ("日本語は主に日本で話されている言語です。", &["Shift_JIS", "EUC-JP", "ISO-2022-JP"]),
    ("中文是世界上使用人数最多的语言之一。", &["GBK"]),
    ("中文是世界上使用人數最多的語言之一。", &["Big5"]),
    ("한국어는 대한민국과 조선민주주의인민공화국의 공용어이다.", &["EUC-KR"]),
];

fn encoding(name: &str) -> &'static Encoding {
    Encoding::for_label(name.as_bytes()).unwrap()
}

#[test]
fn right_on_each_family() {
    let options = DetectOptions::default();
    for &(text, names) in CASES {
        for &name in names {
            let truth = encoding(name);
            let (bytes, unmappable) = truth.encode(text).unwrap();
            assert!(!unmappable, "{name}: {text}");
            let guess = guess(&bytes, &options);
            assert!(guess.guessed);
            assert_eq!(guess.encoding.decode(&bytes).0, truth.decode(&bytes).0, "{name} guessed {}", guess.encoding);
        }
    }
}

#[test]
fn utf8_wins_when_allowed() {
    let text = "Příliš žluťoučký kůň".as_bytes();
    assert_eq!(guess(text, &DetectOptions::default()).encoding, whatenc::UTF_8);
    let no_utf8 = DetectOptions { allow_utf8: false, ..DetectOptions::default() };
    assert_ne!(guess(text, &no_utf8).encoding, whatenc::UTF_8);
}

#[test]
fn ascii_and_empty_give_the_default() {
    for default in [whatenc::WINDOWS_1252, whatenc::UTF_8, whatenc::SHIFT_JIS] {
        let options = DetectOptions { default, ..DetectOptions::default() };
        for input in [&b""[..], b"plain ASCII text, <b>markup</b> and\ttabs\n"] {
            let guess = guess(input, &options);
            assert_eq!((guess.encoding, guess.guessed, guess.confidence), (default, false, 0.0));
        }
        // Without a JIS X 0208 character, ISO-2022-JP escapes alone are ASCII.
        assert_eq!(guess(b"\x1b(Babc", &options).encoding, default);
    }
}

#[test]
fn iso_2022_jp_only_when_allowed() {
    let (bytes, _) = whatenc::ISO_2022_JP.encode("日本語のテキスト").unwrap();
    assert_eq!(guess(&bytes, &DetectOptions::default()).encoding, whatenc::ISO_2022_JP);
    let options = DetectOptions { allow_iso_2022_jp: false, ..DetectOptions::default() };
    assert_eq!(guess(&bytes, &options), Guess { encoding: whatenc::WINDOWS_1252, confidence: 0.0, guessed: false });
}

#[test]
fn utf16_without_a_bom_only_when_allowed() {
    let text = "Plain text, a file saved as UTF-16 without its BOM: café.";
    let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
    let options = DetectOptions { allow_utf16: true, ..DetectOptions::default() };
    assert_eq!(guess(&le, &options).encoding, whatenc::UTF_16LE);
    assert_eq!(guess(&be, &options).encoding, whatenc::UTF_16BE);
    assert_eq!(guess_chunked(&le[1..], &[3, 7], &options).encoding, whatenc::UTF_16BE);
    // Not allowed: the zero bytes are ASCII, so the default.
    assert_eq!(guess(&le, &DetectOptions::default()).encoding, whatenc::WINDOWS_1252);
    // Text that is not UTF-16 stays what it is.
    let (bytes, _) = whatenc::WINDOWS_1251.encode("Съешь же ещё этих мягких булок").unwrap();
    assert_eq!(guess(&bytes, &options).encoding, whatenc::WINDOWS_1251);
}

#[test]
fn a_cut_character_is_no_evidence() {
    // "é" cut after its lead byte is not UTF-8 evidence; finished, it is an error.
    let mut detector = EncodingDetector::new();
    detector.feed(b"caf\xC3");
    assert_ne!(detector.guess(&DetectOptions::default()).encoding, whatenc::UTF_8);
    let mut detector = EncodingDetector::new();
    detector.feed("café ".as_bytes());
    detector.feed(b"\xC3");
    assert_eq!(detector.guess(&DetectOptions::default()).encoding, whatenc::UTF_8);
    detector.finish();
    assert_ne!(detector.guess(&DetectOptions::default()).encoding, whatenc::UTF_8);
}

#[test]
fn hints_favour_their_languages() {
    // One byte, 0xE8: è in windows-1252, č in windows-1250, и in windows-1251.
    let bytes = b"Ko\xe8ka";
    let cost = |options: &DetectOptions<'_>, name: &str| {
        let mut detector = EncodingDetector::new();
        detector.feed(bytes);
        detector.candidates(options).into_iter().find(|c| c.encoding == encoding(name)).unwrap().cost
    };
    let plain = DetectOptions::default();
    for (hinted, name) in [
        (DetectOptions { tld: Some("example.cz"), ..plain }, "windows-1250"),
        (DetectOptions { locale: Some("cs-CZ"), ..plain }, "windows-1250"),
        (DetectOptions { tld: Some("co.jp"), ..plain }, "Shift_JIS"),
        (DetectOptions { locale: Some("zh_TW"), ..plain }, "Big5"),
    ] {
        assert!(cost(&hinted, name) < cost(&plain, name), "{name}");
        if name == "windows-1250" {
            assert_eq!(guess(bytes, &hinted).encoding, whatenc::WINDOWS_1250);
        }
    }
    // A Traditional Chinese locale favours Big5 over GBK.
    let mut detector = EncodingDetector::new();
    detector.feed(b"\xa4\xa4");
    let big5 = |options: &DetectOptions<'_>| {
        detector.candidates(options).into_iter().find(|c| c.encoding == whatenc::BIG5).unwrap().cost
    };
    assert!(big5(&DetectOptions { locale: Some("zh-Hant-TW"), ..plain }) < big5(&plain));
}

/// xorshift64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn whole_equals_chunked_and_never_panics() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    for &(text, names) in CASES {
        for &name in names {
            inputs.push(encoding(name).encode(text).unwrap().0.into_owned());
        }
    }
    // Long inputs, where candidates that fall behind are put out at kilobyte marks.
    for &(text, names) in &CASES[..12] {
        let long = text.repeat(200);
        inputs.push(encoding(names[0]).encode(&long).unwrap().0.into_owned());
    }
    for len in [1, 2, 3, 7, 64, 1023, 1024, 1025, 3000, 9000] {
        for _ in 0..20 {
            // Random bytes, and random bytes biased to high bytes and ESC.
            inputs.push((0..len).map(|_| rng.next() as u8).collect());
            inputs.push(
                (0..len).map(|_| [0x1b, 0x24, 0x42, 0x80, 0xa4, 0xe0, b' ', b'a'][rng.next() as usize % 8]).collect(),
            );
        }
    }
    for input in &inputs {
        for options in [
            DetectOptions::default(),
            DetectOptions { allow_utf8: false, allow_iso_2022_jp: false, tld: Some("ru"), ..DetectOptions::default() },
        ] {
            let whole = guess(input, &options);
            assert!(whole.encoding != X_USER_DEFINED && whole.encoding != REPLACEMENT);
            assert!((0.0..=1.0).contains(&whole.confidence));
            for _ in 0..4 {
                let chunks: Vec<usize> = (0..8).map(|_| rng.next() as usize % 40).map(|n| n.max(1)).collect();
                assert_eq!(guess_chunked(input, &chunks, &options), whole, "{input:?} in {chunks:?}");
            }
            let mut whole_detector = EncodingDetector::new();
            whole_detector.feed(input);
            let mut chunked = EncodingDetector::new();
            for chunk in input.chunks(5) {
                chunked.feed(chunk);
            }
            assert_eq!(whole_detector.candidates(&options), chunked.candidates(&options));
        }
    }
}

#[test]
fn shift_bytes_before_an_escape_count_whole_or_chunked() {
    // Found by the fuzz target: SO (an ISO-2022-JP error) in an ASCII first chunk,
    // ESC in the next. The ISO-2022-JP reading must see the SO either way.
    let input =
        b"\x0eGGGGGGGGGG#\x0eGGGGGGGGGGGGGGG2\x1b*\0\0GG\x0eGGGGGGG\0\0\0\0\0\0\0G\0G\x0e\0\0\0\0\0\0\0\0\0\0\0";
    let options = DetectOptions::default();
    let mut whole = EncodingDetector::new();
    whole.feed(input);
    let mut chunked = EncodingDetector::new();
    chunked.feed(&input[..14]);
    chunked.feed(&input[14..]);
    assert_eq!(whole.candidates(&options), chunked.candidates(&options));
    assert_eq!(whole.guess(&options), chunked.guess(&options));
}

#[test]
fn plugs_into_the_determination() {
    let detector = DetectOptions { allow_utf8: false, ..DetectOptions::default() };
    let options = HtmlOptions { detector: Some(&detector), ..HtmlOptions::default() };
    let (bytes, _) = whatenc::KOI8_R.encode("<p>Съешь же ещё этих мягких французских булок").unwrap();
    let determination = html(&bytes, &options);
    assert_eq!(determination.step, Step::Detector);
    assert_eq!(determination.encoding.decode(&bytes).0, whatenc::KOI8_R.decode(&bytes).0);
    // Pure ASCII: the detector abstains and the determination goes on.
    assert_ne!(html(b"<p>hello", &options).step, Step::Detector);
    // A <meta> comes first.
    assert_eq!(html(b"<meta charset=utf-8><p>\xe9", &options).encoding, whatenc::UTF_8);
}
