//! The contract parser: arbitrary text is accepted or refused, never a
//! panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = ctx::contract::Contract::parse("fuzz.toml", text);
    }
});
