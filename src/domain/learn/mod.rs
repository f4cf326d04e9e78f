//! Learning a host's [`DomainModel`] from its sample: the principal function is [`learn`], which
//! runs once per host when its [`HostLearning`](crate::domain::HostLearning) says so (the sample
//! is full, or the host ran dry with at least `min_sample` pages), in the crawl and in
//! `extract --per-site`, `extract --site`, `show --site` and `eval`.
//!
//! Steps: parse and segment every page once; pick one stoplist for the host from the text of
//! the sample; label every page with jusText; learn GoldMiner's patterns
//! ([`crate::extract::goldminer::learn()`]) and StaDyNoT's static keys
//! ([`crate::extract::stadynot::learn_static`]) from the same parsed pages.
//!
//! What a page gives whatever the model is, is computed once per parsed page and kept on its
//! [`Document`] ([`Document::derived`]): GoldMiner's token stream, StaDyNoT's key hashes and
//! the combiner's unlearned answer ([`crate::extract::combiner::memo`]). The model and the two
//! folds of its held-out check read them there, and so does the crawl's extraction of its
//! sample pages, which extracts the pages [`learn_documents`] learned from.

use crate::domain::{DomainModel, LearnParams, RejectedPart, SamplePage, MODEL_FORMAT_VERSION};
use crate::extract::combiner::memo::own_stoplist;
use crate::extract::goldminer::GoldMinerModel;
use crate::extract::goldminer::{self, LearnPage};
use crate::extract::model_rules::without_static_noise;
use crate::extract::path_profile::{path_keys, PathProfile};
use crate::extract::pipeline::{default_labels, kept_words, stretch_drop};
use crate::extract::stadynot;
use crate::extract::stadynot::StaticNoiseModel;
use crate::extract::stoplist::{host_stoplist, stoplist_for};
use crate::extract::ExtractContext;
use crate::extract::{justext, JusTextParams};
use crate::html::{segment, Document};
use crate::model::{Block, Label};

/// Most bytes of sample text given to stoplist (language) detection.
const LANGUAGE_SAMPLE_BYTES: usize = 200_000;

/// Learn the model of `host` from its sample `pages` (decoded HTML). `language` is the
/// configured stoplist language, or `None` to detect it from the sample's text. Never fails:
/// a sample without usable article pages gives a model without GoldMiner patterns
/// (`goldminer: None`) and possibly without static keys.
pub fn learn(
    host: &str,
    pages: &[SamplePage],
    language: Option<&str>,
    justext_params: &JusTextParams,
    params: &LearnParams,
) -> DomainModel {
    // 1. Parse and segment each page once (within the node budget).
    let (docs, blocks) = parse_sample(pages.iter().map(|p| p.html.as_str()), params.max_sample_nodes);
    learn_documents(host, &docs, &blocks, language, justext_params, params)
}

/// Parse and segment sample pages in order until their DOMs hold more than `max_nodes` nodes
/// together ([`LearnParams::max_sample_nodes`]); the first page is always parsed. Returns the
/// documents and their blocks (one list per document): a prefix of `pages`, whose length the
/// caller reads from the result.
pub fn parse_sample<'h>(
    pages: impl IntoIterator<Item = &'h str>,
    max_nodes: usize,
) -> (Vec<Document>, Vec<Vec<Block>>) {
    let mut docs = Vec::new();
    let mut blocks = Vec::new();
    let mut nodes = 0usize;
    for html in pages {
        if !docs.is_empty() && nodes >= max_nodes {
            break;
        }
        let doc = Document::parse(html);
        nodes += doc.html.tree.nodes().count();
        blocks.push(segment(&doc));
        docs.push(doc);
    }
    (docs, blocks)
}

/// [`learn`] from pages already parsed (`docs`) and segmented (`blocks`, one list per
/// document), so that the caller can extract the same pages with the model without parsing
/// them again. The model is checked on its own sample ([`validate`]) before it is returned.
pub fn learn_documents(
    host: &str,
    docs: &[Document],
    blocks: &[Vec<Block>],
    language: Option<&str>,
    justext_params: &JusTextParams,
    params: &LearnParams,
) -> DomainModel {
    let doc_refs: Vec<&Document> = docs.iter().collect();
    let block_refs: Vec<&[Block]> = blocks.iter().map(Vec::as_slice).collect();
    let mut model = learn_unchecked(host, &doc_refs, &block_refs, language, justext_params, params);
    let unlearned = unlearned_sample_labels(&model, docs, blocks, language, justext_params, params);
    if params.held_out_check {
        validate_with(&mut model, docs, blocks, &unlearned, justext_params, params);
    }
    let keys: Vec<Vec<u64>> = docs.iter().zip(blocks).map(|(d, b)| path_keys(d, b)).collect();
    model.paths = PathProfile::learn(
        blocks.iter().zip(&keys).zip(&unlearned).map(|((b, k), l)| (b.as_slice(), k.as_slice(), l.as_deref())),
    );
    model
}

/// The unlearned default's labels of every sample page (`None` where the page gave none), with
/// the stoplist the page's extraction starts from: its own language's under the `language`
/// setting, else the model's ([`crate::extract::stoplist::page_stoplist`]). The combiner's
/// part is kept on each [`Document`], so the extraction of the sample pages does not repeat it.
fn unlearned_sample_labels(
    model: &DomainModel,
    docs: &[Document],
    blocks: &[Vec<Block>],
    language: Option<&str>,
    justext_params: &JusTextParams,
    params: &LearnParams,
) -> Vec<Option<Vec<Label>>> {
    let host = host_stoplist(model.language.as_deref());
    // The default extractor's unlearned labels: the shipped combiner's (the rules if it is broken).
    let combiner = crate::extract::combiner::shipped().ok();
    docs.iter()
        .zip(blocks)
        .map(|(doc, blocks)| {
            let stoplist = own_stoplist(doc, blocks, language).unwrap_or_else(|| host.clone());
            let plain = ExtractContext { stoplist: &stoplist, justext: justext_params, model: None };
            default_labels(doc, blocks, &plain, &params.stadynot, combiner, None).ok().map(|l| l.labels)
        })
        .collect()
}

/// Steps 2–5 of [`learn`], without the check on held-out pages.
fn learn_unchecked(
    host: &str,
    docs: &[&Document],
    blocks: &[&[Block]],
    language: Option<&str>,
    justext_params: &JusTextParams,
    params: &LearnParams,
) -> DomainModel {
    // 2. One stoplist for the host, from the text of the sample's blocks.
    let mut sample = String::new();
    'outer: for page in blocks {
        for b in page.iter() {
            if sample.len() + b.text.len() > LANGUAGE_SAMPLE_BYTES {
                break 'outer;
            }
            sample.push_str(&b.text);
            sample.push('\n');
        }
    }
    let stoplist = stoplist_for(language, &sample);

    // 3. jusText labels for every page.
    let labels: Vec<Vec<Label>> = blocks.iter().map(|b| justext::classify(b, &stoplist, justext_params)).collect();

    // 4. GoldMiner begin/end patterns.
    let learn_pages: Vec<LearnPage<'_>> =
        docs.iter().zip(blocks).zip(&labels).map(|((doc, blocks), labels)| LearnPage { doc, blocks, labels }).collect();
    let goldminer = goldminer::learn(&learn_pages, &params.goldminer);

    // 5. StaDyNoT static noise keys.
    let stadynot = stadynot::learn_static(docs, &params.stadynot);

    DomainModel {
        format_version: MODEL_FORMAT_VERSION,
        host: host.to_string(),
        pages_sampled: docs.len(),
        language: stoplist.language.clone(),
        goldminer,
        stadynot,
        paths: PathProfile::default(),
        rejected: Vec::new(),
        generation: 0,
    }
}

/// Fewest sample pages for the held-out check: two folds of at least 3 pages.
pub const MIN_VALIDATION_PAGES: usize = 6;

/// A stretch harms a page when it leaves out more than this share of the words that the
/// unlearned default keeps there.
pub const TEMPLATE_MAX_DROP: f64 = 0.5;

/// A GoldMiner template fails the held-out check when, on more than this share of the
/// held-out pages it matches, its stretch leaves out more than half of the words that the
/// unlearned default keeps.
pub const TEMPLATE_MAX_HARMED_SHARE: f64 = 1.0 / 3.0;

/// The static keys are harmful on a held-out page when the elements they match hold together
/// more than this share of the words that the unlearned default keeps there (wrappers or
/// paragraphs of the main text, not a repeated box); then each key that holds any of those
/// words is harmful there. A key fails the check when it is harmful on more than
/// [`TEMPLATE_MAX_HARMED_SHARE`] of the held-out pages it matched (a site banner that is most
/// of the text of a few stub pages stays).
pub const KEY_MAX_KEPT_SHARE: f64 = 0.5;

/// Check `model` on its own sample, gold-free, and drop the parts that would hurt.
///
/// Two-fold cross-validation inside the sample: the pages are split into odd and even; a model
/// is learned on each half and applied to the other. Against the unlearned default's labels of a
/// held-out page (its "kept words"; with the stoplist the page's extraction starts from: its
/// own language's under the `language` setting, else the model's,
/// [`crate::extract::stoplist::page_stoplist`]), a GoldMiner template is harmful on the page when its
/// stretch leaves out more than [`TEMPLATE_MAX_DROP`] of the kept words, and the static keys when their
/// elements hold together more than [`KEY_MAX_KEPT_SHARE`] of them (then each key that holds
/// any kept word is harmful). A template of `model` that equals (same begin
/// and end patterns) a fold template harmful on more than [`TEMPLATE_MAX_HARMED_SHARE`] of the
/// held-out pages it matched is dropped; a template that no fold learned (the halves of a
/// small sample are often too small to learn one) is judged the same way on the sample pages
/// it matches, with the unlearned labels as the only reference. A static key harmful on more
/// than that share of its held-out pages is dropped too; each drop is recorded in
/// [`DomainModel::rejected`]. Samples under
/// [`MIN_VALIDATION_PAGES`] pages are not checked (the per-page guard of the default extractor
/// still is).
pub fn validate(
    model: &mut DomainModel,
    docs: &[Document],
    blocks: &[Vec<Block>],
    language: Option<&str>,
    justext_params: &JusTextParams,
    params: &LearnParams,
) {
    let unlearned = unlearned_sample_labels(model, docs, blocks, language, justext_params, params);
    validate_with(model, docs, blocks, &unlearned, justext_params, params);
}

/// [`validate`] with the unlearned default's labels of the sample pages already computed
/// ([`unlearned_sample_labels`]).
fn validate_with(
    model: &mut DomainModel,
    docs: &[Document],
    blocks: &[Vec<Block>],
    all_unlearned: &[Option<Vec<Label>>],
    justext_params: &JusTextParams,
    params: &LearnParams,
) {
    use std::collections::HashMap;
    if docs.len() < MIN_VALIDATION_PAGES || (model.goldminer.is_none() && model.stadynot.keys.is_empty()) {
        return;
    }
    // Per template (begin, end) and per key: held-out pages matched and harmed.
    let mut templates: HashMap<(Vec<String>, Vec<String>), (usize, usize)> = HashMap::new();
    let mut keys: HashMap<u64, (usize, usize)> = HashMap::new();
    // The unlearned default's labels of every sample page with kept words (each is held out once).
    let mut unlearned_labels: Vec<Option<Vec<Label>>> = vec![None; docs.len()];
    for fold in 0..2 {
        let (train, test): (Vec<usize>, Vec<usize>) = (0..docs.len()).partition(|i| i % 2 != fold);
        let fold_model = learn_subset(model, docs, blocks, &train, justext_params, params);
        let fold_templates: Vec<&GoldMinerModel> =
            fold_model.goldminer.iter().flat_map(|g| std::iter::once(g).chain(&g.alternatives)).collect();
        for &p in &test {
            let Some(unlearned) = &all_unlearned[p] else { continue };
            let kept = kept_words(&blocks[p], unlearned);
            if kept == 0 {
                continue;
            }
            unlearned_labels[p] = Some(unlearned.clone());
            if let Some(g) = &fold_model.goldminer {
                if let Some((t, range)) = goldminer::matching_template(&docs[p], &blocks[p], g) {
                    let harmed = stretch_drop(&blocks[p], unlearned, &range) > TEMPLATE_MAX_DROP;
                    let template = fold_templates[t];
                    let entry = templates.entry((template.begin.clone(), template.end.clone())).or_default();
                    entry.0 += 1;
                    entry.1 += usize::from(harmed);
                }
            }
            // Static keys: together they may take at most KEY_MAX_KEPT_SHARE of the kept
            // words; past that, every key that takes any kept word fails.
            let matches = stadynot::static_matches(&docs[p], &fold_model.stadynot);
            let kept_under = |nodes: &stadynot::NodeSet| -> usize {
                let covered: Vec<Label> = stadynot::noise_labels(&docs[p], &blocks[p], nodes)
                    .into_iter()
                    .zip(unlearned)
                    .map(|(noise, l)| if noise { *l } else { Label::Bad })
                    .collect();
                kept_words(&blocks[p], &covered)
            };
            let all: stadynot::NodeSet = matches.iter().map(|(n, _)| *n).collect();
            let page_harmed = kept_under(&all) as f64 > KEY_MAX_KEPT_SHARE * kept as f64;
            let mut seen = std::collections::HashSet::new();
            for (node, key) in matches {
                let harmed = page_harmed && kept_under(&std::iter::once(node).collect()) > 0;
                let entry = keys.entry(key).or_default();
                if seen.insert(key) {
                    entry.0 += 1;
                }
                entry.1 += usize::from(harmed);
            }
        }
    }
    // Drop the failing templates of the full model (assembled again below, after the static
    // keys are final).
    let kept_templates = model.goldminer.take().map(|g| {
        let mut kept_templates = Vec::new();
        let mut all = vec![GoldMinerModel { alternatives: Vec::new(), ..g.clone() }];
        all.extend(g.alternatives.iter().cloned());
        for t in all {
            // Held-out evidence when a fold learned the same template; otherwise (folds of a
            // small sample learn no template, or other ones) the template's own sample pages.
            let (evidence, (matched, harmed)) = match templates.get(&(t.begin.clone(), t.end.clone())) {
                Some(&counts) => ("held-out", counts),
                None => ("sample", sample_harm(&t, docs, blocks, &unlearned_labels)),
            };
            if harmed as f64 > TEMPLATE_MAX_HARMED_SHARE * matched as f64 {
                model.rejected.push(RejectedPart {
                    part: format!("goldminer template begin {} end {}", t.begin.join(" "), t.end.join(" ")),
                    reason: format!(
                        "on {harmed} of {matched} {evidence} pages it matched, the stretch left out more than half of \
                         the unlearned default's words"
                    ),
                });
            } else {
                kept_templates.push(t);
            }
        }
        (kept_templates, g.repeated)
    });
    // Drop the failing static keys.
    let fails = |k: &String| {
        keys.get(&StaticNoiseModel::key_hash(k))
            .is_some_and(|&(matched, harmed)| harmed as f64 > TEMPLATE_MAX_HARMED_SHARE * matched as f64)
    };
    if model.stadynot.keys.iter().any(fails) {
        let (bad, good): (Vec<String>, Vec<String>) =
            std::mem::take(&mut model.stadynot.keys).into_iter().partition(fails);
        for k in bad {
            let (matched, harmed) = keys[&StaticNoiseModel::key_hash(&k)];
            model.rejected.push(RejectedPart {
                reason: format!(
                    "on {harmed} of {matched} held-out pages it matched it took main text: the static keys held \
                     more than {:.0}% of the unlearned default's words",
                    100.0 * KEY_MAX_KEPT_SHARE
                ),
                part: format!("static key {k}"),
            });
        }
        model.stadynot = StaticNoiseModel::new(good, model.stadynot.pages);
    }
    // What each kept template's stretch left out of its sample pages, counted as the per-page
    // guard counts it: outside the static noise of the final keys.
    if let Some((mut templates, repeated)) = kept_templates {
        let outside_static: Vec<Option<Vec<Label>>> = unlearned_labels
            .iter()
            .zip(docs.iter().zip(blocks))
            .map(|(labels, (doc, blocks))| {
                let labels = labels.as_ref()?;
                let noise = stadynot::static_noise_nodes(doc, &model.stadynot);
                let flags = stadynot::noise_labels(doc, blocks, &noise);
                Some(without_static_noise(labels, Some(&flags)).into_owned())
            })
            .collect();
        record_sample_drops(&mut templates, docs, blocks, &outside_static);
        let mut rest = templates.into_iter();
        model.goldminer = rest.next().map(|mut first| {
            first.alternatives = rest.collect();
            if first.repeated.is_empty() {
                first.repeated = repeated;
            }
            first
        });
    }
}

/// Set each template's [`GoldMinerModel::sample_drop`]: the median share of the unlearned
/// default's words (`unlearned`, per sample page) that its stretch leaves out on the sample
/// pages where it is the matching template (`templates` in matching order: the first, then the
/// alternatives). A template that matches no sample page gets none.
fn record_sample_drops(
    templates: &mut [GoldMinerModel],
    docs: &[Document],
    blocks: &[Vec<Block>],
    unlearned: &[Option<Vec<Label>>],
) {
    let Some((first, rest)) = templates.split_first() else {
        return;
    };
    let matcher = GoldMinerModel { alternatives: rest.to_vec(), ..first.clone() };
    let mut drops: Vec<Vec<f64>> = vec![Vec::new(); templates.len()];
    for ((doc, blocks), labels) in docs.iter().zip(blocks).zip(unlearned) {
        let Some(labels) = labels else { continue };
        let Some((t, range)) = goldminer::matching_template(doc, blocks, &matcher) else { continue };
        drops[t].push(stretch_drop(blocks, labels, &range));
    }
    for (t, mut d) in templates.iter_mut().zip(drops) {
        d.sort_by(f64::total_cmp);
        t.sample_drop = (!d.is_empty()).then(|| d[d.len() / 2]);
    }
}

/// Sample pages that the single `template` (its alternatives ignored) matches, and those of
/// them where its stretch leaves out more than [`TEMPLATE_MAX_DROP`] of the words that the
/// unlearned labels (`unlearned`, `None` for a page without kept words) keep.
fn sample_harm(
    template: &GoldMinerModel,
    docs: &[Document],
    blocks: &[Vec<Block>],
    unlearned: &[Option<Vec<Label>>],
) -> (usize, usize) {
    let single = GoldMinerModel { alternatives: Vec::new(), ..template.clone() };
    let (mut matched, mut harmed) = (0, 0);
    for ((doc, blocks), labels) in docs.iter().zip(blocks).zip(unlearned) {
        let Some(labels) = labels else { continue };
        let Some((_, range)) = goldminer::matching_template(doc, blocks, &single) else { continue };
        matched += 1;
        harmed += usize::from(stretch_drop(blocks, labels, &range) > TEMPLATE_MAX_DROP);
    }
    (matched, harmed)
}

/// The unchecked model of the pages `subset` of the sample (a fold of [`validate`]), in the
/// full model's language.
fn learn_subset(
    model: &DomainModel,
    docs: &[Document],
    blocks: &[Vec<Block>],
    subset: &[usize],
    justext_params: &JusTextParams,
    params: &LearnParams,
) -> DomainModel {
    let sub_docs: Vec<&Document> = subset.iter().map(|&i| &docs[i]).collect();
    let sub_blocks: Vec<&[Block]> = subset.iter().map(|&i| blocks[i].as_slice()).collect();
    learn_unchecked(&model.host, &sub_docs, &sub_blocks, model.language.as_deref(), justext_params, params)
}

#[cfg(test)]
mod tests;
