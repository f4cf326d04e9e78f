//! Host evidence: the last stage of the default extractor's block decision on a host with a
//! learned model. The host model's signals — inside, before or after the page's learned
//! GoldMiner stretch (Endrédy & Novák 2013, §III.A), kept by GoldMiner's lenient jusText there,
//! a StaDyNoT static key (Barua et al. 2014, §3.1), the article going on past the stretch's end,
//! in the container of the text the stretch keeps, the rules' own label, and outside the stretch
//! what the host's other pages did with the text at the block's place (the path profile,
//! [`crate::extract::path_profile`]: the share of the sample pages holding the place and the
//! share of those where the unlearned default kept it) — are columns of a second,
//! small boosted-tree model beside the combiner's own probability, instead of hard cuts after
//! it: learning is evidence, never a veto. The principal items are [`features`] (one row of
//! [`COLUMNS`] per block) and [`HostEvidenceModel`] (the trees, trained by
//! `webcorpus train host-evidence` with site-grouped folds on the shared sets' multi-page
//! hosts, [`crate::train::host_evidence`]).

use crate::extract::combiner::gbdt::Gbdt;
use crate::model::{Block, Label};
use std::ops::Range;

/// The columns of a host-evidence row, in order.
pub const COLUMNS: &[&str] = &[
    "combiner_logit",
    "combiner_gave_way",
    "unlearned_keeps",
    "rules_keep",
    "model_has_template",
    "page_matches_template",
    "inside_stretch",
    "before_stretch",
    "after_stretch",
    "stretch_keeps",
    "static_noise",
    "article_continues",
    "never_main",
    "log_words",
    "link_density",
    "heading",
    "stretch_distance",
    "path_kept_in_stretch",
    "path_share",
    "path_kept",
];

/// Number of columns of a row ([`COLUMNS`]).
pub const FEATURES: usize = COLUMNS.len();

/// What the host model says about one page, block by block, and the block model's answer it
/// is weighed against (every slice has one entry per block).
#[derive(Debug, Clone, Copy)]
pub struct HostSignals<'a> {
    /// The page's blocks.
    pub blocks: &'a [Block],
    /// The combiner's probability of main content per block.
    pub probabilities: &'a [f32],
    /// The combiner's answer gave way to the rules' labels for this page.
    pub gave_way: bool,
    /// The labels without the host model (the combiner's or the rules', headline kept).
    pub unlearned: &'a [Label],
    /// The labels of step 5's rules ([`crate::extract::pipeline::default_labels`]).
    pub rules: &'a [Label],
    /// The host's model has GoldMiner patterns.
    pub has_template: bool,
    /// The page's learned stretch (blocks), when one of the host's templates is on the page.
    pub stretch: Option<&'a Range<usize>>,
    /// GoldMiner's lenient jusText inside the stretch ([`crate::extract::goldminer::stretch_labels`]).
    pub stretch_keeps: Option<&'a [Label]>,
    /// In a static noise element of the host's model.
    pub static_noise: Option<&'a [bool]>,
    /// After the stretch where the article goes on ([`crate::extract::pipeline::article_continues`]).
    pub continues: Option<&'a [bool]>,
    /// In a comment section below an article or a consent box: never main text.
    pub never_main: &'a [bool],
    /// Per block, what the host's path profile says of the block's place
    /// ([`crate::extract::path_profile::PathProfile::lookup`]: the share of the sample pages
    /// holding it, the share of those where it was kept); `None` for a place it does not hold.
    pub paths: Option<&'a [Option<(f32, f32)>]>,
}

/// One row of [`COLUMNS`] per block, row-major (`blocks × FEATURES`).
pub fn features(s: &HostSignals<'_>) -> Vec<f32> {
    let n = s.blocks.len();
    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    let kept = |i: usize| s.unlearned[i].is_good();
    let is_noise = |i: usize| s.static_noise.is_some_and(|f| f[i]);
    let kept_paths: std::collections::HashSet<&str> = match s.stretch {
        Some(r) => r.clone().filter(|&i| kept(i)).map(|i| s.blocks[i].dom_path.as_str()).collect(),
        None => Default::default(),
    };
    let mut rows = Vec::with_capacity(n * FEATURES);
    for (i, b) in s.blocks.iter().enumerate() {
        let p = s.probabilities.get(i).copied().unwrap_or(0.5).clamp(1e-4, 1.0 - 1e-4);
        let (inside, before, after, distance) = match s.stretch {
            Some(r) if r.contains(&i) => (true, false, false, 0.0),
            Some(r) if i < r.start => (false, true, false, (r.start - i) as f32 / n.max(1) as f32),
            Some(r) => (false, false, true, (i + 1 - r.end) as f32 / n.max(1) as f32),
            None => (false, false, false, -1.0),
        };
        // Inside the stretch the stretch is the host's evidence; the path profile speaks for
        // the rest of the page.
        let path = s.paths.and_then(|p| p[i]).filter(|_| !inside);
        rows.extend_from_slice(&[
            (p / (1.0 - p)).ln(),
            flag(s.gave_way),
            flag(kept(i)),
            flag(s.rules[i].is_good()),
            flag(s.has_template),
            flag(s.stretch.is_some()),
            flag(inside),
            flag(before),
            flag(after),
            flag(inside && s.stretch_keeps.is_some_and(|g| g[i].is_good())),
            flag(is_noise(i)),
            flag(s.continues.is_some_and(|c| c[i])),
            flag(s.never_main[i]),
            (1.0 + b.words as f32).ln(),
            b.link_density() as f32,
            flag(b.heading),
            distance,
            flag(kept_paths.contains(b.dom_path.as_str())),
            path.map_or(0.0, |p| p.0),
            path.map_or(-1.0, |p| p.1),
        ]);
    }
    rows
}

/// True when the host model says something of the block of `row` (one row of [`features`]):
/// the page holds the learned stretch, the block is under one of the host's static keys, or
/// the host's sample gave no template (its static keys, then the host's only evidence, judge
/// the page as a whole: what remains once the template is out), or the block sits at a place
/// of the host's path profile (the host's other pages say what they did with text there). A
/// page of a host with a template that lacks it is unlike the sample's pages: its other blocks,
/// at places the profile does not hold, keep the unlearned answer, which the host-evidence
/// model would only second-guess. Only the blocks with
/// evidence are the model's to decide (step 5 of
/// [`default_labels`](crate::extract::pipeline::default_labels), and the held-out scores of
/// [`crate::train::host_evidence::train`]); it is trained on every row.
pub fn has_evidence(row: &[f32]) -> bool {
    let on = |column: usize| row.get(column).is_some_and(|v| *v > 0.5);
    !on(HAS_TEMPLATE) || on(MATCHES_TEMPLATE) || on(STATIC_NOISE) || row.get(PATH_SHARE).is_some_and(|v| *v > 0.0)
}

/// The columns [`has_evidence`] reads ([`COLUMNS`]).
const HAS_TEMPLATE: usize = 4;
const MATCHES_TEMPLATE: usize = 5;
const STATIC_NOISE: usize = 10;
const PATH_SHARE: usize = 18;

/// How far from its threshold the host-evidence model's probability must be for the model to
/// decide a block ([`decides`]). Chosen among 0, 0.1 and 0.2 by the site-grouped
/// cross-validation on the shared sets' multi-page hosts together with the gold-free check on
/// the five crawled sites of `../shared/sites` (`docs/figures.md`, "Learning"): below 0.2 the
/// model cut the main text of pages of two sites it never saw.
pub const MARGIN: f32 = 0.2;

/// The label that step 5 of the default takes from the host-evidence model for one block:
/// `Some(keep)` where the combiner is not firm about the block (`combiner_firm`,
/// [`crate::extract::pipeline::combiner_is_firm`]: a firm answer keeps its label whatever the
/// host model says) and the model's probability `p` is at least [`MARGIN`] from `threshold`;
/// `None` where the rules of step 5 decide.
pub fn decides(p: f32, threshold: f32, combiner_firm: bool) -> Option<bool> {
    (!combiner_firm && (p - threshold).abs() >= MARGIN).then_some(p >= threshold)
}

/// The host-evidence model file: the trees over [`COLUMNS`] and the threshold on the
/// probability of main content, with how it was trained.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HostEvidenceModel {
    /// `"webcorpus-host-evidence"` ([`MODEL_KIND`]).
    pub kind: String,
    /// Format version ([`MODEL_VERSION`]).
    pub version: u32,
    /// The column names ([`COLUMNS`] of the build that trained it).
    pub columns: Vec<String>,
    /// A block is main content when its probability is at least this.
    pub threshold: f32,
    /// Training parameters, sets, hosts and validation scores, for the record.
    pub provenance: serde_json::Value,
    /// The trees.
    pub gbdt: Gbdt,
}

/// `kind` of a host-evidence model file.
pub const MODEL_KIND: &str = "webcorpus-host-evidence";
/// Version of the host-evidence model format.
pub const MODEL_VERSION: u32 = 1;

/// Errors of loading a host-evidence model.
#[derive(Debug, thiserror::Error)]
pub enum HostEvidenceError {
    /// The file could not be read.
    #[error("cannot read host-evidence model {path}: {source}")]
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Not JSON of a host-evidence model.
    #[error("not a host-evidence model: {0}")]
    Format(#[from] serde_json::Error),
    /// Another kind, version or column list.
    #[error("host-evidence model does not fit this build: {0}")]
    Mismatch(String),
}

impl HostEvidenceModel {
    /// Parse and check a model file's text.
    ///
    /// # Errors
    /// [`HostEvidenceError::Format`] for bad JSON, [`HostEvidenceError::Mismatch`] for another
    /// kind, version or column list than this build computes.
    pub fn from_json(text: &str) -> Result<HostEvidenceModel, HostEvidenceError> {
        let model: HostEvidenceModel = serde_json::from_str(text)?;
        if model.kind != MODEL_KIND || model.version != MODEL_VERSION {
            return Err(HostEvidenceError::Mismatch(format!(
                "kind {:?} version {} (this build reads {MODEL_KIND:?} version {MODEL_VERSION})",
                model.kind, model.version
            )));
        }
        if model.columns.iter().map(String::as_str).ne(COLUMNS.iter().copied()) || model.gbdt.features != FEATURES {
            return Err(HostEvidenceError::Mismatch("its columns are not this build's: retrain it".into()));
        }
        Ok(model)
    }

    /// Read and check a model file.
    ///
    /// # Errors
    /// [`HostEvidenceError::Read`] when the file cannot be read, else as [`HostEvidenceModel::from_json`].
    pub fn load(path: &std::path::Path) -> Result<HostEvidenceModel, HostEvidenceError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| HostEvidenceError::Read { path: path.to_path_buf(), source })?;
        HostEvidenceModel::from_json(&text)
    }

    /// The probability of main content of each row of `rows` (`k × FEATURES`).
    pub fn probabilities(&self, rows: &[f32]) -> Vec<f32> {
        self.gbdt.logits(rows).into_iter().map(|z| 1.0 / (1.0 + (-z).exp())).collect()
    }
}

/// The bytes of `models/host-evidence.json`, the shipped model.
pub static SHIPPED_JSON: &str = include_str!("../../models/host-evidence.json");

/// The shipped model, parsed once.
///
/// # Errors
/// A message when the embedded model does not fit this build (a build problem: retrain it).
pub fn shipped() -> Result<&'static HostEvidenceModel, String> {
    static SHIPPED: std::sync::OnceLock<Result<HostEvidenceModel, String>> = std::sync::OnceLock::new();
    SHIPPED
        .get_or_init(|| HostEvidenceModel::from_json(SHIPPED_JSON).map_err(|e| e.to_string()))
        .as_ref()
        .map_err(Clone::clone)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::html::{segment, Document};

    fn column(name: &str) -> usize {
        COLUMNS.iter().position(|c| *c == name).expect(name)
    }

    /// The rows place each block against the stretch (before, inside, after, and how far),
    /// mark the static noise and the container of the text kept inside the stretch, and
    /// keep the rules' label; a page without a stretch has the "none" values.
    #[test]
    fn rows_place_each_block_against_the_stretch_and_the_static_noise() {
        let html = "<html><body><nav><p>Home News Sport</p></nav><article>\
            <p>The first paragraph of the story has words.</p><p>The second paragraph too.</p></article>\
            <section><p>A teaser below the story.</p></section><footer><p>Contact us here</p></footer></body></html>";
        let blocks = segment(&Document::parse(html));
        assert_eq!(blocks.len(), 5, "{blocks:?}");
        let n = blocks.len();
        let unlearned = [Label::Bad, Label::Good, Label::Good, Label::Good, Label::Bad];
        let rules = [Label::Bad, Label::Good, Label::Good, Label::Bad, Label::Bad];
        let static_noise = [true, false, false, false, true];
        let stretch = 1..3;
        let signals = HostSignals {
            blocks: &blocks,
            probabilities: &[0.1, 0.9, 0.99, 0.6, 0.02],
            gave_way: false,
            unlearned: &unlearned,
            rules: &rules,
            has_template: true,
            stretch: Some(&stretch),
            stretch_keeps: Some(&[Label::Bad, Label::Good, Label::Good, Label::Good, Label::Good]),
            static_noise: Some(&static_noise),
            continues: Some(&[false, false, false, false, false]),
            never_main: &[false; 5],
            paths: None,
        };
        let rows = features(&signals);
        assert_eq!(rows.len(), n * FEATURES);
        let at = |block: usize, name: &str| rows[block * FEATURES + column(name)];
        assert_eq!([0, 1, 2, 3, 4].map(|b| at(b, "before_stretch")), [1.0, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!([0, 1, 2, 3, 4].map(|b| at(b, "inside_stretch")), [0.0, 1.0, 1.0, 0.0, 0.0]);
        assert_eq!([0, 1, 2, 3, 4].map(|b| at(b, "after_stretch")), [0.0, 0.0, 0.0, 1.0, 1.0]);
        // GoldMiner's lenient jusText counts inside the stretch only.
        assert_eq!([0, 1, 2, 3, 4].map(|b| at(b, "stretch_keeps")), [0.0, 1.0, 1.0, 0.0, 0.0]);
        assert_eq!([0, 1, 2, 3, 4].map(|b| at(b, "stretch_distance")), [0.2, 0.0, 0.0, 0.2, 0.4]);
        assert_eq!([0, 1, 2, 3, 4].map(|b| at(b, "static_noise")), [1.0, 0.0, 0.0, 0.0, 1.0]);
        assert_eq!([0, 1, 2, 3, 4].map(|b| at(b, "rules_keep")), [0.0, 1.0, 1.0, 0.0, 0.0]);
        // The story's container holds the kept text of the stretch; the teaser's does not.
        assert_eq!([0, 1, 2, 3, 4].map(|b| at(b, "path_kept_in_stretch")), [0.0, 1.0, 1.0, 0.0, 0.0]);
        assert!((at(1, "combiner_logit") - (0.9f32 / 0.1).ln()).abs() < 1e-4);
        // Without a stretch: no position, and -1 for the distance.
        let plain = features(&HostSignals { stretch: None, stretch_keeps: None, ..signals });
        let at = |block: usize, name: &str| plain[block * FEATURES + column(name)];
        assert_eq!(
            (at(1, "inside_stretch"), at(1, "page_matches_template"), at(1, "stretch_distance")),
            (0.0, 0.0, -1.0)
        );
        assert_eq!(at(1, "path_kept_in_stretch"), 0.0);
    }

    /// A block has host evidence on a page with the learned stretch, under a static key, or on
    /// a host without a template; a page lacking its host's template gives its other blocks none.
    #[test]
    fn host_evidence_needs_the_stretch_a_static_key_a_profile_place_or_a_host_without_template() {
        let html = "<html><body><nav><p>Home News Sport</p></nav>\
            <article><p>The first paragraph of the story has words.</p></article></body></html>";
        let blocks = segment(&Document::parse(html));
        let labels = [Label::Bad, Label::Good];
        let stretch = 1..2;
        let signals = HostSignals {
            blocks: &blocks,
            probabilities: &[0.1, 0.7],
            gave_way: false,
            unlearned: &labels,
            rules: &labels,
            has_template: true,
            stretch: None,
            stretch_keeps: None,
            static_noise: Some(&[true, false]),
            continues: None,
            never_main: &[false; 2],
            paths: None,
        };
        let evidence = |s: &HostSignals<'_>| {
            let rows = features(s);
            [0, 1].map(|b| has_evidence(&rows[b * FEATURES..(b + 1) * FEATURES]))
        };
        assert_eq!(evidence(&signals), [true, false], "without the stretch: the static block only");
        let keeps = [Label::Bad, Label::Good];
        let with_stretch = HostSignals { stretch: Some(&stretch), stretch_keeps: Some(&keeps), ..signals };
        assert_eq!(evidence(&with_stretch), [true, true]);
        assert_eq!(evidence(&HostSignals { has_template: false, ..signals }), [true, true]);
        // A place of the host's path profile is evidence on a page without the stretch.
        let paths = [None, Some((0.9, 0.8))];
        assert_eq!(evidence(&HostSignals { paths: Some(&paths), ..signals }), [true, true]);
        // The columns it reads are where COLUMNS names them.
        assert_eq!(
            [HAS_TEMPLATE, MATCHES_TEMPLATE, STATIC_NOISE, PATH_SHARE],
            [
                column("model_has_template"),
                column("page_matches_template"),
                column("static_noise"),
                column("path_share")
            ]
        );
    }

    /// The model decides only a block the combiner is not firm about, and only where it is sure.
    #[test]
    fn the_model_decides_where_it_is_sure_and_the_combiner_is_not_firm() {
        assert_eq!(decides(0.5 + MARGIN + 0.01, 0.5, false), Some(true));
        assert_eq!(decides(0.5 - MARGIN - 0.01, 0.5, false), Some(false));
        assert_eq!(decides(0.5 + MARGIN / 2.0, 0.5, false), None);
        assert_eq!(decides(0.5 - MARGIN / 2.0, 0.5, false), None);
        assert_eq!(decides(0.99, 0.5, true), None);
        assert_eq!(decides(0.01, 0.5, true), None);
    }

    #[test]
    fn a_model_of_another_column_set_is_refused_and_a_bad_path_is_named() {
        assert!(shipped().is_ok(), "{:?}", shipped().err());
        let text = SHIPPED_JSON.replacen("\"columns\":[\"", "\"columns\":[\"renamed_", 1);
        assert!(matches!(HostEvidenceModel::from_json(&text), Err(HostEvidenceError::Mismatch(_))));
        let text = SHIPPED_JSON.replacen(MODEL_KIND, "another-kind", 1);
        assert!(matches!(HostEvidenceModel::from_json(&text), Err(HostEvidenceError::Mismatch(_))));
        let err = HostEvidenceModel::load(std::path::Path::new("/nonexistent/host-evidence.json")).unwrap_err();
        assert!(err.to_string().contains("/nonexistent/host-evidence.json"), "{err}");
    }

    /// The shipped model and its fold models come from one training run: the same sets and
    /// parameters, the shipped model fitted on every host's rows, fold `k`'s on all but the
    /// rows of fold `k`'s sites (so the folds' training rows sum to four times the shipped
    /// model's).
    #[test]
    fn the_shipped_model_is_trained_on_every_fold() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/combiner-cv");
        let p = &shipped().expect("shipped model").provenance;
        assert!(p["held_out_fold"].is_null());
        let all = p["training_blocks"].as_u64().expect("training_blocks");
        let mut folds_sum = 0;
        for k in 0..crate::eval::dataset::SITE_FOLDS {
            let fold = HostEvidenceModel::load(&dir.join(format!("host-evidence-fold-{k}.json"))).expect("fold loads");
            let q = &fold.provenance;
            assert_eq!(q["held_out_fold"].as_u64(), Some(k as u64));
            assert_eq!((&q["sets"], &q["params"], &q["hosts"]), (&p["sets"], &p["params"], &p["hosts"]));
            folds_sum += q["training_blocks"].as_u64().expect("training_blocks");
        }
        assert_eq!(folds_sum, (crate::eval::dataset::SITE_FOLDS as u64 - 1) * all);
    }
}
