//! The author a page marks up with schema.org microdata: the text of its
//! first `itemprop="author"` (or `creator`) element, or of the
//! `itemprop="name"` inside it. Sites with no JSON-LD or meta author often
//! mark their byline so (Le Monde, Libération, CNET, blogs).

use crate::entities::{collapse, decode_entities};

/// Most bytes of text kept while an author element is open.
const MAX_BYTES: usize = 400;

/// Longest author text taken, in characters (longer is a bio box, not a
/// byline).
const MAX_CHARS: usize = 100;

/// Most words an author text may have (a headline or a bio is longer;
/// "Martin Untersinger (avec Damien Leloup et Morgane Tual)" is not).
const MAX_WORDS: usize = 10;

/// An author's text, if it is as short as a byline's (not empty, not a bio).
fn short_enough(author: String) -> Option<String> {
    let words = author.split_whitespace().count();
    ((1..=MAX_WORDS).contains(&words) && author.chars().count() <= MAX_CHARS).then_some(author)
}

#[derive(Default)]
pub(crate) struct MicrodataAuthor {
    /// Serial of the open author element (0: none open).
    open: u64,
    /// Serial of the open `itemprop="name"` inside it (0: none open).
    name_open: u64,
    text: String,
    name: String,
    /// The first author found.
    pub(crate) found: Option<String>,
}

/// Whether an `itemprop` value (a space-separated list) holds `prop`.
fn has_prop(itemprop: &str, prop: &str) -> bool {
    itemprop
        .split_ascii_whitespace()
        .any(|p| p.eq_ignore_ascii_case(prop))
}

impl MicrodataAuthor {
    /// An element with this `itemprop` (and `content`, if any) starts;
    /// `serial` is its number on the open-element stack, `None` for an
    /// element that has no content (`<meta itemprop="name" content=...>`).
    pub(crate) fn start(&mut self, prop: &str, content: Option<&str>, serial: Option<u64>) {
        if self.found.is_some() {
            return;
        }
        if self.open == 0 {
            if let Some(serial) =
                serial.filter(|_| has_prop(prop, "author") || has_prop(prop, "creator"))
            {
                self.open = serial;
            }
        } else if self.name_open == 0 && self.name.is_empty() && has_prop(prop, "name") {
            match (content, serial) {
                (Some(c), _) => self.name.push_str(c),
                (None, Some(serial)) => self.name_open = serial,
                (None, None) => {}
            }
        }
    }

    /// Whether an author element is open (only then does a void element's
    /// `itemprop` matter).
    pub(crate) fn is_open(&self) -> bool {
        self.open != 0
    }

    /// Text inside the element(s) being read.
    pub(crate) fn text(&mut self, chunk: &str) {
        if self.open != 0 && self.text.len() < MAX_BYTES {
            self.text.push_str(chunk);
        }
        if self.name_open != 0 && self.name.len() < MAX_BYTES {
            self.name.push_str(chunk);
        }
    }

    /// The element numbered `serial` closed (by its end tag or implied).
    pub(crate) fn end(&mut self, serial: u64) {
        if serial == self.name_open {
            self.name_open = 0;
        }
        if serial != self.open {
            return;
        }
        self.open = 0;
        self.name_open = 0;
        let name = collapse(&decode_entities(&self.name));
        let author = if name.is_empty() {
            collapse(&decode_entities(&self.text))
        } else {
            name
        };
        self.found = short_enough(author);
        self.text.clear();
        self.name.clear();
    }
}

/// Whether an element's classes name it a forum member's name, as the
/// forum packages print each post's poster: a link classed so
/// (`a.username`: phpBB, XenForo; vBulletin's `bigusername`; old
/// Reddit's and bbPress-style forums' `a.author`, `post-author`), or any
/// element with one of [`POSTER_ELEMENT_CLASSES`]. The first such is the
/// thread's starter, and on an article the byline's. Not phpBB's
/// `username-coloured`, its staff's: a style that leaves its members'
/// links unclassed colours a moderator's reply (wcxb-dev: one thread's
/// starter lost to it, none found). The link classes name no poster on
/// another element: any element classed `author` took
/// readability-articles' author from 0.873 to 0.803 (a `div.author` box
/// names the article's author and more).
pub(crate) fn is_poster(link: bool, class: &str) -> bool {
    class.split_ascii_whitespace().any(|c| {
        let named = |names: &[&str]| names.iter().any(|name| c.eq_ignore_ascii_case(name));
        named(POSTER_ELEMENT_CLASSES) || (link && named(POSTER_LINK_CLASSES))
    })
}

/// Classes that name a poster on a link only.
const POSTER_LINK_CLASSES: &[&str] = &["username", "bigusername", "author", "post-author"];

/// Classes that name a poster on any element (Flarum's post header, a
/// WordPress forum plugin's).
const POSTER_ELEMENT_CLASSES: &[&str] = &["PostUser-name", "forum-post-author"];

/// The text of the page's first link marked `rel="author"` with a text:
/// blogs mark their byline so when nothing else names the author. Also
/// reads the first poster's link ([`is_poster`]).
#[derive(Default)]
pub(crate) struct LinkAuthor {
    /// Serial of the open link (0: none open).
    open: u64,
    text: String,
    pub(crate) found: Option<String>,
}

impl LinkAuthor {
    /// A `rel="author"` link numbered `serial` starts.
    pub(crate) fn start(&mut self, serial: u64) {
        if self.found.is_none() && self.open == 0 {
            self.open = serial;
        }
    }

    /// Text inside the link being read.
    pub(crate) fn text(&mut self, chunk: &str) {
        if self.open != 0 && self.text.len() < MAX_BYTES {
            self.text.push_str(chunk);
        }
    }

    /// The element numbered `serial` closed; an empty link (an avatar)
    /// leaves the next one to say.
    pub(crate) fn end(&mut self, serial: u64) {
        if serial != self.open {
            return;
        }
        self.open = 0;
        self.found = short_enough(collapse(&decode_entities(&self.text)));
        self.text.clear();
    }
}

#[cfg(test)]
mod tests {
    use crate::clean_html;

    fn author(html: &str) -> Option<String> {
        clean_html(html).unwrap().1.author
    }

    #[test]
    fn the_first_microdata_author_is_the_pages() {
        // Its name, without the label around it.
        let nested = r#"<p>Story</p><div itemprop="author" itemscope itemtype="https://schema.org/Person"><span>por </span><a itemprop="name" href="/p/cs">César &amp; Salza</a></div><p>Text.</p>
            <div class="comment"><span itemprop="author">A Reader</span></div>"#;
        assert_eq!(author(nested).as_deref(), Some("César & Salza"));
        // The name in a <meta>, and an author element without a name.
        let meta = r#"<span itemprop="author" itemscope><meta itemprop="name" content="Bo Chen"><a href="/bo">Bo</a></span>"#;
        assert_eq!(author(meta).as_deref(), Some("Bo Chen"));
        let plain = r#"<p>Par <span itemprop="author creator">Martin Untersinger</span></p>"#;
        assert_eq!(author(plain).as_deref(), Some("Martin Untersinger"));
        // An author element left open is closed by its parent.
        let open = r#"<div><p itemprop="author">Ana Sandoiu</div><p>Body text here.</p>"#;
        assert_eq!(author(open).as_deref(), Some("Ana Sandoiu"));
        // A photo's creator, in its caption, is the photographer.
        let photo = r#"<figure><img src="a.jpg"><figcaption>Plans.
            <span itemprop="creator">Mike Blake/Reuters files</span></figcaption></figure>
            <p>By <span itemprop="author">Jane Doe</span></p>"#;
        assert_eq!(author(photo).as_deref(), Some("Jane Doe"));
    }

    #[test]
    fn metadata_comes_first_and_long_or_empty_author_text_is_no_author() {
        let both =
            r#"<meta name="author" content="Meta Name"><span itemprop="author">Micro Name</span>"#;
        assert_eq!(author(both).as_deref(), Some("Meta Name"));
        // An empty author element (a URL only) leaves the next one to say.
        let empty = r#"<span itemprop="author" itemscope><meta itemprop="url" content="https://x.test/u"></span><a itemprop="author">Andrew Hayden</a>"#;
        assert_eq!(author(empty).as_deref(), Some("Andrew Hayden"));
        let headline = r#"<h2 itemprop="author">Five great ideas for the garden that you can put to use this very weekend</h2>"#;
        assert_eq!(author(headline), None);
        let bio = format!(r#"<div itemprop="author">{}</div>"#, "Writes. ".repeat(40));
        assert_eq!(author(&bio), None);
    }

    /// The first `rel="author"` link with a text is kept apart from the
    /// author, as a byline's is; an avatar's empty link and a hidden
    /// one are passed over.
    #[test]
    fn the_first_rel_author_link_with_a_text_is_kept() {
        let linked = |html: &str| clean_html(html).unwrap().1.linked_author;
        let page = r#"<a rel="author" href="/a"><img src="/me.jpg"></a>
            <div hidden><a rel="author" href="/a">Old Name</a></div>
            <p>Posted by <a href="/a" title="Posts by Mike Conley" rel="noopener Author">Mike &amp; Co</a></p>
            <p><a rel="author" href="/b">Second Author</a></p>"#;
        assert_eq!(linked(page).as_deref(), Some("Mike & Co"));
        assert_eq!(clean_html(page).unwrap().1.author, None);
        assert_eq!(linked(r#"<a rel="nofollow" href="/a">Not Me</a>"#), None);
    }

    /// A forum thread's starter: its first member link, before a reply's
    /// microdata author (XenForo marks the replies', not the first post's);
    /// a microdata author first (an article's byline, a comment's member
    /// link below it) stays the page's.
    #[test]
    fn a_threads_first_member_link_is_its_author() {
        let thread = r#"<p>Thread starter <a href="/members/sam.1/" class="username  u-concealed">SamuelMIz</a></p>
            <article><h4><a href="/members/sam.1/" class="username">SamuelMIz</a></h4><p>My question.</p></article>
            <article><span itemprop="author" itemscope><a href="/members/r.2/" class="username"><span itemprop="name">Ralston18</span></a></span><p>An answer.</p></article>"#;
        assert_eq!(author(thread).as_deref(), Some("SamuelMIz"));
        let vbulletin =
            r#"<a class="bigusername" href="member.php?u=224387">microfast</a><p>First post.</p>"#;
        assert_eq!(author(vbulletin).as_deref(), Some("microfast"));
        let article = r#"<span itemprop="author">Jane Doe</span><p>Story.</p>
            <div class="comment"><a class="username" href="/u/reader">reader42</a> said</div>"#;
        assert_eq!(author(article).as_deref(), Some("Jane Doe"));
        // Staff's colour class and a member link left empty (an avatar).
        let staff = r#"<a class="username-coloured" href="/u/mod">A Moderator</a>"#;
        assert_eq!(author(staff), None);
        let avatar = r#"<a class="username" href="/u/x"><img src="/x.png"></a><a class="username" href="/u/x">xeno</a>"#;
        assert_eq!(author(avatar).as_deref(), Some("xeno"));
        // Old Reddit's and bbPress-style forums' links, in any case.
        for link in [
            r#"<a class="author may-blank id-t2_27" href="/user/x">InsaneSnow45</a>"#,
            r#"<a class="Post-Author" href="/profile/x">InsaneSnow45</a>"#,
        ] {
            assert_eq!(author(link).as_deref(), Some("InsaneSnow45"), "{link}");
        }
        // Flarum's post header and a WordPress forum's, not links.
        for (header, poster) in [
            (
                r#"<div class="PostUser"><h3 class="PostUser-name">antonjw</h3></div><p>Post.</p>"#,
                "antonjw",
            ),
            (
                r#"<div class="forum-post-meta"><span class="forum-post-author">Pepper Pot</span></div>"#,
                "Pepper Pot",
            ),
        ] {
            assert_eq!(author(header).as_deref(), Some(poster), "{header}");
        }
        // Not a box named so: it holds more than a name.
        let box_ = r#"<div class="author">Written by Jane Doe, our tech editor</div>"#;
        assert_eq!(author(box_), None);
    }
}
