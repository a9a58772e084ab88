//! The extract stage and its place in the registry: cleaned pages in,
//! articles out; site rules from the compacted rules topic.

use crate::article::{extract_chosen, site_view, SiteState};
use crate::extractor::Extractor;
use crate::settings::ExtractSettings;
use async_trait::async_trait;
use gleaner_core::config::{SectionCheck, SectionOf};
use gleaner_core::cpu::CpuPool;
use gleaner_core::messages::{Cleaned, SiteRules};
use gleaner_core::outcome::Reason;
use gleaner_core::registry::{StageContext, StageSpec};
use gleaner_core::stage::{Handled, Input, Output, Stage};
use gleaner_core::sync::Locked;
use gleaner_core::MapStage;
use gleaner_core::Topic;

/// The extract stage: `cleaned` in, `articles` out. Pages whose main text is
/// shorter than the configured minimum (errors, stubs) or mostly link text
/// (home pages, link lists) are skipped (`not_article`) rather than put
/// into `articles`.
#[derive(Clone)]
pub struct ExtractStage {
    extractor: Extractor,
    min_text_words: usize,
    max_link_share: f64,
    site: std::sync::Arc<std::sync::Mutex<SiteState>>,
    /// Where extraction runs (see [`StageContext::intake`]).
    cpu: CpuPool,
}

impl ExtractStage {
    pub fn new(extractor: Extractor, cfg: &ExtractSettings) -> Self {
        ExtractStage {
            extractor,
            min_text_words: cfg.min_text_words,
            max_link_share: cfg.max_link_share,
            site: Default::default(),
            cpu: CpuPool::blocking(),
        }
    }

    /// Runs extraction on `cpu` rather than tokio's blocking threads.
    pub fn running_on(mut self, cpu: CpuPool) -> Self {
        self.cpu = cpu;
        self
    }

    /// Sets or (with `None`) deletes a host's rules, as the rules topic does.
    pub fn set_rules(&self, host: &str, rules: Option<SiteRules>) {
        let mut site = self.site.locked();
        match rules {
            Some(r) => site.rules.insert(host.to_ascii_lowercase(), r),
            None => site.rules.remove(&host.to_ascii_lowercase()),
        };
    }
}

#[async_trait]
impl MapStage for ExtractStage {
    async fn map(&self, input: &Input) -> Handled {
        if input.topic == Topic::RULES {
            // Compacted topic, key = host; a null value deletes.
            let host = input.key.clone().unwrap_or_default();
            let rules: Option<SiteRules> = match input.payload {
                Some(_) => Some(input.decode()?),
                None => None,
            };
            let host = rules
                .as_ref()
                .map(|r| r.host.clone())
                .filter(|h| !h.is_empty())
                .unwrap_or(host);
            anyhow::ensure!(!host.is_empty(), "site rules without a host");
            self.set_rules(&host, rules);
            return Ok(vec![]);
        }
        let cleaned = input.decode_shared::<Cleaned>()?;
        // Site templates and rules go by the page's own host, whatever the
        // producer keyed it by.
        let host = gleaner_core::util::host_of(&cleaned.url);
        let key = input.key.clone().unwrap_or_else(|| host.clone());
        let which = self.extractor;
        let site = self.site.clone();
        let (article, link_share) = self
            .cpu
            .run(move || {
                let view = site_view(&mut site.locked(), &host, &cleaned);
                let (article, chosen) = extract_chosen(&cleaned, which, view);
                let (text, links) = chosen.iter().fold((0u64, 0u64), |(t, l), &i| {
                    let b = &cleaned.blocks[i];
                    (t + u64::from(b.text_len), l + u64::from(b.link_text_len))
                });
                (article, links as f64 / text.max(1) as f64)
            })
            .await?;
        let words = gleaner_text::word_count(&article.text);
        if words < self.min_text_words {
            return Err(NOT_ARTICLE.because(format!(
                "not an article: main text has {words} words (a CJK character counts as one), fewer than extract.min_text_words = {}",
                self.min_text_words
            )));
        }
        if link_share > self.max_link_share {
            return Err(NOT_ARTICLE.because(format!(
                "not an article: {:.0}% of its main text is link text (a list of links), more than extract.max_link_share = {}",
                link_share * 100.0,
                self.max_link_share
            )));
        }
        Ok(vec![Output::new(Topic::ARTICLES, key, article)])
    }
}

/// A page whose main text is too short or mostly links (an index or listing
/// page): passed over by design, not a failure.
pub const NOT_ARTICLE: Reason = Reason::skip(
    "not_article",
    "not an article",
    "pages whose main text is short or mostly links (home, index and listing pages) are passed over: extract.min_text_words, extract.max_link_share",
);

/// The extract stage in the registry.
pub struct ExtractSpec;

#[async_trait]
impl StageSpec for ExtractSpec {
    fn name(&self) -> &'static str {
        "extract"
    }
    fn about(&self) -> &'static str {
        "Finds each page's main content (the article text) and its metadata"
    }
    fn settings(&self) -> Option<&'static dyn SectionCheck> {
        Some(&SectionOf::<ExtractSettings>::NEW)
    }
    fn reasons(&self) -> &'static [Reason] {
        &[NOT_ARTICLE]
    }
    fn output(&self) -> Option<Topic> {
        Some(Topic::ARTICLES)
    }
    fn reads(&self) -> &'static [Topic] {
        &[Topic::CLEANED]
    }
    fn side_inputs(&self) -> &'static [Topic] {
        &[Topic::RULES]
    }
    /// A rule is for every instance, whatever hosts' pages it owns; and,
    /// rarely written, it is read apart from the group's cleaned pages
    /// (with fewer fetches for the broker).
    fn every_instance_reads(&self) -> &'static [Topic] {
        &[Topic::RULES]
    }
    async fn build(&self, ctx: &StageContext) -> anyhow::Result<Box<dyn Stage>> {
        let settings: ExtractSettings = ctx.cfg.section()?;
        let which: Extractor = settings.extractor.parse()?;
        let stage = ExtractStage::new(which, &settings).running_on(ctx.intake.clone());
        load_rules(&stage, ctx).await?;
        Ok(Box::new(gleaner_core::Mapped::new(stage)))
    }
}

/// The rules topic is a compacted table: read whole on every start (the
/// consumer group only brings changes after that).
async fn load_rules(stage: &ExtractStage, ctx: &StageContext) -> anyhow::Result<()> {
    let bus = ctx.bus.clone();
    let records = tokio::task::spawn_blocking(move || bus.read(Topic::RULES, i64::MAX)).await??;
    if records.is_empty() {
        return Ok(());
    }
    let n = records.len();
    for (key, value) in records {
        let rules = match value.as_deref().map(serde_json::from_slice::<SiteRules>) {
            None => None,
            Some(Ok(r)) => Some(r),
            Some(Err(e)) => {
                tracing::warn!(?key, error = %e, "malformed site rules skipped");
                continue;
            }
        };
        let host = rules
            .as_ref()
            .map(|r| r.host.clone())
            .filter(|h| !h.is_empty())
            .or(key)
            .unwrap_or_default();
        if !host.is_empty() {
            stage.set_rules(&host, rules);
        }
    }
    tracing::info!(records = n, "site rules loaded from the rules topic");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn outcome(html: &str) -> Handled {
        let cleaned = crate::tests::page(html);
        let input = Input {
            topic: Topic::CLEANED,
            key: Some("x.test".into()),
            payload: Some(Output::new(Topic::CLEANED, "x".to_string(), cleaned).payload),
            origin: None,
        };
        ExtractStage::new(Extractor::Auto, &ExtractSettings::default())
            .map(&input)
            .await
    }

    /// One threshold for every script: a short Chinese news item (about
    /// 60 characters, as much news as 35 English words) is an article; an
    /// English text of the same number of characters is not.
    #[tokio::test]
    async fn the_length_threshold_counts_cjk_characters_as_words() {
        let zh = "<html><body><article><p>市政府周一宣布，港口大桥经过八个月的维修后重新通车，维修费用超过四千万元，过桥费下月起上调。</p></article></body></html>";
        let en = "<html><body><article><p>The harbour bridge reopened on Monday after repairs.</p></article></body></html>";
        assert!(outcome(zh).await.is_ok(), "{:?}", outcome(zh).await.err());
        let short = outcome(en).await.unwrap_err().to_string();
        assert!(
            short.contains("fewer than extract.min_text_words"),
            "{short}"
        );
    }
}
