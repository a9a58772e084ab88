//! A shop's product page (WooCommerce's markup, the commonest shop
//! software) in three languages: the product's description and
//! specifications are its text, the customer reviews under them are not,
//! as reader comments are not an article's. The same page not declared a
//! product keeps the reviews, so the declaration is what drops them.

mod common;

use gleaner_core::messages::Cleaned;
use gleaner_extract::{extract, Extractor};

struct Shop {
    code: &'static str,
    name: &'static str,
    description: [&'static str; 5],
    specs: [&'static str; 3],
    reviews: [&'static str; 3],
}

const SHOPS: [Shop; 3] = [
    Shop {
        code: "en",
        name: "Nord Zero running sandal",
        description: [
            "The Nord Zero is a minimalist running sandal with a five millimetre sole that lets your feet move as they were made to move.",
            "Its elastic lace holds the heel without a buckle, so the sandal goes on in a second and stays in place on long trail runs.",
            "Each pair is cut and assembled by hand in our workshop in Valencia from a recycled rubber sole and a soft leather footbed.",
            "To clean them, rinse the sole with cold water and let the sandals dry in the shade; the leather darkens with wear and takes the shape of your foot.",
            "If you are between two sizes, take the smaller one: the lace stretches a little over the first weeks, and a snug fit gives the best grip on steep ground.",
        ],
        specs: ["Sole: recycled rubber, 5 mm", "Footbed: vegetable-tanned leather", "Weight: 110 g per sandal"],
        reviews: [
            "I bought these for summer hikes and after three months of use the lace still holds perfectly, although the footbed took a week to soften.",
            "Very comfortable from the first day, but the knot under the sole wore through after two months on asphalt and I had to replace the lace myself.",
            "Great sandals for running on the beach, light and simple, though I would have liked a wider size for my feet, they run a little narrow.",
        ],
    },
    Shop {
        code: "de",
        name: "Nord Zero Laufsandale",
        description: [
            "Die Nord Zero ist eine minimalistische Laufsandale mit einer fünf Millimeter dünnen Sohle, die den Füßen ihre natürliche Bewegung lässt.",
            "Die elastische Schnürung hält die Ferse ohne Schnalle, sodass die Sandale in einer Sekunde angezogen ist und auch auf langen Läufen sitzt.",
            "Jedes Paar wird in unserer Werkstatt in Valencia von Hand aus einer recycelten Gummisohle und einem weichen Lederfußbett gefertigt.",
            "Zum Reinigen die Sohle mit kaltem Wasser abspülen und die Sandalen im Schatten trocknen lassen; das Leder dunkelt mit der Zeit nach und passt sich dem Fuß an.",
            "Wer zwischen zwei Größen liegt, nimmt die kleinere: Die Schnürung gibt in den ersten Wochen etwas nach, und ein fester Sitz gibt im steilen Gelände den besten Halt.",
        ],
        specs: ["Sohle: recycelter Gummi, 5 mm", "Fußbett: pflanzlich gegerbtes Leder", "Gewicht: 110 g pro Sandale"],
        reviews: [
            "Ich habe sie für Wanderungen im Sommer gekauft und nach drei Monaten hält die Schnürung immer noch, nur das Fußbett brauchte eine Woche.",
            "Vom ersten Tag an bequem, aber der Knoten unter der Sohle war nach zwei Monaten auf Asphalt durchgescheuert und ich musste ihn ersetzen.",
            "Tolle Sandalen zum Laufen am Strand, leicht und einfach, allerdings fallen sie etwas schmal aus und ich hätte gern eine breitere Größe gehabt.",
        ],
    },
    Shop {
        code: "fr",
        name: "Sandale de course Nord Zero",
        description: [
            "La Nord Zero est une sandale de course minimaliste dont la semelle de cinq millimètres laisse vos pieds bouger comme ils sont faits pour bouger.",
            "Son lacet élastique tient le talon sans boucle, si bien que la sandale s'enfile en une seconde et reste en place sur les longues sorties.",
            "Chaque paire est coupée et assemblée à la main dans notre atelier de Valence, avec une semelle en caoutchouc recyclé et une première en cuir.",
            "Pour les nettoyer, rincez la semelle à l'eau froide et laissez sécher à l'ombre ; le cuir fonce avec le temps et prend la forme de votre pied.",
            "Si vous hésitez entre deux pointures, prenez la plus petite : le lacet se détend un peu les premières semaines, et un bon maintien accroche mieux en pente.",
        ],
        specs: ["Semelle : caoutchouc recyclé, 5 mm", "Première : cuir à tannage végétal", "Poids : 110 g par sandale"],
        reviews: [
            "Achetées pour les randonnées d'été, après trois mois le lacet tient toujours parfaitement, même si la première a mis une semaine à s'assouplir.",
            "Très confortables dès le premier jour, mais le nœud sous la semelle s'est usé en deux mois sur le bitume et j'ai dû changer le lacet moi-même.",
            "Super sandales pour courir sur la plage, légères et simples, mais elles taillent un peu étroit et j'aurais aimé une pointure plus large.",
        ],
    },
];

/// The product page of `s`; `declared` says it is a product (JSON-LD
/// and `og:type`), else it says it is a website, as many shops do.
fn page(s: &Shop, declared: bool) -> String {
    let head = if declared {
        format!(
            r#"<meta property="og:type" content="product"><script type="application/ld+json">{{"@context":"https://schema.org","@type":"Product","name":"{}","offers":{{"@type":"Offer","price":"59.00","priceCurrency":"EUR"}}}}</script>"#,
            s.name
        )
    } else {
        r#"<meta property="og:type" content="website">"#.to_string()
    };
    let paragraphs = |ps: &[&str]| ps.iter().map(|p| format!("<p>{p}</p>")).collect::<String>();
    let specs: String = s.specs.iter().map(|x| format!("<li>{x}</li>")).collect();
    let reviews: String = s
        .reviews
        .iter()
        .enumerate()
        .map(|(i, r)| {
            format!(
                r#"<li class="review" id="li-comment-{i}"><div class="comment_container"><div class="comment-text"><div class="star-rating">Rated {} out of 5</div><p class="meta"><strong class="woocommerce-review__author">Kunde {i}</strong> <span class="woocommerce-review__dash">–</span> <time class="woocommerce-review__published-date">2024-03-0{}</time></p><div class="description"><p>{r}</p></div></div></div></li>"#,
                5 - i,
                i + 1
            )
        })
        .collect();
    format!(
        r##"<!doctype html><html lang="{code}"><head><title>{name} – Nord Republic</title>{head}</head><body class="product-template-default single-product woocommerce">
<header class="site-header"><nav><a href="/">Home</a> <a href="/shop/">Shop</a> <a href="/about/">About</a> <a href="/cart/">Cart</a></nav></header>
<main id="main" class="site-main"><div class="product type-product">
<h1 class="product_title entry-title">{name}</h1><p class="price">€59.00</p>
<div class="woocommerce-product-details__short-description">{short}</div>
<form class="cart"><button type="submit">Add to cart</button></form>
<div class="woocommerce-tabs wc-tabs-wrapper"><ul class="tabs wc-tabs"><li><a href="#tab-description">Description</a></li><li><a href="#tab-reviews">Reviews (3)</a></li></ul>
<div class="woocommerce-Tabs-panel" id="tab-description">{long}<ul>{specs}</ul></div>
<div class="woocommerce-Tabs-panel" id="tab-reviews"><div id="reviews" class="woocommerce-Reviews"><div id="comments"><h2 class="woocommerce-Reviews-title">3 reviews for {name}</h2><ol class="commentlist">{reviews}</ol></div></div></div>
</div></div></main>
<footer class="site-footer"><p>© Nord Republic · <a href="/shipping/">Shipping</a> · <a href="/returns/">Returns</a></p></footer></body></html>"##,
        code = s.code,
        name = s.name,
        short = paragraphs(&s.description[..1]),
        long = paragraphs(&s.description[1..]),
    )
}

fn cleaned(html: &str) -> Cleaned {
    common::cleaned_at(html, "https://shop.test/product/nord-zero/")
}

#[test]
fn a_products_text_is_its_description_not_its_reviews() {
    let mut failures = Vec::new();
    for s in &SHOPS {
        let a = extract(&cleaned(&page(s, true)), Extractor::Auto);
        for p in s.description.iter().chain(&s.specs) {
            if !a.text.contains(p) {
                failures.push(format!("{}: missing: {p}", s.code));
            }
        }
        for r in s.reviews {
            if a.text.contains(r) {
                failures.push(format!("{}: review kept: {r}", s.code));
            }
        }
        // Undeclared, the page is not known to be a product's, but its
        // reviews sit under `#comments` after a longer text, as an
        // article's comments do (comments.rs): they go, the text stays.
        let undeclared = extract(&cleaned(&page(s, false)), Extractor::Auto);
        if s.reviews.iter().any(|r| undeclared.text.contains(r)) {
            failures.push(format!("{}: comments kept undeclared", s.code));
        }
        if !s.description.iter().all(|p| undeclared.text.contains(p)) {
            failures.push(format!("{}: text lost undeclared", s.code));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
