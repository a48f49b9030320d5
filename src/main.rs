//! The `marvin` command: parse the arguments, answer --help and --version before any other
//! work, and hand everything else to the library.

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use marvin::cli::{self, Command};

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let owes_cost_line = cli::mentions_non_interactive(&args);
    match cli::parse(args) {
        Ok(Command::Help) => print(&cli::help()),
        Ok(Command::Version) => print(&version()),
        Ok(Command::ListProviders) => marvin::providers::list(),
        Ok(Command::Completions(shell)) => match marvin::completions::script(&shell) {
            Ok(script) => print(&script),
            Err(message) => {
                marvin::app::report(&message);
                ExitCode::FAILURE
            }
        },
        Ok(Command::Run(args)) => marvin::app::run(*args),
        // A command line that cannot be run is a usage error: status 2, as in most tools;
        // --non-interactive keeps its contract (1 on any error, the cost line last).
        Err(message) => {
            marvin::app::report(&message);
            if owes_cost_line {
                eprintln!("{}", marvin::usage::Tally::default().cost_line());
                return ExitCode::FAILURE;
            }
            ExitCode::from(2)
        }
    }
}

/// Prints to stdout; a closed pipe is not an error.
fn print(text: &str) -> ExitCode {
    let _ = std::io::stdout().write_all(text.as_bytes());
    ExitCode::SUCCESS
}

/// `marvin 0.1.0 (commit 1a2b3c4d5e6f)`, with `dirty` when built from a modified tree; the
/// version alone when built outside a git checkout.
fn version() -> String {
    match env!("MARVIN_COMMIT") {
        "" => format!("marvin {}\n", env!("CARGO_PKG_VERSION")),
        commit => format!("marvin {} (commit {commit})\n", env!("CARGO_PKG_VERSION")),
    }
}
