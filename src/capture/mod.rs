//! Ingest for `ctx run`: the child process, its two streams and their order,
//! signals, and the exit status ctx must reproduce.
