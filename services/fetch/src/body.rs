//! Response bodies: read up to a cap while streaming, then decoded to UTF-8.

use futures::StreamExt;

/// Reads a body up to `cap` bytes while streaming (after decompression, so a
/// decompression bomb stops at the cap too). Returns whether it was cut.
pub(crate) async fn read_capped(
    resp: reqwest::Response,
    cap: usize,
) -> Result<(Vec<u8>, bool), reqwest::Error> {
    // Room for what the server announces (up to the cap and a megabyte, so
    // a lying header costs little), instead of growing by copies.
    let announced = resp.content_length().unwrap_or(0) as usize;
    let mut body = Vec::with_capacity(announced.min(cap).min(1 << 20));
    let mut stream = resp.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk?;
        let room = cap - body.len();
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            return Ok((body, true));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((body, false))
}

/// A gzip file (a `sitemap.xml.gz`) decompressed up to `cap` bytes, the
/// cap applied to what comes out so a small bomb stays small; whether it
/// was cut.
pub(crate) fn gunzip_capped(gz: &[u8], cap: usize) -> std::io::Result<(Vec<u8>, bool)> {
    use std::io::Read;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(gz)
        .take(cap as u64 + 1)
        .read_to_end(&mut out)?;
    let cut = out.len() > cap;
    out.truncate(cap);
    Ok((out, cut))
}

/// Whether bytes start like a gzip file.
pub(crate) fn is_gzip(body: &[u8]) -> bool {
    body.starts_with(&[0x1f, 0x8b])
}

/// Decodes HTML bytes to UTF-8: the charset from the Content-Type header, a
/// BOM, a `<meta charset>` in the first KiB, then detection (chardetng).
pub fn decode_html(body: &[u8], content_type: &str) -> (String, String) {
    let enc = encoding_of(body, content_type);
    let (text, used, _had_errors) = enc.decode(body);
    (text.into_owned(), used.name().to_string())
}

/// [`decode_html`] of a body the caller gives up: UTF-8 without a BOM, most
/// of the web, becomes the string without a copy.
pub fn decode_html_owned(body: Vec<u8>, content_type: &str) -> (String, String) {
    let enc = encoding_of(&body, content_type);
    if enc == encoding_rs::UTF_8 && !body.starts_with(b"\xEF\xBB\xBF") {
        // Valid: what decoding would return. Invalid: decoded with
        // replacement characters, as decode_html does.
        return match String::from_utf8(body) {
            Ok(text) => (text, enc.name().to_string()),
            Err(e) => decode_html(e.as_bytes(), content_type),
        };
    }
    decode_html(&body, content_type)
}

/// The body's encoding: the BOM, the Content-Type charset, a `<meta
/// charset>` in the first KiB, then detection.
fn encoding_of(body: &[u8], content_type: &str) -> &'static encoding_rs::Encoding {
    let from_label = |label: &str| {
        encoding_rs::Encoding::for_label(label.trim().trim_matches(['"', '\'']).as_bytes())
    };
    let declared = content_type
        .split(';')
        .filter_map(|p| p.trim().strip_prefix("charset="))
        .find_map(from_label);
    encoding_rs::Encoding::for_bom(body)
        .map(|(e, _)| e)
        .or(declared)
        .or_else(|| meta_charset(&body[..body.len().min(1024)]).and_then(|l| from_label(&l)))
        .unwrap_or_else(|| {
            // Undeclared but valid UTF-8 (or plain ASCII) is what detection
            // would say too, at a fraction of its cost (it was a twentieth
            // of a crawl's CPU).
            if std::str::from_utf8(body).is_ok() {
                return encoding_rs::UTF_8;
            }
            let mut d = chardetng::EncodingDetector::new();
            d.feed(&body[..body.len().min(64 * 1024)], body.len() <= 64 * 1024);
            d.guess(None, true)
        })
}

fn meta_charset(head: &[u8]) -> Option<String> {
    let s = String::from_utf8_lossy(head).to_ascii_lowercase();
    let at = s.find("charset=")? + "charset=".len();
    let rest = s[at..].trim_start_matches(['"', '\'', ' ']);
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| rest[..end].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gunzip_stops_at_its_cap() {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(&vec![b'x'; 8 << 20]).unwrap();
        let bomb = gz.finish().unwrap();
        assert!(is_gzip(&bomb) && bomb.len() < 64 * 1024);
        let (out, cut) = gunzip_capped(&bomb, 1 << 20).unwrap();
        assert_eq!(out.len(), 1 << 20);
        assert!(cut);
        assert!(gunzip_capped(b"\x1f\x8bnot gzip", 100).is_err());
    }

    #[test]
    fn charset_from_header_meta_and_detection() {
        let (t, cs) = decode_html(b"caf\xe9", "text/html; charset=ISO-8859-1");
        assert_eq!((t.as_str(), cs.as_str()), ("café", "windows-1252"));
        let gbk = b"<meta charset=\"gbk\"><p>\xc4\xe3\xba\xc3</p>";
        assert!(decode_html(gbk, "text/html").0.contains("你好"));
        let sjis: &[u8] = b"<p>\x82\xb1\x82\xf1\x82\xc9\x82\xbf\x82\xcd\x81\x41\x90\xa2\x8a\x45\x81\x42\x82\xb1\x82\xea\x82\xcd\x93\xfa\x96\x7b\x8c\xea\x82\xcc\x83\x65\x83\x4c\x83\x58\x83\x67\x82\xc5\x82\xb7\x81\x42</p>";
        let (t, cs) = decode_html(sjis, "text/html");
        assert_eq!(cs, "Shift_JIS");
        assert!(t.contains("こんにちは、世界。"), "{t}");
    }

    #[test]
    fn undeclared_utf8_is_taken_as_such_and_latin1_is_detected() {
        let (t, cs) = decode_html("<p>Grüße aus Köln</p>".as_bytes(), "text/html");
        assert_eq!(
            (t.as_str(), cs.as_str()),
            ("<p>Grüße aus Köln</p>", "UTF-8")
        );
        let (t, cs) = decode_html(
            b"<p>Gr\xfc\xdfe aus K\xf6ln, sch\xf6ne Gr\xfc\xdfe</p>",
            "text/html",
        );
        assert_eq!(cs, "windows-1252");
        assert!(t.contains("Grüße aus Köln"), "{t}");
    }

    #[test]
    fn the_owned_decoding_gives_what_the_borrowed_one_does() {
        let bodies: [(&[u8], &str); 6] = [
            ("<p>Grüße aus Köln</p>".as_bytes(), "text/html"),
            (b"\xEF\xBB\xBF<p>with a BOM</p>", "text/html"),
            (b"<p>bad \xff\xfe utf-8</p>", "text/html; charset=utf-8"),
            (b"caf\xe9", "text/html; charset=ISO-8859-1"),
            (
                b"<p>Gr\xfc\xdfe aus K\xf6ln, sch\xf6ne Gr\xfc\xdfe</p>",
                "text/html",
            ),
            (b"", "text/html"),
        ];
        for (body, ct) in bodies {
            assert_eq!(
                decode_html_owned(body.to_vec(), ct),
                decode_html(body, ct),
                "{body:?}"
            );
        }
    }
}
