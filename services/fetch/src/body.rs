//! Response bodies: read up to a cap while streaming, then decoded to UTF-8.

use futures::StreamExt;

/// Reads a body up to `cap` bytes while streaming (after decompression, so a
/// decompression bomb stops at the cap too). Returns whether it was cut.
pub async fn read_capped(
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

/// Decodes HTML bytes to UTF-8 in the WHATWG order (a BOM, the
/// Content-Type charset, a `<meta charset>` in the first KiB, then
/// detection with chardetng), except that a declaration the bytes
/// contradict loses: valid multi-byte UTF-8 is UTF-8 whatever is declared,
/// a page declared UTF-8 that is not is detected, and one declared
/// windows-1252 (what latin1 and ascii labels mean) that detection finds
/// to be another encoding decoding every byte is taken as that.
pub fn decode_html(body: &[u8], content_type: &str) -> (String, String) {
    let enc = encoding_of(body, content_type);
    let (text, used, had_errors) = enc.decode(body);
    if had_errors && used == encoding_rs::UTF_8 {
        // Declared UTF-8 but not: an encoding that decodes every byte, if
        // detection finds one.
        let other = guess(body);
        if other != encoding_rs::UTF_8 {
            let (guessed, used, had_errors) = other.decode(body);
            if !had_errors {
                return (guessed.into_owned(), used.name().to_string());
            }
        }
    }
    (text.into_owned(), used.name().to_string())
}

/// [`decode_html`] of a body the caller gives up: UTF-8 without a BOM, most
/// of the web, becomes the string without a copy.
pub fn decode_html_owned(body: Vec<u8>, content_type: &str) -> (String, String) {
    let enc = encoding_of(&body, content_type);
    if enc == encoding_rs::UTF_8 && !body.starts_with(b"\xEF\xBB\xBF") {
        // Valid: what decoding would return. Invalid: what decode_html
        // makes of it (another encoding, or replacement characters).
        return match String::from_utf8(body) {
            Ok(text) => (text, enc.name().to_string()),
            Err(e) => decode_html(e.as_bytes(), content_type),
        };
    }
    decode_html(&body, content_type)
}

/// The body's encoding: the BOM, the declared charset unless the bytes
/// contradict it, then detection.
fn encoding_of(body: &[u8], content_type: &str) -> &'static encoding_rs::Encoding {
    let from_label = |label: &str| {
        encoding_rs::Encoding::for_label(label.trim().trim_matches(['"', '\'']).as_bytes())
            // x-user-defined (bytes as private-use characters) is for
            // binary data; on an HTML page the WHATWG prescan reads it as
            // windows-1252, as browsers show it.
            .map(|e| {
                if e == encoding_rs::X_USER_DEFINED {
                    encoding_rs::WINDOWS_1252
                } else {
                    e
                }
            })
            // The labels of ISO-2022-KR, HZ and their kin name the
            // "replacement" encoding, which a browser shows as one U+FFFD
            // (a guard against script smuggled in their shifts). A crawler
            // would lose the page's every word, so they count as no
            // declaration and the bytes are detected.
            .filter(|e| *e != encoding_rs::REPLACEMENT)
    };
    if let Some((bom, _)) = encoding_rs::Encoding::for_bom(body) {
        return bom;
    }
    let declared = content_type
        .split(';')
        .filter_map(|p| p.trim().strip_prefix("charset="))
        .find_map(from_label)
        .or_else(|| meta_charset(&body[..body.len().min(1024)]).and_then(|l| from_label(&l)));
    match declared {
        // Declared UTF-8 is checked while decoding (no second pass over
        // the bytes for the web's most common case).
        Some(enc) if enc == encoding_rs::UTF_8 => enc,
        // A page in UTF-16 has a NUL beside every ASCII character of its
        // markup; one without is in an ASCII-based encoding whatever it
        // declares (the WHATWG prescan reads a `<meta>` UTF-16 as UTF-8
        // for the same reason: it could not have been read otherwise).
        Some(enc)
            if (enc == encoding_rs::UTF_16LE || enc == encoding_rs::UTF_16BE)
                && !body[..body.len().min(1024)].contains(&0) =>
        {
            detect(body)
        }
        Some(enc) => overruled(body, enc).unwrap_or(enc),
        None => detect(body),
    }
}

/// What a legacy declaration is overruled by, if the bytes contradict it.
fn overruled(
    body: &[u8],
    declared: &'static encoding_rs::Encoding,
) -> Option<&'static encoding_rs::Encoding> {
    if body.is_ascii() {
        return None;
    }
    // Text of a legacy encoding is almost never valid multi-byte UTF-8 by
    // chance (seen: qq.com declaring gb2312 over UTF-8).
    if std::str::from_utf8(body).is_ok() {
        return Some(encoding_rs::UTF_8);
    }
    // windows-1252 decodes any byte, so a page of GBK, Big5, Shift_JIS or
    // windows-1251 declared latin1 would come out as Latin mojibake.
    if declared == encoding_rs::WINDOWS_1252 {
        let other = guess(body);
        if other != declared && !other.decode_without_bom_handling(body).1 {
            return Some(other);
        }
    }
    None
}

/// The encoding of undeclared bytes.
fn detect(body: &[u8]) -> &'static encoding_rs::Encoding {
    // Valid UTF-8 (or plain ASCII) is what detection would say too, at a
    // fraction of its cost (it was a twentieth of a crawl's CPU).
    if std::str::from_utf8(body).is_ok() {
        return encoding_rs::UTF_8;
    }
    guess(body)
}

/// chardetng's guess for bytes known not to be UTF-8.
fn guess(body: &[u8]) -> &'static encoding_rs::Encoding {
    let mut d = chardetng::EncodingDetector::new();
    d.feed(&body[..body.len().min(64 * 1024)], body.len() <= 64 * 1024);
    d.guess(None, true)
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

    /// Pages of every common legacy encoding, in their language, with a
    /// paragraph of real length.
    pub(crate) const SAMPLES: [(&str, &str); 6] = [
        ("GBK", "北京市政府今天宣布，新的地铁线路将于明年年底开通，全长约四十公里，沿途设有二十六个车站。市民普遍表示欢迎，认为这将大大缓解城市交通压力。"),
        ("Big5", "台北市政府今天宣布，新的捷運路線將於明年年底通車，全長約四十公里，沿途設有二十六個車站。市民普遍表示歡迎，認為這將大大緩解城市交通壓力。"),
        ("Shift_JIS", "東京都は今日、新しい地下鉄路線を来年末に開業すると発表した。全長は約四十キロで、二十六の駅が設けられる。住民の多くは歓迎しており、交通の混雑が大きく緩和されると期待している。"),
        ("EUC-KR", "서울시는 오늘 새로운 지하철 노선을 내년 말에 개통한다고 발표했다. 전체 길이는 약 사십 킬로미터이며 스물여섯 개의 역이 설치된다. 시민들은 대체로 환영하며 교통 혼잡이 크게 줄어들 것으로 기대하고 있다."),
        ("windows-1251", "Правительство Москвы сегодня объявило, что новая линия метро откроется в конце следующего года. Её длина составит около сорока километров, на ней будет двадцать шесть станций. Жители в целом приветствуют это решение."),
        ("windows-1252", "Le gouvernement a annoncé aujourd'hui que la nouvelle ligne de métro ouvrira à la fin de l'année prochaine. Elle mesurera environ quarante kilomètres et comptera vingt-six stations. Les habitants s'en réjouissent déjà, très nombreux à espérer moins d'embouteillages."),
    ];

    /// `text` in a page encoded as `label`, declaring `declared` in a
    /// `<meta>` (if any).
    pub(crate) fn page(label: &str, declared: Option<&str>, text: &str) -> Vec<u8> {
        let enc = encoding_rs::Encoding::for_label(label.as_bytes()).unwrap();
        let meta = declared.map_or(String::new(), |d| format!("<meta charset=\"{d}\">"));
        let html = format!("<html><head>{meta}<title>t</title></head><body><p>{text}</p><p>{text}</p></body></html>");
        let (bytes, _, unmappable) = enc.encode(&html);
        assert!(!unmappable, "{label} cannot encode the sample");
        bytes.into_owned()
    }

    #[test]
    fn undeclared_and_misdeclared_legacy_pages_decode_to_their_text() {
        for (label, text) in SAMPLES {
            let want = encoding_rs::Encoding::for_label(label.as_bytes()).unwrap();
            // Undeclared; declared right; declared latin1 (a wrong default);
            // declared UTF-8 (a template's wrong default).
            let cases = [
                (None, ""),
                (Some(label), ""),
                (Some("iso-8859-1"), ""),
                (None, "text/html; charset=utf-8"),
            ];
            for (declared, ct) in cases {
                let body = page(label, declared, text);
                for (t, cs) in [decode_html(&body, ct), decode_html_owned(body.clone(), ct)] {
                    assert_eq!(cs, want.name(), "{label} declared {declared:?} {ct:?}");
                    assert!(
                        t.contains(text),
                        "{label} declared {declared:?} {ct:?}: {t}"
                    );
                }
            }
        }
    }

    #[test]
    fn utf16_declared_over_ascii_based_bytes_is_not_taken() {
        // In a <meta> or in the header: the bytes have no NUL, so they are
        // not UTF-16; what they are is detected.
        let utf8 = "<meta charset=\"utf-16\"><p>Grüße aus Köln, hello world</p>";
        let (text, enc) = decode_html(utf8.as_bytes(), "");
        assert_eq!((text.as_str(), enc.as_str()), (utf8, "UTF-8"));
        let (text, enc) = decode_html(b"<p>plain page</p>", "text/html; charset=utf-16le");
        assert_eq!(
            (text.as_str(), enc.as_str()),
            ("<p>plain page</p>", "UTF-8")
        );
        let owned = decode_html_owned(utf8.as_bytes().to_vec(), "");
        assert_eq!(owned.0, utf8);
        // A label of the replacement encoding is no declaration: the text
        // is kept.
        for label in ["iso-2022-kr", "hz-gb-2312", "csiso2022kr"] {
            let page = format!("<meta charset=\"{label}\"><p>bridge budget approved</p>");
            let (text, enc) = decode_html(page.as_bytes(), "");
            assert_eq!(
                (text.as_str(), enc.as_str()),
                (page.as_str(), "UTF-8"),
                "{label}"
            );
            let (text, _) = decode_html(b"<p>bridge</p>", &format!("text/html; charset={label}"));
            assert_eq!(text, "<p>bridge</p>", "{label}");
        }
        // x-user-defined on a page is windows-1252, as browsers read it.
        let (text, _) = decode_html(b"<meta charset=x-user-defined><p>caf\xe9</p>", "");
        assert!(text.ends_with("<p>caf\u{e9}</p>"), "{text}");
        // Real UTF-16 (here without a BOM, declared by the header) is read as such.
        let html = "<p>hello</p>";
        let le: Vec<u8> = html.encode_utf16().flat_map(u16::to_le_bytes).collect();
        assert_eq!(decode_html(&le, "text/html; charset=utf-16le").0, html);
    }

    #[test]
    fn utf8_declared_as_a_legacy_charset_is_utf8() {
        // As qq.com serves it: gb2312 declared, the bytes UTF-8.
        for declared in ["gb2312", "iso-8859-1", "shift_jis", "windows-1251"] {
            let text = SAMPLES[0].1;
            let body = page("utf-8", Some(declared), text);
            let (t, cs) = decode_html(&body, "");
            assert_eq!(cs, "UTF-8", "declared {declared}");
            assert!(t.contains(text));
            assert_eq!(decode_html_owned(body, "").0, t);
        }
        // A legacy page without a byte past ASCII keeps its declaration.
        assert_eq!(
            decode_html(b"<p>plain</p>", "text/html; charset=gbk").1,
            "GBK"
        );
    }
}
