//! Error analysis: print a page's blocks, one per line, with the ones the
//! `auto` extractor keeps marked `*`, each with its tag, link and text
//! characters, the end of its tag path and the start of its text.
//!
//! `cargo run --release -p gleaner-extract --example blocks -- page.html[.gz] [--full] [--scores]`
//! (`--full`: each block's whole tag path and its page type, not the end;
//! `--scores`: each block's score from the classifier, before the rules
//! that follow it)

use gleaner_core::messages::Cleaned;
use std::io::Read;

fn main() -> anyhow::Result<()> {
    let path = std::env::args()
        .nth(1)
        .ok_or_else(|| anyhow::anyhow!("usage: blocks PAGE.html[.gz]"))?;
    let full = std::env::args().any(|a| a == "--full");
    let with_scores = std::env::args().any(|a| a == "--scores");
    let bytes = std::fs::read(&path)?;
    let html = if path.ends_with(".gz") {
        let mut s = String::new();
        flate2::read::GzDecoder::new(&bytes[..]).read_to_string(&mut s)?;
        s
    } else {
        String::from_utf8_lossy(&bytes).into_owned()
    };
    let (title, meta, blocks) = gleaner_clean::clean_html(&html)?;
    let page = Cleaned {
        id: String::new(),
        url: "http://page.test/".into(),
        final_url: String::new(),
        fetched_at: String::new(),
        title,
        meta,
        blocks,
    };
    let chosen = gleaner_extract::select(&page, gleaner_extract::Extractor::Auto, &[]);
    if full {
        println!("page type: {:?}", page.meta.page_type);
    }
    let scores = match with_scores {
        true => gleaner_extract::auto_scores(&page),
        false => None,
    };
    for (i, b) in page.blocks.iter().enumerate() {
        let mark = if chosen.binary_search(&i).is_ok() {
            '*'
        } else {
            ' '
        };
        let cut = match full {
            true => 0,
            false => b.path.char_indices().rev().nth(69).map_or(0, |(at, _)| at),
        };
        let text: String = b.text.chars().take(60).collect();
        let score = scores
            .as_ref()
            .map_or(String::new(), |s| format!(" {:.2}", s[i]));
        println!(
            "{mark}{i:5}{score} {:4} links {}/{} {} | {text}",
            b.tag,
            b.link_text_len,
            b.text_len,
            &b.path[cut..]
        );
    }
    Ok(())
}
