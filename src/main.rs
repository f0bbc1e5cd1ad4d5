//! The `ctx` binary: everything lives in the library; this only hands over
//! argv and turns the verb's result into the process exit status.

fn main() {
    std::process::exit(ctx::cli::main());
}
