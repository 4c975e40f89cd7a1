//! Pipe timelines of emulated launches: merging the per-launch Chrome traces the
//! emulation writes (`ASCENDC_SIM_TRACE`, sim/include/ascendc_sim/launcher.h) into one
//! file, and drawing a trace as SVG.
//!
//! The emulation writes one event per line, keys in a fixed order; the merge keeps
//! those lines and renumbers them (every launch's cores get processes of their own,
//! and a launch starts where the previous one ended), so no JSON library is needed.
//! The SVG has one lane per pipe of each drawn core, one rectangle per instruction.

use std::fmt::Write as _;
use std::path::PathBuf;

/// One launch's trace file and its length in microseconds under the chip model.
pub struct LaunchTrace {
    pub kernel: String,
    pub file: PathBuf,
    pub micros: f64,
}

/// The clock that turns the chip model's cycles into trace microseconds (the
/// emulation's `PipeCosts::clock_ghz`; unverified, as in docs/benchmarks/kernel_quality.md).
pub const CLOCK_GHZ: f64 = 1.85;

/// The per-pipe counts of one launch as autofuse-run prints them.
pub fn pipes_line(p: &super::PipeReport) -> String {
    let mut o = String::from("pipes:");
    for (name, c) in super::PipeReport::NAMES.iter().zip(p.pipes.iter()) {
        let _ = write!(
            o,
            " {name} {} calls {} instr {} B;",
            c.calls, c.instructions, c.bytes
        );
    }
    let _ = write!(
        o,
        " chip model {:.0} cycles = {:.2} us (timeline {:.0}, HBM bound {:.0})",
        p.cycles,
        p.cycles / (CLOCK_GHZ * 1000.0),
        p.cycles_timeline,
        p.cycles_hbm
    );
    o
}

/// Processes (cores) of one launch are numbered from `launch * PID_STRIDE`.
const PID_STRIDE: u64 = 1000;

/// The value of `"key":` in one event line, as written by the emulation.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let pat = format!("\"{key}\":");
    let start = line.find(&pat)? + pat.len();
    let rest = &line[start..];
    if let Some(quoted) = rest.strip_prefix('"') {
        let end = quoted.find('"')?;
        return Some(&quoted[..end]);
    }
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    Some(&rest[..end])
}

/// Replaces the number after `"key":` in `line` by `f(number)`.
fn rewrite_number(line: &str, key: &str, f: impl Fn(f64) -> String) -> String {
    let pat = format!("\"{key}\":");
    let Some(pos) = line.find(&pat) else {
        return line.to_string();
    };
    let start = pos + pat.len();
    let end = line[start..]
        .find([',', '}'])
        .map_or(line.len(), |e| start + e);
    match line[start..end].parse::<f64>() {
        Ok(v) => format!("{}{}{}", &line[..start], f(v), &line[end..]),
        Err(_) => line.to_string(),
    }
}

/// The event lines of one emulation trace (everything between `[` and `]`).
fn event_lines(text: &str) -> Vec<&str> {
    text.lines()
        .map(|l| l.trim_end_matches(','))
        .filter(|l| l.starts_with("{\"ph\""))
        .collect()
}

/// One trace of all launches, in program order, as Chrome trace-event JSON.
pub fn merge(launches: &[LaunchTrace]) -> Result<String, String> {
    let mut events = Vec::new();
    let mut t0 = 0.0f64;
    for (i, l) in launches.iter().enumerate() {
        let text = std::fs::read_to_string(&l.file).map_err(|e| {
            format!(
                "{}: cannot read the trace of {}: {e}",
                l.file.display(),
                l.kernel
            )
        })?;
        let base = i as u64 * PID_STRIDE;
        for line in event_lines(&text) {
            let line = rewrite_number(line, "pid", |p| format!("{}", base + p as u64));
            let line = if line.contains("\"sort_index\"") && !line.contains("\"tid\"") {
                rewrite_number(&line, "sort_index", |p| format!("{}", base + p as u64))
            } else {
                line
            };
            let line = rewrite_number(&line, "ts", |ts| format!("{:.4}", ts + t0));
            events.push(line);
        }
        t0 += l.micros;
    }
    let mut o = String::from("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"launches\":[");
    for (i, l) in launches.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        let _ = write!(
            o,
            "{{\"kernel\":\"{}\",\"us\":{:.3}}}",
            l.kernel.replace('"', "'"),
            l.micros
        );
    }
    o.push_str("]},\"traceEvents\":[");
    for (i, e) in events.iter().enumerate() {
        o.push_str(if i == 0 { "\n" } else { ",\n" });
        o.push_str(e);
    }
    o.push_str("\n]}\n");
    Ok(o)
}

/// One instruction of a trace.
#[derive(Clone, Debug, PartialEq)]
pub struct Slice {
    pub name: String,
    pub pipe: String,
    pub pid: u64,
    pub ts: f64,
    pub dur: f64,
}

/// The instructions ("X" events) of a trace written by [`merge`] or the emulation.
pub fn slices(text: &str) -> Vec<Slice> {
    event_lines(text)
        .into_iter()
        .filter(|l| field(l, "ph") == Some("X"))
        .filter_map(|l| {
            Some(Slice {
                name: field(l, "name")?.to_string(),
                pipe: field(l, "cat")?.to_string(),
                pid: field(l, "pid")?.parse().ok()?,
                ts: field(l, "ts")?.parse().ok()?,
                dur: field(l, "dur")?.parse().ok()?,
            })
        })
        .collect()
}

const PIPES: [&str; 4] = ["MTE2", "V", "MTE3", "S"];

fn colour(pipe: &str, name: &str) -> &'static str {
    match pipe {
        "MTE2" => "#4e79a7",
        "MTE3" => "#59a14f",
        "S" => "#9c755f",
        _ if name.starts_with("Reduce") || name.starts_with("WholeReduce") => "#e15759",
        _ if name == "Brcb" || name == "Copy" || name == "Duplicate" => "#f28e2b",
        _ => "#edc948",
    }
}

/// Draws the first `max_cores` cores of a trace: one lane per pipe, time left to right.
pub fn svg(text: &str, title: &str, max_cores: usize) -> Result<String, String> {
    let all = slices(text);
    if all.is_empty() {
        return Err("the trace has no instructions to draw".into());
    }
    let mut cores: Vec<u64> = all.iter().map(|s| s.pid).collect();
    cores.sort_unstable();
    cores.dedup();
    cores.truncate(max_cores.max(1));
    let drawn: Vec<&Slice> = all.iter().filter(|s| cores.contains(&s.pid)).collect();
    let end = drawn
        .iter()
        .map(|s| s.ts + s.dur)
        .fold(0.0f64, f64::max)
        .max(1e-9);
    let (left, width, lane, gap, top) = (150.0, 900.0, 18.0, 10.0, 40.0);
    let lanes = cores.len() * PIPES.len();
    let height = top + lanes as f64 * lane + cores.len() as f64 * gap + 40.0;
    let x = |t: f64| left + t / end * width;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{height:.0}\" font-family=\"monospace\" font-size=\"11\">",
        left + width + 20.0
    );
    let _ = writeln!(o, "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>");
    let _ = writeln!(
        o,
        "<text x=\"10\" y=\"20\" font-size=\"13\">{} ({} of the cores; {:.2} us)</text>",
        escape(title),
        cores.len(),
        end
    );
    for (ci, core) in cores.iter().enumerate() {
        let y0 = top + ci as f64 * (PIPES.len() as f64 * lane + gap);
        for (pi, pipe) in PIPES.iter().enumerate() {
            let y = y0 + pi as f64 * lane;
            let _ = writeln!(
                o,
                "<text x=\"10\" y=\"{:.1}\">core {} {pipe}</text>",
                y + lane * 0.7,
                core % PID_STRIDE
            );
            let _ = writeln!(
                o,
                "<line x1=\"{left}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/>",
                left + width,
                y + lane,
                y + lane
            );
            // Back-to-back instructions of one colour closer than a pixel become one
            // rectangle (a picture of thousands of slivers says no more and weighs more).
            let mut run: Option<(f64, f64, &str, String, usize)> = None;
            let flush = |o: &mut String, r: &Option<(f64, f64, &str, String, usize)>| {
                if let Some((x0, x1, fill, name, n)) = r {
                    let label = if *n == 1 {
                        name.clone()
                    } else {
                        format!("{n} instructions from {name}")
                    };
                    let _ = writeln!(
                        o,
                        "<rect x=\"{x0:.2}\" y=\"{:.1}\" width=\"{:.2}\" height=\"{:.1}\" fill=\"{fill}\"><title>{}</title></rect>",
                        y + 2.0,
                        (x1 - x0).max(0.5),
                        lane - 4.0,
                        escape(&label)
                    );
                }
            };
            for s in drawn.iter().filter(|s| s.pid == *core && s.pipe == *pipe) {
                let (x0, x1, fill) = (x(s.ts), x(s.ts + s.dur), colour(&s.pipe, &s.name));
                match &mut run {
                    Some((_, end, f, _, n)) if *f == fill && x0 - *end < 1.0 => {
                        *end = x1.max(*end);
                        *n += 1;
                    }
                    _ => {
                        flush(&mut o, &run);
                        run = Some((x0, x1, fill, s.name.clone(), 1));
                    }
                }
            }
            flush(&mut o, &run);
        }
    }
    let axis = height - 20.0;
    for k in 0..=4 {
        let t = end * f64::from(k) / 4.0;
        let _ = writeln!(
            o,
            "<text x=\"{:.1}\" y=\"{axis:.1}\" text-anchor=\"middle\">{t:.2} us</text>",
            x(t)
        );
    }
    o.push_str("</svg>\n");
    Ok(o)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: &str = "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"kernel\":\"k\"},\"traceEvents\":[\n\
{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"k core 0\"}},\n\
{\"ph\":\"X\",\"name\":\"DataCopy\",\"cat\":\"MTE2\",\"pid\":0,\"tid\":2,\"ts\":0.0000,\"dur\":0.5000,\"args\":{\"block\":0,\"instructions\":1,\"bytes\":1024}},\n\
{\"ph\":\"X\",\"name\":\"Muls\",\"cat\":\"V\",\"pid\":1,\"tid\":1,\"ts\":0.5000,\"dur\":0.0200,\"args\":{\"block\":1,\"instructions\":4,\"bytes\":2048}}\n]}\n";

    #[test]
    fn reads_the_instructions() {
        let s = slices(ONE);
        assert_eq!(s.len(), 2);
        assert_eq!(s[1].name, "Muls");
        assert_eq!(s[1].pipe, "V");
        assert_eq!(s[1].pid, 1);
        assert!((s[1].ts - 0.5).abs() < 1e-12 && (s[1].dur - 0.02).abs() < 1e-12);
    }

    #[test]
    fn merging_shifts_later_launches() {
        let dir = std::env::temp_dir().join(format!("af-trace-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("a.json");
        std::fs::write(&f, ONE).unwrap();
        let parts = [
            LaunchTrace {
                kernel: "a".into(),
                file: f.clone(),
                micros: 2.0,
            },
            LaunchTrace {
                kernel: "b".into(),
                file: f,
                micros: 2.0,
            },
        ];
        let merged = merge(&parts).unwrap();
        let s = slices(&merged);
        assert_eq!(s.len(), 4);
        // The second launch starts after the first's 2 us, on processes 1000+.
        assert_eq!(s[2].pid, 1000);
        assert!((s[3].ts - 2.5).abs() < 1e-9, "{}", s[3].ts);
        assert!(merged.contains("\"pid\":1000,\"args\":{\"name\":\"k core 0\"}"));
        let picture = svg(&merged, "t", 2).unwrap();
        assert_eq!(
            picture.matches("<rect x=").count(),
            2,
            "only cores 0 and 1 are drawn"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
