//! The `serde` feature: an `Encoding` serializes as its name and deserializes from
//! any of its labels.

use core::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

use crate::Encoding;

/// Serializes as the encoding's name.
impl Serialize for Encoding {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.native().name())
    }
}

/// Reads a label and finds its encoding as [`Encoding::for_label`] does.
struct LabelVisitor;

impl Visitor<'_> for LabelVisitor {
    type Value = &'static Encoding;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a valid encoding label")
    }

    fn visit_str<E: de::Error>(self, label: &str) -> Result<&'static Encoding, E> {
        Encoding::for_label(label.as_bytes()).ok_or_else(|| E::custom(format_args!("invalid encoding label: {label}")))
    }
}

/// Deserializes from a label, such as `"latin1"` or `"UTF-8"`.
impl<'de> Deserialize<'de> for &'static Encoding {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<&'static Encoding, D::Error> {
        deserializer.deserialize_str(LabelVisitor)
    }
}
