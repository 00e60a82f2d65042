//! Recorded sessions for `compactd replay`: any file, in any of the four
//! formats or none, is read or refused without a panic.

#![no_main]

use compactd::summary::read::HarnessPatterns;
use compactd::sessions::parse;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = parse("fuzzed".into(), &text, &HarnessPatterns::default());
});
