//! `Page` as JSON: its HTML as text, or, once the Kafka runner turned it
//! on (`kafka.compress_pages`, packed.rs), compressed as `html_zstd`. The
//! HTML was 178 of 242 MB in bench-scale's crawl of 600 pages. A consumer
//! in another language reads `html` when it is there, else decodes base64
//! and decompresses zstd.

use crate::messages::Page;
use crate::packed;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;

#[derive(Serialize)]
struct PageOut<'a> {
    id: &'a str,
    url: &'a str,
    final_url: &'a str,
    status: u16,
    fetched_at: &'a str,
    charset: &'a str,
    content_type: &'a str,
    headers: &'a BTreeMap<String, String>,
    depth: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    html: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    html_zstd: Option<String>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    redirects: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    fetch_ms: Option<u64>,
}

impl Serialize for Page {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let compressed = packed::wanted(self.html.len())
            .then(|| packed::pack(self.html.as_bytes()))
            .transpose()
            .map_err(serde::ser::Error::custom)?;
        PageOut {
            id: &self.id,
            url: &self.url,
            final_url: &self.final_url,
            status: self.status,
            fetched_at: &self.fetched_at,
            charset: &self.charset,
            content_type: &self.content_type,
            headers: &self.headers,
            depth: self.depth,
            html: compressed.is_none().then_some(self.html.as_str()),
            html_zstd: compressed,
            redirects: &self.redirects,
            fetch_ms: self.fetch_ms,
        }
        .serialize(s)
    }
}

/// `gleaner.pages`: a fetched HTML page, decoded to UTF-8 (as read, and as
/// the topic's schema describes it).
#[derive(Deserialize, JsonSchema)]
#[schemars(rename = "Page")]
pub(crate) struct PageWire {
    /// Deterministic id from the normalised URL.
    id: String,
    /// The URL as requested (normalised).
    url: String,
    /// The URL after redirects.
    final_url: String,
    status: u16,
    fetched_at: String,
    /// The charset the body was decoded from.
    charset: String,
    content_type: String,
    /// Headers that matter downstream (last-modified, etag, content-language).
    #[serde(default)]
    headers: BTreeMap<String, String>,
    depth: u32,
    /// The HTML, as UTF-8 text; absent when `html_zstd` carries it.
    #[serde(default)]
    html: Option<String>,
    /// The HTML (UTF-8) compressed with zstd, in base64 (standard alphabet,
    /// padded): written instead of `html` for pages of 2 kB or more when
    /// `kafka.compress_pages` is on.
    #[serde(default)]
    html_zstd: Option<String>,
    /// The URLs redirected through, in order, from `url` (included) to
    /// just before `final_url`; empty without redirects.
    #[serde(default)]
    redirects: Vec<String>,
    /// Milliseconds from sending the (last) request to the end of the body.
    #[serde(default)]
    fetch_ms: Option<u64>,
}

/// The HTML `html_zstd` carries.
fn inflate(b64: &str) -> Result<String, String> {
    let bytes = packed::unpack(b64, "html_zstd")?;
    String::from_utf8(bytes).map_err(|e| format!("html_zstd is not UTF-8: {e}"))
}

impl<'de> Deserialize<'de> for Page {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let w = PageWire::deserialize(d)?;
        let html = match (w.html, w.html_zstd) {
            (Some(html), _) => html,
            (None, Some(z)) => inflate(&z).map_err(serde::de::Error::custom)?,
            (None, None) => return Err(serde::de::Error::missing_field("html")),
        };
        Ok(Page {
            id: w.id,
            url: w.url,
            final_url: w.final_url,
            status: w.status,
            fetched_at: w.fetched_at,
            charset: w.charset,
            content_type: w.content_type,
            headers: w.headers,
            depth: w.depth,
            html,
            redirects: w.redirects,
            fetch_ms: w.fetch_ms,
        })
    }
}

impl JsonSchema for Page {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Page".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        PageWire::json_schema(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;

    fn page(html: &str) -> Page {
        Page {
            id: "1".into(),
            url: "http://x.test/".into(),
            final_url: "http://x.test/".into(),
            status: 200,
            fetched_at: "2026-01-01T00:00:00Z".into(),
            charset: "UTF-8".into(),
            content_type: "text/html".into(),
            headers: BTreeMap::new(),
            depth: 0,
            html: html.into(),
            redirects: vec![],
            fetch_ms: Some(3),
        }
    }

    /// The only test that turns packing on: another test of this crate
    /// serializing a page meanwhile may get it packed, and reads it back
    /// the same, as every reader takes either form.
    #[test]
    fn html_travels_compressed_when_turned_on_and_reads_back_either_way() {
        let big = format!(
            "<html><body>{}</body></html>",
            "<p>Der Stadtrat hat am Dienstag beschlossen, die alte Brücke zu sanieren.</p>"
                .repeat(200)
        );
        let plain = serde_json::to_string(&page(&big)).unwrap();
        assert!(plain.contains("\"html\":") && !plain.contains("html_zstd"));
        packed::compress_pages(true);
        let packed = serde_json::to_string(&page(&big)).unwrap();
        let small = serde_json::to_string(&page("<p>short</p>")).unwrap();
        packed::compress_pages(false);
        assert!(!packed.contains("\"html\":"), "{packed}");
        assert!(
            packed.len() * 4 < plain.len(),
            "{} of {}",
            packed.len(),
            plain.len()
        );
        assert!(small.contains("\"html\":\"<p>short</p>\""), "{small}");
        for (json, html) in [
            (&plain, &big),
            (&packed, &big),
            (&small, &"<p>short</p>".to_string()),
        ] {
            let back: Page = serde_json::from_str(json).unwrap();
            assert_eq!(back, page(html));
        }
        // Hostile records: a clear error, never a panic or a huge allocation.
        let bomb = base64::engine::general_purpose::STANDARD
            .encode(zstd::bulk::compress(&vec![b'a'; packed::MAX_BYTES + 1], 19).unwrap());
        let mut v: serde_json::Value = serde_json::from_str(&packed).unwrap();
        for (bad, why) in [
            (serde_json::json!("not base64!"), "not base64"),
            (serde_json::json!("aGVsbG8="), "does not decompress"),
            (serde_json::json!(bomb), "does not decompress"),
        ] {
            v["html_zstd"] = bad;
            let e = serde_json::from_value::<Page>(v.clone())
                .unwrap_err()
                .to_string();
            assert!(e.contains(why), "{e}");
        }
        // The thread's kept zstd context still reads a good record after
        // the bad ones.
        let back: Page = serde_json::from_str(&packed).unwrap();
        assert_eq!(back, page(&big));
        v.as_object_mut().unwrap().remove("html_zstd");
        let e = serde_json::from_value::<Page>(v).unwrap_err().to_string();
        assert!(e.contains("missing field `html`"), "{e}");
    }
}
