//! The trained block classifier (after DGWC): gradient-boosted trees or a
//! small network over the line features of [`crate::lines`], a sliding
//! window (φ = 5) that smooths the scores so that topical lines group into
//! blocks, the choice of blocks (by threshold or best expected F1), and the
//! context model that rescores each block from the first scores around it
//! (see [`context_rows`]). Weights are small JSON files in `weights/`, made
//! by `scripts/train-extract.py`.

use serde::Deserialize;
use std::sync::OnceLock;

/// One regression tree of a boosted ensemble, as parallel arrays: node i
/// goes left when feature[i] <= threshold[i]; leaves hold values.
#[derive(Debug, Deserialize)]
pub struct RegressionTree {
    feature: Vec<usize>,
    threshold: Vec<f32>,
    left: Vec<usize>,
    right: Vec<usize>,
    leaf: Vec<bool>,
    value: Vec<f32>,
}

/// One node of the trees laid out flat: an inner node's children sit side
/// by side at `left` and `left + 1`, so a step is an add, not a branch. A
/// leaf is its own left child with an infinite threshold, so a row that
/// reaches it stays there: a walk ends when a step stays put.
#[derive(Debug, Clone, Copy)]
struct FlatNode {
    feature: u32,
    threshold: f32,
    left: u32,
    value: f32,
}

/// Every tree's nodes in one array (and each tree's root), checked once
/// at load; `None` when a tree is malformed (an index out of range, a
/// child before its parent, or a shape that would copy out of bounds).
fn flatten(trees: &[RegressionTree], features: usize) -> Option<(Vec<FlatNode>, Vec<u32>)> {
    const MAX_NODES: usize = 1 << 20;
    if features == 0 {
        return None;
    }
    let mut nodes: Vec<FlatNode> = Vec::new();
    let mut roots = Vec::with_capacity(trees.len());
    for t in trees {
        let n = t.leaf.len();
        let ok = [
            t.feature.len(),
            t.threshold.len(),
            t.left.len(),
            t.right.len(),
            t.value.len(),
        ]
        .iter()
        .all(|&l| l == n);
        if !ok || n == 0 {
            return None;
        }
        let leaf = |at: usize, value: f32| FlatNode {
            feature: 0,
            threshold: f32::INFINITY,
            left: at as u32,
            value,
        };
        let root = nodes.len();
        roots.push(root as u32);
        nodes.push(leaf(root, 0.0));
        // Breadth first, giving each inner node's children two new slots.
        let mut queue = std::collections::VecDeque::from([(0usize, root)]);
        while let Some((i, slot)) = queue.pop_front() {
            if t.leaf[i] {
                nodes[slot] = leaf(slot, t.value[i]);
                continue;
            }
            // Children come after their parent, so walks always end.
            let (l, r) = (t.left[i], t.right[i]);
            if t.feature[i] >= features || l <= i || r <= i || l >= n || r >= n {
                return None;
            }
            if nodes.len() + 2 > MAX_NODES {
                return None;
            }
            let at = nodes.len();
            nodes[slot] = FlatNode {
                feature: t.feature[i] as u32,
                threshold: t.threshold[i],
                left: at as u32,
                value: 0.0,
            };
            nodes.extend([leaf(at, 0.0), leaf(at + 1, 0.0)]);
            queue.extend([(l, at), (r, at + 1)]);
        }
    }
    Some((nodes, roots))
}

/// A block classifier: gradient-boosted trees (`trees`, scored from `b2`
/// as the baseline), or a one-hidden-layer network over standardised
/// features (or, with no hidden layer, a logistic regression).
#[derive(Debug, Deserialize)]
pub struct Model {
    pub features: usize,
    #[serde(default)]
    pub trees: Vec<RegressionTree>,
    pub mean: Vec<f32>,
    pub scale: Vec<f32>,
    /// hidden × features, empty for a logistic regression.
    #[serde(default)]
    pub w1: Vec<Vec<f32>>,
    #[serde(default)]
    pub b1: Vec<f32>,
    pub w2: Vec<f32>,
    pub b2: f32,
    /// Weight of the window mean in the smoothed score.
    pub window_weight: f32,
    pub threshold: f32,
    /// Choose the set of blocks with the best expected F1 (see [`Model::choose`]).
    #[serde(default)]
    pub expected_f1: bool,
    /// A second model that rescores each block from its features, its
    /// first score and the first scores around it (see [`context_rows`]):
    /// a block among content is likelier content, a lone one less so.
    #[serde(default)]
    pub context: Option<Box<Model>>,
    #[serde(skip)]
    flat: Vec<FlatNode>,
    #[serde(skip)]
    roots: Vec<u32>,
}

impl Model {
    /// A model from its JSON file; `None` for `null` or a malformed file.
    pub fn parse(text: &str) -> Option<Model> {
        let mut m = serde_json::from_str::<Option<Model>>(text).ok().flatten()?;
        m.prepare()?;
        Some(m)
    }

    /// Flattens the trees (of the context model too); `None` if malformed.
    fn prepare(&mut self) -> Option<()> {
        if !self.trees.is_empty() {
            (self.flat, self.roots) = flatten(&self.trees, self.features)?;
        }
        match &mut self.context {
            Some(c) if c.features != self.features + CONTEXT_FEATURES => None,
            Some(c) => c.prepare(),
            None => Some(()),
        }
    }

    pub fn score(&self, row: &[f32]) -> f32 {
        if !self.roots.is_empty() {
            return self.score_all(&[row])[0];
        }
        let x: Vec<f32> = (0..self.features)
            .map(|j| (row[j] - self.mean[j]) / self.scale[j])
            .collect();
        let z = if self.w1.is_empty() {
            self.w2.iter().zip(&x).map(|(w, v)| w * v).sum::<f32>() + self.b2
        } else {
            let h = self
                .w1
                .iter()
                .zip(&self.b1)
                .map(|(w, b)| (w.iter().zip(&x).map(|(a, v)| a * v).sum::<f32>() + b).max(0.0));
            h.zip(&self.w2).map(|(h, w)| h * w).sum::<f32>() + self.b2
        };
        1.0 / (1.0 + (-z).exp())
    }

    /// Every row's probability. Trees outermost, so each tree's few nodes
    /// stay in cache while the rows go by. A row goes left when its feature
    /// is at most the threshold.
    // `!(x <= t)`, not `x > t`: a NaN would go right, as it always has
    // here; rows hold it as +∞, which goes right too and stays at a leaf.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    fn score_all(&self, rows: &[&[f32]]) -> Vec<f32> {
        if self.roots.is_empty() {
            return rows.iter().map(|r| self.score(r)).collect();
        }
        let (n, width) = (rows.len(), self.features);
        // Rows side by side; a feature a row lacks is 0.
        let mut x = vec![0.0f32; n * width];
        for (to, row) in x.chunks_exact_mut(width).zip(rows) {
            for (to, &v) in to.iter_mut().zip(*row) {
                *to = if v.is_nan() { f32::INFINITY } else { v };
            }
        }
        let flat = &self.flat[..];
        let step = |at: u32, x: &[f32]| {
            let node = flat[at as usize];
            node.left + u32::from(!(x[node.feature as usize] <= node.threshold))
        };
        let mut z = vec![self.b2; n];
        for &root in &self.roots {
            for (z, x) in z.iter_mut().zip(x.chunks_exact(width)) {
                let mut at = root;
                loop {
                    let next = step(at, x);
                    if next == at {
                        break;
                    }
                    at = next;
                }
                *z += flat[at as usize].value;
            }
        }
        z.into_iter().map(|z| 1.0 / (1.0 + (-z).exp())).collect()
    }

    /// Each block's score as [`Model::choose`] reads it: its probability
    /// (rescored by the context model, if any), smoothed with its window's
    /// mean by `window_weight`; 0 for a block that may not be kept. Also
    /// what `examples/blocks --scores` prints.
    pub fn scores(
        &self,
        rows: &[Vec<f32>],
        words: &[f64],
        eligible: &[bool],
        path_keys: &[[u64; 3]],
    ) -> Vec<f64> {
        let n = rows.len();
        let all: Vec<&[f32]> = rows.iter().map(|r| &r[..]).collect();
        let mut p = self.score_all(&all);
        if let Some(c) = &self.context {
            // Only blocks that may be kept are rescored (the others keep
            // their first score, which only the window below reads).
            let kept: Vec<usize> = (0..n)
                .filter(|&i| eligible.get(i).copied().unwrap_or(true))
                .collect();
            let context = context_rows(rows, self.features, &p, words, eligible, path_keys, &kept);
            let context: Vec<&[f32]> = context.iter().map(|r| &r[..]).collect();
            for (&i, s) in kept.iter().zip(c.score_all(&context)) {
                p[i] = s;
            }
        }
        (0..n)
            .map(|i| {
                let (a, b) = (i.saturating_sub(2), (i + 3).min(n));
                let mean = p[a..b].iter().sum::<f32>() / (b - a) as f32;
                let s = (1.0 - self.window_weight) * p[i] + self.window_weight * mean;
                if eligible.get(i).copied().unwrap_or(true) {
                    f64::from(s)
                } else {
                    0.0
                }
            })
            .collect()
    }

    /// The blocks to keep, given each block's word count and whether it may
    /// be kept at all, by their [`Model::scores`]. With `expected_f1`, the blocks
    /// are the top-scoring set that maximises the page's expected F1 (the
    /// reference expected to hold Σ score·words), among those scoring at
    /// least `threshold`; otherwise every block scoring `threshold` or more.
    /// `path_keys` ([`crate::tree::Tree::path_keys`]) group blocks for the
    /// context model.
    pub fn choose(
        &self,
        rows: &[Vec<f32>],
        words: &[f64],
        eligible: &[bool],
        path_keys: &[[u64; 3]],
    ) -> Vec<usize> {
        let score = self.scores(rows, words, eligible, path_keys);
        let n = score.len();
        let passes = |i: &usize| score[*i] >= f64::from(self.threshold);
        if !self.expected_f1 {
            return (0..n).filter(passes).collect();
        }
        let words = |i: usize| words.get(i).copied().unwrap_or(0.0);
        let expected_reference: f64 = (0..n).map(|i| score[i] * words(i)).sum();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| score[b].total_cmp(&score[a]));
        let (mut hits, mut kept, mut best, mut take) = (0.0, 0.0, 0.0, 0);
        for (k, &i) in order.iter().enumerate() {
            hits += score[i] * words(i);
            kept += words(i);
            let f1 = 2.0 * hits / (kept + expected_reference).max(f64::MIN_POSITIVE);
            if f1 > best {
                (best, take) = (f1, k + 1);
            }
        }
        let mut chosen: Vec<usize> = order[..take].iter().copied().filter(passes).collect();
        chosen.sort_unstable();
        chosen
    }
}

/// How many features [`context_rows`] adds to a block's own.
pub const CONTEXT_FEATURES: usize = 17;

/// A block's features followed by its first score and what the first
/// scores say around it: its neighbours', its window's (±2, ±5), the
/// page's best and word-weighted mean, the share of words in likely
/// content, the word-weighted mean of the blocks with the same tag path,
/// parent path and grandparent path (with their counts), and how far back
/// and ahead the nearest likely content is. The page's best, mean, likely
/// share and distances count only blocks that may be kept; only the rows
/// of the blocks `of` are made. `scripts/train-extract.py` computes the
/// same for training.
fn context_rows(
    rows: &[Vec<f32>],
    width: usize,
    p: &[f32],
    words: &[f64],
    eligible: &[bool],
    path_keys: &[[u64; 3]],
    of: &[usize],
) -> Vec<Vec<f32>> {
    let n = rows.len();
    let s = |i: usize| f64::from(p[i]);
    let t = |i: usize| words.get(i).copied().unwrap_or(0.0);
    let e = |i: usize| {
        if eligible.get(i).copied().unwrap_or(true) {
            s(i)
        } else {
            0.0
        }
    };
    let likely = |i: usize| e(i) >= 0.5;
    let mut prefix = vec![0.0; n + 1];
    for i in 0..n {
        prefix[i + 1] = prefix[i] + s(i);
    }
    let window = |i: usize, k: usize| {
        let (a, b) = (i.saturating_sub(k), (i + k + 1).min(n));
        (prefix[b] - prefix[a]) / (b - a) as f64
    };
    let page_words: f64 = (0..n).map(t).sum::<f64>().max(1.0);
    let best = (0..n).map(e).fold(0.0, f64::max);
    let mean = (0..n).map(|i| e(i) * t(i)).sum::<f64>() / page_words;
    let likely_share = (0..n).filter(|&i| likely(i)).map(t).sum::<f64>() / page_words;
    // (Σ score·words, Σ words, count) per path, parent path, grandparent path.
    let mut groups: [rustc_hash::FxHashMap<u64, (f64, f64, f64)>; 3] = Default::default();
    let key = |i: usize, g: usize| path_keys.get(i).map_or(0, |k| k[g]);
    for (g, group) in groups.iter_mut().enumerate() {
        group.reserve(n);
        for i in 0..n {
            let v = group.entry(key(i, g)).or_default();
            *v = (v.0 + s(i) * t(i), v.1 + t(i), v.2 + 1.0);
        }
    }
    let far = |d: usize| ((d.min(1000)) as f64).ln_1p();
    let mut back = vec![1000; n];
    let mut last = None;
    for (i, d) in back.iter_mut().enumerate() {
        if let Some(l) = last {
            *d = i - l;
        }
        if likely(i) {
            last = Some(i);
        }
    }
    let mut ahead = vec![1000; n];
    let mut next = None;
    for i in (0..n).rev() {
        if let Some(x) = next {
            ahead[i] = x - i;
        }
        if likely(i) {
            next = Some(i);
        }
    }
    of.iter()
        .map(|&i| {
            // A block's own features, as many as the first model reads.
            let own = &rows[i][..width.min(rows[i].len())];
            let mut r = Vec::with_capacity(own.len() + CONTEXT_FEATURES);
            r.extend_from_slice(own);
            let mut push = |v: f64| r.push(v as f32);
            push(s(i));
            push(if i > 0 { s(i - 1) } else { 0.0 });
            push(if i + 1 < n { s(i + 1) } else { 0.0 });
            push(window(i, 2));
            push(window(i, 5));
            push(best);
            push(s(i) / best.max(1e-6));
            push(mean);
            push(likely_share);
            for (g, group) in groups.iter().enumerate() {
                let (st, tw, count) = group[&key(i, g)];
                push(st / tw.max(1.0));
                push(count.ln_1p());
            }
            push(far(back[i]));
            push(far(ahead[i]));
            debug_assert_eq!(r.len(), rows[i].len() + CONTEXT_FEATURES);
            r
        })
        .collect()
}

fn load(name: &str, bundled: &str) -> Option<Model> {
    // GLEANER_EXTRACT_WEIGHTS_DIR lets the training script try weights
    // without a rebuild.
    let text = match std::env::var_os("GLEANER_EXTRACT_WEIGHTS_DIR") {
        Some(dir) => {
            std::fs::read_to_string(std::path::Path::new(&dir).join(format!("{name}.json"))).ok()?
        }
        None => bundled.to_string(),
    };
    Model::parse(&text)
}

pub fn lines_model() -> Option<&'static Model> {
    static M: OnceLock<Option<Model>> = OnceLock::new();
    M.get_or_init(|| load("lines", include_str!("../weights/lines.json")))
        .as_ref()
}

pub fn auto_model() -> Option<&'static Model> {
    static M: OnceLock<Option<Model>> = OnceLock::new();
    M.get_or_init(|| load("auto", include_str!("../weights/auto.json")))
        .as_ref()
}

#[cfg(test)]
mod tests {
    use super::Model;

    #[test]
    fn boosted_trees_score_from_the_baseline() {
        // One stump on feature 1: <= 0.5 -> -2, else +2; baseline 0.
        let stump = r#"{"features":2,"mean":[],"scale":[],"w2":[],"b2":0.0,"window_weight":0.0,"threshold":0.5,
                "trees":[{"feature":[1,0,0],"threshold":[0.5,0,0],"left":[1,0,0],"right":[2,0,0],
                          "leaf":[false,true,true],"value":[0,-2,2]}]}"#;
        let m = Model::parse(stump).unwrap();
        assert!(m.score(&[9.0, 0.2]) < 0.2);
        assert!(m.score(&[9.0, 0.9]) > 0.8);
        assert_eq!(
            m.choose(
                &[vec![0.0, 0.9], vec![0.0, 0.1]],
                &[5.0, 5.0],
                &[true, true],
                &[]
            ),
            vec![0]
        );
        // Expected F1: a block at 0.35 passes the threshold, but keeping it
        // beside a surer block of the same size lowers the expected F1
        // (2·90/(100+125) = 0.80 against 2·125/(200+125) = 0.77).
        let sure_or_not = stump
            .replace(r#""value":[0,-2,2]"#, r#""value":[0,-0.6190392,2.1972246]"#)
            .replace(r#""threshold":0.5,"#, r#""threshold":0.3,"#);
        let plain = Model::parse(&sure_or_not).unwrap();
        let rows = [vec![0.0, 0.9], vec![0.0, 0.1]];
        assert_eq!(
            plain.choose(&rows, &[100.0, 100.0], &[true, true], &[]),
            vec![0, 1]
        );
        let f1 = Model::parse(&sure_or_not.replace(
            r#""threshold":0.3,"#,
            r#""threshold":0.3,"expected_f1":true,"#,
        ))
        .unwrap();
        assert_eq!(
            f1.choose(&rows, &[100.0, 100.0], &[true, true], &[]),
            vec![0]
        );
        // A block that may not be kept is not, and does not count as reference.
        assert_eq!(
            plain.choose(&rows, &[100.0, 100.0], &[false, true], &[]),
            vec![1]
        );
        assert_eq!(
            f1.choose(&rows, &[100.0, 100.0], &[false, true], &[]),
            vec![1]
        );
        // A child pointing back at its parent (a loop) or past the tree, or
        // a feature the rows do not have: not loaded.
        assert!(Model::parse(&stump.replace(r#""left":[1,0,0]"#, r#""left":[0,0,0]"#)).is_none());
        assert!(Model::parse(&stump.replace(r#""right":[2,0,0]"#, r#""right":[7,0,0]"#)).is_none());
        assert!(
            Model::parse(&stump.replace(r#""feature":[1,0,0]"#, r#""feature":[5,0,0]"#)).is_none()
        );
        // A context model rescores from the first scores around a block:
        // here a block is content when the next block's first score (the
        // feature after the block's own two, its score and the previous
        // block's) is high, which the first model alone says of block 1.
        let next_high = r#"{"features":19,"mean":[],"scale":[],"w2":[],"b2":0.0,"window_weight":0.0,"threshold":0.5,
                "trees":[{"feature":[4,0,0],"threshold":[0.5,0,0],"left":[1,0,0],"right":[2,0,0],
                          "leaf":[false,true,true],"value":[0,-2,2]}]}"#;
        let stacked = stump.replacen('{', &format!(r#"{{"context":{next_high},"#), 1);
        let rows = [vec![0.0, 0.1], vec![0.0, 0.9]];
        let keys = [[1, 2, 3], [1, 2, 3]];
        assert_eq!(m.choose(&rows, &[5.0, 5.0], &[true, true], &keys), vec![1]);
        let m2 = Model::parse(&stacked).unwrap();
        assert_eq!(m2.choose(&rows, &[5.0, 5.0], &[true, true], &keys), vec![0]);
        // A context model must read every feature context_rows makes.
        assert!(Model::parse(&stacked.replacen("19", "18", 1)).is_none());
        // The shipped weights load.
        assert!(Model::parse(include_str!("../weights/auto.json")).is_some());
        assert!(Model::parse(include_str!("../weights/lines.json")).is_some());
    }
}
