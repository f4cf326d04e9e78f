//! Gradient-boosted decision trees for binary classification (Friedman 2001, "Greedy function
//! approximation"; second-order leaf values and split gains as in XGBoost, Chen & Guestrin
//! 2016, §2.2, with its per-tree column sampling, §2.3; histogram split finding over quantile
//! bins as in LightGBM, Ke et al. 2017).
//! The principal type is [`Gbdt`]: [`Gbdt::train`] fits it on row-major `f32` features with
//! 0/1 targets and per-row weights (optionally several ensembles with different sampling
//! seeds, averaged: bagging, Breiman 1996, of whole boosted ensembles), [`Gbdt::logit`]
//! scores one row.

use serde::{Deserialize, Serialize};

/// Training parameters.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GbdtParams {
    /// Number of trees.
    pub trees: usize,
    /// Maximum depth of a tree (a depth-`d` tree has at most `2^d` leaves).
    pub max_depth: usize,
    /// Shrinkage applied to every leaf value.
    pub learning_rate: f32,
    /// L2 penalty on leaf values (XGBoost's λ).
    pub lambda: f64,
    /// Minimum summed hessian in a child.
    pub min_child_hessian: f64,
    /// Minimum rows in a child.
    pub min_child_rows: usize,
    /// Share of the rows each tree is fitted on (drawn without replacement).
    pub row_sample: f64,
    /// Share of the feature columns each tree may split on (drawn per tree, at least one).
    pub column_sample: f64,
    /// Maximum bins per feature (≤ 255).
    pub max_bins: usize,
    /// Seed of the row and column sampling (bag `k` of [`GbdtParams::bags`] uses `seed + k`).
    pub seed: u64,
    /// Ensembles fitted with different seeds and averaged ([`Gbdt::average`]; bootstrap-free
    /// bagging of whole boosted ensembles: it lowers the variance that the row and column
    /// sampling add, at `bags` times the trees to evaluate). At least 1.
    #[serde(default = "one_bag")]
    pub bags: usize,
}

fn one_bag() -> usize {
    1
}

impl Default for GbdtParams {
    fn default() -> Self {
        GbdtParams {
            trees: 400,
            max_depth: 7,
            learning_rate: 0.05,
            lambda: 1.0,
            min_child_hessian: 1.0,
            min_child_rows: 50,
            row_sample: 0.7,
            column_sample: 0.5,
            max_bins: 64,
            seed: 1,
            bags: 1,
        }
    }
}

/// One tree node: a split (`feature`, `threshold`: rows with `x[feature] <= threshold` go to
/// `left`) or, when `left == 0`, a leaf with `value` (a logit increment).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// Feature column of the split.
    #[serde(rename = "f")]
    pub feature: u16,
    /// Split threshold.
    #[serde(rename = "t")]
    pub threshold: f32,
    /// Index of the left child (`0` for a leaf; the root is node 0, so never a child).
    #[serde(rename = "l")]
    pub left: u32,
    /// Index of the right child.
    #[serde(rename = "r")]
    pub right: u32,
    /// Leaf value.
    #[serde(rename = "v")]
    pub value: f32,
}

/// A fitted ensemble: `logit(x) = base + Σ tree(x)`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Gbdt {
    /// Number of feature columns a row must have.
    pub features: usize,
    /// Initial logit (the weighted base rate's log-odds).
    pub base: f32,
    /// The trees, each a node list with its root at index 0.
    pub trees: Vec<Vec<Node>>,
    /// The trees as complete binary trees ([`Complete`]), built on the first [`Gbdt::logit`].
    #[serde(skip)]
    complete: std::sync::OnceLock<Option<Complete>>,
    /// [`Gbdt::fingerprint`], computed on first use.
    #[serde(skip)]
    fingerprint: std::sync::OnceLock<u64>,
}

impl PartialEq for Gbdt {
    /// Equal trees (the evaluation cache aside).
    fn eq(&self, other: &Gbdt) -> bool {
        self.features == other.features && self.base == other.base && self.trees == other.trees
    }
}

/// Deepest trees [`Complete`] lays out (2^depth leaves each).
const MAX_COMPLETE_DEPTH: usize = 8;

/// The trees laid out as complete binary trees of one depth over quantised features: a leaf
/// above that depth becomes a chain of splits that always go left, so every row takes exactly
/// `depth` steps per tree, `i → 2i + 1 + (bin(x) > bin)`, over contiguous memory. A row is
/// first mapped to one byte per feature, its bin: how many of the feature's distinct split
/// thresholds lie below the value (a NaN above them all). `x > t` holds exactly when the
/// value's bin exceeds the threshold's rank, so the logits are the node lists' to the bit,
/// from two bytes per split instead of eight.
#[derive(Debug, Clone)]
struct Complete {
    depth: usize,
    /// Per feature, its distinct split thresholds in ascending order (at most [`MAX_CUTS`]).
    cuts: Vec<Vec<f32>>,
    /// Per tree, `2^depth - 1` splits `feature << 8 | rank`: a row goes right when its bin of
    /// `feature` exceeds `rank` ([`NEVER_RIGHT`] for the chains' splits).
    splits: Vec<u16>,
    /// Per tree, `2^depth` leaf values.
    leaves: Vec<f32>,
}

/// Most distinct thresholds per feature that [`Complete`] quantises (a bin is one byte and
/// 255 is a NaN's bin).
const MAX_CUTS: usize = 254;
/// A NaN's bin: above every threshold's rank (a NaN goes right, [`goes_right`]).
const NAN_BIN: u8 = 255;
/// The rank of a split that sends every row left: no bin exceeds it.
const NEVER_RIGHT: u8 = 255;

impl Complete {
    fn new(trees: &[Vec<Node>], features: usize) -> Option<Complete> {
        fn depth_of(tree: &[Node], i: usize) -> usize {
            let n = &tree[i];
            if n.left == 0 {
                0
            } else {
                1 + depth_of(tree, n.left as usize).max(depth_of(tree, n.right as usize))
            }
        }
        let depth = trees.iter().filter(|t| !t.is_empty()).map(|t| depth_of(t, 0)).max().unwrap_or(0);
        if depth == 0 || depth > MAX_COMPLETE_DEPTH || features > 256 || trees.iter().any(Vec::is_empty) {
            return None;
        }
        let mut cuts: Vec<Vec<f32>> = vec![Vec::new(); features];
        for node in trees.iter().flatten().filter(|n| n.left != 0) {
            if node.threshold.is_nan() {
                return None;
            }
            cuts.get_mut(usize::from(node.feature))?.push(node.threshold);
        }
        for c in &mut cuts {
            c.sort_by(f32::total_cmp);
            c.dedup();
            if c.len() > MAX_CUTS {
                return None;
            }
        }
        let rank = |feature: u16, threshold: f32| {
            let r = cuts[usize::from(feature)].partition_point(|&t| t < threshold);
            (feature << 8) | r as u16
        };
        let (inner, outer) = ((1usize << depth) - 1, 1usize << depth);
        let mut splits = vec![u16::from(NEVER_RIGHT); inner * trees.len()];
        let mut leaves = vec![0.0; outer * trees.len()];
        for (t, tree) in trees.iter().enumerate() {
            let splits = &mut splits[t * inner..(t + 1) * inner];
            let leaves = &mut leaves[t * outer..(t + 1) * outer];
            // (node of the tree, position in the complete tree, level)
            let mut stack = vec![(0usize, 0usize, 0usize)];
            while let Some((i, pos, level)) = stack.pop() {
                let node = &tree[i];
                if level == depth {
                    leaves[pos - inner] = node.value;
                } else if node.left == 0 {
                    // A leaf above the last level: splits that always go left, down to it.
                    splits[pos] = u16::from(NEVER_RIGHT);
                    stack.push((i, 2 * pos + 1, level + 1));
                } else {
                    splits[pos] = rank(node.feature, node.threshold);
                    stack.push((node.left as usize, 2 * pos + 1, level + 1));
                    stack.push((node.right as usize, 2 * pos + 2, level + 1));
                }
            }
        }
        Some(Complete { depth, cuts, splits, leaves })
    }

    /// The bin of value `x` of `feature`: how many of its thresholds lie below `x`.
    fn bin(&self, feature: usize, x: f32) -> u8 {
        match x.is_nan() {
            true => NAN_BIN,
            false => self.cuts[feature].partition_point(|&t| t < x) as u8,
        }
    }

    /// The logits of `rows` (row-major, `features` columns): [`LANES`] rows at a time stepped
    /// together through each tree, so that their independent loads overlap, then the rest one
    /// by one.
    fn logits(&self, base: f32, rows: &[f32], features: usize, out: &mut Vec<f32>) {
        let mut groups = rows.chunks_exact(LANES * features);
        for group in groups.by_ref() {
            out.extend_from_slice(&self.walk::<LANES>(base, group, features));
        }
        for row in groups.remainder().chunks_exact(features) {
            out.extend_from_slice(&self.walk::<1>(base, row, features));
        }
    }

    /// The logits of the `N` rows of `rows` (`N × features` values). Each row's bins fill a
    /// 256-byte table (a feature index is a byte), so the steps index it unchecked by the type.
    fn walk<const N: usize>(&self, base: f32, rows: &[f32], features: usize) -> [f32; N] {
        let (inner, outer) = ((1usize << self.depth) - 1, 1usize << self.depth);
        let mut bins = [[0u8; 256]; N];
        for (lane, row) in bins.iter_mut().zip(rows.chunks_exact(features)) {
            for (feature, (bin, &x)) in lane.iter_mut().zip(row).enumerate() {
                *bin = self.bin(feature, x);
            }
        }
        let mut sums = [base; N];
        for (splits, leaves) in self.splits.chunks_exact(inner).zip(self.leaves.chunks_exact(outer)) {
            let mut pos = [0usize; N];
            for _ in 0..self.depth {
                for (p, lane) in pos.iter_mut().zip(&bins) {
                    let split = splits[*p];
                    let bin = lane[usize::from(split >> 8)];
                    *p = 2 * *p + 1 + usize::from(bin > split as u8);
                }
            }
            for (sum, p) in sums.iter_mut().zip(pos) {
                *sum += leaves[p - inner];
            }
        }
        sums
    }
}

/// A split sends `x` right unless `x <= threshold` (a NaN goes right).
fn goes_right(x: f32, threshold: f32) -> bool {
    !matches!(x.partial_cmp(&threshold), Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal))
}

/// Rows [`Gbdt::logits`] steps through a tree together.
const LANES: usize = 8;

impl Gbdt {
    /// The logits of `rows` (row-major, `row.len() == k × self.features`), one per row: the
    /// same values as [`Gbdt::logit`] on each row, computed several rows at a time.
    pub fn logits(&self, rows: &[f32]) -> Vec<f32> {
        let mut out = Vec::with_capacity(rows.len() / self.features.max(1));
        match self.complete.get_or_init(|| Complete::new(&self.trees, self.features)) {
            Some(complete) => complete.logits(self.base, rows, self.features, &mut out),
            None => out.extend(rows.chunks_exact(self.features.max(1)).map(|row| self.logit_nodes(row))),
        }
        out
    }

    /// An ensemble from its parts.
    pub fn new(features: usize, base: f32, trees: Vec<Vec<Node>>) -> Gbdt {
        Gbdt { features, base, trees, complete: std::sync::OnceLock::new(), fingerprint: std::sync::OnceLock::new() }
    }

    /// xxh3 of the ensemble's columns, base and every node: equal for equal ensembles (a clone,
    /// the same file loaded twice), different, but for hash collisions, for any two that can
    /// give different logits. Computed once per ensemble.
    pub fn fingerprint(&self) -> u64 {
        *self.fingerprint.get_or_init(|| {
            let mut h = xxhash_rust::xxh3::Xxh3::new();
            h.update(&(self.features as u64).to_le_bytes());
            h.update(&self.base.to_bits().to_le_bytes());
            for tree in &self.trees {
                h.update(&(tree.len() as u64).to_le_bytes());
                for n in tree {
                    h.update(&n.feature.to_le_bytes());
                    h.update(&n.threshold.to_bits().to_le_bytes());
                    h.update(&n.left.to_le_bytes());
                    h.update(&n.right.to_le_bytes());
                    h.update(&n.value.to_bits().to_le_bytes());
                }
            }
            h.digest()
        })
    }

    /// The logit of one row (`row.len() == self.features`).
    pub fn logit(&self, row: &[f32]) -> f32 {
        self.logits(row).first().copied().unwrap_or(self.base)
    }

    /// [`Gbdt::logit`] walking the node lists, one node after another: the reference that the
    /// complete-tree layout of [`Gbdt::logits`] matches to the bit.
    pub(crate) fn logit_nodes(&self, row: &[f32]) -> f32 {
        let mut sum = self.base;
        for tree in &self.trees {
            let mut i = 0usize;
            loop {
                let node = &tree[i];
                if node.left == 0 {
                    sum += node.value;
                    break;
                }
                i = if goes_right(row[node.feature as usize], node.threshold) { node.right } else { node.left }
                    as usize;
            }
        }
        sum
    }

    /// Fit on `rows` (`targets.len() × features`, row-major), `targets` 0 or 1, `weights` ≥ 0:
    /// `params.bags` ensembles of `params.trees` trees, seeds `params.seed`, `params.seed + 1`,
    /// …, averaged ([`Gbdt::average`]). `threads` workers build the histograms.
    pub fn train(
        rows: &[f32],
        features: usize,
        targets: &[f32],
        weights: &[f32],
        params: &GbdtParams,
        threads: usize,
    ) -> Gbdt {
        let n = targets.len();
        assert_eq!(rows.len(), n * features, "rows must be targets × features");
        let binned = Binned::new(rows, features, params.max_bins.clamp(2, 255));
        let bags = (0..params.bags.max(1) as u64)
            .map(|k| {
                let params = GbdtParams { seed: params.seed.wrapping_add(k), ..params.clone() };
                Gbdt::boost(rows, features, &binned, targets, weights, &params, threads)
            })
            .collect();
        Gbdt::average(bags)
    }

    /// The mean of several ensembles over the same features as one ensemble: the mean base
    /// and every tree of each, its leaf values divided by the number of ensembles, so its
    /// logit is the mean of theirs. An empty list gives an empty ensemble (logit 0).
    ///
    /// # Panics
    /// When the ensembles' feature counts differ.
    pub fn average(parts: Vec<Gbdt>) -> Gbdt {
        let k = parts.len().max(1) as f32;
        let features = parts.first().map_or(0, |g| g.features);
        let base = parts.iter().map(|g| g.base).sum::<f32>() / k;
        let mut trees = Vec::with_capacity(parts.iter().map(|g| g.trees.len()).sum());
        for part in parts {
            assert_eq!(part.features, features, "averaged ensembles must share their features");
            for mut tree in part.trees {
                tree.iter_mut().filter(|node| node.left == 0).for_each(|leaf| leaf.value /= k);
                trees.push(tree);
            }
        }
        Gbdt::new(features, base, trees)
    }

    /// One boosted ensemble of `params.trees` trees with seed `params.seed`.
    fn boost(
        rows: &[f32],
        features: usize,
        binned: &Binned,
        targets: &[f32],
        weights: &[f32],
        params: &GbdtParams,
        threads: usize,
    ) -> Gbdt {
        let n = targets.len();
        let wsum: f64 = weights.iter().map(|&w| f64::from(w)).sum();
        let pos: f64 = targets.iter().zip(weights).map(|(&t, &w)| f64::from(t * w)).sum();
        let rate = (pos / wsum.max(1e-12)).clamp(1e-6, 1.0 - 1e-6);
        let base = (rate / (1.0 - rate)).ln() as f32;
        let mut logits = vec![base; n];
        let mut grad = vec![0f32; n];
        let mut hess = vec![0f32; n];
        let mut rng = fastrand::Rng::with_seed(params.seed);
        let mut trees = Vec::with_capacity(params.trees);
        for _ in 0..params.trees {
            for i in 0..n {
                let p = 1.0 / (1.0 + (-logits[i]).exp());
                grad[i] = (p - targets[i]) * weights[i];
                hess[i] = (p * (1.0 - p)).max(1e-6) * weights[i];
            }
            let sample: Vec<u32> = (0..n as u32).filter(|_| rng.f64() < params.row_sample).collect();
            let mut allowed = vec![true; features];
            if params.column_sample < 1.0 {
                allowed.iter_mut().for_each(|a| *a = rng.f64() < params.column_sample);
            }
            if !allowed.contains(&true) {
                allowed[rng.usize(..features.max(1))] = true;
            }
            let tree =
                TreeBuilder { binned, grad: &grad, hess: &hess, params, threads, allowed: &allowed }.build(sample);
            for (i, logit) in logits.iter_mut().enumerate() {
                *logit += leaf_value(&tree, |f| rows[i * features + f]);
            }
            trees.push(tree);
        }
        Gbdt::new(features, base, trees)
    }
}

fn leaf_value(tree: &[Node], x: impl Fn(usize) -> f32) -> f32 {
    let mut i = 0usize;
    loop {
        let node = &tree[i];
        if node.left == 0 {
            return node.value;
        }
        i = if x(node.feature as usize) <= node.threshold { node.left } else { node.right } as usize;
    }
}

/// Features as bin numbers, column-major, with each feature's bin upper edges.
struct Binned {
    n: usize,
    /// `features × n` bin numbers.
    bins: Vec<u8>,
    /// Per feature, the upper edge of every bin but the last.
    edges: Vec<Vec<f32>>,
}

impl Binned {
    fn new(rows: &[f32], features: usize, max_bins: usize) -> Binned {
        let n = rows.len() / features.max(1);
        let mut bins = vec![0u8; features * n];
        let mut edges = Vec::with_capacity(features);
        for f in 0..features {
            let mut values: Vec<f32> = (0..n).map(|i| rows[i * features + f]).collect();
            values.sort_by(f32::total_cmp);
            values.dedup();
            let cuts: Vec<f32> = if values.len() <= max_bins {
                values.windows(2).map(|w| 0.5 * (w[0] + w[1])).collect()
            } else {
                // Quantiles of the distinct values of all rows, weighted by occurrence.
                let mut all: Vec<f32> = (0..n).map(|i| rows[i * features + f]).collect();
                all.sort_by(f32::total_cmp);
                let mut cuts: Vec<f32> = (1..max_bins).map(|q| all[q * (n - 1) / max_bins]).collect();
                cuts.dedup();
                cuts
            };
            for i in 0..n {
                let v = rows[i * features + f];
                bins[f * n + i] = cuts.partition_point(|&c| c < v) as u8;
            }
            edges.push(cuts);
        }
        Binned { n, bins, edges }
    }

    fn column(&self, f: usize) -> &[u8] {
        &self.bins[f * self.n..(f + 1) * self.n]
    }
}

/// Per feature and bin, summed gradient and hessian.
type Histogram = Vec<Vec<(f64, f64)>>;

struct TreeBuilder<'a> {
    binned: &'a Binned,
    grad: &'a [f32],
    hess: &'a [f32],
    params: &'a GbdtParams,
    threads: usize,
    /// The feature columns this tree may split on.
    allowed: &'a [bool],
}

struct Split {
    feature: usize,
    bin: usize,
    gain: f64,
}

impl TreeBuilder<'_> {
    fn build(&self, rows: Vec<u32>) -> Vec<Node> {
        let mut nodes = vec![Node { feature: 0, threshold: 0.0, left: 0, right: 0, value: 0.0 }];
        let hist = self.histogram(&rows);
        self.grow(&mut nodes, 0, rows, hist, 0);
        nodes
    }

    fn grow(&self, nodes: &mut Vec<Node>, at: usize, rows: Vec<u32>, hist: Histogram, depth: usize) {
        let (g, h) = hist.first().map_or((0.0, 0.0), |f| f.iter().fold((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1)));
        let leaf = (-g / (h + self.params.lambda)) as f32 * self.params.learning_rate;
        let split = if depth < self.params.max_depth { self.best_split(&hist, rows.len()) } else { None };
        let Some(split) = split else {
            nodes[at].value = leaf;
            return;
        };
        let column = self.binned.column(split.feature);
        let (left_rows, right_rows): (Vec<u32>, Vec<u32>) =
            rows.iter().partition(|&&r| usize::from(column[r as usize]) <= split.bin);
        if left_rows.len() < self.params.min_child_rows || right_rows.len() < self.params.min_child_rows {
            nodes[at].value = leaf;
            return;
        }
        // The smaller child's histogram is built, the larger's is the parent's minus it.
        let left_small = left_rows.len() <= right_rows.len();
        let small = self.histogram(if left_small { &left_rows } else { &right_rows });
        let large: Histogram = hist
            .iter()
            .zip(&small)
            .map(|(p, s)| p.iter().zip(s).map(|(a, b)| (a.0 - b.0, a.1 - b.1)).collect())
            .collect();
        let (left_hist, right_hist) = if left_small { (small, large) } else { (large, small) };
        let left = nodes.len();
        let blank = Node { feature: 0, threshold: 0.0, left: 0, right: 0, value: 0.0 };
        nodes.push(blank);
        nodes.push(blank);
        nodes[at] = Node {
            feature: split.feature as u16,
            threshold: self.binned.edges[split.feature][split.bin],
            left: left as u32,
            right: left as u32 + 1,
            value: 0.0,
        };
        self.grow(nodes, left, left_rows, left_hist, depth + 1);
        self.grow(nodes, left + 1, right_rows, right_hist, depth + 1);
    }

    fn histogram(&self, rows: &[u32]) -> Histogram {
        let features = self.binned.edges.len();
        let one = |f: usize| {
            let mut h = vec![(0.0f64, 0.0f64); self.binned.edges[f].len() + 1];
            let column = self.binned.column(f);
            for &r in rows {
                let e = &mut h[usize::from(column[r as usize])];
                e.0 += f64::from(self.grad[r as usize]);
                e.1 += f64::from(self.hess[r as usize]);
            }
            h
        };
        let threads = self.threads.clamp(1, features.max(1));
        if threads == 1 || rows.len() < 10_000 {
            return (0..features).map(one).collect();
        }
        let mut out: Vec<Option<Vec<(f64, f64)>>> = vec![None; features];
        std::thread::scope(|s| {
            let chunks: Vec<_> = out.chunks_mut(features.div_ceil(threads)).enumerate().collect();
            let chunk_len = features.div_ceil(threads);
            for (c, chunk) in chunks {
                let one = &one;
                s.spawn(move || {
                    for (j, slot) in chunk.iter_mut().enumerate() {
                        *slot = Some(one(c * chunk_len + j));
                    }
                });
            }
        });
        out.into_iter().map(|h| h.unwrap_or_default()).collect()
    }

    fn best_split(&self, hist: &Histogram, rows: usize) -> Option<Split> {
        if rows < 2 * self.params.min_child_rows {
            return None;
        }
        let lambda = self.params.lambda;
        let score = |g: f64, h: f64| g * g / (h + lambda);
        let mut best: Option<Split> = None;
        for (f, bins) in hist.iter().enumerate().filter(|(f, _)| self.allowed[*f]) {
            let (g, h) = bins.iter().fold((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
            let parent = score(g, h);
            let (mut gl, mut hl) = (0.0, 0.0);
            for (b, &(bg, bh)) in bins.iter().enumerate().take(bins.len().saturating_sub(1)) {
                gl += bg;
                hl += bh;
                let (gr, hr) = (g - gl, h - hl);
                if hl < self.params.min_child_hessian || hr < self.params.min_child_hessian {
                    continue;
                }
                let gain = score(gl, hl) + score(gr, hr) - parent;
                if gain > 1e-9 && best.as_ref().is_none_or(|s| gain > s.gain) {
                    best = Some(Split { feature: f, bin: b, gain });
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A target that no single split separates (x0 XOR x1) is learned; the model survives a
    /// JSON round trip and scores the same.
    #[test]
    fn learns_xor_and_round_trips() {
        let mut rng = fastrand::Rng::with_seed(7);
        let n = 4000;
        let mut rows = Vec::new();
        let mut targets = Vec::new();
        for _ in 0..n {
            let (a, b, noise) = (rng.f32(), rng.f32(), rng.f32());
            rows.extend([a, b, noise]);
            targets.push(if (a > 0.5) != (b > 0.5) { 1.0 } else { 0.0 });
        }
        let weights = vec![1.0; n];
        let params = GbdtParams {
            trees: 60,
            max_depth: 3,
            learning_rate: 0.1,
            min_child_rows: 10,
            column_sample: 1.0,
            ..GbdtParams::default()
        };
        let model = Gbdt::train(&rows, 3, &targets, &weights, &params, 2);
        let correct = (0..n).filter(|&i| (model.logit(&rows[i * 3..i * 3 + 3]) > 0.0) == (targets[i] > 0.5)).count();
        assert!(correct as f64 > 0.97 * n as f64, "{correct} of {n}");
        let back: Gbdt = serde_json::from_str(&serde_json::to_string(&model).unwrap()).unwrap();
        assert_eq!(back.logit(&[0.9, 0.1, 0.5]), model.logit(&[0.9, 0.1, 0.5]));
        // The complete-tree layout gives the node lists' logits exactly, one row or many at a time.
        let many = model.logits(&rows[..(n - 3) * 3]);
        assert_eq!(many.len(), n - 3);
        for (i, logit) in many.iter().enumerate() {
            let row = &rows[i * 3..i * 3 + 3];
            assert_eq!(model.logit(row).to_bits(), model.logit_nodes(row).to_bits());
            assert_eq!(logit.to_bits(), model.logit_nodes(row).to_bits());
        }
        // The same seed gives the same model with one thread or two.
        assert_eq!(Gbdt::train(&rows, 3, &targets, &weights, &params, 1), model);
        // With no share of the columns, each tree splits on the one column drawn for it.
        let one = GbdtParams { column_sample: 0.0, ..params };
        let model = Gbdt::train(&rows, 3, &targets, &weights, &one, 2);
        let mut used = [false; 3];
        for tree in &model.trees {
            let splits: Vec<u16> = tree.iter().filter(|n| n.left != 0).map(|n| n.feature).collect();
            assert!(splits.windows(2).all(|w| w[0] == w[1]), "a tree split on several columns: {splits:?}");
            splits.iter().for_each(|&f| used[usize::from(f)] = true);
        }
        assert!(used[0] && used[1], "the two informative columns were drawn for some trees: {used:?}");
    }

    /// Bagging fits one ensemble per seed (seed, seed + 1, …) and its logit is their mean.
    #[test]
    fn bags_are_the_mean_of_one_ensemble_per_seed() {
        let mut rng = fastrand::Rng::with_seed(11);
        let n = 2000;
        let (mut rows, mut targets) = (Vec::new(), Vec::new());
        for _ in 0..n {
            let (a, b) = (rng.f32(), rng.f32());
            rows.extend([a, b]);
            // A noisy target, so that the sampling seed changes the fitted trees.
            targets.push(if a + 0.3 * b + 0.4 * rng.f32() > 0.8 { 1.0 } else { 0.0 });
        }
        let weights = vec![1.0; n];
        let params = GbdtParams { trees: 20, max_depth: 3, min_child_rows: 10, seed: 5, ..GbdtParams::default() };
        let bagged = Gbdt::train(&rows, 2, &targets, &weights, &GbdtParams { bags: 3, ..params.clone() }, 2);
        let single: Vec<Gbdt> = (5..8)
            .map(|seed| Gbdt::train(&rows, 2, &targets, &weights, &GbdtParams { seed, ..params.clone() }, 2))
            .collect();
        assert_eq!(bagged.trees.len(), 60);
        assert_ne!(single[0], single[1], "different seeds gave the same trees");
        for row in rows.chunks_exact(2).take(200) {
            let mean = single.iter().map(|g| g.logit(row)).sum::<f32>() / 3.0;
            assert!((bagged.logit(row) - mean).abs() < 1e-4, "{} against {mean}", bagged.logit(row));
        }
        // One bag is the plain ensemble.
        assert_eq!(Gbdt::train(&rows, 2, &targets, &weights, &GbdtParams { bags: 1, ..params }, 2), single[0]);
    }
}
