//! The learned combiner: a block classifier over every cheap extractor's label, the page's
//! markup hints and each block's text statistics ([`features`]), trained on the gold of the
//! shared sets with site-grouped splits. The principal function is [`inputs`]: the unlearned
//! votes, the rule-based labels and the feature rows of one page.

pub mod features;
pub mod memo;

use crate::extract::content_root;
use crate::extract::justext::{self, JusTextParams};
use crate::extract::stadynot::{StaDyNoT, StaDyNoTParams};
use crate::extract::stoplist::Stoplist;
use crate::extract::trace::{BlockDecision, Stage};
use crate::extract::{ExtractContext, ExtractError, Extractor};
use crate::html::Document;
use crate::model::{Block, Label};
use features::{block_features, Votes};

/// One page's unlearned labels and combiner features.
#[derive(Debug, Clone)]
pub struct CombinerInputs {
    /// jusText after its context pass.
    pub justext: Vec<Label>,
    /// Boilerpipe ArticleExtractor.
    pub boilerpipe: Vec<Label>,
    /// StaDyNoT without a site model.
    pub stadynot: Vec<Label>,
    /// The rule-based default ([`content_root::refine`] over the three above).
    pub refined: Vec<Label>,
    /// `blocks × features::FEATURES`, row-major.
    pub features: Vec<f32>,
    /// Per block: in a comment section below an article ([`content_root::ContentRoot::in_comments`]).
    pub comments: Vec<bool>,
    /// Per block: in a cookie-consent box ([`content_root::ContentRoot::in_consent`]).
    pub consent: Vec<bool>,
    /// The page's teaser lists ([`content_root::ContentRoot::teaser_lists`]): their cards are
    /// dropped when [`content_root::teasers::TeaserLists::beside_article`] holds for the
    /// combiner's labels.
    pub teasers: content_root::teasers::TeaserLists,
    /// The post container the page names ([`content_root::post::PostContainer`]): the
    /// combiner's kept blocks outside it go.
    pub post: content_root::post::PostContainer,
    /// Per block: its word count ([`Block::words`]).
    pub words: Vec<usize>,
    /// Per block: the decision of the rules behind `refined`
    /// ([`content_root::ContentRoot::decisions`]).
    pub rules: Vec<BlockDecision>,
}

/// Run the cheap extractors on a page and compute its feature rows.
///
/// # Errors
/// [`ExtractError`] from an extractor (none of these fails on a parsed page today).
pub fn inputs(
    doc: &Document,
    blocks: &[Block],
    stoplist: &Stoplist,
    justext_params: &JusTextParams,
    stadynot_params: &StaDyNoTParams,
) -> Result<CombinerInputs, ExtractError> {
    let ctx = ExtractContext { stoplist, justext: justext_params, model: None };
    let justext_cf = justext::classify_context_free(blocks, stoplist, justext_params);
    let justext = justext::revise(blocks, &justext_cf, justext_params);
    let boilerpipe = crate::extract::boilerpipe::article_labels(doc, blocks);
    let stadynot = StaDyNoT::new(stadynot_params.clone()).classify(doc, blocks, &ctx)?;
    let bte = crate::extract::bte::Bte.classify(doc, blocks, &ctx)?;
    let votes: Vec<u8> = (0..blocks.len())
        .map(|i| [&justext, &boilerpipe, &stadynot].iter().filter(|l| l[i].is_good()).count() as u8)
        .collect();
    let (refined, root) = content_root::refine_with_root(doc, blocks, &votes);
    let v = Votes {
        justext: &justext,
        justext_cf: &justext_cf,
        boilerpipe: &boilerpipe,
        stadynot: &stadynot,
        bte: &bte,
        refined: &refined,
    };
    let features = block_features(doc, blocks, stoplist, &v, &root);
    let comments = (0..blocks.len()).map(|i| root.in_comments(i)).collect();
    let consent = (0..blocks.len()).map(|i| root.in_consent(i)).collect();
    let teasers = root.teaser_lists().clone();
    let post = root.post_container().clone();
    let words = blocks.iter().map(|b| b.words).collect();
    let rules = root.decisions(blocks, &votes, &refined);
    Ok(CombinerInputs {
        justext,
        boilerpipe,
        stadynot,
        refined,
        features,
        comments,
        consent,
        teasers,
        post,
        words,
        rules,
    })
}

/// The combiner's model file: the boosted trees, the columns they read and the threshold on
/// the probability of main content, with how it was trained.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CombinerModel {
    /// `"webcorpus-combiner"`.
    pub kind: String,
    /// Format version ([`MODEL_VERSION`]).
    pub version: u32,
    /// The column names ([`features::column_names`] of the build that trained it).
    pub columns: Vec<String>,
    /// A block is main content when its probability is at least this.
    pub threshold: f32,
    /// Training parameters, sets and validation scores, for the record.
    pub provenance: serde_json::Value,
    /// The trees.
    pub gbdt: gbdt::Gbdt,
}

/// `kind` of a combiner model file.
pub const MODEL_KIND: &str = "webcorpus-combiner";
/// Version of the combiner model format.
pub const MODEL_VERSION: u32 = 1;

/// Errors of loading a combiner model.
#[derive(Debug, thiserror::Error)]
pub enum CombinerError {
    /// The file could not be read.
    #[error("cannot read combiner model {path}: {source}")]
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Not JSON of a combiner model.
    #[error("not a combiner model: {0}")]
    Format(#[from] serde_json::Error),
    /// Another kind, version or feature set.
    #[error("combiner model does not fit this build: {0}")]
    Mismatch(String),
}

impl CombinerModel {
    /// Parse and check a model file's text.
    ///
    /// # Errors
    /// [`CombinerError::Format`] for bad JSON, [`CombinerError::Mismatch`] for another kind,
    /// version or column list than this build computes.
    pub fn from_json(text: &str) -> Result<CombinerModel, CombinerError> {
        let model: CombinerModel = serde_json::from_str(text)?;
        if model.kind != MODEL_KIND || model.version != MODEL_VERSION {
            return Err(CombinerError::Mismatch(format!(
                "{} version {}, this build reads {MODEL_KIND} version {MODEL_VERSION}",
                model.kind, model.version
            )));
        }
        if model.columns != features::column_names() || model.gbdt.features != features::FEATURES {
            return Err(CombinerError::Mismatch("its feature columns differ from this build's".into()));
        }
        Ok(model)
    }

    /// Load and check a model file.
    ///
    /// # Errors
    /// As [`CombinerModel::from_json`], and [`CombinerError::Read`].
    pub fn load(path: &std::path::Path) -> Result<CombinerModel, CombinerError> {
        let text =
            std::fs::read_to_string(path).map_err(|source| CombinerError::Read { path: path.to_path_buf(), source })?;
        CombinerModel::from_json(&text)
    }

    /// Probability of main content per block of `inputs`.
    pub fn probabilities(&self, inputs: &CombinerInputs) -> Vec<f32> {
        self.gbdt.logits(&inputs.features).into_iter().map(|logit| 1.0 / (1.0 + (-logit).exp())).collect()
    }

    /// The combiner's labels for a page: blocks at or above the threshold are Good, except
    /// comments below an article, which are never main text (the training sets disagree:
    /// CleanEval's annotators kept them, the others did not), and cookie-consent boxes. When
    /// the answer gives way ([`CombinerModel::gives_way`]), the rule-based labels stand.
    pub fn labels(&self, inputs: &CombinerInputs) -> Vec<Label> {
        self.answer(inputs).labels
    }

    /// Whether the combiner's answer for the page gives way to the rule-based labels: it keeps
    /// less than [`MIN_SHARE_OF_RULES`] of the words the rules keep, and those are at least
    /// [`MIN_RULES_WORDS`] words, or it keeps nothing and they keep something. A learned model
    /// never empties or all but empties a page the rules give text (a product grid or a shop
    /// page whose every block the model doubts).
    pub fn gives_way(&self, inputs: &CombinerInputs) -> bool {
        self.answer(inputs).gave_way
    }

    /// The whole answer for a page, the trees evaluated once: [`CombinerModel::labels`], the
    /// probabilities they came from and whether they gave way.
    pub fn answer(&self, inputs: &CombinerInputs) -> CombinerAnswer {
        let probabilities = self.probabilities(inputs);
        let mut own: Vec<Label> = probabilities
            .iter()
            .enumerate()
            .map(|(i, &p)| {
                if p >= self.threshold && !inputs.comments[i] && !inputs.consent[i] {
                    Label::Good
                } else {
                    Label::Bad
                }
            })
            .collect();
        let teasers = inputs.teasers.beside_article(&inputs.words, &own);
        for (label, _) in own.iter_mut().zip(&teasers).filter(|(_, &t)| t) {
            *label = Label::Bad;
        }
        let post = inputs.post.apply(&mut own);
        let gave_way = gives_way(inputs, &own);
        let decisions = (0..own.len())
            .map(|i| {
                let decision = if gave_way {
                    inputs.rules[i]
                } else if inputs.comments[i] {
                    BlockDecision::new(false, Stage::CommentSection)
                } else if inputs.consent[i] {
                    BlockDecision::new(false, Stage::ConsentBox)
                } else if teasers[i] {
                    BlockDecision::new(false, Stage::TeaserList)
                } else if post[i] {
                    BlockDecision::new(false, Stage::OutsidePost)
                } else {
                    BlockDecision::new(own[i].is_good(), Stage::Combiner)
                };
                BlockDecision { probability: Some(probabilities[i]), ..decision }
            })
            .collect();
        let labels = if gave_way { inputs.refined.clone() } else { own };
        CombinerAnswer {
            labels,
            probabilities,
            threshold: self.threshold,
            gave_way,
            comments: inputs.comments.clone(),
            decisions,
        }
    }
}

/// The combiner's answer for one page ([`CombinerModel::answer`]), one entry per block.
#[derive(Debug, Clone, PartialEq)]
pub struct CombinerAnswer {
    /// The labels ([`CombinerModel::labels`]).
    pub labels: Vec<Label>,
    /// Probability of main content.
    pub probabilities: Vec<f32>,
    /// The model's threshold on the probabilities.
    pub threshold: f32,
    /// The answer gave way to the rule-based labels ([`CombinerModel::gives_way`]): no block
    /// was dropped for its probability.
    pub gave_way: bool,
    /// In a comment section below an article: never kept, whatever the probability.
    pub comments: Vec<bool>,
    /// Per block: the stage that decided its label, with its probability (the rules'
    /// decisions where the answer gave way).
    pub decisions: Vec<BlockDecision>,
}

/// [`CombinerModel::gives_way`] for the combiner's own labels `own`.
fn gives_way(inputs: &CombinerInputs, own: &[Label]) -> bool {
    let kept_words =
        |ls: &[Label]| -> usize { ls.iter().zip(&inputs.words).filter(|(l, _)| l.is_good()).map(|(_, &w)| w).sum() };
    let (kept, rules) = (kept_words(own), kept_words(&inputs.refined));
    let empty = !own.iter().any(|l| l.is_good()) && inputs.refined.iter().any(|l| l.is_good());
    empty || (rules >= MIN_RULES_WORDS && (kept as f32) < MIN_SHARE_OF_RULES * rules as f32)
}

/// Below this share of the rule-based labels' words, the combiner's answer for a page gives way
/// to them ([`CombinerModel::labels`]).
pub const MIN_SHARE_OF_RULES: f32 = 0.25;

/// The rule-based labels must keep at least this many words for [`MIN_SHARE_OF_RULES`] to
/// apply (below it, only an empty answer gives way).
pub const MIN_RULES_WORDS: usize = 50;

/// The bytes of `models/combiner.json`, the shipped model.
pub static SHIPPED_JSON: &str = include_str!("../../../models/combiner.json");

/// The shipped model, parsed once.
///
/// # Errors
/// A message when the embedded model does not fit this build (a build problem: retrain it).
pub fn shipped() -> Result<&'static CombinerModel, String> {
    static SHIPPED: std::sync::OnceLock<Result<CombinerModel, String>> = std::sync::OnceLock::new();
    SHIPPED
        .get_or_init(|| CombinerModel::from_json(SHIPPED_JSON).map_err(|e| e.to_string()))
        .as_ref()
        .map_err(Clone::clone)
}

pub mod gbdt;

#[cfg(test)]
mod tests {
    use super::*;

    /// A model whose every block scores `logit` (one leaf).
    fn constant(logit: f32) -> CombinerModel {
        let mut model = shipped().expect("shipped model").clone();
        model.gbdt = gbdt::Gbdt::new(features::FEATURES, logit, Vec::new());
        model
    }

    fn inputs_of(refined: Vec<Label>, comments: Vec<bool>, consent: Vec<bool>) -> CombinerInputs {
        let n = refined.len();
        let words = vec![10; n];
        let rules = refined.iter().map(|l| BlockDecision::new(l.is_good(), Stage::Vote)).collect();
        CombinerInputs {
            justext: vec![Label::Bad; n],
            boilerpipe: vec![Label::Bad; n],
            stadynot: vec![Label::Bad; n],
            refined,
            features: vec![0.0; n * features::FEATURES],
            teasers: Default::default(),
            post: Default::default(),
            comments,
            consent,
            words,
            rules,
        }
    }

    #[test]
    fn comments_and_consent_boxes_are_never_kept_and_an_empty_answer_gives_way() {
        let keep_all = constant(3.0);
        let inp = inputs_of(
            vec![Label::Bad, Label::Good, Label::Bad, Label::Good],
            vec![false, false, true, false],
            vec![false, false, false, true],
        );
        assert_eq!(keep_all.labels(&inp), vec![Label::Good, Label::Good, Label::Bad, Label::Bad]);
        let stages: Vec<(bool, Stage)> = keep_all.answer(&inp).decisions.iter().map(|d| (d.kept, d.stage)).collect();
        assert_eq!(
            stages,
            [
                (true, Stage::Combiner),
                (true, Stage::Combiner),
                (false, Stage::CommentSection),
                (false, Stage::ConsentBox)
            ]
        );
        // A combiner that keeps nothing leaves the rule-based labels, and their decisions.
        let doubting = constant(-3.0).answer(&inp);
        assert_eq!(doubting.labels, inp.refined);
        assert!(doubting.decisions.iter().all(|d| d.stage == Stage::Vote && d.probability.is_some_and(|p| p < 0.5)));
    }

    #[test]
    fn an_answer_with_a_fraction_of_the_rules_words_gives_way() {
        // The rules keep blocks 1-3 (300 words); a combiner that keeps only block 0 (20 words,
        // under a quarter) gives way, one that keeps block 0 at 100 words stands.
        let mut inp =
            inputs_of(vec![Label::Bad, Label::Good, Label::Good, Label::Good], vec![false; 4], vec![false; 4]);
        inp.words = vec![20, 100, 100, 100];
        let col = features::FEATURE_NAMES.iter().position(|n| *n == "justext_good").expect("column");
        // One stump: a block whose justext_good column is 1 scores +3, every other -3.
        let node = |feature: usize, left: u32, right: u32, value: f32| gbdt::Node {
            feature: feature as u16,
            threshold: 0.5,
            left,
            right,
            value,
        };
        let mut only_first = constant(0.0);
        let stump = vec![node(col, 1, 2, 0.0), node(0, 0, 0, -3.0), node(0, 0, 0, 3.0)];
        only_first.gbdt = gbdt::Gbdt::new(features::FEATURES, 0.0, vec![stump]);
        inp.features[col] = 1.0;
        assert_eq!(only_first.labels(&inp), inp.refined);
        let answer = only_first.answer(&inp);
        assert!(answer.gave_way && answer.labels == inp.refined);
        assert_eq!(answer.probabilities, only_first.probabilities(&inp));
        inp.words[0] = 100;
        assert_eq!(only_first.labels(&inp), vec![Label::Good, Label::Bad, Label::Bad, Label::Bad]);
        assert!(!only_first.answer(&inp).gave_way);
        // Below MIN_RULES_WORDS the rules' words do not count: only an empty answer gives way.
        inp.words = vec![2, 10, 10, 10];
        assert_eq!(only_first.labels(&inp), vec![Label::Good, Label::Bad, Label::Bad, Label::Bad]);
    }

    /// The shipped trees give every block of real pages the logit of the node-list walk to the
    /// bit (the quantised complete-tree layout of [`gbdt::Gbdt::logits`]): the first
    /// [`PAGES_PER_SET`] pages of each shared evaluation set, rows of 8 and the rest alone.
    #[test]
    fn the_shipped_trees_score_every_block_of_real_pages_as_the_node_walk() {
        const PAGES_PER_SET: usize = 20;
        let Some(data) = crate::testdata::shared_path("data") else { return };
        let model = shipped().expect("shipped model");
        let stoplist = crate::extract::stoplist::stoplist_for(Some("English"), "");
        let (justext, stadynot) = (JusTextParams::default(), StaDyNoTParams::default());
        let mut rows = 0;
        for set in ["cleaneval", "cleanportaleval", "l3s-gn1", "modern2026-dev", "trafilatura-eval"] {
            let mut files: Vec<_> = std::fs::read_dir(data.join(set).join("html"))
                .expect("the set's pages")
                .flatten()
                .map(|e| e.path())
                .collect();
            files.sort();
            for path in files.iter().take(PAGES_PER_SET) {
                let page = crate::extract::files::read_page(path).expect("the page reads");
                let doc = Document::parse(&page.decoded.text);
                let blocks = crate::html::segment(&doc);
                let inp = inputs(&doc, &blocks, &stoplist, &justext, &stadynot).expect("the page's rows");
                let logits = model.gbdt.logits(&inp.features);
                assert_eq!(logits.len(), blocks.len());
                for (i, row) in inp.features.chunks_exact(features::FEATURES).enumerate() {
                    let walked = model.gbdt.logit_nodes(row);
                    assert_eq!(
                        logits[i].to_bits(),
                        walked.to_bits(),
                        "{} block {i}: {} against {walked}",
                        path.display(),
                        logits[i]
                    );
                }
                rows += blocks.len();
            }
        }
        assert!(rows > 10_000, "only {rows} blocks");
    }

    #[test]
    fn a_model_of_another_feature_set_is_refused() {
        let text = SHIPPED_JSON.replacen("\"columns\":[\"", "\"columns\":[\"renamed_", 1);
        assert!(matches!(CombinerModel::from_json(&text), Err(CombinerError::Mismatch(_))));
        let text = SHIPPED_JSON.replacen(MODEL_KIND, "another-kind", 1);
        assert!(matches!(CombinerModel::from_json(&text), Err(CombinerError::Mismatch(_))));
        let err = CombinerModel::load(std::path::Path::new("/nonexistent/combiner.json")).unwrap_err();
        assert!(err.to_string().contains("/nonexistent/combiner.json"), "{err}");
    }
}
