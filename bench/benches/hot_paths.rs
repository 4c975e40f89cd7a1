//! Criterion micro-benchmarks of the compiler's hot paths:
//!
//! - `symbolic/*`: building and canonicalizing typical shape and buffer-size
//!   expressions (`Expr` operators, `Expr::parse_uncached`: the parser itself, not its memo), and `ShapeEnv::simplify` /
//!   `static_check` under asserted guards;
//! - `fusion/*`: GE's greedy fusion solver (`autofuse_passes::fuse::fusion::plan`, what `--fuse`
//!   calls per graph function) on a lowered transformer-like graph of a few hundred
//!   kernels, and the whole `fuse` pass on the same module;
//! - `tiling/*`: `solver::solve` on the fused layer-norm and RMS-norm kernels of
//!   `examples/` at several batch sizes.
//!
//! Run: `cargo bench -p autofuse-bench --bench hot_paths` (add `-- --quick` for a short
//! run). Inputs are built once outside the measured loops.

#[allow(dead_code)]
#[path = "../src/graphs.rs"]
mod graphs;

/// The tools' allocator, as the figures of the tools and of `autofuse-bench` use it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use autofuse::runner::execute::{run_pipeline, Program};
use autofuse::runner::{self as run, RunOptions};
use autofuse_mlir::context::create_context;
use autofuse_mlir::extract;
use autofuse_passes::auto_tiling::solver;
use autofuse_passes::fuse::fusion::{self, FuncModel, Limits};
use autofuse_symbolic::{Expr, Relation, ShapeEnv, SymbolInfo};
use autofuse_tiling::tiling::TilingModel;
use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use std::collections::HashMap;
use std::hint::black_box;
use std::time::Duration;

const LAYER_NORM: &str = include_str!("../../examples/layer_norm.mlir");
const RMS_NORM: &str = include_str!("../../examples/rms_norm.mlir");

/// Shape expressions of the kind the schedule and the tiling model produce.
const EXPRESSIONS: &[&str] = &[
    "ceil(s1/z1t_size)*z1t_size",
    "(s0+1)*2 - 2*s0",
    "floor((4*s0)/2)",
    "align(z0t_size*4, 32)*2 + align(s1*4, 256)",
    "max(s0*s1*4, 256*ceil(s0*s1/64))",
    "ceil(s0*768/ceil(48/s0))",
    "s0*s1*s2 + s1*s0*s2 - 2*s2*s1*s0 + 8",
    "min(z0t_size, s0 - z0T*z0t_size)*4096*2",
];

fn buffer_bytes(tile: &Expr, row: &Expr) -> Expr {
    // Double-buffered input queue of a tile of rows padded to 32 bytes, rounded to 256.
    let padded = (row.clone() * Expr::constant(4)).align(&Expr::constant(32));
    let bytes = (tile.clone() * padded).align(&Expr::constant(256));
    let work = row.ceil_div(&Expr::constant(64)) * Expr::constant(256);
    Expr::max_of([bytes.clone() * Expr::constant(2), work, bytes]).unwrap_or(Expr::constant(0))
}

fn symbolic(c: &mut Criterion) {
    let mut group = c.benchmark_group("symbolic");
    group.bench_function("parse_canonicalize", |b| {
        b.iter(|| {
            for text in EXPRESSIONS {
                let e = Expr::parse_uncached(black_box(text)).ok();
                black_box(e);
            }
        })
    });
    let tile = Expr::symbol("z0t_size");
    let row = Expr::symbol("s1");
    group.bench_function("build_buffer_bytes", |b| {
        b.iter(|| black_box(buffer_bytes(black_box(&tile), black_box(&row))))
    });
    let parsed: Vec<Expr> = EXPRESSIONS
        .iter()
        .filter_map(|t| Expr::parse(t).ok())
        .collect();
    group.bench_function("print_and_reparse", |b| {
        b.iter(|| {
            for e in &parsed {
                black_box(Expr::parse_uncached(&e.to_string()).ok());
            }
        })
    });
    let mut env = ShapeEnv::new();
    for s in ["s0", "s1", "s2", "s3"] {
        env.declare(SymbolInfo::new(s).with_hint(128));
    }
    let eq = |a: &str, b: &str| (Expr::symbol(a), Expr::symbol(b));
    for (a, b) in [eq("s2", "s0"), eq("s3", "s1")] {
        let _ = env.assert_rel(&a, Relation::Eq, &b);
    }
    let with_aliases: Vec<Expr> = [
        "s2*s3*4 - s0*s1*4 + s2",
        "ceil(s2*s3/48)*s3",
        "max(s0*s3, s2*s1) + floor(s2*8/4)",
        "align(s3*2, 32)*s2",
    ]
    .iter()
    .filter_map(|t| Expr::parse(t).ok())
    .collect();
    group.bench_function("shape_env_simplify", |b| {
        b.iter(|| {
            for e in &with_aliases {
                black_box(env.simplify(black_box(e)));
            }
        })
    });
    let lhs = Expr::parse("s2*s3*4").ok();
    let rhs = Expr::parse("s0*s1*4 + 1").ok();
    if let (Some(lhs), Some(rhs)) = (lhs, rhs) {
        group.bench_function("shape_env_static_check", |b| {
            b.iter(|| black_box(env.static_check(&lhs, Relation::Lt, &rhs)))
        });
    }
    group.finish();
}

/// The lowered transformer-like graph (`graphs::transformer`), its `main` as the
/// fusion planner's model, and the shape environment the `fuse` pass would build.
struct FusionInput {
    lowered_text: String,
    model: FuncModel,
    env: ShapeEnv,
}

fn fusion_input(ops: usize) -> Result<FusionInput, String> {
    let context = create_context();
    let text = graphs::transformer(ops);
    let mut module = autofuse_mlir::parse::parse_module(&context, text.as_bytes(), "bench")
        .ok_or("the generated graph does not parse")?;
    run_pipeline(
        &mut module,
        "infer-symbolic-shapes,decompose,lower-to-ascir",
    )?;
    let lowered_text = module.as_operation().to_string();
    let program = Program::from_module(module.body())?;
    let graph = program.graphs.get("main").ok_or("no @main")?;
    let model = autofuse_passes::fuse::model_of(graph, &program.kernels);
    let main = extract::functions(module.body())
        .into_iter()
        .find(|f| extract::function_name(f) == "main")
        .ok_or("no @main")?;
    let env = autofuse_passes::fuse::shape_env(&main, &model, &graph.derived);
    Ok(FusionInput {
        lowered_text,
        model,
        env,
    })
}

fn fusion(c: &mut Criterion) {
    let mut group = c.benchmark_group("fusion");
    for ops in [100usize, 400] {
        let input = match fusion_input(ops) {
            Ok(i) => i,
            Err(e) => {
                eprintln!("fusion/{ops}: skipped: {e}");
                continue;
            }
        };
        let kernels = input
            .model
            .units
            .iter()
            .filter(|u| u.kernel.is_some())
            .count();
        let limits = Limits::default();
        let after = fusion::plan(&input.model, &limits, &mut input.env.clone(), &mut 0).kernels;
        eprintln!("fusion: {kernels} kernels fuse into {}", after.len());
        group.bench_with_input(
            BenchmarkId::new("plan", format!("{kernels}_kernels")),
            &input,
            |b, input| {
                b.iter(|| {
                    let mut env = input.env.clone();
                    let mut fresh = 0usize;
                    black_box(fusion::plan(&input.model, &limits, &mut env, &mut fresh))
                })
            },
        );
        let context = create_context();
        group.bench_with_input(
            BenchmarkId::new("fuse_pass", format!("{kernels}_kernels")),
            &input,
            |b, input| {
                b.iter_batched(
                    || {
                        autofuse_mlir::parse::parse_module(
                            &context,
                            input.lowered_text.as_bytes(),
                            "bench",
                        )
                    },
                    |module| {
                        if let Some(mut module) = module {
                            black_box(run_pipeline(&mut module, "fuse{remarks=false}").is_ok());
                        }
                    },
                    BatchSize::PerIteration,
                )
            },
        );
    }
    group.finish();
}

/// The tiling model of the (single) fused kernel of `text`.
fn kernel_model(
    text: &str,
    name: &str,
) -> Result<(TilingModel, autofuse_ascir::chip::ChipProfile), String> {
    let context = create_context();
    let options = RunOptions::new(&run::repo_root());
    let module = run::prepare_module(&context, text, name, &options)?;
    let mut kernels: Vec<_> = module.kernels.into_values().collect();
    kernels.sort_by(|a, b| a.name.cmp(&b.name));
    let k = kernels
        .into_iter()
        .next()
        .ok_or_else(|| format!("{name}: no scheduled kernel"))?;
    Ok((k.model, k.chip))
}

fn tiling(c: &mut Criterion) {
    let mut group = c.benchmark_group("tiling");
    for (label, text) in [("layer_norm", LAYER_NORM), ("rms_norm", RMS_NORM)] {
        let (model, chip) = match kernel_model(text, label) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("tiling/{label}: skipped: {e}");
                continue;
            }
        };
        for s0 in [1i64, 64, 4096, 1 << 20] {
            let mut values = HashMap::new();
            for s in &model.symbols {
                values.insert(s.clone(), s0);
            }
            if let Err(e) = solver::solve(&model, &values, &chip) {
                eprintln!("tiling/{label}/s0={s0}: skipped: {e}");
                continue;
            }
            group.bench_with_input(
                BenchmarkId::new(format!("solve_{label}"), format!("s0={s0}")),
                &values,
                |b, values| b.iter(|| black_box(solver::solve(&model, black_box(values), &chip))),
            );
        }
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20)
}

criterion_group! {
    name = benches;
    config = config();
    targets = symbolic, fusion, tiling
}
criterion_main!(benches);
