//! Where ctx keeps its files: `$CTX_HOME`, else the XDG data directory.
