//! The `sagedeck` binary.

fn main() {
    let cli = sagedeck::cli::parse();
    std::process::exit(sagedeck::cli::run(cli));
}
