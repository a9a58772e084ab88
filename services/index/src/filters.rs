//! The filters of a search request (site, language, dates, what is new,
//! summaries) as queries that match without scoring.

use crate::request::SearchRequest;
use crate::search::SearchIndex;
use std::ops::Bound;
use tantivy::query::{ConstScoreQuery, Query, RangeQuery, TermQuery, TermSetQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::{DateTime, Term};

impl SearchIndex {
    /// The filters of `req` as queries that match without scoring.
    pub(crate) fn filters(&self, req: &SearchRequest) -> Vec<Box<dyn Query>> {
        let f = self.fields;
        let mut out: Vec<Box<dyn Query>> = Vec::new();
        if !req.sites.is_empty() {
            let terms = req
                .sites
                .iter()
                .map(|s| Term::from_field_text(f.site, &site_key(s)));
            out.push(Box::new(TermSetQuery::new(terms)));
        }
        if let Some(lang) = &req.lang {
            let term = Term::from_field_text(f.language, &lang.trim().to_ascii_lowercase());
            out.push(Box::new(TermQuery::new(term, IndexRecordOption::Basic)));
        }
        if req.from.is_some() || req.to.is_some() {
            let at = |secs: i64| {
                Term::from_field_date_for_search(f.published, DateTime::from_timestamp_secs(secs))
            };
            let lower = req
                .from
                .map_or(Bound::Unbounded, |s| Bound::Included(at(s)));
            let upper = req.to.map_or(Bound::Unbounded, |s| Bound::Excluded(at(s)));
            out.push(Box::new(RangeQuery::new(lower, upper)));
        }
        if let Some(secs) = req.indexed_from {
            let at =
                Term::from_field_date_for_search(f.indexed, DateTime::from_timestamp_secs(secs));
            out.push(Box::new(RangeQuery::new(
                Bound::Included(at),
                Bound::Unbounded,
            )));
        }
        if let Some(has) = req.has_summary {
            let term = Term::from_field_bool(f.has_summary, has);
            out.push(Box::new(TermQuery::new(term, IndexRecordOption::Basic)));
        }
        out.into_iter()
            .map(|q| Box::new(ConstScoreQuery::new(q, 0.0)) as Box<dyn Query>)
            .collect()
    }
}

/// The site a filter names as articles carry it: the registered domain
/// of the host or URL given, so `www.bbc.co.uk` or a pasted
/// `https://news.bbc.co.uk/news` finds bbc.co.uk's articles (each found
/// nothing, as only the registered domain itself matched).
fn site_key(given: &str) -> String {
    let given = given.trim();
    let url = if given.contains("://") {
        given.to_string()
    } else {
        format!("http://{given}")
    };
    match gleaner_core::util::host_of(&url) {
        host if host.is_empty() => given.to_ascii_lowercase(),
        host => gleaner_core::util::registered_domain(&host),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_site_is_read_as_its_registered_domain() {
        for given in [
            "bbc.co.uk",
            " BBC.co.uk ",
            "www.bbc.co.uk",
            "news.bbc.co.uk.",
            "https://www.bbc.co.uk/news/uk-123?x=1",
            "bbc.co.uk:443/news",
        ] {
            assert_eq!(site_key(given), "bbc.co.uk", "{given}");
        }
        assert_eq!(site_key("127.0.0.1:8931"), "127.0.0.1");
        assert_eq!(site_key("a.github.io"), "a.github.io");
        assert_eq!(site_key("bücher.de"), "xn--bcher-kva.de");
    }
}
