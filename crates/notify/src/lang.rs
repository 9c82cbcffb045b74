//! The languages a notice can be written in.

use serde::{Deserialize, Serialize};

/// A language a player reads their notices in.
///
/// The serde names are BCP 47 tags, the same ones the web client and the
/// `Content-Language` header use, so a stored preference needs no mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Lang {
    /// English.
    #[serde(rename = "en")]
    En,
    /// Chinese in simplified characters (mainland China, Singapore).
    #[serde(rename = "zh-Hans")]
    ZhHans,
    /// Chinese in traditional characters (Taiwan, Hong Kong, Macau).
    #[serde(rename = "zh-Hant")]
    ZhHant,
}

impl Lang {
    /// Every language, in a fixed order, for tests and settings pages.
    pub const ALL: [Lang; 3] = [Lang::En, Lang::ZhHans, Lang::ZhHant];

    /// The BCP 47 tag, as written in serde and in the `Content-Language` header.
    #[must_use]
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::ZhHans => "zh-Hans",
            Lang::ZhHant => "zh-Hant",
        }
    }
}

impl std::fmt::Display for Lang {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.tag())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_names_are_the_bcp47_tags() {
        for lang in Lang::ALL {
            let json = serde_json::to_string(&lang).unwrap();
            assert_eq!(json, format!("\"{}\"", lang.tag()));
            assert_eq!(serde_json::from_str::<Lang>(&json).unwrap(), lang);
        }
        assert!(serde_json::from_str::<Lang>("\"zh\"").is_err());
    }
}
