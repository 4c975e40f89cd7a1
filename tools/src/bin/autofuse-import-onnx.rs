//! `autofuse-import-onnx`: imports an ONNX model into an `ascend` graph (MLIR text).
//!
//!     autofuse-import-onnx model.onnx -o model.mlir
//!
//! Covered operators become `ascend` ops; the others become calls of external
//! declarations, and a summary on stderr lists them (`--quiet` drops it unless something
//! was not covered). `--list-ops` prints the covered operators by family.
//!
//! Exit codes: 0 success, 1 the model cannot be imported (the message says why),
//! 2 command-line misuse.

use autofuse::onnx::{import_file_with, ops::FAMILIES, ImportOptions};
use clap::{Arg, ArgAction, Command};
use std::path::Path;
use std::process::ExitCode;

fn command() -> Command {
    Command::new("autofuse-import-onnx")
        .about("Import an ONNX model as an ascend graph (MLIR)")
        .override_usage("autofuse-import-onnx model.onnx [-o model.mlir]")
        .arg(Arg::new("input").help("The ONNX model (.onnx)"))
        .arg(
            Arg::new("output")
                .short('o')
                .default_value("-")
                .help("Output file ('-' for standard output)"),
        )
        .arg(
            Arg::new("quiet")
                .long("quiet")
                .short('q')
                .action(ArgAction::SetTrue)
                .help("Print the summary only when some operator was not covered"),
        )
        .arg(
            Arg::new("list-ops")
                .long("list-ops")
                .action(ArgAction::SetTrue)
                .help("Print the covered ONNX operators as '<family> <op>' lines and exit"),
        )
}

fn main() -> ExitCode {
    let matches = match autofuse_tools::input::parse_command_line(command()) {
        Ok(m) => m,
        Err(code) => return code,
    };
    if matches.get_flag("list-ops") {
        let mut text = String::new();
        for (family, ops) in FAMILIES {
            for op in *ops {
                text.push_str(&format!("{family} {op}\n"));
            }
        }
        // A checked write: a closed pipe or a full disk is an error, not a panic.
        return match autofuse_tools::output::write_stdout(text.as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("autofuse-import-onnx: error: {message}");
                ExitCode::FAILURE
            }
        };
    }
    let Some(input) = matches.get_one::<String>("input") else {
        eprintln!("autofuse-import-onnx: error: no input model (usage: autofuse-import-onnx model.onnx -o model.mlir)");
        return ExitCode::from(2);
    };
    let output = matches
        .get_one::<String>("output")
        .map(String::as_str)
        .unwrap_or("-");
    // Weight files are named relative to the output's directory, so the IR and the
    // model move together; on standard output they are absolute.
    let options = ImportOptions {
        weights_relative_to: (output != "-").then(|| {
            Path::new(output)
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .to_path_buf()
        }),
    };
    let imported = match import_file_with(Path::new(input), &options) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("autofuse-import-onnx: error: {input}: {e}");
            return ExitCode::FAILURE;
        }
    };
    if !matches.get_flag("quiet")
        || !imported.summary.boundary.is_empty()
        || !imported.summary.warnings.is_empty()
    {
        eprint!(
            "autofuse-import-onnx: {input}: {}",
            imported.summary.render()
        );
    }
    let written = autofuse_tools::output::write_output(output, imported.mlir.as_bytes());
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("autofuse-import-onnx: error: {message}");
            ExitCode::FAILURE
        }
    }
}
