//! Facet counts over every document a query matches, read from the fast
//! fields a block of documents at a time: by site and language (the term
//! ordinal of their string columns, one per document) and by month of
//! publication (counted by day in a vector over the segment's days, named
//! at the end).

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
    /// The segment's first day, and a count per day from it (a segment
    /// spanning more than a century counts the rest in `far`).
    first_day: i64,
    days: Vec<u64>,
    far: FxHashMap<i64, u64>,
    /// Reused per block: each document's ordinal or date.
    ords: Vec<Option<u64>>,
    dates: Vec<Option<tantivy::DateTime>>,
}

fn day_of(t: tantivy::DateTime) -> i64 {
    t.into_timestamp_secs().div_euclid(86_400)
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
        let published = fast.date("published")?;
        let (first_day, last_day) = if published.num_docs() == 0 {
            (0, 0)
        } else {
            (day_of(published.min_value()), day_of(published.max_value()))
        };
        // A segment spans a bounded run of days: at most 100 years counted.
        let span = (last_day - first_day + 1).clamp(1, 36_600) as usize;
        Ok(SegmentFacets {
            site: ordinals(fast.str("site")?),
            language: ordinals(fast.str("language")?),
            published,
            first_day,
            days: vec![0; span],
            far: FxHashMap::default(),
            ords: Vec::new(),
            dates: Vec::new(),
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
        self.collect_block(&[doc]);
    }

    fn collect_block(&mut self, docs: &[DocId]) {
        self.ords.resize(docs.len(), None);
        for (column, counts) in [&mut self.site, &mut self.language].into_iter().flatten() {
            column.ords().first_vals(docs, &mut self.ords);
            for ord in self.ords.iter().flatten() {
                counts[*ord as usize] += 1;
            }
        }
        self.dates.resize(docs.len(), None);
        self.published.first_vals(docs, &mut self.dates);
        for t in self.dates.iter().flatten() {
            let day = day_of(*t);
            match usize::try_from(day - self.first_day) {
                Ok(i) if i < self.days.len() => self.days[i] += 1,
                _ => *self.far.entry(day).or_default() += 1,
            }
        }
    }

    fn harvest(self) -> Counts {
        // The ordinals counted, named in one walk of the dictionary: one
        // look-up each decompressed their block again (a zstd context made
        // per call), for every site of every segment.
        let named = |slot: Option<(StrColumn, Vec<u64>)>| {
            let mut out = FxHashMap::default();
            if let Some((column, counts)) = slot {
                let (ords, ns): (Vec<u64>, Vec<u64>) = counts
                    .into_iter()
                    .enumerate()
                    .filter(|(_, n)| *n > 0)
                    .map(|(ord, n)| (ord as u64, n))
                    .unzip();
                let mut ns = ns.into_iter();
                let _ = column.dictionary().sorted_ords_to_term_cb(&ords, |name| {
                    if let Some(n) = ns.next() {
                        *out.entry(String::from_utf8_lossy(name).into_owned())
                            .or_default() += n;
                    }
                });
            }
            out
        };
        let first_day = self.first_day;
        Counts {
            site: named(self.site),
            language: named(self.language),
            days: self
                .days
                .iter()
                .enumerate()
                .filter(|(_, n)| **n > 0)
                .map(|(i, n)| (first_day + i as i64, *n))
                .chain(self.far)
                .collect(),
        }
    }
}
