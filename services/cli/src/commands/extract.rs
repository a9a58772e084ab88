//! `gleaner extract FILE_DIR_OR_URL...`: clean + extract without a pipeline.

use crate::args::{Common, Kafka};
use crate::commands::{config, extractor_of, init_logs};
use anyhow::Context;
use clap::Args;
use gleaner_core::messages::Cleaned;
use gleaner_core::Config;
use gleaner_extract::Extractor;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Expands directories into their `.html` / `.html.gz` files, sorted.
fn expand(inputs: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for i in inputs {
        let p = Path::new(i);
        if !i.contains("://") && p.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(p)
                .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
                .unwrap_or_default();
            files.retain(|f| {
                let n = f.to_string_lossy();
                n.ends_with(".html") || n.ends_with(".htm") || n.ends_with(".html.gz")
            });
            files.sort();
            out.extend(files.into_iter().map(|f| f.to_string_lossy().into_owned()));
        } else {
            out.push(i.clone());
        }
    }
    out
}

/// Most bytes of HTML read from a file (unzipped) or from stdin.
const MAX_HTML_BYTES: u64 = 64 << 20;

/// Reads HTML from stdin (`gleaner extract -`, as `curl ... | gleaner
/// extract -`), at most `MAX_HTML_BYTES`.
fn read_html_stdin() -> anyhow::Result<String> {
    let bytes = read_at_most(std::io::stdin().lock(), "stdin")?;
    html_of(bytes, "stdin")
}

/// All of `from`, unless it holds more than `MAX_HTML_BYTES`: a file or a
/// stream without end is refused, not read into memory.
fn read_at_most(from: impl Read, name: &str) -> anyhow::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    if let Err(e) = from.take(MAX_HTML_BYTES + 1).read_to_end(&mut bytes) {
        use std::io::ErrorKind::{InvalidData, InvalidInput, UnexpectedEof};
        // A broken or cut gzip is the input's fault (exit 2), a failing
        // disk is not.
        if matches!(e.kind(), InvalidData | InvalidInput | UnexpectedEof) {
            return Err(crate::commands::bad_input(format!("broken: {e}")));
        }
        return Err(e).with_context(|| format!("reading {name}"));
    }
    if bytes.len() as u64 > MAX_HTML_BYTES {
        return Err(crate::commands::bad_input(format!(
            "more than {} MiB of HTML",
            MAX_HTML_BYTES >> 20
        )));
    }
    Ok(bytes)
}

/// Reads a file's HTML (gunzipping `.gz`) and decodes it to UTF-8.
pub fn read_html_file(path: &Path) -> anyhow::Result<String> {
    let name = path.display().to_string();
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // `example.com/news/a.html`, `127.0.0.1:8000/a`: a URL without
            // its scheme (a bare `page.html` is a file name).
            let host_and_more = name.contains('/') || name.contains(':');
            let hint = if host_and_more && crate::commands::seed::looks_like_a_host(&name) {
                format!("; did you mean https://{name}?")
            } else {
                String::new()
            };
            return Err(crate::commands::bad_input(format!("no such file{hint}")));
        }
        Err(e) => return Err(e).with_context(|| format!("reading {name}")),
    };
    let bytes = if path.extension().is_some_and(|e| e == "gz") {
        read_at_most(flate2::read::GzDecoder::new(file), &name)?
    } else {
        read_at_most(file, &name)?
    };
    html_of(bytes, &path.display().to_string())
}

/// `bytes` decoded to UTF-8 as a browser would, unless they are not text.
fn html_of(bytes: Vec<u8>, name: &str) -> anyhow::Result<String> {
    // NUL bytes early on: an image, a PDF, an archive, not HTML; unless a
    // UTF-16 byte order mark says they are half of each character (the
    // BOM decides the encoding first, as in a browser).
    let utf16 = encoding_rs::Encoding::for_bom(&bytes)
        .is_some_and(|(e, _)| e == encoding_rs::UTF_16LE || e == encoding_rs::UTF_16BE);
    // A file that opens with a tag is markup whatever stray NUL it holds
    // (a browser sniffs it as HTML by its first tag, and fetch keeps such a
    // page); `<` then NUL is UTF-16 without its BOM.
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace());
    let tagged =
        start.is_some_and(|i| bytes[i] == b'<' && bytes.get(i + 1).is_some_and(|&b| b != 0));
    if !utf16 && !tagged && bytes[..bytes.len().min(8192)].contains(&0) {
        return Err(crate::commands::bad_input(format!(
            "{name} is not HTML (binary data)"
        )));
    }
    Ok(gleaner_fetch::decode_html(&bytes, "").0)
}

async fn read_url(cfg: &Config, url: &str) -> anyhow::Result<String> {
    let fetch: gleaner_fetch::FetchSettings = cfg.section()?;
    let client = reqwest::Client::builder()
        .user_agent(&fetch.user_agent)
        .timeout(std::time::Duration::from_millis(fetch.total_timeout_ms))
        .build()?;
    let resp = client.get(url).send().await?;
    let status = resp.status();
    if !status.is_success() {
        anyhow::bail!(
            "HTTP {}{}",
            status.as_u16(),
            status
                .canonical_reason()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default()
        );
    }
    let ct = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    // As fetch takes pages: HTML, or no type said.
    if !(ct.is_empty() || ct.starts_with("text/html") || ct.starts_with("application/xhtml")) {
        return Err(crate::commands::bad_input(format!(
            "not HTML (served as {ct})"
        )));
    }
    // Read up to the cap while streaming: a body without end stops there.
    let (body, _) = gleaner_fetch::read_capped(resp, fetch.max_body_bytes).await?;
    Ok(gleaner_fetch::decode_html(&body, &ct).0)
}

/// How many inputs failed, by why.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Failed {
    /// Not HTML at all (bad input).
    pub not_html: usize,
    /// URLs that could not be fetched (an HTTP error, no answer).
    pub unfetched: usize,
    /// Anything else (a file that could not be read, ...).
    pub other: usize,
}

impl Failed {
    /// The exit status the binary documents: 2 bad input, 1 a failure,
    /// 3 finished with pages that could not be fetched, else 0.
    pub fn exit_code(self) -> ExitCode {
        if self.not_html > 0 {
            ExitCode::from(2)
        } else if self.other > 0 {
            ExitCode::from(1)
        } else if self.unfetched > 0 {
            ExitCode::from(3)
        } else {
            ExitCode::SUCCESS
        }
    }
}

/// Extracts each input and prints it; returns how many failed, by why.
pub async fn extract_inputs(
    cfg: &Config,
    inputs: &[String],
    which: Extractor,
    json: bool,
) -> anyhow::Result<Failed> {
    let mut failed = Failed::default();
    let mut out = std::io::stdout().lock();
    // The inputs are a stream: site templates are learned across them.
    let mut site = gleaner_extract::SiteState::default();
    for input in expand(inputs) {
        let is_url = input.starts_with("http://") || input.starts_with("https://");
        let html = if is_url {
            read_url(cfg, &input).await
        } else if input == "-" {
            read_html_stdin()
        } else {
            read_html_file(Path::new(&input))
        };
        // Only the fetch failing is a page that could not be fetched.
        let unfetched = is_url && html.is_err();
        let result = html.and_then(|h| {
            let (title, meta, blocks) = gleaner_clean::clean_html(&h)?;
            let id = gleaner_core::util::doc_id(&input);
            let cleaned = Cleaned {
                id,
                url: input.clone(),
                final_url: input.clone(),
                fetched_at: String::new(),
                title,
                meta,
                blocks,
            };
            Ok(gleaner_extract::extract_with(
                &cleaned,
                which,
                Some(&mut site),
            ))
        });
        match result {
            Ok(a) if json => {
                let v = serde_json::json!({
                    "input": input, "title": a.title, "author": a.author,
                    "authors": a.authors, "date": a.date, "language": a.language,
                    "site_name": a.site_name, "canonical_url": a.canonical_url,
                    "image": a.image, "extractor": a.extractor, "text": a.text,
                });
                writeln!(out, "{v}")?;
            }
            Ok(a) => {
                // The title, when the page has one, then the text.
                writeln!(out, "==> {input} <==")?;
                if !a.title.trim().is_empty() {
                    writeln!(out, "{}\n", a.title)?;
                }
                writeln!(out, "{}\n", a.text)?;
                if a.text.trim().is_empty() {
                    // Said apart from the text, so a script reading stdout
                    // still gets the page's (empty) text.
                    eprintln!("gleaner: {input}: no main text found (an empty page, or one its scripts fill in)");
                }
            }
            Err(e) => {
                if e.downcast_ref::<crate::commands::BadInput>().is_some() {
                    failed.not_html += 1;
                } else if unfetched {
                    failed.unfetched += 1;
                } else {
                    failed.other += 1;
                }
                eprintln!("gleaner: {input}: {e:#}");
                if json {
                    writeln!(
                        out,
                        "{}",
                        serde_json::json!({"input": input, "error": format!("{e:#}")})
                    )?;
                }
            }
        }
    }
    Ok(failed)
}

/// The options of `gleaner extract`.
#[derive(Args)]
pub struct ExtractCmd {
    /// `.html` or `.html.gz` files, directories of them, URLs, or `-` for
    /// HTML on stdin.
    #[arg(value_name = "FILE_DIR_OR_URL")]
    pub inputs: Vec<String>,
    /// One JSON object per line per input.
    #[arg(long)]
    pub json: bool,
    /// Extraction method (default: extract.extractor).
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(gleaner_extract::Extractor::NAMES))]
    pub extractor: Option<String>,
    #[command(flatten)]
    pub kafka: Kafka,
    #[command(flatten)]
    pub common: Common,
}

impl ExtractCmd {
    pub async fn run(self) -> anyhow::Result<ExitCode> {
        let cfg = config(&self.common)?;
        if self.inputs.is_empty() {
            init_logs("info");
            crate::commands::service::run("extract", cfg, &self.kafka, Default::default()).await?;
            return Ok(ExitCode::SUCCESS);
        }
        init_logs("warn");
        let which = extractor_of(&cfg, self.extractor.as_deref())?;
        let failed = extract_inputs(&cfg, &self.inputs, which, self.json).await?;
        Ok(failed.exit_code())
    }
}

#[cfg(test)]
mod tests {
    use super::{html_of, read_at_most};

    /// A broken or cut gzip is bad input (exit 2); the caller names the file.
    #[test]
    fn a_broken_gzip_is_bad_input() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, b"<p>The harbour bridge reopened.</p>").unwrap();
        let whole = gz.finish().unwrap();
        for broken in [&whole[..whole.len() / 2], b"\x1f\x8b\x08\0garbage"] {
            let err = read_at_most(flate2::read::GzDecoder::new(broken), "a.html.gz").unwrap_err();
            assert!(
                err.downcast_ref::<crate::commands::BadInput>().is_some(),
                "{err:#}"
            );
            assert!(err.to_string().starts_with("broken: "), "{err}");
        }
        let read = read_at_most(flate2::read::GzDecoder::new(&whole[..]), "a.html.gz").unwrap();
        assert!(read.starts_with(b"<p>The harbour"));
    }

    #[test]
    fn nul_bytes_are_binary_unless_a_utf16_bom_or_a_first_tag_says_otherwise() {
        let page = "<html><title>Brücke</title><p>Die Brücke ist offen.</p></html>";
        let utf16 = |le: bool| {
            let mut b: Vec<u8> = if le {
                vec![0xFF, 0xFE]
            } else {
                vec![0xFE, 0xFF]
            };
            for u in page.encode_utf16() {
                b.extend(if le { u.to_le_bytes() } else { u.to_be_bytes() });
            }
            b
        };
        for le in [true, false] {
            assert_eq!(html_of(utf16(le), "page.html").unwrap(), page);
        }
        // The same bytes without their BOM are not text a browser reads.
        let bare = utf16(true)[2..].to_vec();
        let err = html_of(bare, "page.html").unwrap_err().to_string();
        assert!(err.contains("binary data"), "{err}");
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        assert!(html_of(png, "photo.html").is_err());
        // A page with a stray NUL in its text is still the page.
        let stray = b"\n<html><body><p>Hello\0 world</p></body></html>".to_vec();
        assert!(html_of(stray, "page.html").unwrap().contains("world"));
    }
}
