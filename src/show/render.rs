//! The HTML of `webcorpus show`: one self-contained file (inline CSS, no scripts, fonts or
//! external files) with the host overview — sample, model (GoldMiner templates with their
//! support, StaDyNoT static keys, parts the learning dropped and why), yield, discards by
//! reason, blocks per fate — a legend, and each page's text blocks in reading order, coloured
//! by their [`Fate`], with the learned begin and end patterns where they matched.

use super::{Fate, HostView, PageView};
use crate::crawl::status_page::escape;
use crate::extract::trace::BlockDecision;
use std::collections::BTreeMap;
use std::fmt::Write as _;

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:1.5em;max-width:70em}\
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:2em;word-break:break-all}\
table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}\
.b{margin:2px 0;padding:3px 6px;border-left:6px solid #999;white-space:pre-wrap}\
.b .tag{font:11px monospace;color:#555;margin-right:6px}.b .why{font-size:11px;color:#444;margin-left:6px}\
.pattern{font:12px monospace;color:#7a3b00;background:#fff3e0;padding:2px 6px;margin:4px 0}\
.sw{display:inline-block;width:1.2em;height:1em;vertical-align:middle;margin-right:6px;border-left:6px solid #999}\
";

/// The colours of the fates ([`Fate::key`] as CSS classes), shared with `eval --html`.
pub const FATE_STYLE: &str =
    ".kept{background:#e3f6e3;border-color:#2e8b3a}.duplicate{background:#fff6cc;border-color:#c9a000}\
.unwritten{background:#fffbe6;border-color:#e0c060}\
.outside-stretch{background:#eee;border-color:#777;color:#555}.static-noise{background:#fde2e2;border-color:#c62828}\
.boilerplate-box{background:#e8e4f7;border-color:#5e35b1}.outside-content-root{background:#e3eefb;border-color:#1565c0}\
.edge-rule{background:#f3e9e0;border-color:#8d5524}.extractor{background:#f5f5f5;border-color:#9e9e9e}\
.vote{background:#e6f2f2;border-color:#00838f}.comment-section{background:#f1ece4;border-color:#6d4c41}\
.combiner{background:#fff0e0;border-color:#ef6c00}.consent-box{background:#f3e5f5;border-color:#8e24aa}\
.teaser-list{background:#ede7f6;border-color:#4527a0}.outside-post{background:#e0f2f1;border-color:#00695c}\
.no-running-text{background:#f0f4c3;border-color:#827717}";

/// The whole page for `view` of host `host`.
pub fn render(host: &str, view: &HostView) -> String {
    let mut out = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>webcorpus show: {}</title><style>{STYLE}{FATE_STYLE}</style></head><body>",
        escape(host)
    );
    let r = &view.record;
    let _ = write!(out, "<h1>{}</h1>", escape(host));
    let _ = write!(
        out,
        "<table><tr><th>phase</th><td>{}</td></tr><tr><th>pages fetched</th><td>{}</td></tr>\
         <tr><th>records written</th><td>{}</td></tr><tr><th>yield (text bytes per downloaded byte)</th><td>{}</td></tr>\
         <tr><th>pages shown</th><td>{}</td></tr></table>",
        format!("{:?}", r.learning.phase).to_lowercase(),
        r.fetched,
        r.written,
        r.yield_rate().map_or("–".into(), |y| format!("{y:.3}")),
        view.pages.len()
    );
    render_model(&mut out, view);
    if !r.discards.is_empty() {
        out.push_str("<h2>Pages without a record, by reason</h2><table>");
        let mut discards: Vec<_> = r.discards.iter().collect();
        discards.sort_by(|a, b| b.1.cmp(a.1));
        for (reason, n) in discards {
            let _ = write!(out, "<tr><td>{}</td><td>{n}</td></tr>", escape(reason));
        }
        out.push_str("</table>");
    }
    render_legend(&mut out, view);
    out.push_str("<h2>Pages</h2><table><tr><th>page</th><th>kept</th><th>duplicate</th><th>dropped</th></tr>");
    for (i, p) in view.pages.iter().enumerate() {
        let c = p.counts();
        let kept = c.get("kept").copied().unwrap_or(0);
        let dup = c.get("duplicate").copied().unwrap_or(0);
        let _ = write!(
            out,
            "<tr><td><a href=\"#p{i}\">{}</a></td><td>{kept}</td><td>{dup}</td><td>{}</td></tr>",
            escape(&p.url),
            p.blocks.len() - kept - dup
        );
    }
    out.push_str("</table>");
    for (url, reason) in &view.failed {
        let _ = write!(out, "<p>not shown: {} ({})</p>", escape(url), escape(reason));
    }
    for (i, p) in view.pages.iter().enumerate() {
        render_page(&mut out, i, p);
    }
    out.push_str("</body></html>\n");
    out
}

fn render_model(out: &mut String, view: &HostView) {
    out.push_str("<h2>Learned model</h2>");
    let Some(m) = &view.model else {
        out.push_str(
            "<p>none: the host's pages are extracted without a model (sample below min_sample, or still sampling)</p>",
        );
        return;
    };
    let _ = write!(out, "<p>learned from {} sampled pages (generation {})</p>", m.pages_sampled, m.generation);
    match &m.goldminer {
        Some(g) => {
            out.push_str(
                "<table><tr><th>GoldMiner template</th><th>begin pattern</th><th>end pattern</th><th>support</th></tr>",
            );
            for (i, t) in std::iter::once(g).chain(&g.alternatives).enumerate() {
                let _ = write!(
                    out,
                    "<tr><td>{}</td><td><code>{}</code></td><td><code>{}</code></td><td>{} of {} pages</td></tr>",
                    if i == 0 { "primary".to_string() } else { format!("alternative {i}") },
                    escape(&t.begin.join(" ")),
                    escape(&t.end.join(" ")),
                    t.support,
                    t.pages_used
                );
            }
            out.push_str("</table>");
        }
        None => out.push_str("<p>no GoldMiner template</p>"),
    }
    if m.stadynot.keys.is_empty() {
        out.push_str("<p>no StaDyNoT static keys</p>");
    } else {
        let _ = write!(out, "<details><summary>{} StaDyNoT static noise keys</summary><ul>", m.stadynot.keys.len());
        for k in &m.stadynot.keys {
            let _ = write!(out, "<li><code>{}</code></li>", escape(k));
        }
        out.push_str("</ul></details>");
    }
    if !m.rejected.is_empty() {
        let _ = write!(
            out,
            "<details><summary>{} parts the learning dropped (checked on held-out sample pages)</summary><ul>",
            m.rejected.len()
        );
        for part in &m.rejected {
            let _ = write!(out, "<li><code>{}</code>: {}</li>", escape(&part.part), escape(&part.reason));
        }
        out.push_str("</ul></details>");
    }
}

fn render_legend(out: &mut String, view: &HostView) {
    let mut totals: BTreeMap<&'static str, usize> = BTreeMap::new();
    for p in &view.pages {
        for (k, n) in p.counts() {
            *totals.entry(k).or_default() += n;
        }
    }
    out.push_str("<h2>Legend</h2><table><tr><th>fate</th><th>blocks (all pages shown)</th></tr>");
    for fate in Fate::ALL {
        let _ = write!(
            out,
            "<tr><td><span class=\"sw {}\"></span>{}</td><td>{}</td></tr>",
            fate.key(),
            escape(fate.describe()),
            totals.get(fate.key()).copied().unwrap_or(0)
        );
    }
    out.push_str("</table>");
}

/// The decision's stage and scores, as small notes after a block's text: `by combiner`,
/// `p = 0.93`, `2/3 votes`.
pub fn decision_note(decision: &BlockDecision) -> String {
    let mut note = format!("<span class=\"why\">by {}</span>", decision.stage.key());
    if let Some(p) = decision.probability {
        // Rounded down, so that a block below a threshold of 0.5 never reads 0.50.
        let _ = write!(note, "<span class=\"why\">p = {:.2}</span>", (p * 100.0).floor() / 100.0);
    }
    if let Some(v) = decision.votes {
        let _ = write!(note, "<span class=\"why\">{v}/3 votes</span>");
    }
    note
}

fn render_page(out: &mut String, i: usize, p: &PageView) {
    let _ = write!(out, "<section id=\"p{i}\"><h2>{}</h2>", escape(&p.url));
    let _ = write!(
        out,
        "<p>{} · model: {}</p>",
        escape(p.title.as_deref().unwrap_or("(no title)")),
        format!("{:?}", p.model_use).to_lowercase()
    );
    for b in &p.blocks {
        if let Some(pattern) = &b.begin_pattern {
            let _ = write!(out, "<div class=\"pattern\">▼ GoldMiner begin pattern: {}</div>", escape(pattern));
        }
        let why = match &b.fate {
            Fate::Duplicate(Some(first)) => format!("<span class=\"why\">duplicate of {}</span>", escape(first)),
            Fate::Duplicate(None) => "<span class=\"why\">duplicate</span>".to_string(),
            _ => String::new(),
        };
        let why = format!("{why}{}", decision_note(&b.decision));
        let _ = write!(
            out,
            "<div class=\"b {}\" title=\"{}\"><span class=\"tag\">{}</span>{}{why}</div>",
            b.fate.key(),
            escape(b.fate.describe()),
            escape(&b.tag),
            escape(&b.text)
        );
        if let Some(pattern) = &b.end_pattern {
            let _ = write!(out, "<div class=\"pattern\">▲ GoldMiner end pattern: {}</div>", escape(pattern));
        }
    }
    out.push_str("</section>");
}
