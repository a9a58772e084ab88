//! A labelled set in the WCXB layout as `gleaner eval` reads it:
//! `html/ID.html(.gz)` and `ground-truth/ID.json` per page.

use anyhow::Context;
use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
struct Truth {
    #[serde(default)]
    url: String,
    #[serde(default, rename = "_internal")]
    internal: Option<Internal>,
    ground_truth: GroundTruth,
}

#[derive(Deserialize)]
struct Internal {
    page_type: Option<PageType>,
}

#[derive(Deserialize)]
struct PageType {
    primary: Option<String>,
}

#[derive(Deserialize)]
pub(crate) struct GroundTruth {
    pub(crate) title: Option<String>,
    pub(crate) author: Option<String>,
    pub(crate) publish_date: Option<String>,
    pub(crate) language: Option<String>,
    #[serde(default)]
    pub(crate) main_content: String,
    #[serde(default)]
    pub(crate) with: Vec<String>,
    #[serde(default)]
    pub(crate) without: Vec<String>,
}

/// One labelled page.
pub(crate) struct Sample {
    pub(crate) id: String,
    pub(crate) page_type: String,
    pub(crate) url: String,
    pub(crate) html: String,
    pub(crate) truth: GroundTruth,
}

pub(crate) fn load(dir: &Path) -> anyhow::Result<Vec<Sample>> {
    let html_dir = dir.join("html");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&html_dir)
        .with_context(|| {
            format!(
                "reading {} (expected the WCXB layout: html/ and ground-truth/)",
                html_dir.display()
            )
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.to_string_lossy().ends_with(".html.gz") || p.to_string_lossy().ends_with(".html")
        })
        .collect();
    files.sort();
    let mut out = Vec::with_capacity(files.len());
    for f in files {
        let name = f
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let id = name
            .trim_end_matches(".gz")
            .trim_end_matches(".html")
            .to_string();
        let gt_path = dir.join("ground-truth").join(format!("{id}.json"));
        let truth: Truth = serde_json::from_slice(
            &std::fs::read(&gt_path).with_context(|| format!("reading {}", gt_path.display()))?,
        )
        .with_context(|| format!("parsing {}", gt_path.display()))?;
        let html = crate::commands::extract::read_html_file(&f)?;
        let page_type = truth
            .internal
            .and_then(|i| i.page_type)
            .and_then(|p| p.primary)
            .unwrap_or_else(|| "unknown".to_string());
        out.push(Sample {
            id,
            page_type,
            url: truth.url,
            html,
            truth: truth.ground_truth,
        });
    }
    Ok(out)
}
