//! The informational commands: `list`, `label`, `sniff`, `completions` and `man`.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::CommandFactory;
use whatenc::Encoding;

use crate::Failure;
use crate::auto::{self, Determiner, json_string};
use crate::cli::{Cli, CompletionsArgs, LabelArgs, ListArgs, SniffArgs};
use crate::files::{InputSpec, describe, stdout_error};
use crate::labels::lookup;

/// Writes `text` to standard output; a closed pipe is quiet.
fn print(text: &str) -> Result<ExitCode, Failure> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).map_err(|e| stdout_error(&e))?;
    Ok(ExitCode::SUCCESS)
}

/// `whatenc list`.
pub fn list(args: &ListArgs) -> Result<ExitCode, Failure> {
    let mut text = String::new();
    if args.json {
        text.push('[');
        for (i, encoding) in Encoding::all().iter().enumerate() {
            let labels: Vec<String> = encoding.labels().iter().map(|l| json_string(l)).collect();
            text.push_str(if i == 0 { "\n  " } else { ",\n  " });
            text.push_str(&format!(
                "{{\"name\": {}, \"labels\": [{}], \"output_encoding\": {}, \"has_encoder\": {}, \
                 \"ascii_compatible\": {}, \"single_byte\": {}}}",
                json_string(encoding.name()),
                labels.join(", "),
                json_string(encoding.output_encoding().name()),
                encoding.has_encoder(),
                encoding.is_ascii_compatible(),
                encoding.is_single_byte(),
            ));
        }
        text.push_str("\n]\n");
    } else {
        text.push_str(&format!("{:<16} {:<16} LABELS\n", "ENCODING", "OUTPUT ENCODING"));
        for encoding in Encoding::all() {
            let output = encoding.output_encoding();
            let output = output.name();
            text.push_str(&format!("{:<16} {:<16} {}\n", encoding.name(), output, encoding.labels().join(" ")));
        }
    }
    print(&text)
}

/// `whatenc label LABEL`.
pub fn label(args: &LabelArgs) -> Result<ExitCode, Failure> {
    let encoding = lookup(&args.label)?;
    let output = encoding.output_encoding();
    let encoder = if encoding.has_encoder() {
        "yes".to_string()
    } else {
        format!("none (encoding to it writes its output encoding, {})", output.name())
    };
    let text = format!(
        "label            {}\nencoding         {}\noutput encoding  {}\nencoder          {}\nlabels           {}\n",
        args.label.trim_matches(|c: char| c.is_ascii_whitespace()),
        encoding.name(),
        output.name(),
        encoder,
        encoding.labels().join(" "),
    );
    print(&text)
}

/// `whatenc sniff FILE...`: the determination of each input's encoding, one line
/// (or, with `--json`, one JSON object) per input.
pub fn sniff(args: &SniffArgs) -> Result<ExitCode, Failure> {
    let determiner = Determiner::new(&args.determine, false)?;
    let inputs = InputSpec::from_args(&args.files);
    for input in &inputs {
        input.preflight()?;
    }
    let mut text = String::new();
    for input in &inputs {
        let determined = determiner.determine(input)?;
        if args.json {
            text.push_str(&crate::auto::json(&input.name(), &determined));
        } else {
            text.push_str(&format!("{}: {}", input.name(), auto::describe(&determined.determination)));
        }
        text.push('\n');
    }
    print(&text)
}

/// `whatenc completions SHELL`.
pub fn completions(args: &CompletionsArgs) -> Result<ExitCode, Failure> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "whatenc", &mut script);
    print(&String::from_utf8_lossy(&script))
}

/// `whatenc man`: the man page of the command and each subcommand, as one roff page.
pub fn man() -> Result<ExitCode, Failure> {
    let command = Cli::command();
    let mut page = Vec::new();
    let render_error = |e: io::Error| Failure::Io(format!("cannot render the man page: {}", describe(&e)));
    let main = clap_mangen::Man::new(command.clone());
    main.render_title(&mut page).map_err(render_error)?;
    main.render_name_section(&mut page).map_err(render_error)?;
    main.render_synopsis_section(&mut page).map_err(render_error)?;
    main.render_description_section(&mut page).map_err(render_error)?;
    main.render_options_section(&mut page).map_err(render_error)?;
    // One section per subcommand, with its options and examples.
    for sub in command.get_subcommands() {
        let name = format!("whatenc {}", sub.get_name());
        page.extend_from_slice(format!(".SH \"{}\"\n", name.to_uppercase()).as_bytes());
        let sub_command = sub.clone().bin_name(name.clone()).display_name(name);
        let sub_man = clap_mangen::Man::new(sub_command.clone());
        let mut section = Vec::new();
        sub_man.render_synopsis_section(&mut section).map_err(render_error)?;
        sub_man.render_description_section(&mut section).map_err(render_error)?;
        sub_man.render_options_section(&mut section).map_err(render_error)?;
        sub_man.render_extra_section(&mut section).map_err(render_error)?;
        // Demote the subcommand's sections to subsections.
        let section = String::from_utf8_lossy(&section).replace(".SH ", ".SS ");
        page.extend_from_slice(section.as_bytes());
    }
    main.render_extra_section(&mut page).map_err(render_error)?;
    main.render_version_section(&mut page).map_err(render_error)?;
    // clap_mangen titles the after-help text "EXTRA"; here it is examples.
    let page = String::from_utf8_lossy(&page).replace(".SH EXTRA", ".SH EXAMPLES").replace(".SS EXTRA", ".SS EXAMPLES");
    print(&page)
}
