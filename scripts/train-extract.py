#!/usr/bin/env python3
"""Trains the block classifiers of the `lines` and `auto` extractors on a
labelled set in the WCXB layout, reports domain-split cross-validated scores
measured by `gleaner eval` itself, and writes the weights that ship in
services/extract/weights/.

    pip install numpy scikit-learn
    cargo build --release -p gleaner
    scripts/train-extract.py ../shared/datasets/wcxb-dev [--folds 5] [--no-write]
    # train on several sets at once, folds by domain across them, scored per set:
    scripts/train-extract.py ../shared/datasets/wcxb-dev ../shared/datasets/readability-articles --no-write
    # compare tree settings on auto alone, at the shipped window and threshold (5 min):
    scripts/train-extract.py ../shared/datasets/wcxb-dev --no-write --extractors auto \
        --grid shipped --hgb max_iter=200,learning_rate=0.075

A block's label is 1 when at least half of its word pairs occur in the
page's reference text (`gleaner eval DIR --oracle` scores those labels: the
ceiling of a block classifier; `--soft` labels it with that share instead). Each page weighs the same (a block's weight is its share of
the page's tokens), as in the metric. Folds are split by registered domain, so
no site is both trained and scored on.

`auto` is two models: the first scores each block from its features; the
second (its `context`) rescores it from its features, its first score and the
first scores around it (neighbours, window, page, blocks with the same tag
path). The second is trained on first scores of pages the first did not see
(inner folds by domain), as it meets them on new pages."""
import argparse, json, os, subprocess, sys, tempfile
import numpy as np
from sklearn.model_selection import GroupKFold
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.neural_network import MLPClassifier

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
GLEANER = os.path.join(ROOT, "target", "release", "gleaner")
N_LINE, N_AUTO = 18, 50
HIDDEN = 16
# (window weight, threshold, expected F1) tried on the cross-validation
# folds; the best one's score is reported (chosen on the same folds). With
# expected F1 the threshold is only a floor (see Model::choose).
GRID = [(w, t, False) for w in (0.0, 0.3) for t in (0.3, 0.4, 0.5)] + \
       [(w, t, True) for w in (0.0, 0.3) for t in (0.1, 0.2, 0.3)]


def load(dump):
    pages, domains, X, y, w, words, paths, drop = [], [], [], [], [], [], [], []
    with open(dump) as f:
        for line in f:
            r = json.loads(line)
            pages.append(r["page"]); domains.append(r["domain"])
            X.append(r["x"]); y.append(r["share"] if SOFT else r["y"]); w.append(r["w"])
            words.append(r["words"]); paths.append(r["path"]); drop.append(r["drop"])
    X = np.asarray(X, dtype=np.float64); y = np.asarray(y, dtype=np.float64 if SOFT else np.int64); w = np.asarray(w, dtype=np.float64)
    pages = np.asarray(pages); domains = np.asarray(domains)
    # Each page weighs the same: a block weighs its share of the page's tokens.
    totals = {}
    for p, t in zip(pages, w):
        totals[p] = totals.get(p, 0.0) + t
    w = np.array([t / max(totals[p], 1.0) for p, t in zip(pages, w)])
    page = dict(words=np.asarray(words, dtype=np.float64), paths=np.asarray(paths), drop=np.asarray(drop, dtype=bool))
    return pages, domains, X, y, w, page


N_CONTEXT = 17


def context_rows(X, p, pages, page):
    """The block's features, its first score and the first scores around it;
    the same as `context_rows` in services/extract/src/model.rs (blocks of a
    page are consecutive and in page order)."""
    C = np.zeros((len(p), N_CONTEXT))
    starts = np.flatnonzero(np.r_[True, pages[1:] != pages[:-1]])
    ends = np.r_[starts[1:], len(pages)]
    parent = lambda q: q.rsplit("/", 1)[0]
    for a, b in zip(starts, ends):
        s = p[a:b]; t = page["words"][a:b]; n = b - a
        e = np.where(page["drop"][a:b], 0.0, s)
        idx = np.arange(n)
        cs = np.r_[0.0, np.cumsum(s)]
        win = lambda k: (cs[np.minimum(idx + k + 1, n)] - cs[np.maximum(idx - k, 0)]) / (np.minimum(idx + k + 1, n) - np.maximum(idx - k, 0))
        page_words = max(t.sum(), 1.0)
        best = max(e.max(), 0.0)
        c = C[a:b]
        c[:, 0] = s
        c[1:, 1] = s[:-1]; c[:-1, 2] = s[1:]
        c[:, 3] = win(2); c[:, 4] = win(5)
        c[:, 5] = best; c[:, 6] = s / max(best, 1e-6)
        c[:, 7] = (e * t).sum() / page_words
        c[:, 8] = t[e >= 0.5].sum() / page_words
        keys = list(page["paths"][a:b])
        for col in (9, 11, 13):
            _, inv = np.unique(np.asarray(keys), return_inverse=True)
            st = np.bincount(inv, weights=s * t); tw = np.bincount(inv, weights=t); cnt = np.bincount(inv)
            c[:, col] = st[inv] / np.maximum(tw[inv], 1.0); c[:, col + 1] = np.log1p(cnt[inv])
            keys = [parent(k) for k in keys]
        likely = np.flatnonzero(e >= 0.5)
        back = np.full(n, 1000); ahead = np.full(n, 1000)
        if len(likely):
            k = np.searchsorted(likely, idx, side="left") - 1  # last likely before i
            back = np.where(k >= 0, idx - likely[np.maximum(k, 0)], 1000)
            k = np.searchsorted(likely, idx, side="right")     # first likely after i
            ahead = np.where(k < len(likely), likely[np.minimum(k, len(likely) - 1)] - idx, 1000)
        c[:, 15] = np.log1p(np.minimum(back, 1000)); c[:, 16] = np.log1p(np.minimum(ahead, 1000))
    return np.hstack([X, C])


MODEL = "hgb"
# --soft: each block is content to the extent of its share of word pairs
# in the reference (a row for each class, weighed by the share), so that
# a block's score is the share of it the reference is expected to hold, as
# the expected-F1 choice reads it; by default it is content when that
# share is at least a half (the README says what soft labels scored).
SOFT = False
# The trees' settings (--hgb overrides them, to compare by cross-validation).
HGB = dict(max_iter=100, learning_rate=0.15, max_leaf_nodes=15)


def train(X, y, w, n, window_weight=0.3, threshold=0.5, seed=0):
    if MODEL == "hgb":
        return train_hgb(X, y, w, n, window_weight, threshold, seed)
    return train_mlp(X, y, w, n, window_weight, threshold, seed)


def train_stacked(X, y, w, n, pages, domains, page, folds=5):
    """A model whose context model is trained on first scores the first
    model gave pages it did not see (folds by domain inside the training
    pages), as it will score pages it has not seen."""
    first = train(X, y, w, n)
    p = np.zeros(len(y))
    names = np.unique(pages)
    name_domain = dict(zip(pages, domains))
    for tr_names, _ in GroupKFold(n_splits=folds).split(names, groups=[name_domain[q] for q in names]):
        tr = np.isin(pages, names[tr_names])
        p[~tr] = score_hgb(train(X[tr], y[tr], w[tr], n), X[~tr][:, :n])
    second = train(context_rows(X[:, :n], p, pages, page), y, w, n + N_CONTEXT)
    return dict(first, context=second)


def score_hgb(model, X):
    """Probabilities from an exported model's trees (as the Rust side scores them)."""
    raw = np.full(len(X), model["b2"])
    for t in model["trees"]:
        f, th, l, r, leaf, v = (np.asarray(t[k]) for k in ("feature", "threshold", "left", "right", "leaf", "value"))
        i = np.zeros(len(X), dtype=np.int64)
        while True:
            inner = ~leaf[i]
            if not inner.any():
                break
            go_left = X[np.arange(len(X)), f[i]] <= th[i]
            i = np.where(inner, np.where(go_left, l[i], r[i]), i)
        raw += v[i]
    return 1 / (1 + np.exp(-raw))


def train_hgb(X, y, w, n, window_weight, threshold, seed):
    """Gradient-boosted trees; exported as arrays per tree (left/right child,
    feature, threshold, leaf value), scored as baseline + sum of leaves."""
    Xn = X[:, :n]
    m = HistGradientBoostingClassifier(**HGB, random_state=seed)
    if SOFT:
        Xf, yf, wf = np.vstack([Xn, Xn]), np.r_[np.ones(len(y)), np.zeros(len(y))], np.r_[w * y, w * (1 - y)]
        keep = wf > 0
        m.fit(Xf[keep], yf[keep].astype(np.int64), sample_weight=wf[keep] * len(w) / wf[keep].sum())
    else:
        m.fit(Xn, y, sample_weight=w * len(w) / w.sum())
    trees = []
    for (p,) in m._predictors:
        nd = p.nodes
        trees.append({
            "feature": nd["feature_idx"].astype(int).tolist(),
            "threshold": nd["num_threshold"].astype(float).tolist(),
            "left": nd["left"].astype(int).tolist(),
            "right": nd["right"].astype(int).tolist(),
            "leaf": nd["is_leaf"].astype(bool).tolist(),
            "value": nd["value"].astype(float).tolist(),
        })
    baseline = float(np.ravel(m._baseline_prediction)[0])
    # The export must score as sklearn does.
    sample = Xn[:: max(1, len(Xn) // 500)]
    raw = np.full(len(sample), baseline)
    for t in trees:
        for k, x in enumerate(sample):
            i = 0
            while not t["leaf"][i]:
                i = t["left"][i] if x[t["feature"][i]] <= t["threshold"][i] else t["right"][i]
            raw[k] += t["value"][i]
    assert np.allclose(1 / (1 + np.exp(-raw)), m.predict_proba(sample)[:, 1], atol=1e-6)
    return {"features": n, "mean": [], "scale": [], "w2": [], "b2": baseline, "trees": trees,
            "window_weight": window_weight, "threshold": threshold}


def train_mlp(X, y, w, n, window_weight=0.3, threshold=0.5, seed=0):
    Xn = X[:, :n]
    mean = Xn.mean(axis=0); scale = Xn.std(axis=0); scale[scale == 0] = 1.0
    Z = (Xn - mean) / scale
    m = MLPClassifier(hidden_layer_sizes=(HIDDEN,), alpha=1e-3, max_iter=60, early_stopping=True,
                      random_state=seed, batch_size=512)
    m.fit(Z, y, sample_weight=w * len(w) / w.sum())
    return {
        "features": n,
        "mean": mean.tolist(), "scale": scale.tolist(),
        "w1": m.coefs_[0].T.tolist(), "b1": m.intercepts_[0].tolist(),
        "w2": m.coefs_[1][:, 0].tolist(), "b2": float(m.intercepts_[1][0]),
        "window_weight": window_weight, "threshold": threshold,
    }


def evaluate(data, weights_dir, ids, extractor):
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(ids)); path = f.name
    env = dict(os.environ, GLEANER_EXTRACT_WEIGHTS_DIR=weights_dir)
    out = subprocess.run([GLEANER, "eval", data, "--extractor", extractor, "--json", "--ids", path],
                         capture_output=True, text=True, env=env, check=True).stdout
    os.unlink(path)
    return json.loads(out.splitlines()[0])


def load_sets(datas):
    """Every set's blocks as one training set: page names become `SET:ID`
    (the set's place on the command line), so that pages of two sets
    never share a name; blocks of a page stay consecutive."""
    parts = []
    for si, data in enumerate(datas):
        dump = os.path.join(tempfile.mkdtemp(), "features.jsonl")
        subprocess.run([GLEANER, "eval", data, "--dump-features", dump], check=True, stdout=subprocess.DEVNULL)
        pages, domains, X, y, w, page = load(dump)
        parts.append((np.array([f"{si}:{p}" for p in pages]), domains, X, y, w, page))
    pages = np.concatenate([q[0] for q in parts]); domains = np.concatenate([q[1] for q in parts])
    X = np.vstack([q[2] for q in parts]); y = np.concatenate([q[3] for q in parts])
    w = np.concatenate([q[4] for q in parts])
    page = {k: np.concatenate([q[5][k] for q in parts]) for k in parts[0][5]}
    return pages, domains, X, y, w, page


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data", nargs="+", help="labelled sets; the first one's cross-validated F1 chooses the grid point")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--soft", action="store_true", help="label each block with its share of word pairs in the reference, not with whether it is at least a half")
    ap.add_argument("--model", choices=["hgb", "mlp"], default="hgb")
    ap.add_argument("--hgb", default="", help="tree settings to try, as max_iter=200,learning_rate=0.1")
    ap.add_argument("--extractors", default="lines,auto", help="which to train: lines, auto or both")
    ap.add_argument("--grid", choices=["all", "shipped"], default="all",
                    help="shipped: only the window weight and threshold the shipped weights use")
    a = ap.parse_args()
    global MODEL, SOFT
    MODEL = a.model
    SOFT = a.soft
    for kv in filter(None, a.hgb.split(",")):
        k, v = kv.split("=")
        HGB[k] = float(v) if "." in v or "e" in v else int(v)

    pages, domains, X, y, w, page = load_sets(a.data)
    print(f"{len(set(pages))} pages, {len(y)} blocks, {y.mean():.3f} content", file=sys.stderr)
    # Every page gets a fold, including pages with no blocks at all.
    page_domain = dict(zip(pages, domains))
    all_pages = []
    for si, data in enumerate(a.data):
        for f in sorted(os.listdir(os.path.join(data, "ground-truth"))):
            if not f.endswith(".json"):
                continue
            p = f"{si}:{f[:-5]}"
            all_pages.append(p)
            if p not in page_domain:
                gt = json.load(open(os.path.join(data, "ground-truth", f)))
                host = gt.get("url", "").split("/")[2] if "//" in gt.get("url", "") else p
                page_domain[p] = ".".join(host.split(".")[-2:])
    folds = list(GroupKFold(n_splits=a.folds).split(all_pages, groups=[page_domain[p] for p in all_pages]))
    wanted = a.extractors.split(",")
    for extractor, n in (e for e in (("lines", N_LINE), ("auto", N_AUTO)) if e[0] in wanted):
        grid = GRID
        if a.grid == "shipped":
            shipped = json.load(open(os.path.join(ROOT, "services", "extract", "weights", f"{extractor}.json")))
            grid = [(shipped["window_weight"], shipped["threshold"], shipped.get("expected_f1", False))]
        empty = lambda: {"f1": 0.0, "f1_sq": 0.0, "precision": 0.0, "recall": 0.0, "pages": 0, "types": {}}
        results = {g: [empty() for _ in a.data] for g in grid}
        for k, (_, te_pages) in enumerate(folds):
            test = set(all_pages[i] for i in te_pages)
            tr = np.array([p not in test for p in pages])
            if extractor == "auto" and MODEL == "hgb":
                sub = {name: v[tr] for name, v in page.items()}
                base = train_stacked(X[tr], y[tr], w[tr], n, pages[tr], domains[tr], sub)
            else:
                base = train(X[tr], y[tr], w[tr], n)
            for g in grid:
                wdir = tempfile.mkdtemp()
                with open(os.path.join(wdir, f"{extractor}.json"), "w") as f:
                    json.dump(dict(base, window_weight=g[0], threshold=g[1], expected_f1=g[2]), f)
                for si, data in enumerate(a.data):
                    ids = sorted(p.split(":", 1)[1] for p in test if p.startswith(f"{si}:"))
                    if not ids:
                        continue
                    r = evaluate(data, wdir, ids, extractor)
                    o, acc = r["overall"], results[g][si]
                    for key in ("f1", "precision", "recall"):
                        acc[key] += o[key] * o["pages"]
                    # The fold's sum of squared page F1s, from its mean and
                    # standard error, for the standard error of the whole.
                    m, se, k_pages = o["f1"], o.get("f1_se", 0.0), o["pages"]
                    acc["f1_sq"] += se * se * k_pages * max(k_pages - 1, 0) + k_pages * m * m
                    acc["pages"] += o["pages"]
                    for t, s in r["per_type"].items():
                        tt = acc["types"].setdefault(t, [0.0, 0])
                        tt[0] += s["f1"] * s["pages"]; tt[1] += s["pages"]
            print(f"  {extractor} fold {k} done", file=sys.stderr)
        g, per_set = max(results.items(), key=lambda kv: kv[1][0]["f1"] / max(kv[1][0]["pages"], 1))
        for data, best in zip(a.data, per_set):
            n_pages = best["pages"]
            mean = best["f1"] / n_pages
            var = max(best["f1_sq"] / n_pages - mean * mean, 0.0) * n_pages / max(n_pages - 1, 1)
            se = (var / n_pages) ** 0.5
            print(f"{extractor} on {data}: cross-validated (folds by domain) F1={mean:.4f} (standard error {se:.4f}) "
                  f"P={best['precision']/n_pages:.4f} R={best['recall']/n_pages:.4f} pages={n_pages} "
                  f"(window_weight={g[0]}, threshold={g[1]}, expected_f1={g[2]})")
            print("  per type: " + ", ".join(f"{t} {v[0]/v[1]:.3f}" for t, v in sorted(best["types"].items())))
        if not a.no_write:
            out = os.path.join(ROOT, "services", "extract", "weights", f"{extractor}.json")
            if extractor == "auto" and MODEL == "hgb":
                model = train_stacked(X, y, w, n, pages, domains, page)
            else:
                model = train(X, y, w, n)
            model = dict(model, window_weight=g[0], threshold=g[1], expected_f1=g[2])
            with open(out, "w") as f:
                json.dump(model, f, separators=(",", ":"))
                f.write("\n")
            print(f"  wrote {os.path.relpath(out, ROOT)} (trained on all {len(set(pages))} pages)")


if __name__ == "__main__":
    main()
