//! Tables for gb18030/GBK and Big5 (filled in with the CJK codecs).

use crate::Generated;
use crate::data::Data;

pub fn generate(_data: &Data) -> Result<Vec<Generated>, String> {
    Ok(Vec::new())
}
