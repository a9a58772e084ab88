//! The messages carried on each topic. They are JSON on the wire; the schema of
//! each one is in `schemas/` and a test keeps the two in step.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How far a crawl from one seed may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Only URLs on the seed's host.
    #[default]
    SameHost,
    /// URLs on the seed's registered domain (`news.example.com` and
    /// `www.example.com` for a seed on `example.com`).
    SameDomain,
    /// Only the seed URL itself, no link discovery.
    SeedOnly,
}

fn is_zero(v: &i32) -> bool {
    *v == 0
}

/// `gleaner.seeds`: a URL to crawl, written by users.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Seed {
    pub url: String,
    /// How many links away from the seed the crawl may go (0 = the seed only).
    /// Missing means the configured default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    /// Higher is sooner. Missing means 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    /// Fetch again even if the URL was seen before (a one-off recrawl).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub recrawl: bool,
    /// Fetch this URL again every so many seconds (a scheduled recrawl,
    /// kept by the fetch service's state).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every_secs: Option<u64>,
    /// With `every_secs`: revisit sooner when the page showed new links
    /// last time, later when it did not (for index pages).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub adaptive: bool,
    /// Only links matching one of these URL patterns are followed (`*`
    /// matches any run of characters; a pattern without `*` is a prefix).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<String>,
    /// Links matching one of these URL patterns are not followed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deny: Vec<String>,
}

/// `gleaner.frontier`: a link found on a fetched page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FrontierLink {
    pub url: String,
    /// Links away from the seed.
    pub depth: u32,
    /// Depth limit inherited from the seed.
    pub max_depth: u32,
    pub scope: Scope,
    /// The seed's host, which bounds a same-host crawl.
    pub seed_host: String,
    /// The page the link was found on.
    pub parent: String,
    /// Priority inherited from the seed: higher is fetched sooner.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub priority: i32,
    /// URL patterns inherited from the seed (see `Seed::allow`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deny: Vec<String>,
    /// Put back by fetch because its host was busy past the batch's deadline
    /// (not yet fetched, so the seen-set must let it in).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deferred: bool,
}

/// `gleaner.pages`: a fetched HTML page, decoded to UTF-8. On Kafka its
/// HTML may travel compressed (`html_zstd`, page_wire.rs).
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// Deterministic id from the normalised URL.
    pub id: String,
    /// The URL as requested (normalised).
    pub url: String,
    /// The URL after redirects.
    pub final_url: String,
    pub status: u16,
    pub fetched_at: String,
    /// The charset the body was decoded from.
    pub charset: String,
    pub content_type: String,
    /// Headers that matter downstream (last-modified, etag, content-language).
    pub headers: BTreeMap<String, String>,
    pub depth: u32,
    pub html: String,
    /// The URLs redirected through, in order, from `url` (included) to
    /// just before `final_url`; empty without redirects.
    pub redirects: Vec<String>,
    /// Milliseconds from sending the (last) request to the end of the body.
    pub fetch_ms: Option<u64>,
}

/// One text block of a cleaned page, in document order, with the features
/// the extractors use. Zero counts are left out of its JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
pub struct Block {
    pub text: String,
    /// Tag path from the root, e.g. `html/body/div#main.story.wide/p`: each
    /// element as tag, `#id` and up to three `.class`es. On the `cleaned`
    /// topic it is left out where the page's `elements` give it (the
    /// elements of `ancestors`, joined by `/`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub path: String,
    /// A page-unique number for each element of `path`, root first, so that
    /// blocks under the same element can be told from blocks under a
    /// look-alike sibling.
    #[serde(default)]
    pub ancestors: Vec<u32>,
    /// The block-level element this text belongs to (p, h1, li, td, div, ...).
    pub tag: String,
    /// Characters of text (Unicode scalar values, whitespace collapsed).
    pub text_len: u32,
    /// Characters of text inside links.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub link_text_len: u32,
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub link_count: u32,
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub image_count: u32,
    /// Bytes of markup (tags) that belonged to this block.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub markup_bytes: u32,
    /// Characters of text inside elements the page hides (`hidden`,
    /// `aria-hidden="true"`, `display:none` or `visibility:hidden` inline,
    /// hiding class names such as `d-none` or `sr-only`, a closed `<dialog>`).
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub hidden_len: u32,
    /// Inside an element whose ARIA role is page chrome (navigation,
    /// banner, contentinfo, complementary, search, menu, dialog, ...).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub chrome_role: bool,
    /// The block goes on the line after the one before it: a single
    /// `<br>` ended that one within the same element (a hard-wrapped
    /// paragraph, a poem's lines, a forum post's), so the article's text
    /// breaks the line there instead of starting a paragraph.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub line_break: bool,
}

pub(crate) fn is_zero_u32(v: &u32) -> bool {
    *v == 0
}

/// Page metadata found in the markup.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
pub struct PageMeta {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canonical_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site_name: Option<String>,
    /// `og:title` or similar, which is often cleaner than `<title>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub og_title: Option<String>,
    /// What the page says it is: the schema.org `@type` of its JSON-LD
    /// (`NewsArticle`, `BlogPosting`, `DiscussionForumPosting`, ...), else
    /// its `og:type` (`article`, `website`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_type: Option<String>,
    /// The lead image (`og:image`, `twitter:image`, JSON-LD `image`), as
    /// the page writes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// Every author JSON-LD names, when it names more than one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<String>,
    /// The text of the page's first link marked `rel="author"` (HTML's
    /// link type for the author of the article it sits in).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub linked_author: Option<String>,
    /// The writer a labelled social card names (`twitter:label1` "Written
    /// by", `twitter:data1` the name, as WordPress's Yoast writes them):
    /// the post's account, which a byline on the page may correct.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub card_author: Option<String>,
    /// The name an author box's picture gives (the `alt` of the first
    /// image under an element named for the author or an avatar:
    /// "Headshot of Doris Munoz-Mantilla"), for a page that names its
    /// writer nowhere in its text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pictured_author: Option<String>,
    /// The page's first images that may be an article's (not logos, icons
    /// nor avatars, not declared smaller than 100 pixels), with where
    /// each sits among the blocks: the lead image where the metadata
    /// names none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<PageImage>,
}

/// An image of the page, as written in its `src`, and the number of the
/// block it sits in or before.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
pub struct PageImage {
    pub before_block: u32,
    pub src: String,
}

/// `gleaner.cleaned`: a page stripped of markup. Its JSON names each
/// element once (`elements`) instead of in every block's path
/// (cleaned_wire.rs).
#[derive(Debug, Clone, PartialEq)]
pub struct Cleaned {
    pub id: String,
    pub url: String,
    pub final_url: String,
    pub fetched_at: String,
    pub title: String,
    pub meta: PageMeta,
    pub blocks: Vec<Block>,
}

impl Cleaned {
    /// The address the page came from: where its redirects ended, else
    /// the one asked for.
    pub fn address(&self) -> &str {
        if self.final_url.is_empty() {
            &self.url
        } else {
            &self.final_url
        }
    }
}

/// `gleaner.articles` and `gleaner.unique`: the main content of a page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Article {
    /// Deterministic id from the normalised URL (same as the page id).
    pub id: String,
    pub url: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// Publication date, ISO 8601 where it could be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// The article's body as plain text, without its headline or byline:
    /// paragraphs parted by a blank line; a list's items, a `<br>`'s
    /// lines and code's lines on consecutive lines; a table a row per
    /// line with its cells parted by tabs.
    pub text: String,
    /// Which extractor produced `text`. Every stage writes it and the
    /// fetch time; a line written by hand for `gleaner dedup --input` or
    /// `gleaner stories --input` may leave them out (event time is then
    /// its `date`, else when it is read).
    #[serde(default)]
    pub extractor: String,
    #[serde(default)]
    pub fetched_at: String,
    /// Set by dedup: the id shared by every copy of one article (the id of
    /// the first copy seen), so that search and consumers can collapse
    /// copies. An article with no copy has its own id here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
    /// Set by the stories stage: the id of the news story the article
    /// reports on (the id of the story's first report; a story absorbed by
    /// a merge lives on under the older story's id, see `story-log`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub story: Option<String>,
    /// Every author the page names, in its order (`author` shows them as
    /// one line).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<String>,
    /// The publication's name (`og:site_name`, JSON-LD `publisher`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site_name: Option<String>,
    /// The page's own URL for itself (`<link rel=canonical>`, `og:url`),
    /// absolute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canonical_url: Option<String>,
    /// The lead image's URL (`og:image`, `twitter:image`, JSON-LD
    /// `image`), absolute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
}

/// `gleaner.story-log`: a story was created, or merged into an older one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StoryEvent {
    /// `created` or `merged`.
    pub kind: String,
    /// The story created, or the story merged away.
    pub story: String,
    /// For a merge: the older story that absorbed it and keeps its id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub into: Option<String>,
    /// The article whose arrival created or merged the story.
    pub article: String,
    /// That article's time (its date, else its fetch time), RFC 3339.
    pub at: String,
}

/// `gleaner.duplicates`: a repost and the article it repeats (the earliest
/// published copy dedup has seen).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Duplicate {
    pub id: String,
    pub url: String,
    pub original_id: String,
    pub original_url: String,
    /// Share of one article's TF-IDF weight on words the other has too
    /// (the larger of the two ways round).
    pub similarity: f64,
    /// Share of the shorter article's word 4-grams found in the other.
    #[serde(default)]
    pub containment: f64,
    /// The copies' cluster id (see `Article::cluster`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
    /// True when `id` was let through as unique before and an earlier
    /// published copy arrived since: this record overrides that verdict.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub correction: bool,
    /// When the copy `id` was published (its date, else its fetch time;
    /// RFC 3339): the index lists it among the original's copies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
}

/// One summary of a given length.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Summary {
    /// The configured name of the length, e.g. `one_sentence`.
    pub name: String,
    pub text: String,
}

/// `gleaner.summary-cache`: summaries a remote engine made, by a key of
/// what it was asked (the text, engine, model, prompt version, lengths).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SummaryCacheEntry {
    pub key: String,
    pub summaries: Vec<Summary>,
    /// The engine that made them, as recorded on the article.
    pub engine: String,
}

/// `gleaner.summarized`: an article with its summaries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Summarized {
    #[serde(flatten)]
    pub article: Article,
    pub summaries: Vec<Summary>,
    /// Which engine produced the summaries.
    pub engine: String,
}

/// `gleaner.status`: what one instance of a stage on Kafka reports every
/// few seconds (key = "<stage>/<instance>"), for `gleaner status`. Kafka's
/// own group description would say who owns what, but the dev broker does
/// not answer it, nor keep commit metadata; this works on both.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StageStatus {
    pub stage: String,
    /// The instance name (`--instance`, kafka.instance).
    pub instance: String,
    pub host: String,
    pub pid: u32,
    /// The partitions it owns, as `topic[partition]`.
    pub owned: Vec<String>,
    /// When it last committed offsets (Unix milliseconds), if ever.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_commit_ms: Option<u64>,
    /// Inputs handled since it started.
    pub handled: u64,
    /// When this report was made (Unix milliseconds).
    pub at_ms: u64,
    /// For a stage with one active instance (dedup, stories): since when
    /// this one is the active one; absent while it waits as a standby.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_since_ms: Option<u64>,
    /// The stages that run after it in the same process (`gleaner stage
    /// fetch+clean+extract` reports as fetch, with clean and extract here).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chained: Vec<String>,
}

/// `gleaner.rules`: extraction rules for one site (key = host; null deletes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
pub struct SiteRules {
    pub host: String,
    /// Blocks whose tag path contains one of these (`div.article`, `article`) are content.
    #[serde(default)]
    pub include_paths: Vec<String>,
    /// Blocks whose tag path contains one of these are dropped.
    #[serde(default)]
    pub exclude_paths: Vec<String>,
    /// Blocks whose text matches one of these substrings are dropped.
    #[serde(default)]
    pub exclude_text: Vec<String>,
}

/// `gleaner.dead-letter`: input a stage could not handle, with the reason.
/// `gleaner.skipped` carries the same record for input a stage passed over
/// by design (a page that is not an article, a URL robots.txt disallows).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeadLetter {
    pub stage: String,
    /// Where the input came from, when it came from a topic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    pub error: String,
    /// A short, stable name for the kind of failure (`dns`, `timeout`,
    /// `robots_disallowed`, `http_4xx`, ...), when the stage gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The first bytes of the input (at most 1 KiB, cut on a char boundary).
    pub payload_excerpt: String,
    pub payload_bytes: u64,
    pub at: String,
}
