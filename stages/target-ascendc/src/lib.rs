//! Ascend C translation of scheduled kernels (`autofuse-translate --mlir-to-ascendc`).
//!
//! Per kernel (an impl-form AscGraph with its tiling model) it writes a directory with:
//! - `<kernel>.cpp`: the device kernel (`extern "C" __global__ __aicore__` entry with
//!   inputs, outputs, workspace and tiling; one function per tiling case with TPipe,
//!   TQue/TBuf, the block and tile loops, DataCopyPad moves and vector API calls);
//! - `<kernel>_tiling.h`: the tiling-data struct (and the baked constant for static
//!   shapes) and the host tiling function's prototype;
//! - `<kernel>_tiling.cpp`: the host tiling function (same solver as the compiler's);
//! - `CMakeLists.txt`: builds both with the CANN toolchain (`cmake/` holds the logic).
//!
//! Shared files of a translation (written once at the top of the output directory):
//! `include/af_compat.h` (CANN 8.x/9.x names), `include/af_kernel_utils.h` (device
//! helpers), `include/af_tiling_host.h` (host solver), `cmake/autofuse_ascendc.cmake`.
//!
//! Preconditions: the kernel was scheduled and tiled (`--schedule --auto-tiling`);
//! static kernels are feasible. Postconditions: the sources compile with g++ against
//! `sim/include` (checked by the end-to-end tests) and follow the documented API
//! signatures of ascendc_api.md.

pub mod host;
pub mod kernel;
pub mod launch;
pub mod module;

use autofuse_ascir::chip::ChipProfile;
use autofuse_ascir::graph::AscGraph;
use autofuse_ascir::kernel::Schedule;
use autofuse_ir::graph::DType;
use autofuse_tiling::tiling::{Tiling, TilingModel};
use std::path::Path;

pub const COMPAT_H: &str = include_str!("../include/af_compat.h");
pub const KERNEL_UTILS_H: &str = include_str!("../include/af_kernel_utils.h");
pub const TILING_HOST_H: &str = include_str!("../include/af_tiling_host.h");
pub const CMAKE_MODULE: &str = include_str!("../../../cmake/autofuse_ascendc.cmake");

/// Files shared by every kernel of a translation, relative to the output directory.
pub fn shared_files() -> Vec<(String, String)> {
    vec![
        ("include/af_compat.h".into(), COMPAT_H.into()),
        ("include/af_kernel_utils.h".into(), KERNEL_UTILS_H.into()),
        ("include/af_tiling_host.h".into(), TILING_HOST_H.into()),
        ("cmake/autofuse_ascendc.cmake".into(), CMAKE_MODULE.into()),
    ]
}

/// One translated kernel.
#[derive(Clone, Debug)]
pub struct KernelSources {
    /// The C symbol of the kernel entry.
    pub name: String,
    /// (file name, contents), relative to the kernel's directory.
    pub files: Vec<(String, String)>,
    pub inputs: usize,
    pub outputs: usize,
}

impl KernelSources {
    pub fn file(&self, name: &str) -> Option<&str> {
        self.files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, c)| c.as_str())
    }
}

/// The C++ spelling of a kernel's shape symbols in generated code.
///
/// Symbols are user names (ONNX `dim_param`s, hand-written IR): one named `t`, `s`,
/// `case` or `first` would collide with a C++ keyword or an identifier of the generated
/// code (the tiling argument `t`, the host solution `s`, API calls). Symbols named like
/// the ones autofuse makes (`s<N>`) keep their name; every other symbol is spelled
/// `af_sym_<name>`, as a local and as a tiling-data field. The mapping is injective:
/// kept names never start with `af_`. Generated names (tile and block sizes, buffer
/// sizes) are not symbols of the kernel and are never renamed.
pub struct CNames<'a> {
    symbols: &'a [String],
}

impl<'a> CNames<'a> {
    pub fn new(symbols: &'a [String]) -> CNames<'a> {
        CNames { symbols }
    }

    /// The C name of `name` (a symbol, a tiling field or a generated variable).
    pub fn name(&self, name: &str) -> String {
        let generated_style = name
            .strip_prefix('s')
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if generated_style || !self.symbols.iter().any(|s| s == name) {
            name.to_string()
        } else {
            format!("af_sym_{name}")
        }
    }

    /// `e` as a C++ `int64_t` expression.
    pub fn expr(&self, e: &autofuse_symbolic::Expr) -> String {
        e.to_c_expr_with(&|name| self.name(name))
    }
}

/// Everything needed to translate one kernel.
pub struct KernelInput<'a> {
    pub graph: &'a AscGraph,
    pub schedule: &'a Schedule,
    pub model: &'a TilingModel,
    pub chip: &'a ChipProfile,
    /// The compile-time tiling of a static kernel.
    pub static_tiling: Option<&'a Tiling>,
    /// Source file the kernel came from, for the header comment.
    pub source: &'a str,
}

/// Translates one kernel under the C symbol `name` (normally the AscGraph's name).
pub fn translate_kernel(input: &KernelInput, name: &str) -> Result<KernelSources, String> {
    let kernel_cpp = kernel::emit(input, name)?;
    let (tiling_h, tiling_cpp) = host::emit(input, name)?;
    let cmake = cmake_lists(name);
    Ok(KernelSources {
        name: name.to_string(),
        files: vec![
            (format!("{name}.cpp"), kernel_cpp),
            (format!("{name}_tiling.h"), tiling_h),
            (format!("{name}_tiling.cpp"), tiling_cpp),
            ("CMakeLists.txt".into(), cmake),
        ],
        inputs: input.graph.inputs.len(),
        outputs: input.graph.outputs.len(),
    })
}

fn cmake_lists(name: &str) -> String {
    format!(
        "# Generated by autofuse-translate: builds kernel {name} with the CANN toolchain.\n\
         # Configure with ASCEND_HOME_PATH set (source <CANN>/set_env.sh); see cmake/autofuse_ascendc.cmake.\n\
         cmake_minimum_required(VERSION 3.16)\n\
         project({name} LANGUAGES CXX)\n\
         include(${{CMAKE_CURRENT_LIST_DIR}}/../cmake/autofuse_ascendc.cmake)\n\
         autofuse_add_kernel({name}\n    KERNEL ${{CMAKE_CURRENT_LIST_DIR}}/{name}.cpp\n    TILING ${{CMAKE_CURRENT_LIST_DIR}}/{name}_tiling.cpp\n    INCLUDE ${{CMAKE_CURRENT_LIST_DIR}}/../include)\n"
    )
}

/// A top-level CMakeLists.txt that adds every kernel directory.
pub fn top_cmake(kernels: &[String]) -> String {
    let mut out = String::from(
        "# Generated by autofuse-translate: every kernel of the graph.\ncmake_minimum_required(VERSION 3.16)\nproject(autofuse_kernels LANGUAGES CXX)\n",
    );
    for k in kernels {
        out.push_str(&format!("add_subdirectory({k})\n"));
    }
    out
}

/// Writes `files` under `dir` (creating directories).
pub fn write_files(dir: &Path, files: &[(String, String)]) -> Result<(), String> {
    for (name, contents) in files {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        std::fs::write(&path, contents)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

/// The C++ type of a value of `dtype` in GM (bool is one byte).
pub fn gm_type(dtype: DType) -> &'static str {
    match dtype {
        DType::F32 => "float",
        DType::F16 => "half",
        DType::BF16 => "bfloat16_t",
        DType::I64 => "int64_t",
        DType::I32 => "int32_t",
        DType::I16 => "int16_t",
        DType::I8 => "int8_t",
        DType::U8 | DType::Bool => "uint8_t",
    }
}

/// The C++ type of a value of `dtype` in UB (bool is half 0/1).
pub fn ub_type(dtype: DType) -> &'static str {
    match dtype {
        DType::Bool => "half",
        other => gm_type(other),
    }
}

/// `loc("file.mlir":3:8)` -> `file.mlir:3:8`.
pub fn short_loc(loc: &str) -> String {
    let inner = loc
        .trim()
        .strip_prefix("loc(")
        .and_then(|s| s.strip_suffix(')'))
        .unwrap_or(loc);
    inner.replace('"', "")
}

#[cfg(test)]
mod tests {
    use super::CNames;
    use autofuse_symbolic::Expr;

    #[test]
    fn user_symbols_get_a_prefix_that_keeps_names_apart() {
        let symbols: Vec<String> = ["s0", "t", "case", "af_sym_t", "s"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let names = CNames::new(&symbols);
        // autofuse's own symbol style and generated variables keep their names.
        assert_eq!(names.name("s0"), "s0");
        assert_eq!(names.name("z0t_size"), "z0t_size");
        // Every other symbol is prefixed, injectively.
        assert_eq!(names.name("t"), "af_sym_t");
        assert_eq!(names.name("case"), "af_sym_case");
        assert_eq!(names.name("s"), "af_sym_s");
        assert_eq!(names.name("af_sym_t"), "af_sym_af_sym_t");
        let e = Expr::parse("2*t*case + s0 + align(z0t_size, 8)").unwrap();
        let c = names.expr(&e);
        assert!(c.contains("af_sym_t") && c.contains("af_sym_case"), "{c}");
        assert!(
            c.contains("s0") && c.contains("z0t_size") && !c.contains("af_sym_s0"),
            "{c}"
        );
    }
}
