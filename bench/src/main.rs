//! `autofuse-bench`: the benchmark suite of autofuse.
//!
//! `autofuse-bench compile-speed` generates graphs of 10 to 50,000 ops (chains, wide fans,
//! transformer-like stacks with matmul boundaries), runs the full registered pipeline of
//! `autofuse-opt` on each (as a child process, so peak memory is the compiler's), reads
//! per-pass times from `--mlir-timing`, fits the growth exponent, and writes a Markdown
//! table and an SVG plot into `docs/benchmarks/`. Figures are measured in one run on the
//! machine at hand; ratios between rows are what to compare.

mod graphs;
mod kernel_quality;
mod quality;
mod real_models;

/// The tools' allocator (`tools/src/lib.rs`): compile-speed figures measure the
/// compiler as the tools run it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

struct Options {
    opt: PathBuf,
    out: PathBuf,
    sizes: Vec<usize>,
    /// Sizes of the concat families (`None`: 100, 200, 400, 700, 1000).
    concat_sizes: Option<Vec<usize>>,
}

fn parse_args() -> Result<(String, Options), String> {
    let mut args = std::env::args().skip(1);
    let command = args.next().unwrap_or_else(|| "compile-speed".to_string());
    let mut options = Options {
        opt: PathBuf::from("target/release/autofuse-opt"),
        out: PathBuf::from("docs/benchmarks"),
        sizes: vec![10, 100, 1_000, 10_000, 50_000],
        concat_sizes: None,
    };
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--opt" => options.opt = PathBuf::from(value()?),
            "--out" => options.out = PathBuf::from(value()?),
            "--sizes" => {
                options.sizes = value()?
                    .split(',')
                    .map(|s| s.trim().parse().map_err(|_| format!("bad size '{s}'")))
                    .collect::<Result<_, _>>()?
            }
            "--concat-sizes" => {
                options.concat_sizes = Some(
                    value()?
                        .split(',')
                        .map(|s| s.trim().parse().map_err(|_| format!("bad size '{s}'")))
                        .collect::<Result<_, _>>()?,
                )
            }
            "--help" | "-h" => return Err(
                "usage: autofuse-bench compile-speed [--opt PATH] [--out DIR] [--sizes 10,100,...] [--concat-sizes 100,300,...]"
                    .into(),
            ),
            other => return Err(format!("unknown argument '{other}'")),
        }
    }
    Ok((command, options))
}

/// The registered autofuse passes in pipeline order (those `--list-passes` shows).
fn pipeline(opt: &Path) -> Result<Vec<String>, String> {
    let out = Command::new(opt)
        .arg("--list-passes")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", opt.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let wanted = [
        "infer-symbolic-shapes",
        "decompose",
        "lower-to-ascir",
        "fuse",
        "schedule",
        "auto-tiling",
    ];
    Ok(wanted
        .iter()
        .filter(|p| {
            text.lines()
                .any(|l| l.trim_start().starts_with(&format!("--{p} ")))
        })
        .map(|p| p.to_string())
        .collect())
}

struct Measure {
    family: &'static str,
    ops: usize,
    seconds: f64,
    peak_mb: f64,
    passes: Vec<(String, f64)>,
}

fn run_one(
    opt: &Path,
    family: &'static str,
    text: &str,
    passes: &[String],
    dir: &Path,
) -> Result<Measure, String> {
    let ops = graphs::count_ops(text);
    let input = dir.join(format!("{family}_{ops}.mlir"));
    std::fs::write(&input, text).map_err(|e| e.to_string())?;
    let pipeline = format!("builtin.module({})", passes.join(","));
    let log = dir.join(format!("{family}_{ops}.log"));
    // Peak memory: poll the child's high-water mark (VmHWM) while it runs; no libc
    // dependency, and the last reading before exit is the peak.
    let start = Instant::now();
    let mut child = Command::new(opt)
        .arg(&input)
        .arg(format!("--pass-pipeline={pipeline}"))
        .arg("--mlir-timing")
        .arg("-o")
        .arg("/dev/null")
        // A file, not a pipe: remarks can exceed a pipe's buffer and block the child.
        .stderr(std::fs::File::create(&log).map_err(|e| e.to_string())?)
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", opt.display()))?;
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak_kb = 0.0f64;
    loop {
        if let Ok(status) = std::fs::read_to_string(&status_path) {
            if let Some(line) = status.lines().find(|l| l.starts_with("VmHWM:")) {
                let kb: f64 = line
                    .split_whitespace()
                    .nth(1)
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0.0);
                peak_kb = peak_kb.max(kb);
            }
        }
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(2)),
            Err(e) => return Err(e.to_string()),
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let status = child.wait().map_err(|e| e.to_string())?;
    let stderr = std::fs::read_to_string(&log).unwrap_or_default();
    if !status.success() {
        return Err(format!(
            "{family} with {ops} ops failed:\n{}",
            stderr.lines().take(5).collect::<Vec<_>>().join("\n")
        ));
    }
    let mut pass_times = Vec::new();
    for line in stderr.lines() {
        // "    0.0003 (  3.0%)  infer-symbolic-shapes"
        let trimmed = line.trim();
        if let Some((time, rest)) = trimmed.split_once(' ') {
            if let (Ok(t), Some(name)) = (time.parse::<f64>(), rest.split(')').nth(1)) {
                let name = name.trim();
                if passes.iter().any(|p| p == name) {
                    pass_times.push((name.to_string(), t));
                }
            }
        }
    }
    Ok(Measure {
        family,
        ops,
        seconds,
        peak_mb: peak_kb / 1024.0,
        passes: pass_times,
    })
}

/// Least-squares slope of log(time) over log(ops): 1 is linear, 2 quadratic.
fn growth_exponent(points: &[(usize, f64)]) -> Option<f64> {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .filter(|(n, t)| *n >= 100 && *t > 0.0)
        .map(|(n, t)| ((*n as f64).ln(), t.ln()))
        .collect();
    if pts.len() < 2 {
        return None;
    }
    let n = pts.len() as f64;
    let (sx, sy) = pts.iter().fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
    let (mx, my) = (sx / n, sy / n);
    let cov: f64 = pts.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    let var: f64 = pts.iter().map(|(x, _)| (x - mx) * (x - mx)).sum();
    (var > 0.0).then(|| cov / var)
}

fn svg_plot(measures: &[Measure]) -> String {
    let (w, h, m) = (640.0, 400.0, 60.0);
    let xs: Vec<f64> = measures
        .iter()
        .map(|r| (r.ops.max(1) as f64).log10())
        .collect();
    let ys: Vec<f64> = measures
        .iter()
        .map(|r| r.seconds.max(1e-4).log10())
        .collect();
    let (x0, x1) = (
        xs.iter().cloned().fold(f64::MAX, f64::min),
        xs.iter().cloned().fold(f64::MIN, f64::max),
    );
    let (y0, y1) = (
        ys.iter().cloned().fold(f64::MAX, f64::min),
        ys.iter().cloned().fold(f64::MIN, f64::max),
    );
    let sx = |x: f64| m + (x - x0) / (x1 - x0).max(1e-9) * (w - 2.0 * m);
    let sy = |y: f64| h - m - (y - y0) / (y1 - y0).max(1e-9) * (h - 2.0 * m);
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"20\" text-anchor=\"middle\">autofuse full pipeline: wall time vs graph size (log-log)</text>\n\
         <line x1=\"{m}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n<line x1=\"{m}\" y1=\"{m}\" x2=\"{m}\" y2=\"{}\" stroke=\"black\"/>\n\
         <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">ops (10^{x0:.0} .. 10^{x1:.1})</text>\n\
         <text x=\"15\" y=\"{}\" transform=\"rotate(-90 15 {})\" text-anchor=\"middle\">seconds (10^{y0:.1} .. 10^{y1:.1})</text>\n",
        w / 2.0,
        h - m,
        w - m,
        h - m,
        h - m,
        w / 2.0,
        h - 20.0,
        h / 2.0,
        h / 2.0
    );
    let colors = [
        ("chain", "#1f77b4"),
        ("fan", "#d62728"),
        ("transformer", "#2ca02c"),
        ("concat-chain", "#9467bd"),
        ("concat-fan", "#ff7f0e"),
    ];
    for (i, (family, color)) in colors.iter().enumerate() {
        let pts: Vec<String> = measures
            .iter()
            .zip(xs.iter().zip(&ys))
            .filter(|(r, _)| r.family == *family)
            .map(|(_, (x, y))| format!("{:.1},{:.1}", sx(*x), sy(*y)))
            .collect();
        let _ = writeln!(
            out,
            "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\" points=\"{}\"/>",
            pts.join(" ")
        );
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" fill=\"{color}\">{family}</text>",
            w - m - 80.0,
            m + 16.0 * i as f64
        );
    }
    out.push_str("</svg>\n");
    out
}

fn compile_speed(options: &Options) -> Result<(), String> {
    let passes = pipeline(&options.opt)?;
    let dir = std::env::temp_dir().join("autofuse-bench");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let mut measures = Vec::new();
    type Generator = fn(usize) -> String;
    // Concats over distinct symbols (issue 38, class 8): every size is a sum of symbols,
    // so the IR itself grows as ops^2 (docs/reliability.md, section 8); they run at their
    // own, smaller sizes.
    let concat_sizes: Vec<usize> = options
        .concat_sizes
        .clone()
        .unwrap_or_else(|| vec![100, 200, 400, 700, 1000]);
    let families: [(&'static str, Generator, &[usize]); 5] = [
        ("chain", graphs::chain, &options.sizes),
        ("fan", graphs::fan, &options.sizes),
        ("transformer", graphs::transformer, &options.sizes),
        ("concat-chain", graphs::concat_chain, &concat_sizes),
        ("concat-fan", graphs::concat_fan, &concat_sizes),
    ];
    for (family, generate, sizes) in families {
        for &size in sizes {
            let m = run_one(&options.opt, family, &generate(size), &passes, &dir)?;
            eprintln!(
                "{family:<12} {:>6} ops  {:>8.3} s  {:>7.1} MB",
                m.ops, m.seconds, m.peak_mb
            );
            measures.push(m);
        }
    }
    let mut md = String::new();
    let _ = writeln!(md, "# Compile speed and scaling\n");
    let _ = writeln!(
        md,
        "Generated by `bench/run.sh` (`autofuse-bench compile-speed`); one run on this machine.\n"
    );
    let _ = writeln!(
        md,
        "Pipeline: `{}` (release build of `autofuse-opt`, a child process per graph).\n",
        passes.join(",")
    );
    let mut header = String::from("| graph | ops | wall s | peak MB |");
    let mut rule = String::from("|---|---:|---:|---:|");
    for p in &passes {
        header.push_str(&format!(" {p} s |"));
        rule.push_str("---:|");
    }
    let _ = writeln!(md, "{header}\n{rule}");
    for m in &measures {
        let mut row = format!(
            "| {} | {} | {:.3} | {:.1} |",
            m.family, m.ops, m.seconds, m.peak_mb
        );
        for p in &passes {
            let t = m
                .passes
                .iter()
                .find(|(n, _)| n == p)
                .map(|(_, t)| format!("{t:.3}"))
                .unwrap_or_else(|| "-".into());
            row.push_str(&format!(" {t} |"));
        }
        let _ = writeln!(md, "{row}");
    }
    let _ = writeln!(
        md,
        "\n## Growth exponents (slope of log time over log ops, sizes >= 100; 1.0 = linear)\n"
    );
    let _ = writeln!(md, "| graph | exponent |\n|---|---:|");
    for family in ["chain", "fan", "transformer", "concat-chain", "concat-fan"] {
        let pts: Vec<(usize, f64)> = measures
            .iter()
            .filter(|m| m.family == family)
            .map(|m| (m.ops, m.seconds))
            .collect();
        let e = growth_exponent(&pts)
            .map(|e| format!("{e:.2}"))
            .unwrap_or_else(|| "-".into());
        let _ = writeln!(md, "| {family} | {e} |");
    }
    if let Some(big) = measures
        .iter()
        .filter(|m| m.family == "chain")
        .find(|m| m.ops >= 10_000)
    {
        let verdict = if big.seconds < 2.0 { "met" } else { "MISSED" };
        let _ = writeln!(
            md,
            "\nTarget: full pipeline on a 10,000-op chain under 2 s: {:.3} s, {verdict}.",
            big.seconds
        );
    }
    let _ = writeln!(md, "\n![wall time vs ops](compile_speed.svg)");
    // The reasons behind the figures are written by hand and kept next to the bench, so
    // that regenerating the table does not lose them.
    let findings = concat!(env!("CARGO_MANIFEST_DIR"), "/findings/compile_speed.md");
    if let Ok(text) = std::fs::read_to_string(findings) {
        let _ = writeln!(md, "\n{}", text.trim_end());
    }
    std::fs::create_dir_all(&options.out).map_err(|e| e.to_string())?;
    std::fs::write(options.out.join("compile_speed.md"), md).map_err(|e| e.to_string())?;
    std::fs::write(options.out.join("compile_speed.svg"), svg_plot(&measures))
        .map_err(|e| e.to_string())?;
    Ok(())
}

/// `autofuse-bench emit <chain|fan|transformer|concat-chain|concat-fan> <ops>`: prints one generated graph, to
/// profile or reproduce a compile-speed row outside the benchmark.
fn emit(mut args: impl Iterator<Item = String>) -> Result<(), String> {
    let usage = "usage: autofuse-bench emit <chain|fan|transformer|concat-chain|concat-fan> <ops>";
    let family = args.next().ok_or(usage)?;
    let ops: usize = args.next().and_then(|n| n.parse().ok()).ok_or(usage)?;
    let text = match family.as_str() {
        "chain" => graphs::chain(ops),
        "fan" => graphs::fan(ops),
        "concat-chain" => graphs::concat_chain(ops),
        "concat-fan" => graphs::concat_fan(ops),
        "transformer" => graphs::transformer(ops),
        _ => return Err(usage.into()),
    };
    print!("{text}");
    Ok(())
}

fn main() {
    let result = match std::env::args().nth(1).as_deref() {
        // Subcommands with their own arguments.
        Some("kernel-quality") => kernel_quality::run(std::env::args().skip(2)),
        Some("fusion-quality") => quality::run(std::env::args().skip(2)),
        Some("real-models") => real_models::run(std::env::args().skip(2)),
        Some("emit") => emit(std::env::args().skip(2)),
        _ => parse_args().and_then(|(command, options)| match command.as_str() {
            "compile-speed" => compile_speed(&options),
            other => Err(format!(
                "unknown benchmark '{other}' (available: compile-speed, kernel-quality, fusion-quality, real-models, emit)"
            )),
        }),
    };
    if let Err(message) = result {
        eprintln!("autofuse-bench: {message}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn growth_exponent_of_linear_and_quadratic_series() {
        let linear: Vec<(usize, f64)> = [100, 1000, 10000]
            .iter()
            .map(|&n| (n, n as f64 * 1e-4))
            .collect();
        let quadratic: Vec<(usize, f64)> = [100, 1000, 10000]
            .iter()
            .map(|&n| (n, (n * n) as f64 * 1e-8))
            .collect();
        assert!((growth_exponent(&linear).unwrap() - 1.0).abs() < 1e-9);
        assert!((growth_exponent(&quadratic).unwrap() - 2.0).abs() < 1e-9);
    }

    #[test]
    fn generators_make_the_requested_sizes() {
        assert_eq!(graphs::count_ops(&graphs::chain(100)), 100);
        assert!(graphs::count_ops(&graphs::fan(100)) >= 99);
        assert!(graphs::count_ops(&graphs::transformer(100)) >= 40);
        assert_eq!(graphs::count_ops(&graphs::concat_chain(100)), 100);
        assert_eq!(graphs::count_ops(&graphs::concat_fan(100)), 100);
    }
}
