//! A reader's error-report widget under an article ("Found a typo?
//! Select it and press Ctrl+Enter"), in the languages whose news sites
//! carry it most, is not the article's text, in its desktop form and in
//! its copy for phones; an instruction naming the same keystroke in the
//! text stays.

mod common;

use gleaner_extract::{extract, Extractor};

struct Page {
    code: &'static str,
    paragraphs: [&'static str; 4],
    question: &'static str,
    desktop: &'static str,
    phone: &'static str,
}

const PAGES: [Page; 3] = [
    Page {
        code: "lv",
        paragraphs: [
            "Norvēģijas dienvidos pēc zemes nogruvuma atrasti pieci bojāgājušie, bet vēl vairāki cilvēki joprojām tiek uzskatīti par pazudušiem.",
            "Meklēšanas darbos iesaistīti vairāki simti glābēju, karavīri, helikopteri un glābšanas suņi, pavēstīja vietējā policija.",
            "Nogruvuma rezultātā izveidojusies dziļa, 700 metrus gara un 300 metrus plata grava ar stāvām malām.",
            "Precīzi nogruvuma cēloņi nav zināmi, bet šim apvidum raksturīgas nestabilas gruntis, ko viegli var atmiekšķēt lietus.",
        ],
        question: "Kļūda rakstā?",
        desktop: "Iezīmējiet tekstu un spiediet Ctrl+Enter, lai nosūtītu labojamo teksta fragmentu redaktoram!",
        phone: "Iezīmējiet tekstu un spiediet uz Ziņot par kļūdu pogas, lai nosūtītu labojamo teksta fragmentu redaktoram!",
    },
    Page {
        code: "ru",
        paragraphs: [
            "На юге Норвегии после оползня найдены тела пяти погибших, еще несколько человек по-прежнему считаются пропавшими без вести.",
            "В поисковой операции участвуют несколько сотен спасателей, военные, вертолеты и служебные собаки, сообщила местная полиция.",
            "В результате оползня образовался глубокий овраг длиной 700 метров и шириной 300 метров с крутыми склонами.",
            "Точные причины оползня неизвестны, однако для этого района характерны неустойчивые грунты, которые легко размывает дождь.",
        ],
        question: "Нашли опечатку?",
        desktop: "Выделите текст и нажмите Ctrl + Enter, чтобы сообщить об ошибке редакции.",
        phone: "Выделите текст и нажмите кнопку «Сообщить об ошибке».",
    },
    Page {
        code: "en",
        paragraphs: [
            "Five people were found dead after a landslide in southern Norway, and several more are still listed as missing.",
            "Several hundred rescuers, soldiers, helicopters and search dogs are taking part in the search, the local police said.",
            "The landslide left a ravine 700 metres long and 300 metres wide with steep sides where the village used to stand.",
            "The exact cause is not known, but the ground in the area is unstable and is easily softened by heavy rain.",
        ],
        question: "Spotted a mistake?",
        desktop: "Select the text and press Ctrl+Enter to send it to our editors.",
        phone: "Select the text and tap the Report an error button.",
    },
];

fn html(p: &Page) -> String {
    let (lead, paragraphs) = p.paragraphs.split_first().expect("paragraphs");
    let body: String = paragraphs.iter().map(|t| format!("<p>{t}</p>")).collect();
    format!(
        r##"<!doctype html><html lang="{code}"><head><title>Ziņas</title>
<meta property="og:type" content="article"></head>
<body><div id="nav"><a href="/">Home</a> <a href="/world">World</a> <a href="/sport">Sport</a></div>
<div class="row"><div class="col-12 col-lg-9"><section class="block"><article class="article">
<h1>Landslide</h1>
<div class="article__info"><div class="article__info-items"><div class="info-item time">17:40</div>
<div class="info-item category"><a href="/world/">World</a></div>
<div class="info-item authors"><strong>By</strong> <a href="/author/anna">Anna Ūdre</a></div></div></div>
<div class="article__lead">{lead}</div>
<div class="article__body clearfix">{body}</div>
<div class="article__report"><div class="icon"></div><div class="desc"><strong>{question}</strong>
<p class="d-none d-md-block">{desktop}</p><p class="d-md-none">{phone}</p></div>
<div class="article__report-btn d-none d-md-none"><button>OK</button></div></div></article></section></div>
<div class="col-12 col-lg-3"><div class="popular"><a href="/a">Storm closes roads</a> <a href="/b">Ferry strike ends</a></div></div></div>
<div id="footer"><a href="/about">About</a> <a href="/privacy">Privacy</a></div></body></html>"##,
        code = p.code,
        lead = lead,
        question = p.question,
        desktop = p.desktop,
        phone = p.phone,
    )
}

#[test]
fn the_widget_under_the_article_is_not_its_text() {
    let mut failures = Vec::new();
    for p in &PAGES {
        let a = extract(
            &common::cleaned_at(&html(p), "https://news.test/a"),
            Extractor::Auto,
        );
        // The body's paragraphs (whether the standfirst above them is
        // kept is the classifiers' business, not this rule's).
        failures.extend(common::text_failures(
            p.code,
            &a.text,
            &p.paragraphs[1..],
            &[p.question, p.desktop, p.phone],
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_keystroke_in_the_text_stays() {
    let p = &PAGES[2];
    let step = "To run the cell you are editing, press Ctrl+Enter; Shift+Enter runs it and moves to the next one.";
    let body: String = std::iter::once(step)
        .chain(p.paragraphs)
        .map(|t| format!("<p>{t}</p>"))
        .collect();
    let page = format!(
        r##"<!doctype html><html lang="en"><head><title>Notebooks</title></head>
<body><div id="nav"><a href="/">Home</a> <a href="/docs">Docs</a></div>
<div class="content"><h1>Running cells</h1>{body}</div></body></html>"##
    );
    let a = extract(
        &common::cleaned_at(&page, "https://docs.test/cells"),
        Extractor::Auto,
    );
    assert!(a.text.contains(step), "{:?}", a.text);
}
