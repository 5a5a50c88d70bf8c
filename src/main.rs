#![forbid(unsafe_code)]

use clap::Parser;
use referee::cli::Cli;

fn main() {
    // Nothing the referee inherited may reach a bot.
    referee_sandbox::sys::cloexec_inherited();
    // Before any thread exists: it forks.
    referee_sandbox::guardian::start();
    // Also while there is one thread: a user namespace of its own lets an
    // unprivileged referee give each bot PID and mount namespaces.
    referee_sandbox::namespace::enter_own_user_namespace();
    let cli = Cli::parse();
    let filter = match cli.verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let env = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(filter));
    tracing_subscriber::fmt()
        .with_env_filter(env)
        .with_writer(std::io::stderr)
        .with_target(false)
        .init();
    let code = match referee::app::main(cli) {
        Ok(status) => status.exit_code(),
        Err(e) => {
            eprintln!("referee: error: {e}");
            e.exit_code()
        }
    };
    std::process::exit(code);
}
