//! What the fetch stage makes of its inputs and of a finished fetch: an
//! input becomes a job (or nothing, when seen or out of scope); a fetched
//! page becomes the page record plus its in-scope links not yet seen.

use crate::schedule::Validators;
use crate::scope::{check_length, parse_http, Job};
use crate::stage::FetchStage;
use crate::Fetched;
use gleaner_core::messages::{FrontierLink, Scope, Seed};
use gleaner_core::metrics;
use gleaner_core::stage::{Input, Output};
use gleaner_core::util::{host_of, normalise_url_stripping};
use gleaner_core::Topic;
use std::collections::HashSet;

/// A scheduled URL's new-link count and validators, for its next revisit.
pub(crate) type Observed = (String, usize, Option<Validators>);

impl FetchStage {
    /// Turns an input into a fetch job, or `None` when there is nothing to
    /// fetch (already seen, out of scope).
    pub(crate) fn plan(&mut self, input: &Input) -> anyhow::Result<Option<Job>> {
        let cfg = &self.crawler.cfg;
        let job = match input.topic {
            Topic::SEEDS => {
                let seed: Seed = input.decode()?;
                let url = parse_http(&seed.url, &cfg.strip_params, cfg.max_url_length)?;
                self.schedule
                    .add(url.as_str(), &seed, gleaner_core::util::unix_now())?;
                if self.seen.insert(url.as_str()) && !seed.recrawl {
                    return Ok(None);
                }
                Job::from_seed(seed, url, cfg.default_depth)
            }
            Topic::FRONTIER => {
                let link: FrontierLink = input.decode()?;
                let url = parse_http(&link.url, &cfg.strip_params, cfg.max_url_length)?;
                let planned = self.seen.insert(url.as_str());
                // A link handed back unfetched (deferred) was planned here
                // before: it is fetched unless its page is known to be out.
                let fetched = self
                    .store
                    .as_ref()
                    .is_some_and(|s| s.contains(url.as_str()));
                if (planned && !link.deferred) || (link.deferred && fetched) {
                    return Ok(None);
                }
                Job::from_link(link, url)
            }
            other => anyhow::bail!("fetch does not read {}", other.short()),
        };
        Ok(Some(job))
    }

    /// The outputs of a successful fetch: the page and its in-scope links
    /// that are not known to be seen.
    fn outputs(&mut self, job: &Job, mut fetched: Fetched) -> Vec<Output> {
        let key = host_of(job.url.as_str());
        let mut outs = Vec::new();
        if let Some(page) = fetched.page.take() {
            outs.push(Output::new(Topic::PAGES, key, page));
        }
        // Sitemaps named by the host's robots.txt go with its first page.
        let host = crate::politeness::host_key(&job.url);
        fetched
            .sitemaps
            .extend(self.crawler.robots.take_sitemaps(&host));
        if job.scope == Scope::SeedOnly {
            return outs;
        }
        let mut emitted = HashSet::new();
        let (seen, cfg) = (&self.seen, &self.crawler.cfg);
        let linked = &mut self.linked;
        let mut next = |url: &str, depth: u32, emitted: &mut HashSet<String>| -> Option<Output> {
            let u = normalise_url_stripping(url, &cfg.strip_params).ok()?;
            if check_length(&u, cfg.max_url_length).is_err() {
                // A trap's ever longer links, or a page's data URL in an href.
                metrics::inc("gleaner_fetch_links_too_long_total", &[]);
                return None;
            }
            // Links that differ only in tracking parameters are one link.
            if !job.admits(&u) || seen.contains(u.as_str()) || !emitted.insert(u.to_string()) {
                return None;
            }
            // A link other pages gave while it waits on the frontier (a
            // site's navigation, on every page) is not sent again.
            if !linked.insert(gleaner_core::util::fnv1a64(u.as_str().as_bytes()), ()) {
                return None;
            }
            Some(Output::of(
                Topic::FRONTIER,
                host_of(u.as_str()),
                &job.child(&u, depth),
            ))
        };
        for sitemap in &fetched.sitemaps {
            outs.extend(next(sitemap, job.depth, &mut emitted));
        }
        if job.follows_links() {
            for link in &fetched.links {
                outs.extend(next(link, job.depth + 1, &mut emitted));
            }
        }
        outs
    }

    /// The outputs of a fetch that succeeded, counted in the metrics; notes
    /// scheduled URLs' new links for adaptive revisits.
    pub(crate) fn completed(
        &mut self,
        job: &Job,
        mut fetched: Fetched,
        observed: &mut Vec<Observed>,
    ) -> Vec<Output> {
        let scheduled = self.schedule.get(job.url.as_str());
        let body = fetched
            .page
            .as_ref()
            .filter(|_| scheduled.is_some())
            .map(|p| format!("{:016x}", gleaner_core::util::fnv1a64(p.html.as_bytes())));
        // A recrawl from a server without validators that returns the same
        // body is as unchanged as a 304.
        let unchanged = body.is_some() && scheduled.is_some_and(|e| e.validators.body == body);
        let status = match &fetched.page {
            _ if unchanged => "unchanged".to_string(),
            Some(p) => p.status.to_string(),
            None if fetched.not_modified => "304".to_string(),
            None => "feed".to_string(),
        };
        if unchanged {
            fetched.page = None;
            fetched.not_modified = true;
        }
        metrics::inc("gleaner_fetch_pages_total", &[("status", &status)]);
        metrics::add(
            "gleaner_fetch_bytes_total",
            &[],
            fetched.page.as_ref().map_or(0, |p| p.html.len()) as u64,
        );
        let validators = fetched.page.as_ref().map(|p| Validators {
            etag: p.headers.get("etag").cloned(),
            last_modified: p.headers.get("last-modified").cloned(),
            body,
        });
        let is_scheduled = scheduled.is_some();
        let outs = self.outputs(job, fetched);
        if is_scheduled {
            let new_links = outs.iter().filter(|o| o.topic == Topic::FRONTIER).count();
            observed.push((job.url.to_string(), new_links, validators));
        }
        outs
    }

    /// Books what scheduled URLs showed, for their next revisit.
    pub(crate) fn observe(&mut self, observed: Vec<Observed>) {
        let now = gleaner_core::util::unix_now();
        for (url, new_links, validators) in observed {
            if let Err(e) = self.schedule.observe(&url, new_links, validators, now) {
                tracing::warn!(error = %e, "saving the recrawl schedule failed");
            }
        }
    }
}
