//! The `ctx` binary: everything lives in the library; this only hands over
//! argv and turns the verb's result into the process exit status. Invoked
//! through a link named after another command (a PATH shim), it is that
//! command's shim instead.

fn main() {
    let argv0 = std::env::args_os().next();
    if !ctx::shim::invoked_as_ctx(argv0.as_ref()) {
        std::process::exit(ctx::shim::main());
    }
    std::process::exit(ctx::cli::main());
}
