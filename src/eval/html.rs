//! `webcorpus eval --html FILE`: the evaluation as one self-contained page (inline CSS and
//! hand-written SVG, no scripts). Per set ([`set_section`]): every row's score in the set's own
//! metric (word F1, or snippet F1 for snippet-only sets) and its shingle F1 as bar charts with
//! bootstrap error bars (±1.96 standard errors); the first row's scores per site and per page
//! type; and its ten worst pages, each as a `show` view of its text blocks (what decided each
//! one: the stage of the pipeline's decision trace and its score, [`crate::show::explain_page`],
//! without a model) beside the gold text.

use super::dataset::{Dataset, GoldPage};
use super::report::{SetReport, Summary};
use super::run::PageResult;
use crate::crawl::status_page::escape;
use crate::extract::pipeline::ExtractSettings;
use crate::extract::ExtractorKind;
use std::fmt::Write as _;

/// Pages listed as the worst of a set.
pub const WORST_PAGES: usize = 10;

/// The whole page around the sets' sections.
pub fn page(sections: &[String]) -> String {
    let mut out =
        String::from("<!doctype html><html><head><meta charset=\"utf-8\"><title>webcorpus eval</title><style>");
    out.push_str(
        "body{font:14px/1.45 system-ui,sans-serif;margin:1.5em;max-width:80em}h2{margin-top:2em}\
         table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}\
         td:first-child,th:first-child{text-align:left}.pair{display:grid;grid-template-columns:1fr 1fr;gap:1em}\
         .gold{white-space:pre-wrap;background:#f7f7f7;padding:6px;font-size:13px}\
         .b{margin:2px 0;padding:2px 6px;border-left:5px solid #999;font-size:13px;white-space:pre-wrap}\
         .b .why{font-size:11px;color:#444;margin-left:6px}",
    );
    out.push_str(crate::show::render::FATE_STYLE);
    out.push_str("</style></head><body><h1>webcorpus eval</h1><p>Bars: the score; whiskers: ±1.96 bootstrap standard errors. Worst pages: the first row's, with each text block marked by what decided it (green: kept) beside the gold text.</p>");
    for s in sections {
        out.push_str(s);
    }
    out.push_str("</body></html>\n");
    out
}

/// A horizontal bar chart of `(label, value, standard error)` in 0..1, as SVG.
pub fn bar_chart(title: &str, bars: &[(String, f64, Option<f64>)]) -> String {
    let (label_w, plot_w, row_h) = (260.0, 520.0, 20.0);
    let height = 30.0 + row_h * bars.len() as f64;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"12\">\
         <text x=\"0\" y=\"14\" font-weight=\"bold\">{}</text>",
        label_w + plot_w + 60.0,
        escape(title)
    );
    for tick in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let x = label_w + tick * plot_w;
        let _ = write!(
            svg,
            "<line x1=\"{x}\" y1=\"20\" x2=\"{x}\" y2=\"{height}\" stroke=\"#ddd\"/><text x=\"{x}\" y=\"{}\" fill=\"#888\" font-size=\"10\">{tick}</text>",
            height
        );
    }
    for (i, (label, value, se)) in bars.iter().enumerate() {
        let y = 24.0 + row_h * i as f64;
        let w = value.clamp(0.0, 1.0) * plot_w;
        let colour = if label.contains("(external)") { "#9e9e9e" } else { "#2e7d32" };
        let _ = write!(
            svg,
            "<text x=\"0\" y=\"{}\">{}</text><rect x=\"{label_w}\" y=\"{y}\" width=\"{w:.1}\" height=\"{}\" fill=\"{colour}\"/>",
            y + 12.0,
            escape(label),
            row_h - 6.0
        );
        if let Some(se) = se.filter(|s| *s > 0.0) {
            let (lo, hi) = ((value - 1.96 * se).max(0.0), (value + 1.96 * se).min(1.0));
            let (x1, x2, cy) = (label_w + lo * plot_w, label_w + hi * plot_w, y + (row_h - 6.0) / 2.0);
            let _ = write!(
                svg,
                "<line x1=\"{x1:.1}\" y1=\"{cy}\" x2=\"{x2:.1}\" y2=\"{cy}\" stroke=\"#000\"/>\
                 <line x1=\"{x1:.1}\" y1=\"{}\" x2=\"{x1:.1}\" y2=\"{}\" stroke=\"#000\"/>\
                 <line x1=\"{x2:.1}\" y1=\"{}\" x2=\"{x2:.1}\" y2=\"{}\" stroke=\"#000\"/>",
                cy - 4.0,
                cy + 4.0,
                cy - 4.0,
                cy + 4.0
            );
        }
        let _ = write!(svg, "<text x=\"{:.1}\" y=\"{}\">{value:.3}</text>", label_w + plot_w + 6.0, y + 12.0);
    }
    svg.push_str("</svg>");
    svg
}

/// The set's own score of a summary: word F1 (with its standard error) where the set has gold
/// text, else snippet F1.
fn own_score(report: &SetReport, s: &Summary) -> (f64, Option<f64>) {
    match report.has_text {
        true => (s.scores.word_f1, Some(s.scores.word_f1_se)),
        false => (s.scores.snippet_f1, None),
    }
}

/// One page's own score (as [`own_score`]); `None` for a page whose gold text is empty (no
/// word measures, [`PageResult::word`]), which is therefore never among the worst pages.
fn page_score(report: &SetReport, p: &PageResult) -> Option<f64> {
    match report.has_text {
        true => p.word.map(|w| w.f1()),
        false => p.snippets.map(|s| s.f1()),
    }
}

/// The section of one set: charts, breakdowns, worst pages (`set` gives their HTML and gold).
pub fn set_section(report: &SetReport, set: &Dataset, settings: &ExtractSettings) -> String {
    let metric = if report.has_text { "word F1" } else { "snippet F1" };
    let mut out =
        format!("<h2 id=\"{0}\">{0}</h2><p>{1} pages, {2} sites</p>", escape(&report.name), report.pages, report.sites);
    if let Some(caveat) = &report.caveat {
        let _ = write!(out, "<p class=\"caveat\"><b>Not held out:</b> {}</p>", escape(caveat));
    }
    let bars: Vec<_> = report
        .rows
        .iter()
        .map(|r| {
            let (v, se) = own_score(report, &r.summary);
            (r.label.clone(), v, se)
        })
        .collect();
    out.push_str(&bar_chart(&format!("{} — {metric}", report.name), &bars));
    if report.has_text {
        let bars: Vec<_> = report
            .rows
            .iter()
            .map(|r| (r.label.clone(), r.summary.scores.shingle_f1, Some(r.summary.scores.shingle_f1_se)))
            .collect();
        out.push_str("<br>");
        out.push_str(&bar_chart(&format!("{} — shingle F1", report.name), &bars));
    }
    let Some(first) = report.rows.first() else { return out };
    // Per site (sites with at least min_sample pages; the rest pooled).
    let _ = write!(
        out,
        "<h3>{}: per site</h3><table><tr><th>site</th><th>pages</th><th>{metric}</th></tr>",
        escape(&first.label)
    );
    for site in first.sites.iter().take(40) {
        let (v, _) = own_score(report, &site.summary);
        let _ = write!(out, "<tr><td>{}</td><td>{}</td><td>{v:.3}</td></tr>", escape(&site.site), site.summary.pages);
    }
    out.push_str("</table>");
    // Per page type, where the set has them.
    let types: std::collections::HashMap<&str, &str> =
        set.pages.iter().filter_map(|g| g.page_type.as_deref().map(|t| (g.id.as_str(), t))).collect();
    if !types.is_empty() {
        let mut by_type: std::collections::BTreeMap<&str, Vec<&PageResult>> = Default::default();
        for p in &first.pages {
            if let Some(t) = types.get(p.id.as_str()) {
                by_type.entry(t).or_default().push(p);
            }
        }
        let _ = write!(
            out,
            "<h3>{}: per page type</h3><table><tr><th>type</th><th>pages</th><th>{metric}</th></tr>",
            escape(&first.label)
        );
        for (t, pages) in by_type {
            let (v, _) = own_score(report, &Summary::new(&pages));
            let _ = write!(out, "<tr><td>{}</td><td>{}</td><td>{v:.3}</td></tr>", escape(t), pages.len());
        }
        out.push_str("</table>");
    }
    // The worst pages, each beside its gold.
    let mut scored: Vec<(&PageResult, f64)> =
        first.pages.iter().filter_map(|p| page_score(report, p).map(|s| (p, s))).collect();
    scored.sort_by(|a, b| a.1.total_cmp(&b.1));
    let gold: std::collections::HashMap<&str, &GoldPage> = set.pages.iter().map(|g| (g.id.as_str(), g)).collect();
    let _ = write!(out, "<h3>{}: the {WORST_PAGES} worst pages</h3>", escape(&first.label));
    for (p, score) in scored.into_iter().take(WORST_PAGES) {
        let Some(g) = gold.get(p.id.as_str()) else { continue };
        let _ = write!(
            out,
            "<h4>{} · {} · {metric} {score:.3}{}</h4><div class=\"pair\"><div>",
            escape(&p.id),
            escape(&p.site),
            g.url.as_deref().map(|u| format!(" · {}", escape(u))).unwrap_or_default()
        );
        let view = set.read_html(g).ok().and_then(|html| {
            crate::show::explain_page(
                &p.id,
                &html,
                ExtractorKind::Default,
                None,
                settings,
                crate::show::Written::NoCorpus,
                &|_| None,
            )
            .ok()
        });
        match view {
            Some(view) => {
                for b in &view.blocks {
                    let _ = write!(
                        out,
                        "<div class=\"b {}\" title=\"{}\">{}{}</div>",
                        b.fate.key(),
                        escape(b.fate.describe()),
                        escape(&b.text),
                        crate::show::render::decision_note(&b.decision)
                    );
                }
            }
            None => out.push_str("<p>(the page could not be read)</p>"),
        }
        let gold_text = match (&g.text, report.has_text) {
            (Some(t), true) => t.clone(),
            _ => format!("must contain:\n{}\n\nmust not contain:\n{}", g.with.join("\n"), g.without.join("\n")),
        };
        let _ = write!(out, "</div><div class=\"gold\">{}</div></div>", escape(&gold_text));
    }
    out
}
