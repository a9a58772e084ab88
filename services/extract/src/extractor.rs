//! The extraction methods that can be chosen by name.

/// The extraction methods that can be chosen by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extractor {
    Auto,
    QRead,
    Density,
    LinkRatio,
    Lines,
    Template,
    Rules,
}

impl Extractor {
    pub const NAMES: [&'static str; 7] = [
        "auto",
        "qread",
        "density",
        "link-ratio",
        "lines",
        "template",
        "rules",
    ];

    pub fn name(self) -> &'static str {
        match self {
            Extractor::Auto => "auto",
            Extractor::QRead => "qread",
            Extractor::Density => "density",
            Extractor::LinkRatio => "link-ratio",
            Extractor::Lines => "lines",
            Extractor::Template => "template",
            Extractor::Rules => "rules",
        }
    }
}

impl std::str::FromStr for Extractor {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> anyhow::Result<Self> {
        match s {
            "auto" => Ok(Extractor::Auto),
            "qread" => Ok(Extractor::QRead),
            "density" => Ok(Extractor::Density),
            "link-ratio" => Ok(Extractor::LinkRatio),
            "lines" => Ok(Extractor::Lines),
            "template" => Ok(Extractor::Template),
            "rules" => Ok(Extractor::Rules),
            other => anyhow::bail!(
                "unknown extractor {other:?} (known: {})",
                Extractor::NAMES.join(", ")
            ),
        }
    }
}
