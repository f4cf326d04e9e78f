//! A site redesign in the middle of a crawl: the host's model stops matching, the host is
//! sampled again and its model re-learned from the new pages (`[learn] relearn_window`), and
//! no page is lost or written twice on the way.

use crate::support;

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use support::site_server::{SiteRoot, SiteServer};
use webcorpus::config::Config;
use webcorpus::crawl::{run, CrawlOptions};
use webcorpus::model::Record;
use webcorpus::store::{open_state_dir, HostPhase};

const HOST: &str = "redesign.test";
const PAGES_PER_DESIGN: usize = 60;

/// The HTML pages of a shared site, sorted, with their links disabled (`href` renamed),
/// so that the crawl follows only the chain the test adds.
fn site_pages(shared: &Path, site: &str, n: usize) -> Vec<String> {
    let mut files: Vec<_> = walk(&shared.join("sites").join(site));
    files.sort();
    files
        .into_iter()
        .map(|f| String::from_utf8_lossy(&std::fs::read(f).expect("page")).replace("href=", "data-href="))
        .filter(|html| html.len() > 5_000)
        .take(n)
        .collect()
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.extension().is_some_and(|x| x == "html") {
            out.push(p);
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redesigned_site_is_sampled_again_and_its_model_relearned() {
    let Some(shared) = support::shared_dir("a_redesigned_site_is_sampled_again_and_its_model_relearned") else {
        return;
    };
    // Pages 0..60 of one design (a news site), then 60 of another (a blog),
    // each linking the next one: the crawl meets them in this order.
    let mut designs = site_pages(&shared, "www.freepressokc.com", PAGES_PER_DESIGN);
    designs.extend(site_pages(&shared, "hidemiyoshi.jp", PAGES_PER_DESIGN));
    assert_eq!(designs.len(), 2 * PAGES_PER_DESIGN, "enough pages of both designs");
    let mut pages = HashMap::new();
    for (i, html) in designs.iter().enumerate() {
        let next = format!("<a href=\"/p/{}.html\">next</a></body>", i + 1);
        let body = if i + 1 < designs.len() { html.replacen("</body>", &next, 1) } else { html.clone() };
        pages.insert(format!("/p/{i}.html"), body.into_bytes());
    }
    let server =
        SiteServer::start("127.0.0.1:0", HashMap::from([(HOST.to_string(), SiteRoot::Pages(Arc::new(pages)))]));
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::write(dir.path().join("seeds.txt"), format!("http://{HOST}/p/0.html\n")).expect("seeds");
    // 200 ms between requests: the pace of a real crawl relative to learning. Links are
    // fetchable before their group commit, so at delay 0 this chain would run far ahead of the
    // first model (its pages kept for the model) and leave too few blog pages to re-learn from.
    let toml = support::loopback_config(
        server.addr,
        &[HOST],
        &format!(
            "[crawl]\nstate_dir = \"{}\"\nout_dir = \"{}\"\nmin_free_space = 0\n[politeness]\nmin_delay = \"200ms\"\n\
             [learn]\nsample_size = 20\nmin_sample = 5\nrelearn_window = 10\nrelearn_miss_rise = 0.3\n",
            dir.path().join("state").display(),
            dir.path().join("corpus").display()
        ),
    );
    let config = Config::parse(&toml, Path::new("test.toml")).expect("config");
    let opts = CrawlOptions { config, seeds: dir.path().join("seeds.txt"), quiet: true, refresh: false };
    let summary = run(opts).await.expect("crawl");
    assert_eq!(summary.exit_code(), 0);

    let state = open_state_dir(&dir.path().join("state")).expect("state");
    let rec = state.host(HOST).expect("read").expect("host record");
    // Besides the pages, the host's guessed /sitemap.xml was asked for (and is not there).
    assert_eq!(rec.discards.get("sitemap_unavailable"), Some(&1), "{rec:?}");
    assert_eq!(rec.fetched as usize - 1, designs.len(), "every page fetched once");
    // Re-learned when the blog's pages came (and possibly within a design, where a run of the
    // site's pages has another template), at most `max_relearns` (3) times.
    assert!((1..=3).contains(&rec.learning.relearned), "{rec:?}");
    assert_eq!(rec.learning.phase, HostPhase::Learned);
    assert_eq!(rec.learning.waiting, 0);
    let model = state.model(HOST).expect("read").expect("a model");
    // The stored model is the last one learned (a last sampling that ran dry before a full
    // sample keeps it).
    assert!((1..=rec.learning.relearned).contains(&model.generation), "generation {} of {rec:?}", model.generation);
    // The last model is the blog's: its template is on the blog's pages, not on the news site's.
    let gm = model.goldminer.as_ref().expect("the blog's template");
    let on = |html: &str| {
        let doc = webcorpus::html::Document::parse(html);
        let blocks = webcorpus::html::segment(&doc);
        webcorpus::extract::goldminer::matching_template(&doc, &blocks, gm).is_some()
    };
    let blog = designs[PAGES_PER_DESIGN..].iter().filter(|h| on(h)).count();
    let news = designs[..PAGES_PER_DESIGN].iter().filter(|h| on(h)).count();
    assert!(blog >= PAGES_PER_DESIGN / 2 && news == 0, "template on {blog} blog pages, {news} news pages");
    assert!(rec.model_matched > 0, "{rec:?}");

    let text = std::fs::read_to_string(dir.path().join("corpus/corpus.jsonl")).expect("corpus");
    let mut urls = HashSet::new();
    for line in text.lines() {
        let r = Record::from_json(line).expect("a record per line");
        assert!(urls.insert(r.url.clone()), "written twice: {}", r.url);
    }
    assert!(urls.len() + rec.discards.values().sum::<u64>() as usize >= designs.len(), "no page lost");
}
