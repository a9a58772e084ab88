//! Facet counts over every document a query matches, read from the fast
//! fields: by site and language (the term ordinals of their string
//! columns) and by month of publication (counted by day, named at the end).

use crate::request::Facets;
use rustc_hash::FxHashMap;
use tantivy::collector::{Collector, SegmentCollector};
use tantivy::columnar::{Column, StrColumn};
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader};

/// Counts by site, language and month.
pub(crate) struct FacetCollector;

pub(crate) struct SegmentFacets {
    site: Option<(StrColumn, Vec<u64>)>,
    language: Option<(StrColumn, Vec<u64>)>,
    published: Column<tantivy::DateTime>,
    days: FxHashMap<i64, u64>,
}

/// One segment's counts, by value.
#[derive(Default)]
pub(crate) struct Counts {
    site: FxHashMap<String, u64>,
    language: FxHashMap<String, u64>,
    days: FxHashMap<i64, u64>,
}

fn ordinals(column: Option<StrColumn>) -> Option<(StrColumn, Vec<u64>)> {
    column.map(|c| {
        let n = c.num_terms();
        (c, vec![0; n])
    })
}

impl Collector for FacetCollector {
    type Fruit = Facets;
    type Child = SegmentFacets;

    fn for_segment(
        &self,
        _: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<SegmentFacets> {
        let fast = reader.fast_fields();
        Ok(SegmentFacets {
            site: ordinals(fast.str("site")?),
            language: ordinals(fast.str("language")?),
            published: fast.date("published")?,
            days: FxHashMap::default(),
        })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, segments: Vec<Counts>) -> tantivy::Result<Facets> {
        let mut all = Counts::default();
        for s in segments {
            for (k, n) in s.site {
                *all.site.entry(k).or_default() += n;
            }
            for (k, n) in s.language {
                *all.language.entry(k).or_default() += n;
            }
            for (k, n) in s.days {
                *all.days.entry(k).or_default() += n;
            }
        }
        let mut months: FxHashMap<String, u64> = FxHashMap::default();
        for (day, n) in all.days {
            let month = jiff::Timestamp::from_second(day * 86_400)
                .map(|t| t.strftime("%Y-%m").to_string())
                .unwrap_or_default();
            *months.entry(month).or_default() += n;
        }
        Ok(Facets {
            site: largest_first(all.site),
            language: largest_first(all.language),
            month: largest_first(months),
        })
    }
}

/// Values by count, largest first, then by name; empty values left out.
fn largest_first(counts: FxHashMap<String, u64>) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = counts.into_iter().filter(|(k, _)| !k.is_empty()).collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v
}

impl SegmentCollector for SegmentFacets {
    type Fruit = Counts;

    fn collect(&mut self, doc: DocId, _: Score) {
        for (column, counts) in [&mut self.site, &mut self.language].into_iter().flatten() {
            for ord in column.term_ords(doc) {
                counts[ord as usize] += 1;
            }
        }
        if let Some(t) = self.published.first(doc) {
            *self
                .days
                .entry(t.into_timestamp_secs().div_euclid(86_400))
                .or_default() += 1;
        }
    }

    fn harvest(self) -> Counts {
        let named = |slot: Option<(StrColumn, Vec<u64>)>| {
            let mut out = FxHashMap::default();
            if let Some((column, counts)) = slot {
                let mut name = String::new();
                for (ord, n) in counts.into_iter().enumerate().filter(|(_, n)| *n > 0) {
                    name.clear();
                    if column.ord_to_str(ord as u64, &mut name).unwrap_or(false) {
                        *out.entry(name.clone()).or_default() += n;
                    }
                }
            }
            out
        };
        Counts {
            site: named(self.site),
            language: named(self.language),
            days: self.days,
        }
    }
}
