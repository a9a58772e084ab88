#!/usr/bin/env python3
"""Writes a synthetic news stream with planted reposts, for scripts/bench-dedup.sh.

    scripts/dedup-stream.py N OUT_DIR [--seed S] [--datasets DIR]

OUT_DIR/stream.jsonl holds about N articles (the articles schema, one per
line, in arrival order); OUT_DIR/truth.jsonl says what each one is:
{"id", "group", "kind", "date"}. `group` is shared by an original and its
planted copies.

Each distinct article is made of real sentences sampled from the article
texts of ../shared/datasets (wcxb-dev and summaries-bbc100); the proper
nouns and numbers of each article are replaced through a mapping of its own,
so that two distinct articles rarely share a sentence verbatim, as in real
news. Kinds:

- distinct: an article with no copy;
- original: an article with planted copies;
- verbatim: the same title and text under another URL;
- syndicated: a syndication line on top and a "related" list below;
- reheadlined: a new title, and half the time a new first sentence;
- edited: about one word in twelve changed, a sentence dropped, one added,
  two neighbouring sentences swapped;
- trimmed: the title and the first 40 to 80% of the paragraphs;
- followup: a different report of the same event (the original's names,
  a sentence of it quoted, the rest new): NOT a repost;
- product: short product pages sharing a template and differing in a few
  words: NOT reposts of each other.

Copies are dated after their original; a fifth of them arrive before it.
"""

import argparse
import glob
import hashlib
import json
import os
import random
import re

KINDS = ["verbatim", "syndicated", "reheadlined", "edited", "trimmed"]
WORD = re.compile(r"\w+", re.UNICODE)
SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'])")


def load_sentences(datasets):
    sents, names = [], set()
    texts = []
    for f in sorted(glob.glob(os.path.join(datasets, "wcxb-dev/ground-truth/*.json"))):
        d = json.load(open(f, encoding="utf-8"))
        if d["_internal"]["page_type"]["primary"] == "article":
            texts.append(d["ground_truth"].get("main_content") or "")
    bbc = os.path.join(datasets, "summaries-bbc100/pairs.jsonl")
    if os.path.exists(bbc):
        for line in open(bbc, encoding="utf-8"):
            texts.append(json.loads(line)["text"])
    for t in texts:
        for para in t.split("\n"):
            for s in SENT.split(para.strip()):
                words = s.split()
                if 8 <= len(words) <= 45 and s[-1:] in ".!?\"'" and s.isascii():
                    sents.append(s)
                    for w in words[1:]:
                        w = w.strip(".,;:!?\"'()")
                        if w[:1].isupper() and w[1:].islower() and len(w) > 2:
                            names.add(w)
    return sents, sorted(names)


class Maker:
    def __init__(self, sents, names, rng, reuse=0.0, pool=2000):
        self.sents, self.names, self.rng = sents, names, rng
        # Wire copy: sentences that recur verbatim across many articles.
        self.reuse = reuse
        self.pool = rng.sample(sents, min(pool, len(sents)))

    def mapping(self):
        """A per-article renaming of proper nouns and numbers."""
        return {}

    def localise(self, sentence, mapping):
        rng = self.rng

        def name(m):
            w = m.group(0)
            if m.start() == 0 or not (w[:1].isupper() and w[1:].islower()):
                return w
            if w not in mapping:
                mapping[w] = rng.choice(self.names)
            return mapping[w]

        def number(m):
            w = m.group(0)
            key = "#" + w
            if key not in mapping:
                mapping[key] = str(rng.randint(2, 9999))
            return mapping[key]

        s = re.sub(r"[A-Za-z]+", name, sentence)
        return re.sub(r"\d+", number, s)

    def sentences(self, n, mapping):
        out = []
        for _ in range(n):
            if self.reuse and self.rng.random() < self.reuse:
                out.append(self.rng.choice(self.pool))
            else:
                out.append(self.localise(self.rng.choice(self.sents), mapping))
        return out

    def paragraphs(self, sents):
        paras, i = [], 0
        while i < len(sents):
            k = self.rng.randint(1, 4)
            paras.append(sents[i : i + k])
            i += k
        return paras

    def title(self, mapping):
        words = self.localise(self.rng.choice(self.sents), mapping).rstrip(".!?\"'").split()
        return " ".join(words[: self.rng.randint(6, 12)])

    def article(self):
        mapping = self.mapping()
        return {
            "title": self.title(mapping),
            "paras": self.paragraphs(self.sentences(self.rng.randint(8, 30), mapping)),
            "mapping": mapping,
        }


def text_of(paras):
    return "\n\n".join(" ".join(p) for p in paras)


def copy_of(kind, orig, mk, rng, other_titles):
    title, paras = orig["title"], [list(p) for p in orig["paras"]]
    if kind == "verbatim":
        pass
    elif kind == "syndicated":
        header = rng.choice(
            [
                "This article originally appeared on {s} and is republished with permission.",
                "Republished from {s}. Read the original article.",
                "This story was first published by {s}.",
            ]
        ).format(s=rng.choice(mk.names) + " News")
        related = ["Related stories"] + rng.sample(other_titles, 4)
        paras = [[header]] + paras + [[r] for r in related]
    elif kind == "reheadlined":
        title = mk.title(dict(orig["mapping"]))
        if rng.random() < 0.5:
            paras[0] = mk.sentences(1, dict(orig["mapping"])) + paras[0][1:]
    elif kind == "edited":
        flat = [s for p in paras for s in p]
        out = []
        for s in flat:
            words = s.split()
            for i in range(len(words)):
                if rng.random() < 1 / 12:
                    words[i] = rng.choice(["also", "then", "however", "now", "indeed", "still", "new", "major", "local"])
            out.append(" ".join(words))
        if len(out) > 3:
            out.pop(rng.randrange(1, len(out)))
            j = rng.randrange(1, len(out) - 1)
            out[j], out[j + 1] = out[j + 1], out[j]
        out.insert(rng.randrange(1, len(out) + 1), mk.sentences(1, dict(orig["mapping"]))[0])
        paras = mk.paragraphs(out)
    elif kind == "trimmed":
        keep = max(1, round(len(paras) * rng.uniform(0.4, 0.8)))
        paras = paras[:keep]
    return title, paras


def followup_of(orig, mk, rng):
    # New sentences whose names are the original's names: the same people
    # and places, as in a real second report of one event.
    names = [v for k, v in orig["mapping"].items() if not k.startswith("#")] or mk.names
    mapping = dict(orig["mapping"])
    sents = []
    for _ in range(rng.randint(8, 30)):
        fresh = {}
        s = mk.localise(rng.choice(mk.sents), fresh)
        for k, v in fresh.items():
            if not k.startswith("#"):
                s = s.replace(v, rng.choice(names))
        sents.append(s)
    quoted = rng.choice([s for p in orig["paras"] for s in p])
    sents.insert(rng.randrange(len(sents) + 1), quoted)
    title = " ".join(names[:3] + mk.title(mapping).split()[: rng.randint(3, 7)])
    return title, mk.paragraphs(sents)


PRODUCT = (
    "{name}. Price: ${price}. In stock. Add to cart. Free delivery on orders over $50. "
    "Returns within 30 days. Size guide. Colour: {colour}. Material: {material}. "
    "Customer reviews ({reviews}). Write a review. Share on social media."
)


def product_page(rng, mk, template):
    name = " ".join(rng.sample(mk.names, 2)) + " " + rng.choice(["jacket", "lamp", "chair", "kettle", "backpack"])
    text = PRODUCT.format(
        name=name,
        price=rng.randint(5, 500),
        colour=rng.choice(["red", "blue", "black", "green", "grey"]),
        material=rng.choice(["cotton", "steel", "oak", "nylon", "wool"]),
        reviews=rng.randint(0, 90),
    )
    return f"{name} | Shop {template}", text


def iso(secs):
    import datetime

    return datetime.datetime.fromtimestamp(secs, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int)
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument(
        "--datasets",
        default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../shared/datasets"),
    )
    ap.add_argument("--copy-share", type=float, default=0.08, help="share of distinct articles that get copies")
    ap.add_argument("--early-share", type=float, default=0.2, help="share of copies that arrive before their original")
    ap.add_argument("--reuse", type=float, default=0.0, help="share of sentences drawn verbatim from a pool of wire sentences shared by many articles")
    ap.add_argument("--pool", type=int, default=2000, help="wire sentences in that pool")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    sents, names = load_sentences(args.datasets)
    mk = Maker(sents, names, rng, args.reuse, args.pool)
    os.makedirs(args.out, exist_ok=True)

    # Every record: (arrival key, article dict, truth dict).
    records = []
    base = 1_767_225_600  # 2026-01-01
    step = 3.0  # seconds of publication time between two distinct articles
    titles = []
    n_distinct = max(1, int(args.n / (1 + args.copy_share * 1.9 + 0.05)))
    serial = 0

    def emit(pos, title, paras_or_text, date, kind, group):
        nonlocal serial
        serial += 1
        site = rng.randint(1, 400)
        url = f"https://news{site}.example/{kind}/{serial}"
        aid = hashlib.sha1(url.encode()).hexdigest()[:32]
        text = paras_or_text if isinstance(paras_or_text, str) else text_of(paras_or_text)
        art = {
            "id": aid,
            "url": url,
            "title": title,
            "date": iso(date),
            "language": "en",
            "text": text,
            "extractor": "auto",
            "fetched_at": iso(date + rng.randint(60, 7200)),
        }
        truth = {"id": aid, "group": group, "kind": kind, "date": iso(date)}
        records.append((pos, art, truth))
        return aid

    for i in range(n_distinct):
        a = mk.article()
        titles.append(a["title"])
        date = base + i * step
        r = rng.random()
        if r < args.copy_share and i > 10:
            group = f"g{i}"
            emit(i, a["title"], a["paras"], date, "original", group)
            for _ in range(rng.choice([1, 1, 2, 3])):
                kind = rng.choice(KINDS)
                t, p = copy_of(kind, a, mk, rng, titles[-50:-1])
                cdate = date + rng.randint(600, 2 * 86400)
                # Most copies arrive after the original, some before it.
                early = rng.random() < args.early_share
                pos = i + (-rng.uniform(1, 300) if early else rng.uniform(1, 600))
                emit(pos, t, p, cdate, kind, group)
        elif r < args.copy_share + 0.05:
            emit(i, a["title"], a["paras"], date, "distinct", f"d{i}")
            t, p = followup_of(a, mk, rng)
            emit(i + rng.uniform(1, 300), t, p, date + rng.randint(3600, 86400), "followup", f"f{i}")
        elif r < args.copy_share + 0.053:
            template = rng.choice(names)
            for j in range(5):
                t, text = product_page(rng, mk, template)
                emit(i + j * 0.01, t, text, date, "product", f"p{i}-{j}")
        else:
            emit(i, a["title"], a["paras"], date, "distinct", f"d{i}")

    records.sort(key=lambda r: r[0])
    with open(os.path.join(args.out, "stream.jsonl"), "w", encoding="utf-8") as s, open(
        os.path.join(args.out, "truth.jsonl"), "w", encoding="utf-8"
    ) as t:
        for _, art, truth in records:
            s.write(json.dumps(art, ensure_ascii=False) + "\n")
            t.write(json.dumps(truth) + "\n")
    kinds = {}
    for _, _, tr in records:
        kinds[tr["kind"]] = kinds.get(tr["kind"], 0) + 1
    print(f"{len(records)} articles in {args.out}/stream.jsonl: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))


if __name__ == "__main__":
    main()
