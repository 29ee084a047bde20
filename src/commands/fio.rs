//! `iospd fio <job file>…`: fio's job files run with iospd's engine. Each job becomes one iospd
//! command line (`crate::fiojob`); `-Rp` prints them (one line per job, starting with `iospd`) and
//! runs nothing. Otherwise the jobs run as fio runs them: the jobs of a group together, each its
//! own iospd process, and the groups one after the other (`stonewall`); each job's report is
//! printed in the format `-R` asks for, in the order of the file. A job iospd cannot run exactly
//! is refused with the option, the job, the file and line and iospd's closest option, and then
//! nothing runs.

use super::ToolError;
use super::child::{Child, MAX_CHILDREN};
use crate::fiojob::read::{Context, Keywords, environment, read_files};
use crate::fiojob::translate::{Translation, translate};
use crate::profile::ResultFormat;

/// The usage line.
pub const USAGE: &str = "iospd fio [-Rp | -Rtext | -Rxml | -Rjson] <job file>…";

/// Runs `iospd fio <args>`.
pub fn run(args: &[String]) -> Result<u8, ToolError> {
    let mut print = false;
    let mut rest = Vec::new();
    for arg in args {
        match arg.as_str() {
            "-Rp" | "-Rptext" => print = true,
            _ => rest.push(arg.clone()),
        }
    }
    let (format, files) = super::report::format_of(&rest, None, USAGE)?;
    let format = format.unwrap_or(ResultFormat::Text);
    if let Some(option) = files.iter().find(|f| f.starts_with('-')) {
        return Err(ToolError::Usage(format!(
            "'{option}' is not an option of iospd fio; usage: {USAGE}"
        )));
    }
    if files.is_empty() {
        return Err(ToolError::Usage(format!("give a job file; usage: {USAGE}")));
    }
    let paths: Vec<std::path::PathBuf> = files.iter().map(Into::into).collect();
    let context = Context {
        env: &environment,
        keywords: Keywords::here(),
    };
    let jobs = read_files(&paths, &context).map_err(|e| ToolError::Usage(e.to_string()))?;
    if jobs.is_empty() {
        return Err(ToolError::Usage(format!(
            "{}: no job (only [global] sections); add a [job] section",
            files.join(", ")
        )));
    }
    let results = translate(&jobs);
    let mut refusals = Vec::new();
    let mut lines = Vec::new();
    for result in &results {
        match result {
            Ok(t) => {
                for note in &t.notes {
                    crate::console::say(&format!("note: job '{}': {note}", t.job));
                }
                lines.push(t);
            }
            Err(refusal) => refusals.push(refusal.to_string()),
        }
    }
    if print {
        let text: String = lines.iter().map(|t| t.line() + "\n").collect();
        super::print(&text)?;
    }
    if !refusals.is_empty() {
        let jobs = if refusals.len() == 1 { "job" } else { "jobs" };
        return Err(ToolError::Usage(format!(
            "{} {jobs} refused:\n{}",
            refusals.len(),
            refusals.join("\n")
        )));
    }
    if print {
        return Ok(0);
    }
    let runner = Child::this()?;
    let groups = lines.last().map_or(0, |t| t.group + 1);
    let mut rendered = Vec::new();
    for group in 0..groups {
        let members: Vec<&&Translation> = lines.iter().filter(|t| t.group == group).collect();
        if members.len() > MAX_CHILDREN {
            return Err(ToolError::Usage(format!(
                "a group of {} jobs runs together; iospd runs at most {MAX_CHILDREN} at once (add stonewall)",
                members.len()
            )));
        }
        let reports: Vec<Result<crate::report::Report, ToolError>> = std::thread::scope(|scope| {
            let handles: Vec<_> = members
                .iter()
                .map(|t| {
                    let mut args = t.args.clone();
                    let at = usize::from(args.first().is_some_and(|a| a == "replay"));
                    args.insert(at, "-Rjson".into());
                    let runner = &runner;
                    scope.spawn(move || runner.report(&args))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a job's thread panicked"))
                .collect()
        });
        for (t, report) in members.iter().zip(reports) {
            rendered.push((t.job.clone(), t.line(), report?.render(format)));
        }
    }
    super::print(&documents(format, &rendered))?;
    Ok(0)
}

/// Every job's report as one document: text reports one after the other, each under the job's
/// name and command line; several JSON reports as an array; XML reports in one `<Jobs>` element.
fn documents(format: ResultFormat, reports: &[(String, String, String)]) -> String {
    match (format, reports) {
        (_, [(_, _, one)]) => one.clone(),
        (ResultFormat::Json, _) => format!(
            "[\n{}\n]\n",
            reports
                .iter()
                .map(|r| r.2.trim_end())
                .collect::<Vec<_>>()
                .join(",\n")
        ),
        (ResultFormat::Xml, _) => format!(
            "<Jobs>\n{}</Jobs>\n",
            reports
                .iter()
                .map(|r| r
                    .2
                    .trim_start_matches(|c| c != '<')
                    .replace("<?xml version=\"1.0\"?>", ""))
                .collect::<String>()
        ),
        _ => reports
            .iter()
            .map(|(job, line, text)| format!("\njob '{job}': {line}\n{text}"))
            .collect(),
    }
}
