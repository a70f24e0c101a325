//! Tables for EUC-JP, ISO-2022-JP, Shift_JIS and EUC-KR (filled in with the CJK codecs).

use crate::Generated;
use crate::data::Data;

pub fn generate(_data: &Data) -> Result<Vec<Generated>, String> {
    Ok(Vec::new())
}
