//! Copies collapsed: a query's hits grouped by a group key (of the dedup
//! cluster, or of the story: schema::group_key), each group shown by its
//! earliest published member. Keys and dates come from the fast fields,
//! so only the documents shown are read from the store (reading a stored
//! document decompresses its block; the hits read to fill a page are
//! four times those shown).

use rustc_hash::FxHashMap;
use tantivy::columnar::Column;
use tantivy::{DateTime, DocAddress, Searcher};

/// Hits sharing a group value.
pub(crate) struct Group {
    /// The score of its best hit (the first in the order given).
    pub(crate) score: f32,
    /// Every hit: (published, address), earliest first once `sorted`.
    pub(crate) members: Vec<(i64, DocAddress)>,
}

impl Group {
    /// The member shown: the earliest published (the first on a tie).
    pub(crate) fn shown(&self) -> DocAddress {
        self.members[0].1
    }
}

/// `hits` (in rank order) grouped by the value of the u64 fast field
/// `field`, groups in the order of their first hit. A document with no
/// value is a group alone.
pub(crate) fn group_hits(
    searcher: &Searcher,
    hits: &[(f32, DocAddress)],
    field: &str,
) -> tantivy::Result<Vec<Group>> {
    let mut columns: FxHashMap<u32, (Column<u64>, Column<DateTime>)> = FxHashMap::default();
    let mut groups: Vec<Group> = Vec::new();
    let mut by_key: FxHashMap<u64, usize> = FxHashMap::default();
    for &(score, addr) in hits {
        let (group, published) = match columns.get(&addr.segment_ord) {
            Some(c) => c,
            None => {
                let fast = searcher.segment_reader(addr.segment_ord).fast_fields();
                let c = (fast.u64(field)?, fast.date("published")?);
                columns.entry(addr.segment_ord).or_insert(c)
            }
        };
        let published = published
            .first(addr.doc_id)
            .map_or(i64::MAX, |d| d.into_timestamp_secs());
        let key = group.first(addr.doc_id);
        match key.and_then(|k| by_key.get(&k).copied()) {
            Some(i) => groups[i].members.push((published, addr)),
            None => {
                if let Some(k) = key {
                    by_key.insert(k, groups.len());
                }
                groups.push(Group {
                    score,
                    members: vec![(published, addr)],
                });
            }
        }
    }
    for g in &mut groups {
        // Earliest first; a tie keeps the rank order.
        g.members.sort_by_key(|(published, _)| *published);
    }
    Ok(groups)
}
