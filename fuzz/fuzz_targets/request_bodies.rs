//! Request bodies and query strings: whatever arrives, parsing and checking
//! it never panics (a panic would be a 500).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    compactd::http::fuzzing::request_body(data);
    if let Ok(query) = std::str::from_utf8(data) {
        compactd::http::fuzzing::query_string(query);
    }
});
