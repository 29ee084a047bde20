//! `iospd sweep`: a DiskSpd command line in which `-o`, `-t`, `-b` or `-w` list several values
//! (`-o1,2,4,8 -t1,4`) becomes one profile with a timespan per combination, so every point runs on
//! the same prepared targets, one after the other, and the report holds every point in full. Queue
//! depth varies fastest, then block size, write ratio and threads; `--repeat=N` runs the whole
//! sweep N times over (so drift touches every point alike). The [`Sweep`] the profile carries names
//! each point's values, and the report's sweep table and knee are computed from it
//! (see [`crate::report::analysis::sweep`]).

use std::ffi::OsString;

use crate::Error;
use crate::cli::line::Line;
use crate::profile::{self, Profile, ProfileError, Resolved, Sweep};

/// The options a sweep may list, outermost first (queue depth varies fastest).
pub const AXES: [&str; 4] = ["-t", "-w", "-b", "-o"];

/// The most points one sweep runs.
pub const MAX_POINTS: usize = 1000;

/// The profile of `iospd sweep <args>`: one timespan per combination of the listed values.
pub fn resolve(args: &[OsString], command_line: String) -> Result<Resolved, Error> {
    let args: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let line = Line::lex(&args)?;
    let mut axes: Vec<(String, Vec<String>)> = Vec::new();
    for axis in AXES {
        let given = line.values(axis);
        let Some(list) = given.first() else {
            continue;
        };
        if given.len() > 1 {
            return Err(invalid(format!(
                "{axis} is given {} times; give it once, listing its values with commas: {axis}1,2,4",
                given.len()
            )));
        }
        let values: Vec<String> = list.split(',').map(str::to_string).collect();
        if values.iter().any(String::is_empty) {
            return Err(invalid(format!(
                "'{axis}{list}' lists an empty value; list values with commas, for example {axis}1,2,4"
            )));
        }
        if values.len() > 1 {
            axes.push((axis.to_string(), values));
        }
    }
    if axes.is_empty() {
        return Err(invalid(
            "a sweep lists several values of -o, -t, -b or -w, for example: iospd sweep -o1,2,4,8,16,32 -b4K -r -Sh -L -d10 /mnt/t.dat".into(),
        ));
    }
    let points = combinations(&axes);
    if points.len() > MAX_POINTS {
        return Err(invalid(format!(
            "the lists make {} points; a sweep runs at most {MAX_POINTS}",
            points.len()
        )));
    }
    let mut merged: Option<(Profile, Vec<String>)> = None;
    let mut repeat = 1;
    for point in &points {
        let mut at_point = line.clone();
        for ((axis, _), value) in axes.iter().zip(point) {
            at_point.set(&format!("{axis}{value}"));
        }
        let mut raw = at_point.raw()?;
        // Repetitions run the whole sweep over (below), so drift touches every point alike.
        repeat = raw.repeat.take().unwrap_or(1);
        let Resolved { profile, warnings } = profile::resolve(&raw, command_line.clone())?;
        match &mut merged {
            None => merged = Some((profile, warnings)),
            Some((all, said)) => {
                all.timespans.extend(profile.timespans);
                for warning in warnings {
                    if !said.contains(&warning) {
                        said.push(warning);
                    }
                }
            }
        }
    }
    let (mut profile, warnings) = merged.expect("a sweep has points");
    if repeat > 1 {
        let once = std::mem::take(&mut profile.timespans);
        for _ in 0..repeat {
            profile.timespans.extend(once.iter().cloned());
        }
        profile.repeat = repeat;
    }
    profile.sweep = Some(Sweep {
        axes: axes.iter().map(|(axis, _)| axis.clone()).collect(),
        points,
    });
    Ok(Resolved { profile, warnings })
}

/// Every combination of the axes' values, the last axis varying fastest.
fn combinations(axes: &[(String, Vec<String>)]) -> Vec<Vec<String>> {
    let mut points: Vec<Vec<String>> = vec![Vec::new()];
    for (_, values) in axes {
        points = points
            .into_iter()
            .flat_map(|p| {
                values.iter().map(move |v| {
                    let mut next = p.clone();
                    next.push(v.clone());
                    next
                })
            })
            .collect();
    }
    points
}

fn invalid(message: String) -> Error {
    ProfileError::Invalid(message).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sweep(line: &str) -> Result<Profile, Error> {
        let args: Vec<OsString> = line.split(' ').map(OsString::from).collect();
        resolve(&args, format!("iospd sweep {line}")).map(|r| r.profile)
    }

    #[test]
    fn every_combination_becomes_a_timespan_with_depth_fastest() {
        let p = sweep("-o1,4,16 -t1,2 -b4K -r t.dat").unwrap();
        let sweep = p.sweep.as_ref().unwrap();
        assert_eq!(sweep.axes, ["-t", "-o"]);
        assert_eq!(p.timespans.len(), 6);
        assert_eq!(sweep.points[1], ["1", "4"]);
        assert_eq!(sweep.points[3], ["2", "1"]);
        let depths: Vec<u32> = p.timespans.iter().map(|t| t.targets[0].requests).collect();
        assert_eq!(depths, [1, 4, 16, 1, 4, 16]);
        let threads: Vec<u32> = p
            .timespans
            .iter()
            .map(|t| t.targets[0].threads_per_target)
            .collect();
        assert_eq!(threads, [1, 1, 1, 2, 2, 2]);
    }

    #[test]
    fn block_sizes_and_write_ratios_sweep_too() {
        let p = sweep("-b4K,64K -w0,30 -r t.dat").unwrap();
        let sizes: Vec<(u64, u32)> = p
            .timespans
            .iter()
            .map(|t| (t.targets[0].block_size, t.targets[0].write_ratio as u32))
            .collect();
        assert_eq!(sizes, [(4096, 0), (65536, 0), (4096, 30), (65536, 30)]);
    }

    #[test]
    fn repetitions_run_the_whole_sweep_over() {
        let p = sweep("-o1,4 -b4K -r --repeat=3 t.dat").unwrap();
        assert_eq!(p.repeat, 3);
        assert_eq!(p.sweep.as_ref().unwrap().points.len(), 2);
        let depths: Vec<u32> = p.timespans.iter().map(|t| t.targets[0].requests).collect();
        assert_eq!(depths, [1, 4, 1, 4, 1, 4]);
    }

    #[test]
    fn nothing_to_sweep_or_a_bad_value_is_refused() {
        let none = sweep("-o32 -b4K t.dat").unwrap_err().to_string();
        assert!(none.contains("lists several values"), "{none}");
        let empty = sweep("-o1,,4 t.dat").unwrap_err().to_string();
        assert!(empty.contains("empty value"), "{empty}");
        let bad = sweep("-o1,x t.dat").unwrap_err();
        assert_eq!(bad.exit_code(), crate::EXIT_BAD_INPUT);
        let twice = sweep("-o1,2 -o4 t.dat").unwrap_err().to_string();
        assert!(twice.contains("-o is given 2 times"), "{twice}");
    }

    #[test]
    fn the_completion_batch_is_not_a_depth_axis() {
        // -oc8 is another option of the letter o; the sweep keeps it at every point.
        let p = sweep("-oc8 -o1,4 -bsp -b4K,8K t.dat").unwrap();
        assert_eq!(p.sweep.as_ref().unwrap().axes, ["-b", "-o"]);
        let depths: Vec<u32> = p.timespans.iter().map(|t| t.targets[0].requests).collect();
        assert_eq!(depths, [1, 4, 1, 4]);
    }
}
