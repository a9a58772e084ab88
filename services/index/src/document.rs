//! An article as a document of the index: its stored fields, its words in
//! the fields of its language (schema.rs) and the pairs of common words
//! among them (pairs.rs).

use crate::analyzers::Accents;
use crate::merges::StoryMerges;
use crate::pair_tokens::{self, PairTokenizer};
use crate::pairs::{self, CommonWords, Shared};
use crate::schema::{self, Fields, STEMMED};
use gleaner_core::messages::Summarized;
use rustc_hash::FxHashMap;
use std::path::PathBuf;
use std::sync::Arc;
use tantivy::tokenizer::TextAnalyzer;
use tantivy::TantivyDocument;

/// Makes documents: the analyzers of the stemmed fields and the common
/// words of each language, learned as languages first come.
pub(crate) struct Documents {
    index: tantivy::Index,
    fields: Fields,
    dir: PathBuf,
    /// The common words of each language, as the pair tokenizers look
    /// them up (written beside the index as `CommonWords`).
    shared: Shared,
    /// The stemmed fields' analyzers, to learn common words with.
    analyzers: FxHashMap<usize, TextAnalyzer>,
}

impl Documents {
    /// Documents for `index` (in `dir`), whose pair fields it makes
    /// tokenised by a pair tokenizer: to be called before the index's
    /// writer is made.
    pub(crate) fn open(
        index: &tantivy::Index,
        fields: Fields,
        dir: PathBuf,
    ) -> anyhow::Result<Self> {
        let mut common = CommonWords::load(&dir)?;
        // A language whose articles are in the index with no words kept
        // (common-words.json lost, or written by hand) gets none: words
        // learned now would find only the articles indexed from now on.
        let searcher = index.reader()?.searcher();
        let mut lost = false;
        for (slot, (code, _, _)) in STEMMED.iter().enumerate() {
            let indexed = searcher.segment_readers().iter().any(|s| {
                s.inverted_index(fields.body_stem[slot])
                    .is_ok_and(|ii| ii.terms().num_terms() > 0)
            });
            if indexed && common.get(code).is_none() {
                tracing::warn!(language = code, "no common words kept for an indexed language: its phrases are matched by positions");
                common.insert(code, Default::default());
                lost = true;
            }
        }
        if lost {
            common.save(&dir)?;
        }
        let shared = common.to_shared();
        let accents = Accents::of(index);
        let tokenizer = PairTokenizer::new(shared.clone(), accents.stem_analyzer_fn());
        index.tokenizers().register(schema::PAIRS, tokenizer);
        crate::analyzers::register_pair_keeping(index, accents, &shared);
        Ok(Documents {
            index: index.clone(),
            fields,
            dir,
            shared,
            analyzers: FxHashMap::default(),
        })
    }

    /// Whether the common words of the language of `slot` are known.
    fn knows(&self, slot: usize) -> bool {
        let shared = self.shared.read().unwrap_or_else(|e| e.into_inner());
        shared.contains_key(STEMMED[slot].0)
    }

    /// Whether articles of the language of `slot` get pairs.
    fn pairs(&self, slot: usize) -> bool {
        let shared = self.shared.read().unwrap_or_else(|e| e.into_inner());
        shared.get(STEMMED[slot].0).is_some_and(|w| !w.is_empty())
    }

    fn analyzer(&mut self, slot: usize) -> anyhow::Result<&mut TextAnalyzer> {
        if !self.analyzers.contains_key(&slot) {
            let analyzer = self
                .index
                .tokenizer_for_field(self.fields.body_stem[slot])?;
            self.analyzers.insert(slot, analyzer);
        }
        Ok(self.analyzers.get_mut(&slot).expect("inserted above"))
    }

    /// Learns the common words of each language of `articles` the index
    /// has none for yet, from those articles, and keeps them beside the
    /// index before any article of the language is added.
    pub(crate) fn learn(&mut self, articles: &[&Summarized]) -> anyhow::Result<()> {
        let mut new = Vec::new();
        for s in articles {
            if let Some(slot) = schema::stem_slot(s.article.language.as_deref()) {
                if !self.knows(slot) && !new.contains(&slot) {
                    new.push(slot);
                }
            }
        }
        if new.is_empty() {
            return Ok(());
        }
        let mut common = CommonWords::of_shared(&self.shared);
        let mut sets = Vec::new();
        for &slot in &new {
            let of_language = articles
                .iter()
                .filter(|s| schema::stem_slot(s.article.language.as_deref()) == Some(slot));
            let texts =
                of_language.flat_map(|s| [s.article.title.as_str(), s.article.text.as_str()]);
            let words = pairs::learn(self.analyzer(slot)?, texts);
            common.insert(STEMMED[slot].0, words.clone());
            sets.push((STEMMED[slot].0, Arc::new(words.into_iter().collect())));
        }
        // Used only once kept: an article indexed with words the index
        // could forget would be found by pairs its later ones lack.
        common.save(&self.dir)?;
        let mut shared = self.shared.write().unwrap_or_else(|e| e.into_inner());
        for (code, set) in sets {
            shared.insert(code.to_string(), set);
        }
        Ok(())
    }

    pub(crate) fn document(
        &mut self,
        merges: &StoryMerges,
        s: &Summarized,
    ) -> anyhow::Result<TantivyDocument> {
        let f = self.fields;
        let a = &s.article;
        let mut d = TantivyDocument::default();
        d.add_text(f.id, &a.id);
        d.add_text(f.url, &a.url);
        d.add_text(f.title, &a.title);
        d.add_text(f.body, &a.text);
        // The words once: stemmed in the article's language, else plain.
        match schema::stem_slot(a.language.as_deref()) {
            Some(slot) => {
                d.add_text(f.title_stem[slot], &a.title);
                d.add_text(f.body_stem[slot], &a.text);
                if self.pairs(slot) {
                    let code = STEMMED[slot].0;
                    d.add_text(f.title_pairs, pair_tokens::value(code, &a.title));
                    d.add_text(f.body_pairs, pair_tokens::value(code, &a.text));
                }
            }
            None => {
                d.add_text(f.title_plain, &a.title);
                d.add_text(f.body_plain, &a.text);
            }
        }
        // The CJK fields take only CJK runs: other text would be copied and
        // scanned for none (the same index, a little less work per page).
        if crate::cjk::has_cjk(&a.title) {
            d.add_text(f.title_cjk, &a.title);
        }
        if crate::cjk::has_cjk(&a.text) {
            d.add_text(f.body_cjk, &a.text);
        }
        d.add_text(f.author, a.author.as_deref().unwrap_or(""));
        d.add_text(f.date, a.date.as_deref().unwrap_or(""));
        d.add_text(f.language, a.language.as_deref().unwrap_or(""));
        d.add_text(f.summaries, serde_json::to_string(&s.summaries)?);
        d.add_text(f.fetched_at, &a.fetched_at);
        // No cluster (dedup did not see it): the article is its own.
        let cluster = a.cluster.as_deref().unwrap_or(&a.id);
        d.add_text(f.cluster, cluster);
        d.add_u64(f.cluster_key, schema::group_key(cluster));
        // No story (no stories stage): its copies' (dedup's cluster), else
        // its own.
        let story = merges.resolve(a.story.as_deref().or(a.cluster.as_deref()).unwrap_or(&a.id));
        d.add_text(f.story, story);
        d.add_u64(f.story_key, schema::group_key(story));
        let now = gleaner_core::util::unix_now() as i64;
        let published = gleaner_core::event::Event::of(a, now).secs;
        d.add_date(
            f.published,
            tantivy::DateTime::from_timestamp_secs(published),
        );
        let host = gleaner_core::util::host_of(&a.url);
        d.add_text(f.site, gleaner_core::util::registered_domain(&host));
        d.add_bool(f.has_summary, !s.summaries.is_empty());
        d.add_date(f.indexed, tantivy::DateTime::from_timestamp_secs(now));
        for (field, value) in [
            (f.site_name, &a.site_name),
            (f.canonical_url, &a.canonical_url),
            (f.image, &a.image),
        ] {
            if let Some(v) = value {
                d.add_text(field, v);
            }
        }
        for author in &a.authors {
            d.add_text(f.authors, author);
        }
        if let Some(words) = f.author_words {
            // A byline the page did not part into authors is one name.
            let names: Vec<&String> = if a.authors.is_empty() {
                a.author.iter().collect()
            } else {
                a.authors.iter().collect()
            };
            for name in names {
                d.add_text(words, name);
            }
        }
        Ok(d)
    }
}
