//! `catan-server`: the command line is [`catan_server::cli`]; `catan-server --help`
//! lists it.

fn main() -> std::process::ExitCode {
    catan_server::cli::main()
}
