//! `bitweave sim NAME`: run an architecture model and print its figures beside the paper's.

use anyhow::Result;
use clap::Args;

#[derive(Args)]
pub struct SimArgs {
    /// Model name (run `bitweave sim list` for the models).
    name: String,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: SimArgs) -> Result<()> {
    if args.name == "list" {
        for m in bitweave_sim::models() {
            println!("{:<8} {}", m.name, m.about);
        }
        return Ok(());
    }
    let report = bitweave_sim::run(&args.name)?;
    if args.json {
        println!("{}", report.to_json());
    } else {
        print!("{}", report.to_table());
    }
    Ok(())
}
