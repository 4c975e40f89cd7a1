//! Generators of large `ascend` graphs for compile-speed benchmarks: elementwise chains,
//! wide fans and transformer-like stacks with matmul boundaries. Shapes have a symbolic
//! batch dim so that every pass does its symbolic work.

use std::fmt::Write;

const T: &str = "tensor<?x256xf32>";

fn header(out: &mut String, inputs: usize) {
    let args: Vec<String> = (0..inputs).map(|i| format!("%arg{i}: {T}")).collect();
    let _ = writeln!(out, "func.func @main({}) -> {T} {{", args.join(", "));
}

/// A chain of `ops` elementwise ops on one value.
pub fn chain(ops: usize) -> String {
    let mut out = String::new();
    header(&mut out, 2);
    let mut last = "%arg0".to_string();
    let unary = ["ascend.abs", "ascend.relu", "ascend.neg", "ascend.sigmoid"];
    let binary = ["ascend.add", "ascend.mul", "ascend.maximum", "ascend.sub"];
    for i in 0..ops {
        let name = format!("%v{i}");
        if i % 2 == 0 {
            let op = binary[(i / 2) % binary.len()];
            let _ = writeln!(
                out,
                "  {name} = \"{op}\"({last}, %arg1) : ({T}, {T}) -> {T}"
            );
        } else {
            let op = unary[(i / 2) % unary.len()];
            let _ = writeln!(out, "  {name} = \"{op}\"({last}) : ({T}) -> {T}");
        }
        last = name;
    }
    let _ = writeln!(out, "  return {last} : {T}\n}}");
    out
}

/// One input feeding `ops / 2` independent ops whose results are summed pairwise.
pub fn fan(ops: usize) -> String {
    let mut out = String::new();
    header(&mut out, 1);
    let width = (ops / 2).max(1);
    let mut level: Vec<String> = Vec::new();
    for i in 0..width {
        let name = format!("%f{i}");
        let op = ["ascend.abs", "ascend.exp", "ascend.tanh", "ascend.relu"][i % 4];
        let _ = writeln!(out, "  {name} = \"{op}\"(%arg0) : ({T}) -> {T}");
        level.push(name);
    }
    let mut counter = 0;
    while level.len() > 1 {
        let mut next = Vec::new();
        for pair in level.chunks(2) {
            if let [a, b] = pair {
                let name = format!("%s{counter}");
                counter += 1;
                let _ = writeln!(
                    out,
                    "  {name} = \"ascend.add\"({a}, {b}) : ({T}, {T}) -> {T}"
                );
                next.push(name);
            } else {
                next.push(pair[0].clone());
            }
        }
        level = next;
    }
    let _ = writeln!(out, "  return {} : {T}\n}}", level[0]);
    out
}

/// A dynamic `4 x s<i>` tensor with its own symbol.
fn own_dim(i: usize) -> String {
    format!("tensor<4x?xf32, #ascend.dims<[\"4\",\"s{i}\"]>>")
}

/// `func.func @main` over `inputs` tensors of distinct symbols, returning `results`.
fn concat_header(out: &mut String, inputs: usize, results: &str) {
    let args: Vec<String> = (0..inputs)
        .map(|i| format!("%a{i}: {}", own_dim(i)))
        .collect();
    let _ = writeln!(out, "func.func @main({}) -> {results} {{", args.join(", "));
}

/// `ops` concats in a chain, each joining the result so far with an input whose concat
/// dim is a symbol of its own: the k-th result's dim is `s0 + ... + sk`.
pub fn concat_chain(ops: usize) -> String {
    let mut out = String::new();
    let r = "tensor<4x?xf32>";
    concat_header(&mut out, ops + 1, r);
    let (mut last, mut last_ty) = ("%a0".to_string(), own_dim(0));
    for i in 0..ops {
        let _ = writeln!(
            out,
            "  %c{i} = \"ascend.concat\"({last}, %a{}) {{axis = 1 : i64}} : ({last_ty}, {}) -> {r}",
            i + 1,
            own_dim(i + 1)
        );
        last = format!("%c{i}");
        last_ty = r.to_string();
    }
    let _ = writeln!(out, "  return {last} : {r}\n}}");
    out
}

/// One input concatenated with each of `ops` inputs of distinct symbols, every result
/// returned: `ops` independent concats of `s0 + s<i>`.
pub fn concat_fan(ops: usize) -> String {
    let mut out = String::new();
    let r = "tensor<4x?xf32>";
    let results = vec![r; ops].join(", ");
    concat_header(&mut out, ops + 1, &format!("({results})"));
    for i in 0..ops {
        let _ = writeln!(
            out,
            "  %c{i} = \"ascend.concat\"(%a0, %a{}) {{axis = 1 : i64}} : ({}, {}) -> {r}",
            i + 1,
            own_dim(0),
            own_dim(i + 1)
        );
    }
    let names: Vec<String> = (0..ops).map(|i| format!("%c{i}")).collect();
    let _ = writeln!(out, "  return {} : {results}\n}}", names.join(", "));
    out
}

/// Transformer-like layers (about 20 ops each): matmul boundaries, bias adds, layer
/// norms, softmax, gelu and residual adds, until `ops` ops are reached.
pub fn transformer(ops: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "func.func @main(%x: {T}, %w: tensor<256x256xf32>, %b: tensor<256xf32>, %g: tensor<256xf32>) -> {T} {{"
    );
    let layers = (ops / 20).max(1);
    let mut last = "%x".to_string();
    let mut n = 0;
    let fresh = |n: &mut usize| {
        *n += 1;
        format!("%t{n}")
    };
    for _ in 0..layers {
        let residual = last.clone();
        let q = fresh(&mut n);
        let _ = writeln!(out, "  {q} = \"ascend.matmul\"({last}, %w) {{transpose_a = false, transpose_b = false}} : ({T}, tensor<256x256xf32>) -> {T}");
        let qb = fresh(&mut n);
        let _ = writeln!(
            out,
            "  {qb} = \"ascend.add\"({q}, %b) : ({T}, tensor<256xf32>) -> {T}"
        );
        let sm = fresh(&mut n);
        let _ = writeln!(
            out,
            "  {sm} = \"ascend.softmax\"({qb}) {{axis = -1 : i64}} : ({T}) -> {T}"
        );
        let r1 = fresh(&mut n);
        let _ = writeln!(
            out,
            "  {r1} = \"ascend.add\"({sm}, {residual}) : ({T}, {T}) -> {T}"
        );
        let ln = fresh(&mut n);
        let _ = writeln!(out, "  {ln} = \"ascend.layer_norm\"({r1}, %g, %b) {{axis = 1 : i64, epsilon = 1.0e-05 : f32}} : ({T}, tensor<256xf32>, tensor<256xf32>) -> {T}");
        let h = fresh(&mut n);
        let _ = writeln!(out, "  {h} = \"ascend.matmul\"({ln}, %w) {{transpose_a = false, transpose_b = false}} : ({T}, tensor<256x256xf32>) -> {T}");
        let hb = fresh(&mut n);
        let _ = writeln!(
            out,
            "  {hb} = \"ascend.add\"({h}, %b) : ({T}, tensor<256xf32>) -> {T}"
        );
        let ge = fresh(&mut n);
        let _ = writeln!(
            out,
            "  {ge} = \"ascend.gelu\"({hb}) {{approximate = \"tanh\"}} : ({T}) -> {T}"
        );
        let r2 = fresh(&mut n);
        let _ = writeln!(
            out,
            "  {r2} = \"ascend.add\"({ge}, {ln}) : ({T}, {T}) -> {T}"
        );
        last = r2;
    }
    let _ = writeln!(out, "  return {last} : {T}\n}}");
    out
}

/// Number of ops after decomposition is larger; this counts the ops as written.
pub fn count_ops(text: &str) -> usize {
    text.lines()
        .filter(|l| l.trim_start().starts_with('%') && l.contains("= \"ascend."))
        .count()
}
