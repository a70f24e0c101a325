#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| whatenc_fuzz::adaptors::check_encode_writer(data));
