//! Generated kernels on both models of Ascend C: the CPU emulation (`sim/include`) and the
//! vendor's API implementation (the CANN headers) over autofuse's ISA model
//! (`sim/vendor`). Every run is compared with the Ascend IR interpreter and the two paths
//! with each other.
//!
//! The headers are `$AUTOFUSE_VENDOR_HEADERS` or `../shared/vendor/cann-8.1.RC1` next to
//! the repository (where CI has them); without them these tests say so and pass.

use autofuse::runner::execute::compare;
use autofuse::runner::vendor::{self, VendorHeaders};
use autofuse::runner::{self as run, PreparedKernel, PreparedModule, RunOptions, SimBuild};
use autofuse_ir::tensor::Tensor;
use std::collections::HashMap;
use std::path::PathBuf;

/// The headers: `$AUTOFUSE_VENDOR_HEADERS` must hold them when set; the default place
/// may be absent (the test then says so and passes).
fn headers() -> Option<VendorHeaders> {
    let repo = run::repo_root();
    if let Some(root) = std::env::var(vendor::ENV).ok().filter(|s| !s.is_empty()) {
        let found = VendorHeaders::locate(&PathBuf::from(root), &repo);
        return Some(found.unwrap_or_else(|e| panic!("{e}")));
    }
    let root = repo
        .join("..")
        .join("shared")
        .join("vendor")
        .join("cann-8.1.RC1");
    match VendorHeaders::locate(&root, &repo) {
        Ok(h) => Some(h),
        Err(e) => {
            eprintln!("vendor headers not found, test skipped: {e}");
            None
        }
    }
}

/// Every difference of `actual` from `expected` (dtype-aware tolerance), as text.
fn differences(expected: &[Tensor], actual: &[Tensor], what: &str) -> Vec<String> {
    if expected.len() != actual.len() {
        return vec![format!(
            "{what}: {} outputs, expected {}",
            actual.len(),
            expected.len()
        )];
    }
    expected
        .iter()
        .zip(actual)
        .enumerate()
        .filter_map(|(i, (e, a))| {
            compare(e, a)
                .err()
                .map(|why| format!("{what}: output {i}: {why}"))
        })
        .collect()
}

/// Builds the kernels of `modules` on both paths, `batch` kernels per driver.
fn build_both(
    modules: &[&PreparedModule],
    options: &RunOptions,
    headers: &VendorHeaders,
    batch: usize,
    failures: &mut Vec<String>,
) -> (HashMap<String, SimBuild>, HashMap<String, SimBuild>) {
    let mut unique: HashMap<String, &PreparedKernel> = HashMap::new();
    for m in modules {
        for k in m.kernels.values() {
            unique.entry(k.symbol.clone()).or_insert(k);
        }
    }
    let mut all: Vec<&PreparedKernel> = unique.values().copied().collect();
    all.sort_by(|a, b| a.symbol.cmp(&b.symbol));
    let batches: Vec<Vec<&PreparedKernel>> = all.chunks(batch).map(|c| c.to_vec()).collect();
    let tc = vendor::toolchain(headers);
    // Two threads: the sim builds on one, the vendor builds on the other.
    let (sim, ven) = std::thread::scope(|scope| {
        let s = scope.spawn(|| {
            batches
                .iter()
                .map(|b| run::build(b, options))
                .collect::<Vec<_>>()
        });
        let v = scope.spawn(|| {
            batches
                .iter()
                .map(|b| run::build_with(b, options, &tc))
                .collect::<Vec<_>>()
        });
        (
            s.join().expect("sim builds"),
            v.join().expect("vendor builds"),
        )
    });
    let mut maps = (HashMap::new(), HashMap::new());
    for (batch, (s, v)) in batches.iter().zip(sim.into_iter().zip(ven)) {
        for (map, result, what) in [(&mut maps.0, s, "sim"), (&mut maps.1, v, "vendor")] {
            match result {
                Ok(b) => {
                    for k in batch {
                        map.insert(k.symbol.clone(), b.clone());
                    }
                }
                Err(e) => failures.push(format!("{what} build failed: {e}")),
            }
        }
    }
    // Launches of several loop groups: one build of all of them per path.
    let mut launches: Vec<&run::PreparedLaunch> =
        modules.iter().flat_map(|m| m.launches.values()).collect();
    launches.sort_by(|a, b| a.symbol.cmp(&b.symbol));
    launches.dedup_by(|a, b| a.symbol == b.symbol);
    if !launches.is_empty() {
        for (map, toolchain, what) in [
            (&mut maps.0, run::Toolchain::sim(options), "sim"),
            (&mut maps.1, vendor::toolchain(headers), "vendor"),
        ] {
            match run::build_set(&[], &launches, options, &toolchain) {
                Ok(b) => {
                    for l in &launches {
                        map.insert(l.symbol.clone(), b.clone());
                    }
                }
                Err(e) => failures.push(format!("{what} build of the launches failed: {e}")),
            }
        }
    }
    maps
}

/// Runs `entry` of `module` on both paths and the interpreter; the failures, labelled.
fn run_both(
    module: &PreparedModule,
    builds: &(HashMap<String, SimBuild>, HashMap<String, SimBuild>),
    entry: &str,
    inputs: &[Tensor],
    label: &str,
) -> (Vec<String>, usize) {
    let expected = match module.reference.run(entry, inputs) {
        Ok(e) => e,
        Err(e) => return (vec![format!("{label}: reference failed: {e}")], 0),
    };
    let sim = run::execute(module, &builds.0, entry, inputs);
    let ven = run::execute(module, &builds.1, entry, inputs);
    let mut out = Vec::new();
    let mut launches = 0;
    match (&sim, &ven) {
        (Ok(s), Ok(v)) => {
            launches = v.launches.len();
            out.extend(differences(&expected, &s.outputs, "sim vs interpreter"));
            out.extend(differences(&expected, &v.outputs, "vendor vs interpreter"));
            out.extend(differences(&s.outputs, &v.outputs, "vendor vs sim"));
        }
        (Err(e), _) => out.push(format!("sim: {e}")),
        (_, Err(e)) => out.push(format!("vendor: {e}")),
    }
    (
        out.into_iter().map(|f| format!("{label}: {f}")).collect(),
        launches,
    )
}

fn assert_no_failures(failures: &[String]) {
    for f in failures {
        eprintln!("FAILURE {f}");
    }
    assert!(
        failures.is_empty(),
        "{} failures; first:\n{}",
        failures.len(),
        failures.first().map(String::as_str).unwrap_or("")
    );
}

/// The bundled examples (`examples/*.mlir`, `examples/layout/*.mlir`), every input
/// symbol 3 and then 37, on both paths.
#[test]
fn vendor_path_bundled_examples() {
    use autofuse_ir::graph::Dim;
    let Some(headers) = headers() else { return };
    let repo = run::repo_root();
    let context = autofuse_mlir::context::create_context();
    let options = RunOptions::new(&repo);
    let mut failures = Vec::new();
    let mut paths = Vec::new();
    for dir in ["examples", "examples/layout"] {
        for e in std::fs::read_dir(repo.join(dir))
            .expect("examples")
            .flatten()
        {
            if e.path().extension().is_some_and(|x| x == "mlir") {
                paths.push(e.path());
            }
        }
    }
    paths.sort();
    let mut modules = Vec::new();
    for p in &paths {
        let text = std::fs::read_to_string(p).expect("readable example");
        match run::prepare_module(&context, &text, &p.display().to_string(), &options) {
            Ok(m) => modules.push((p.display().to_string(), m)),
            Err(e) => failures.push(format!("{}: {e}", p.display())),
        }
    }
    let refs: Vec<&PreparedModule> = modules.iter().map(|(_, m)| m).collect();
    let builds = build_both(&refs, &options, &headers, 16, &mut failures);
    let mut launched = 0;
    for (name, module) in &modules {
        let entry = module
            .reference
            .default_entry()
            .expect("an entry")
            .to_string();
        let graph = &module.reference.graphs[&entry];
        for value in [3i64, 37] {
            let mut symbols = HashMap::new();
            for &arg in &graph.arguments {
                for d in graph.ty(arg).map(|t| t.dims.clone()).unwrap_or_default() {
                    if let Dim::Known(e) = d {
                        for s in e.symbols() {
                            symbols.entry(s).or_insert(value);
                        }
                    }
                }
            }
            module.complete_symbols(&entry, &mut symbols);
            let types = autofuse::runner::execute::argument_types(graph).expect("types");
            let inputs =
                autofuse::runner::execute::random_tensors(&types, &symbols, 17).expect("inputs");
            let (f, n) = run_both(
                module,
                &builds,
                &entry,
                &inputs,
                &format!("{name} s={value}"),
            );
            failures.extend(f);
            launched += n;
        }
    }
    eprintln!(
        "vendor path: {} examples, {launched} kernel launches on both paths",
        modules.len()
    );
    assert_no_failures(&failures);
    assert!(
        launched >= paths.len(),
        "every example should launch kernels"
    );
}

/// A sample of the random graphs of the emulation test (`AUTOFUSE_VENDOR_CASES` graphs,
/// 40 by default, from seed `AUTOFUSE_VENDOR_FIRST_SEED`), odd seeds on a small UB and 4
/// cores, three shapes each, on both paths.
#[test]
fn vendor_path_random_graphs() {
    use autofuse::randgraph;
    let Some(headers) = headers() else { return };
    let env_u64 = |name: &str, default: u64| -> u64 {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let cases = env_u64("AUTOFUSE_VENDOR_CASES", 40);
    let first = env_u64("AUTOFUSE_VENDOR_FIRST_SEED", 0);
    let repo = run::repo_root();
    let context = autofuse_mlir::context::create_context();
    let mut failures = Vec::new();
    let mut prepared = Vec::new();
    for seed in first..first + cases {
        let graph = randgraph::generate(seed, 6);
        let mut options = RunOptions::new(&repo);
        if seed % 2 == 1 {
            options.ub_bytes = 12288;
            options.cores = 4;
        }
        match run::prepare_module(&context, &graph.text, "<random>", &options) {
            Ok(m) => prepared.push((seed, graph, m)),
            Err(e) => failures.push(format!("seed {seed}: prepare failed: {e}")),
        }
    }
    let refs: Vec<&PreparedModule> = prepared.iter().map(|(_, _, m)| m).collect();
    let builds = build_both(&refs, &RunOptions::new(&repo), &headers, 32, &mut failures);
    eprintln!(
        "kernels {} sim builds {} vendor builds {}",
        refs.iter().map(|m| m.kernels.len()).sum::<usize>(),
        builds.0.len(),
        builds.1.len()
    );
    let mut launched = 0;
    for (seed, graph, module) in &prepared {
        for trial in 0..3u64 {
            let symbols = graph.trial_symbols(*seed, trial);
            let inputs = graph
                .random_inputs(&symbols, seed * 1000 + trial)
                .expect("inputs");
            let (f, n) = run_both(
                module,
                &builds,
                "main",
                &inputs,
                &format!("seed {seed} trial {trial}"),
            );
            failures.extend(f.into_iter().map(|f| format!("{f}\n{}", graph.text)));
            launched += n;
        }
    }
    eprintln!(
        "vendor path: {} random graphs, {launched} kernel launches on both paths",
        prepared.len()
    );
    assert_no_failures(&failures);
    assert!(
        launched as u64 > cases,
        "most random kernels should run ({launched} launches)"
    );
}

/// The compile check names kernel, line and API of a wrong API call: softmax's kernel
/// with its `Exp(dst, src, count)` given a fourth argument no Exp overload takes.
#[test]
fn vendor_compile_check_names_kernel_line_and_api() {
    let Some(headers) = headers() else { return };
    let repo = run::repo_root();
    let context = autofuse_mlir::context::create_context();
    let options = RunOptions::new(&repo);
    let text = std::fs::read_to_string(repo.join("examples/softmax.mlir")).expect("example");
    let module = run::prepare_module(&context, &text, "softmax.mlir", &options).expect("prepares");
    let kernel = module.kernels.values().next().expect("one kernel");
    // The unchanged kernel passes.
    assert_eq!(vendor::check_kernels(&[kernel], &options, &headers), Ok(1));
    let mut broken = kernel.clone();
    let file = format!("{}.cpp", broken.symbol);
    let (_, source) = broken
        .sources
        .files
        .iter_mut()
        .find(|(n, _)| *n == file)
        .expect("the kernel source");
    let at = source.find("Exp(").expect("softmax calls Exp");
    let close = at + source[at..].find(");").expect("the call ends");
    source.insert_str(close, ", 7, 7");
    let line = source[..at].lines().count() as u32;
    let err = vendor::check_kernels(&[&broken], &options, &headers).expect_err("a wrong signature");
    assert_eq!(err.kernel, kernel.name);
    assert_eq!(err.line, line, "{err}");
    assert_eq!(err.api, "Exp", "{err}");
    assert!(err.message.contains("no matching function"), "{err}");
    // The driver build fails on the same source.
    assert!(run::build_with(&[&broken], &options, &vendor::toolchain(&headers)).is_err());
}
