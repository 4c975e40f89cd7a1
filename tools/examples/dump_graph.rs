//! Prints the random graph a differential or property test draws for a seed, to
//! reproduce a failure by hand: `cargo run -p autofuse-tools --example dump_graph -- SEED
//! [MAX_OPS]` (MAX_OPS: 6 for the property test, 8 for the end-to-end one).

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seed = args.first().and_then(|s| s.parse::<u64>().ok());
    let max_ops = args.get(1).map_or(Some(6), |s| s.parse::<usize>().ok());
    match (seed, max_ops) {
        (Some(seed), Some(max_ops)) => {
            println!("{}", autofuse::randgraph::generate(seed, max_ops).text);
            std::process::ExitCode::SUCCESS
        }
        _ => {
            eprintln!("usage: dump_graph SEED [MAX_OPS]");
            std::process::ExitCode::from(2)
        }
    }
}
