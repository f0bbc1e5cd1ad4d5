//! The shell lexer behind `ctx rewrite`: arbitrary command lines never
//! panic, and a rewrite is stable (rewriting the result changes nothing).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    let _ = ctx::rewrite::lexer::lex(line);
    if let Some(once) = ctx::rewrite::rewrite(line) {
        let again = ctx::rewrite::rewrite(&once);
        assert!(
            again.is_none() || again.as_deref() == Some(once.as_str()),
            "{line:?} → {once:?} → {again:?}"
        );
    }
});
