//! `iospd report RUN.json [-Rtext|-Rxml|-Rjson] [--output=FILE]`: renders a JSON result, merged or
//! not, in another format.

use std::path::{Path, PathBuf};

use super::{ToolError, split_args};
use crate::profile::ResultFormat;
use crate::report::Report;
use crate::safety::Place;
use crate::units::format_size;

/// The command's synopsis (also in `iospd help`).
pub const USAGE: &str =
    "iospd report <run.json> [-Rtext|-Rxml|-Rjson] [--output=<file.txt|.xml|.json|.html|.csv>]";

/// Its own options (`=`: takes a value), for the parser and the shell completions.
pub const OPTIONS: &[&str] = &["output="];

/// Memory a result takes to read, as a multiple of its file's size: the text, and the report
/// parsed from it (whose histograms stay in their text form).
const READ_FACTOR: u64 = 3;

/// Reads a JSON result iospd wrote, once its size is known to fit in the memory the process may
/// allocate.
pub fn load(path: &Path) -> Result<Report, ToolError> {
    use crate::system::Host as _;
    let input = |why: String| ToolError::Input {
        path: path.to_path_buf(),
        why,
    };
    let file = crate::input::open(path, false).map_err(input)?;
    let size = file.metadata().map_err(|e| input(e.to_string()))?.len();
    if let Some(available) = crate::system::LinuxHost.memory_available() {
        let needs = size.saturating_mul(READ_FACTOR);
        if needs > available.bytes / 10 * 9 {
            return Err(input(format!(
                "it is {}, and reading it takes about {}, more than the {} that may be allocated ({}); a result iospd wrote is a few MiB per rank and hour, so this is not one, or read it on a machine with more memory",
                format_size(size),
                format_size(needs),
                format_size(available.bytes),
                available.source
            )));
        }
    }
    // What the file held when it was sized: one growing as it is read is not read without end.
    let mut text = String::with_capacity(size as usize);
    std::io::Read::read_to_string(&mut std::io::Read::take(file, size), &mut text)
        .map_err(|e| input(e.to_string()))?;
    /// What says a document is an iospd result, read before the rest (the rest skipped).
    #[derive(serde::Deserialize)]
    struct Head {
        tool: Option<serde_json::Value>,
        schema_version: Option<serde_json::Value>,
    }
    let head: Head = serde_json::from_str(&text).map_err(|e| {
        input(format!(
            "it is not JSON ({e}); give a file written with -Rjson or --output=<file>.json"
        ))
    })?;
    let name = head.tool.as_ref().and_then(|t| t.get("name")?.as_str());
    if name != Some("iospd") {
        return Err(input(
            "it is not an iospd JSON result; give a file written with -Rjson or --output=<file>.json".into(),
        ));
    }
    let version = head.schema_version.as_ref().and_then(|v| v.as_u64());
    if version != Some(1) {
        return Err(input(format!(
            "its schema_version is {version:?}, and this iospd reads version 1"
        )));
    }
    let mut report: Report = serde_json::from_str(&text)
        .map_err(|e| input(format!("it does not match the results schema: {e}")))?;
    report.complete().map_err(|e| {
        input(format!(
            "{e}; the file is damaged or was not written by iospd"
        ))
    })?;
    Ok(report)
}

/// Writes `report` in `format` to the checked output place, or to stdout.
pub fn emit(report: &Report, format: ResultFormat, output: Option<Place>) -> Result<(), ToolError> {
    let text = report.render(format);
    match output {
        Some(mut place) => place
            .replace_with(text.as_bytes())
            .map_err(|e| ToolError::Output {
                path: place.path().to_path_buf(),
                why: e.to_string(),
            }),
        None => {
            use std::io::Write as _;
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(ToolError::Output {
                    path: PathBuf::from("standard output"),
                    why: e.to_string(),
                }),
                _ => Ok(()),
            }
        }
    }
}

/// Checks before any work that the output file can be created, and that it is not one of the
/// `inputs`, which it would replace.
pub fn check_output(output: Option<&Path>, inputs: &[&str]) -> Result<Option<Place>, ToolError> {
    let Some(path) = output else {
        return Ok(None);
    };
    // Bad input, found before any work: exit 3, as a run's unwritable --output is.
    let refuse = |why: String| {
        ToolError::Usage(format!(
            "--output: cannot write '{}': {why}",
            path.display()
        ))
    };
    let place = Place::locate(path).map_err(refuse)?;
    let given = |input: &&str| {
        crate::safety::open::identity(Path::new(input))
            .is_some_and(|id| place.identities().any(|i| i == id))
    };
    if let Some(input) = inputs.iter().find(|i| given(i)) {
        return Err(refuse(format!(
            "it is the input '{input}', which the output would replace; name another file"
        )));
    }
    Ok(Some(place))
}

/// The format `-R…` (read by the run's flag table: `-Rtext`, `-Rxml`, `-Rjson`) or the output's
/// extension asks for, `None` when neither says, and the arguments without `-R…`.
pub fn format_of(
    args: &[String],
    output: Option<&Path>,
    usage: &str,
) -> Result<(Option<ResultFormat>, Vec<String>), ToolError> {
    let mut raw = crate::cli::RawArgs::default();
    let mut rest = Vec::new();
    for arg in args {
        let Some(value) = arg.strip_prefix("-R") else {
            rest.push(arg.clone());
            continue;
        };
        if raw.result_format.is_some() {
            return Err(ToolError::Usage(format!(
                "give one -R format; usage: {usage}"
            )));
        }
        let read = crate::cli::flags::apply_result_format(value, &mut raw);
        if read.is_err() || raw.print_profile || raw.print_system {
            return Err(ToolError::Usage(format!(
                "'{arg}' is not -Rtext, -Rxml or -Rjson; usage: {usage}"
            )));
        }
    }
    let from_output = output
        .map(|p| {
            ResultFormat::from_path(p).ok_or_else(|| {
                ToolError::Usage(format!(
                    "'{}' does not end in .txt, .xml, .json, .html or .csv; the extension picks the format",
                    p.display()
                ))
            })
        })
        .transpose()?;
    Ok((raw.result_format.or(from_output), rest))
}

/// Runs the subcommand.
pub fn run(args: &[String]) -> Result<u8, ToolError> {
    let output = args
        .iter()
        .find_map(|a| a.strip_prefix("--output="))
        .map(PathBuf::from);
    let (format, rest) = format_of(args, output.as_deref(), USAGE)?;
    let format = format.unwrap_or(ResultFormat::Text);
    let args = split_args(&rest, OPTIONS, USAGE)?;
    let [input] = args.files.as_slice() else {
        return Err(ToolError::Usage(format!(
            "name one JSON result; usage: {USAGE}"
        )));
    };
    let place = check_output(output.as_deref(), &args.files)?;
    let report = load(Path::new(input))?;
    emit(&report, format, place)?;
    Ok(0)
}
