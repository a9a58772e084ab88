//! Tests of date.rs and page_date.rs: the page's date, and dates made ISO
//! 8601.

use super::*;
use crate::meta::tests::page_of;
use crate::page_date::{page_date, unglued};

#[test]
fn a_date_beside_a_headline_under_a_logo_is_the_pages_date() {
    // CNN Arabic: the first `<h1>` is the logo, the headline's comes
    // after the menu, and the date line below it is too long to be read
    // as one further down.
    let menu: String = (0..8).map(|i| format!("<p>Section {i}</p>")).collect();
    let c = page_of(&format!(
        "<h1>CNN</h1>{menu}<h1>معارضون يسيطرون على مخازن للصواريخ بريف دمشق</h1>\
         <div>الأربعاء، 28 آب/اغسطس 2013، آخر تحديث 14:00 (GMT+0400)</div>\
         <p>دمشق، سوريا (CNN) -- أكدت جهات سورية معارضة أن فصائل مسلحة معارضة تمكنت من السيطرة على مستودعات للأسلحة.</p>"
    ));
    assert_eq!(page_date(&c).as_deref(), Some("2013-08-28"));
}

#[test]
fn a_date_beside_the_headline_is_the_pages_date() {
    let c = page_of(
        "<h1>Story</h1><p>Jane Doe</p><p>Updated on December 11, 2025</p><p>Text of the story.</p>",
    );
    assert_eq!(page_date(&c).as_deref(), Some("2025-12-11"));
    // Below the text's first paragraphs, a date is just a date in the text.
    let filler = "<p>More text of the story, as long as a paragraph of an article is, which runs on for a while and then a little further still.</p>".repeat(8);
    let c = page_of(&format!("<h1>Story</h1>{filler}<p>On May 1, 2024</p>"));
    assert_eq!(page_date(&c), None);
    // A date's span glued to the byline's.
    let c = page_of("<div class='dateAndAuthor'><span>Dec 17, 2025</span><span>Julian K. Arni</span></div><h1>Story</h1><p>Text of the story.</p>");
    assert_eq!(page_date(&c).as_deref(), Some("2025-12-17"));
    assert_eq!(unglued("1st May 2024By Jo"), "1st May 2024 By Jo");
    assert_eq!(unglued("Ärger 12345abc"), "Ärger 12345abc");
    // A section's name glued to the date, and the update after it.
    let c = page_of("<div class='article-dateline'><a>Mental Health</a>DECEMBER 22, 2022Updated: JANUARY 02, 2026</div><h1>Story</h1><p>Text of the story.</p>");
    assert_eq!(page_date(&c).as_deref(), Some("2022-12-22"));
    // A thread's posts open with their date and time: the first post's
    // dates the page.
    for header in [
        "30th March 2025, 16:26",
        "#1 2025-03-30 15:14:37",
        "03-30-2025, 09:03 AM #1",
    ] {
        let post = |n: u32, when: &str| {
            format!("<table id='post{n}'><tr><td class='thead'>{when}</td></tr><tr><td>A reply with some words in it.</td></tr></table>")
        };
        let page = format!(
            "<div class='nav'>Forum</div>{}{}",
            post(1, header),
            post(2, "2nd April 2025, 13:59")
        );
        assert_eq!(
            page_date(&page_of(&page)).as_deref(),
            Some("2025-03-30"),
            "{header}"
        );
    }
    let page = "<div id='p1' class='post_head'>2019-02-23, 09:14 PM (This post was last modified: 2024-01-05, 10:00 AM by its author, who fixed a word.)</div><p>First.</p>\
        <div id='p2' class='post_head'>2019-02-24, 02:31 AM</div><p>Second.</p><div id='p3' class='post_head'>2019-02-24, 05:31 PM</div><p>Third.</p>";
    assert_eq!(page_date(&page_of(page)).as_deref(), Some("2019-02-23"));
    // One dated line alone is no post header.
    let c = page_of("<div>Updated 12:30</div><p>On 5 May 2024, 10:00 the doors opened.</p><p>Text of the story.</p>");
    assert_eq!(page_date(&c), None);
    // An element named for dates wins wherever it is.
    let c = page_of(&format!(
        "<h1>Story</h1>{filler}<p class='post-date'>May 1, 2024</p>"
    ));
    assert_eq!(page_date(&c).as_deref(), Some("2024-05-01"));
    // So does the author's box, on a page with no headline element.
    let c = page_of(&format!(
        "{filler}<div class='resource-author-details'><p>Luke Kim</p><small>December 17, 2025</small></div>"
    ));
    assert_eq!(page_date(&c).as_deref(), Some("2025-12-17"));
    // Past breadcrumbs and tags below the headline, a line that is a
    // date; a date in a longer line of the text is not.
    let tags = "<p>tag</p>".repeat(10);
    let c = page_of(&format!(
        "<h1>Story</h1>{tags}<p>Written by Ann</p><p>April 8, 2024</p><p>Text.</p>"
    ));
    assert_eq!(page_date(&c).as_deref(), Some("2024-04-08"));
    let c = page_of(&format!(
        "<h1>Story</h1>{tags}<p>The council met on April 8, 2024 to approve it.</p>"
    ));
    assert_eq!(page_date(&c), None);
}

#[test]
fn dates_become_iso() {
    assert_eq!(normalise_date("2024-05-01").as_deref(), Some("2024-05-01"));
    // Ordinal days, and a citation's year-first form.
    for (written, iso) in [
        ("September 1st, 2023", "2023-09-01"),
        ("January 22nd, 2019", "2019-01-22"),
        ("30th March 2025, 16:26", "2025-03-30"),
        ("1er mars 2024", "2024-03-01"),
        ("2024 Jun 30", "2024-06-30"),
    ] {
        assert_eq!(normalise_date(written).as_deref(), Some(iso), "{written}");
    }
    assert_eq!(normalise_date("September 1x, 2023"), None);
    assert_eq!(
        normalise_date("2024-05-01T10:00:00+02:00").as_deref(),
        Some("2024-05-01T10:00:00+02:00"),
        "the offset is kept"
    );
    assert_eq!(
        normalise_date("2024-05-01T10:00:00.123Z").as_deref(),
        Some("2024-05-01T10:00:00Z")
    );
    // ISO 8601's basic offset, without a colon (a forum's `<time>`).
    assert_eq!(
        normalise_date("2025-12-19T04:25:38+0500").as_deref(),
        Some("2025-12-19T04:25:38+05:00")
    );
    assert_eq!(
        normalise_date("Wed, 01 May 2024 23:30:00 -0500").as_deref(),
        Some("2024-05-01T23:30:00-05:00"),
        "RFC 2822, as in HTTP headers and RSS"
    );
    assert_eq!(
        normalise_date("Wed, 01 May 2024 23:30:00 GMT").as_deref(),
        Some("2024-05-01T23:30:00Z")
    );
    assert_eq!(
        normalise_date("2024-05-01T10:00:00").as_deref(),
        Some("2024-05-01T10:00:00"),
        "no offset: the wall-clock time, without one"
    );
    assert_eq!(normalise_date("2024.05.01").as_deref(), Some("2024-05-01"));
    for impossible in [
        "2024-02-31",
        "2023-02-29",
        "2024/13/01",
        "31 February 2024",
        "2024-04-31T10:00:00Z",
        "1850-01-01",
    ] {
        assert_eq!(normalise_date(impossible), None, "{impossible}");
    }
    assert_eq!(normalise_date("2024-02-29").as_deref(), Some("2024-02-29"));
    assert_eq!(normalise_date("2024/5/01"), None);
    assert_eq!(
        normalise_date("Monday, 1 May 2024").as_deref(),
        Some("2024-05-01")
    );
    assert_eq!(
        normalise_date("Sept. 3, 2021").as_deref(),
        Some("2021-09-03")
    );
    assert_eq!(normalise_date("yesterday"), None);
    // A word that starts as a month does ("Ajay Junkies") names none.
    assert_eq!(
        normalise_date("Ajay Junkies, May 11, 2024 IP").as_deref(),
        Some("2024-05-11")
    );
    assert_eq!(
        normalise_date("Sept 3, 2021").as_deref(),
        Some("2021-09-03")
    );
    // Other languages' month names, written out or cut.
    for (text, iso) in [
        ("5. März 2024", "2024-03-05"),
        ("Veröffentlicht am 12. Dezember 2023", "2023-12-12"),
        ("le 1 août 2022", "2022-08-01"),
        ("5 de marzo de 2024", "2024-03-05"),
        ("04-ago-2021", "2021-08-04"),
        ("3 settembre 2020", "2020-09-03"),
        ("17 mei 2019", "2019-05-17"),
        ("2024年3月5日", "2024-03-05"),
        ("发布时间：2024年 3月 15日 10:30", "2024-03-15"),
        ("2024년 3월 5일", "2024-03-05"),
        ("28 августа 2013 года, 14:00", "2013-08-28"),
        ("5 мар 2024", "2024-03-05"),
        (
            "الأربعاء، 28 آب/اغسطس 2013، آخر تحديث 14:00 (GMT+0400)",
            "2013-08-28",
        ),
        ("٥ كانون الثاني ٢٠٢٤", "2024-01-05"),
        ("12 تشرين الأول 2023", "2023-10-12"),
        ("3 يونيو 2021", "2021-06-03"),
    ] {
        assert_eq!(normalise_date(text).as_deref(), Some(iso), "{text}");
    }
    // Digits: a number over 12 is the day; dots put the day first;
    // a slashed date either way round is no date.
    for (text, iso) in [
        ("25.09.2025", Some("2025-09-25")),
        ("05.03.2024", Some("2024-03-05")),
        ("09/25/2025", Some("2025-09-25")),
        ("25/09/2025", Some("2025-09-25")),
        ("11-29-2024", Some("2024-11-29")),
        ("02/03/2024", None),
        ("31.02.2024", None),
        ("1.2.3", None),
        ("10/2024", None),
    ] {
        assert_eq!(normalise_date(text).as_deref(), iso, "{text}");
    }
    // Saturday (`سبت`) is no cut September (`سبتمبر`).
    assert_eq!(normalise_date("سبت 5 2024"), None);
    // A cut word that two months begin with is neither; no year, no date.
    assert_eq!(normalise_date("ju 5 2024"), None);
    assert_eq!(normalise_date("Sold out 5 times in 2024"), None);
    assert_eq!(normalise_date("5. März"), None);
    assert_eq!(normalise_date("2024年13月5日"), None);
}
