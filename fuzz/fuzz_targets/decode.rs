#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| whatenc_fuzz::convert::check_decode(data));
