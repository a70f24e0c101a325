//! Reading the pinned WHATWG data: `encodings.json` and the index files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One encoding from `encodings.json`.
pub struct EncodingEntry {
    /// The heading of the standard's group ("Legacy single-byte encodings", ...).
    pub heading: String,
    pub name: String,
    pub labels: Vec<String>,
}

/// The pinned data.
pub struct Data {
    /// `data/whatwg`.
    dir: PathBuf,
    /// The revision line from `data/whatwg/README.md`.
    pub revision: String,
    /// The encodings in the standard's order.
    pub encodings: Vec<EncodingEntry>,
}

impl Data {
    pub fn load(dir: &Path) -> Result<Data, String> {
        let readme = read(&dir.join("README.md"))?;
        let revision = readme
            .lines()
            .find_map(|line| line.trim_start_matches("- ").strip_prefix("Revision: "))
            .map(|r| r.trim_end_matches('.').to_string())
            .ok_or("data/whatwg/README.md has no `Revision:` line")?;
        let json: serde_json::Value =
            serde_json::from_str(&read(&dir.join("encodings.json"))?).map_err(|e| format!("encodings.json: {e}"))?;
        let mut encodings = Vec::new();
        for group in json.as_array().ok_or("encodings.json: not an array")? {
            let heading = group["heading"].as_str().ok_or("encodings.json: no heading")?.to_string();
            for encoding in group["encodings"].as_array().ok_or("encodings.json: no encodings")? {
                let name = encoding["name"].as_str().ok_or("encodings.json: no name")?.to_string();
                let labels = encoding["labels"]
                    .as_array()
                    .ok_or("encodings.json: no labels")?
                    .iter()
                    .map(|l| l.as_str().map(str::to_string).ok_or("encodings.json: bad label"))
                    .collect::<Result<Vec<_>, _>>()?;
                encodings.push(EncodingEntry { heading: heading.clone(), name, labels });
            }
        }
        Ok(Data { dir: dir.to_path_buf(), revision, encodings })
    }

    /// The index `index-NAME.txt`: pointer → code point, with its identifier line.
    pub fn index(&self, name: &str) -> Result<Index, String> {
        let path = self.dir.join(format!("index-{name}.txt"));
        let text = read(&path)?;
        let mut entries = BTreeMap::new();
        let mut identifier = String::new();
        for line in text.split('\n') {
            if let Some(id) = line.strip_prefix("# Identifier: ") {
                identifier = id.trim().to_string();
            }
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut fields = line.split('\t');
            let pointer: u32 = fields
                .next()
                .and_then(|p| p.trim().parse().ok())
                .ok_or_else(|| format!("{}: bad pointer in {line:?}", path.display()))?;
            let code_point = fields
                .next()
                .and_then(|c| u32::from_str_radix(c.trim().trim_start_matches("0x"), 16).ok())
                .ok_or_else(|| format!("{}: bad code point in {line:?}", path.display()))?;
            entries.insert(pointer, code_point);
        }
        Ok(Index { entries, identifier })
    }
}

/// An index: pointers in order with their code points.
pub struct Index {
    pub entries: BTreeMap<u32, u32>,
    pub identifier: String,
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))
}
