//! The `sagedeck` binary.

use clap::Parser;

fn main() {
    let cli = sagedeck::cli::Cli::parse();
    std::process::exit(sagedeck::cli::run(cli));
}
