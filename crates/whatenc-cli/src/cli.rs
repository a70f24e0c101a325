//! The command line, defined once with clap's derive API: the parser, `--help`, the
//! shell completions (`whatenc completions SHELL`) and the man page (`whatenc man`)
//! all come from these definitions.

use std::path::PathBuf;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

/// Examples shown at the end of `whatenc --help`.
const EXAMPLES: &str = "\
Examples:
  whatenc convert -f gbk samples/zh_cn.gbk.txt               GBK to UTF-8 on stdout
  whatenc convert -t windows-1252 -o notes.1252.txt notes.txt
  whatenc -f gbk -t utf-8 < in.txt > out.txt                 iconv spelling (convert is implied)
  whatenc convert -r -f shift_jis --backup .orig old-site/  a whole tree, in place, on all cores
  whatenc check -f utf-8 samples/fr.windows-1252.txt        list every malformed sequence
  whatenc list --json                                        every encoding and label, for scripts
  whatenc label latin1                                       what \"get an encoding\" gives
  whatenc sniff page.html                                    which encoding, and why
  whatenc convert -f auto page.html                          decode as a browser would
  whatenc completions bash > /etc/bash_completion.d/whatenc
  whatenc man > whatenc.1

Exit status: 0 success; 1 malformed input or unmappable text in fatal mode (or
replaced, with --strict), a replacement-encoding label, or `check` found malformed
input; 2 usage or I/O error.";

/// Examples for `whatenc convert --help`.
const CONVERT_EXAMPLES: &str = "\
Error modes:
  --errors replacement  decode malformed input as U+FFFD, encode unmappable text
                        as &#N; (\"html\"): the default, what a browser does
  --errors html         the same as replacement (the two name the decoder's and
                        the encoder's non-fatal modes; each applies to its side)
  --errors fatal        decoder and encoder both \"fatal\": stop at the first
                        malformed sequence or unmappable character, exit 1
  --decode-errors, --encode-errors set one side only and override --errors.
  -c                    drop malformed sequences and unmappable characters (iconv -c)
Whatever was replaced is summed up in one line on standard error (-q: not);
--strict makes it a failure (exit 1, an output file left as it was).

Output files: -o writes a device or FIFO directly; a regular file is replaced
atomically (temporary file, fsync, rename), keeping its mode, owner, group and hard
links; a read-only one is refused. --in-place FILE... and -r DIR... do the same for
each file, -j at a time, and end with a summary.

Examples:
  whatenc convert -f shift_jis samples/ja.shift_jis.txt
  whatenc convert -f auto page.html                  the encoding a browser would use
  curl -s https://example.com/ | whatenc convert -f auto --as html -
  whatenc convert --in-place -f euc-kr --backup .orig *.txt
  whatenc convert -r -j 4 -f windows-1251 --strict archive/
  whatenc convert -f windows-1251 -t koi8-r -o out.txt in.txt
  whatenc convert --errors fatal -f euc-jp in.txt > out.txt || echo \"not EUC-JP\"
  whatenc convert -t iso-2022-jp -c in.txt                    drop what ISO-2022-JP lacks
  whatenc convert -t utf-16le --utf16-output in.txt > out.utf16
  cat a.txt b.txt | whatenc convert -f gbk -";

/// Examples for `whatenc check --help`.
const CHECK_EXAMPLES: &str = "\
Each malformed sequence is printed as
  FILE:LINE:COLUMN: byte offset N: malformed sequence XX XX (n bytes)
LINE counts U+000A line feeds, COLUMN counts Unicode scalar values, both from 1;
the byte offset counts from 0 at the start of the file (a BOM included).

Examples:
  whatenc check -f utf-8 samples/fr.windows-1252.txt      not UTF-8: reports each é
  whatenc check -f shift_jis samples/ja.euc-jp.txt         EUC-JP is not Shift_JIS
  whatenc check -f auto page.html                          is it what it declares?
  whatenc check -f utf-8 *.txt && echo \"all valid UTF-8\"
  curl -s https://example.com/ | whatenc check -f utf-8 -

(Every byte is valid windows-1252 and most single-byte encodings: checking
against them can report nothing. Check against what the text claims to be.)";

/// Examples for `whatenc list --help`.
const LIST_EXAMPLES: &str = "\
Examples:
  whatenc list
  whatenc -l                                     iconv spelling
  whatenc list --json | jq -r '.[].name'";

/// Examples for `whatenc label --help`.
const LABEL_EXAMPLES: &str = "\
Examples:
  whatenc label latin1          windows-1252
  whatenc label utf-16          UTF-16LE, whose output encoding is UTF-8
  whatenc label iso-2022-kr     replacement";

/// Examples for `whatenc sniff --help`.
const SNIFF_EXAMPLES: &str = "\
Each input gets one line: its encoding, the confidence (tentative: a parser may
still change it on a later <meta>; certain) and the step that decided:
  page.html: Shift_JIS (tentative, <meta> at byte 211)
The steps are the web's, in order: a BOM; the --content-type charset; a
declaration in the bytes (html: the <meta> prescan of the first 1024 bytes; xml:
the XML declaration; css: @charset); the detector (html and text: valid UTF-8
that is not ASCII, when the input ends within the bytes sniffed); the --locale
default (html and text); UTF-8. `convert -f auto` and `check -f auto` decode
with exactly this.

Examples:
  whatenc sniff page.html
  whatenc sniff --json *.html *.css | jq -r .encoding
  whatenc sniff --locale ja old.txt                 Shift_JIS (tentative, locale default)
  whatenc sniff --content-type 'text/html; charset=euc-kr' page.html
  curl -s https://example.com/ | whatenc sniff --as html
  printf '\\xff\\xfeA\\0' | whatenc sniff";

/// Examples for `whatenc completions --help`.
const COMPLETIONS_EXAMPLES: &str = "\
Examples:
  whatenc completions bash > ~/.local/share/bash-completion/completions/whatenc
  whatenc completions zsh > ~/.zfunc/_whatenc
  whatenc completions fish > ~/.config/fish/completions/whatenc.fish";

/// Examples for `whatenc man --help`.
const MAN_EXAMPLES: &str = "\
Examples:
  whatenc man | man -l -
  whatenc man > /usr/local/share/man/man1/whatenc.1";

/// The `whatenc` command line.
#[derive(Debug, Parser)]
#[command(
    name = "whatenc",
    version,
    about = "Convert and inspect text in the encodings of the WHATWG Encoding Standard, exactly as a browser decodes it.",
    after_help = EXAMPLES,
    subcommand_required = true,
    arg_required_else_help = true
)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Convert FILEs (or standard input) from one encoding to another.
    #[command(after_help = CONVERT_EXAMPLES)]
    Convert(ConvertArgs),
    /// Report every malformed byte sequence in FILEs, without converting.
    #[command(after_help = CHECK_EXAMPLES)]
    Check(CheckArgs),
    /// List every encoding with its labels (also `whatenc -l`).
    #[command(after_help = LIST_EXAMPLES)]
    List(ListArgs),
    /// Show what "get an encoding" gives for a label, and its output encoding.
    #[command(after_help = LABEL_EXAMPLES)]
    Label(LabelArgs),
    /// Determine the encoding of each FILE as a browser does, and say which step decided.
    #[command(after_help = SNIFF_EXAMPLES)]
    Sniff(SniffArgs),
    /// Print a shell completion script for SHELL on standard output.
    #[command(after_help = COMPLETIONS_EXAMPLES)]
    Completions(CompletionsArgs),
    /// Print the man page (roff) on standard output.
    #[command(after_help = MAN_EXAMPLES)]
    Man,
}

/// An error mode, for `--errors`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Errors {
    /// Malformed input decodes as U+FFFD (unmappable text still encodes as &#N;).
    Replacement,
    /// Unmappable text encodes as &#N; (malformed input still decodes as U+FFFD).
    Html,
    /// Stop at the first malformed sequence or unmappable character; exit 1.
    Fatal,
}

/// The decoder's error mode, for `--decode-errors`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DecodeErrors {
    /// Malformed input decodes as U+FFFD.
    Replacement,
    /// Stop at the first malformed sequence; exit 1.
    Fatal,
}

/// The encoder's error mode, for `--encode-errors`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EncodeErrors {
    /// Unmappable text encodes as a decimal reference &#N;.
    Html,
    /// Stop at the first unmappable character; exit 1.
    Fatal,
}

/// When to draw the progress bar, for `--progress`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum ProgressWhen {
    /// When standard error is a terminal and the input is large (a file over 64 MB,
    /// or a pipe still running after 2 seconds).
    #[default]
    Auto,
    /// Always, whatever standard error is (for testing).
    Always,
    /// Never.
    Never,
}

/// Input options shared by `convert` and `check`.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// The input encoding: any label of the standard, such as shift_jis, latin1 or gbk,
    /// or auto: determine it as a browser does (see `whatenc sniff --help`; --as,
    /// --content-type, --locale), and say which and why on standard error.
    /// `convert` refuses the labels of the replacement encoding (hz-gb-2312,
    /// iso-2022-kr, ...), which turn any input into one U+FFFD, unless given
    /// --errors replacement.
    #[arg(short = 'f', long = "from", visible_alias = "from-code", value_name = "LABEL", default_value = "utf-8")]
    pub from: String,
    /// Do not let a byte order mark override --from (by default a UTF-8, UTF-16BE or
    /// UTF-16LE BOM wins, as the standard's `decode` does, and is removed).
    #[arg(long)]
    pub no_bom_sniff: bool,
    /// Input files; none or `-` reads standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// What `-f auto` knows of each input.
    #[command(flatten)]
    pub determine: DetermineArgs,
}

/// What kind of resource an input is, for `--as`: which determination applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ResourceKind {
    /// An HTML document: BOM, Content-Type charset, the <meta> prescan, detector,
    /// locale default, UTF-8.
    Html,
    /// An XML document: BOM, Content-Type charset, the XML declaration, UTF-8.
    Xml,
    /// A stylesheet: BOM, Content-Type charset, @charset, UTF-8.
    Css,
    /// A plain text document: as HTML without the <meta> prescan.
    Text,
}

/// What is known of an input whose encoding is determined (`sniff`, `-f auto`),
/// beyond its bytes.
#[derive(Debug, Args)]
pub struct DetermineArgs {
    /// What the input is (default: from --content-type's MIME type, else the file's
    /// extension: .html and .htm are html; .xhtml, .xht, .xml and .svg xml; .css
    /// css; anything else, and standard input, text).
    #[arg(long = "as", value_enum, value_name = "KIND")]
    pub kind: Option<ResourceKind>,
    /// The transport's Content-Type header value, such as 'text/html;
    /// charset=shift_jis': its charset wins over anything in the bytes but a BOM.
    #[arg(long, value_name = "VALUE")]
    pub content_type: Option<String>,
    /// The user's locale, a BCP 47 tag such as ja, zh-TW or ru: its default encoding
    /// (HTML's table) replaces UTF-8 as the last resort for html and text.
    #[arg(long, value_name = "TAG")]
    pub locale: Option<String>,
}

impl DetermineArgs {
    /// Whether any of these options was given.
    pub fn any(&self) -> bool {
        self.kind.is_some() || self.content_type.is_some() || self.locale.is_some()
    }
}

/// Arguments of `whatenc convert`.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// Input encoding and files.
    #[command(flatten)]
    pub input: InputArgs,
    /// The output encoding. An encoding with no encoder (replacement, UTF-16BE,
    /// UTF-16LE) writes its output encoding, UTF-8, and says so on standard error.
    #[arg(short = 't', long = "to", visible_alias = "to-code", value_name = "LABEL", default_value = "utf-8")]
    pub to: String,
    /// The error mode of both sides: replacement and html are the default (U+FFFD for
    /// malformed input, &#N; for unmappable text), fatal stops at the first error.
    #[arg(long, value_enum, value_name = "MODE")]
    pub errors: Option<Errors>,
    /// The decoder's error mode alone (overrides --errors for decoding).
    #[arg(long, value_enum, value_name = "MODE")]
    pub decode_errors: Option<DecodeErrors>,
    /// The encoder's error mode alone (overrides --errors for encoding).
    #[arg(long, value_enum, value_name = "MODE")]
    pub encode_errors: Option<EncodeErrors>,
    /// Drop malformed sequences and unmappable characters silently, as iconv -c does.
    #[arg(short = 'c', long = "drop", conflicts_with_all = ["errors", "decode_errors", "encode_errors"])]
    pub drop: bool,
    /// Write to OUT instead of standard output. A regular file is replaced only on
    /// success, through a temporary file next to it that keeps its mode, owner, group
    /// and hard links; a device or FIFO is written directly; a read-only file is
    /// refused. OUT may be one of the inputs.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// With -o, keep the partial output in OUT when conversion stops on an error (by
    /// default it is removed and OUT is left as it was). It ends after its last whole
    /// character, even when the disk filled up.
    #[arg(long, requires = "output")]
    pub keep_partial: bool,
    /// Replace each FILE by its conversion (atomically, keeping its mode, owner and
    /// group), only when the conversion succeeded.
    #[arg(long, conflicts_with_all = ["output", "keep_partial"])]
    pub in_place: bool,
    /// With --in-place or -r, keep each original file as FILE + SUFFIX.
    #[arg(long, value_name = "SUFFIX")]
    pub backup: Option<String>,
    /// Convert every file under each FILE that is a directory, in place (implies
    /// --in-place). Hidden files and what .gitignore, .ignore and .whatencignore files
    /// exclude are skipped; symbolic links are not followed.
    #[arg(short = 'r', long, conflicts_with_all = ["output", "keep_partial"])]
    pub recursive: bool,
    /// With -r, do not skip hidden and ignored files.
    #[arg(long)]
    pub no_ignore: bool,
    /// With --in-place or -r, convert N files at a time (default: one per core, and at
    /// least 8, since each file waits for the disk to sync it).
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Do not print the summary of replaced sequences and characters, nor warnings
    /// (iconv: -s, --silent).
    #[arg(short, long, short_alias = 's', alias = "silent")]
    pub quiet: bool,
    /// Exit with status 1 when anything was replaced (malformed input written as
    /// U+FFFD, unmappable text as &#N;): the output is then treated as failed, and an
    /// output file or a file converted in place is left as it was.
    #[arg(long)]
    pub strict: bool,
    /// Start the output with a byte order mark (UTF-8 or --utf16-output only;
    /// `-t utf-16 --utf16-output` writes one anyway, as iconv's `-t utf-16` does).
    #[arg(long)]
    pub bom: bool,
    /// Extension to the standard: with -t utf-16le or utf-16be, write UTF-16 in that
    /// byte order (no BOM) instead of the standard's output encoding, UTF-8.
    #[arg(long)]
    pub utf16_output: bool,
    /// When to draw a progress bar on standard error.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ProgressWhen::Auto)]
    pub progress: ProgressWhen,
}

/// Arguments of `whatenc check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Input encoding and files.
    #[command(flatten)]
    pub input: InputArgs,
    /// Print only the summary line of each file, not each malformed sequence.
    #[arg(short, long)]
    pub quiet: bool,
    /// When to draw a progress bar on standard error.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ProgressWhen::Auto)]
    pub progress: ProgressWhen,
}

/// Arguments of `whatenc list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Print a JSON array of {name, labels, output_encoding, has_encoder,
    /// ascii_compatible, single_byte} objects instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `whatenc label`.
#[derive(Debug, Args)]
pub struct LabelArgs {
    /// A label, such as latin1 or sjis (matched as the standard says: ASCII
    /// case-insensitively, surrounding ASCII whitespace removed).
    pub label: String,
}

/// Arguments of `whatenc sniff`.
#[derive(Debug, Args)]
pub struct SniffArgs {
    /// Files to sniff; none or `-` reads standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// What is known of the files beyond their bytes.
    #[command(flatten)]
    pub determine: DetermineArgs,
    /// Print one JSON object per file, one per line: {file, context, encoding,
    /// confidence, step, position, bom, reason}.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `whatenc completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Whether standard input is data to convert: a pipe or a regular file, not a
/// terminal nor `/dev/null`.
pub fn stdin_is_data() -> bool {
    use std::os::fd::AsFd;
    use std::os::unix::fs::FileTypeExt;
    let Ok(fd) = std::io::stdin().as_fd().try_clone_to_owned() else { return false };
    std::fs::File::from(fd).metadata().is_ok_and(|m| m.is_file() || m.file_type().is_fifo())
}

/// Rewrites iconv spellings into subcommands: `whatenc -l` is `whatenc list`; a
/// first argument that is one of convert's options (`whatenc -f X -t Y ...`,
/// `whatenc --keep-partial ...`), `-`, or not a command (`whatenc FILE...`) implies
/// `convert`; and with no arguments, piped input (`stdin_is_data`) is converted.
pub fn iconv_spellings(mut args: Vec<std::ffi::OsString>, stdin_is_data: bool) -> Vec<std::ffi::OsString> {
    if args.len() == 1 && stdin_is_data {
        args.push("convert".into());
        return args;
    }
    let Some(first) = args.get(1).and_then(|a| a.to_str()) else { return args };
    if first == "-l" || first == "--list" {
        args[1] = "list".into();
        return args;
    }
    let command = Cli::command();
    let implies_convert = if first == "-" {
        true
    } else if let Some(long) = first.strip_prefix("--") {
        let name = long.split('=').next().unwrap_or(long);
        convert_options(&command).any(|arg| {
            arg.get_long() == Some(name) || arg.get_all_aliases().is_some_and(|aliases| aliases.contains(&name))
        })
    } else if let Some(short) = first.strip_prefix('-') {
        let letter = short.chars().next();
        convert_options(&command).any(|arg| {
            letter.is_some()
                && (arg.get_short() == letter
                    || arg.get_all_short_aliases().is_some_and(|aliases| aliases.contains(&letter.unwrap_or('-'))))
        })
    } else {
        // Not an option: a command name, or a file as in `iconv FILE`.
        !command.get_subcommands().any(|c| c.get_name() == first || c.get_all_aliases().any(|a| a == first))
            && first != "help"
    };
    if implies_convert {
        args.insert(1, "convert".into());
    }
    args
}

/// The options of `convert`, without `--help`.
fn convert_options(command: &clap::Command) -> impl Iterator<Item = &clap::Arg> {
    command
        .find_subcommand("convert")
        .into_iter()
        .flat_map(|c| c.get_arguments())
        .filter(|arg| !arg.is_positional() && arg.get_id() != "help")
}
