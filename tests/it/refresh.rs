//! Re-crawl (`crawl --refresh`): a crawl of a site built from real pages of `../shared/sites`
//! is run again over its own state after one page changed. Every page is fetched again with
//! `If-None-Match`; the unchanged ones answer 304 and are counted, not extracted; the changed
//! one gives one new record with the same id, holding the new paragraph and none that the
//! corpus already has (Onion).

use crate::support;

use std::collections::HashSet;
use std::path::Path;
use support::site_server::{SiteRoot, SiteServer};
use webcorpus::config::Config;
use webcorpus::crawl::{run, CrawlOptions};
use webcorpus::model::Record;

const NEW_PARAGRAPH: &str = "The city council met again on Tuesday evening and voted to extend the public \
    consultation on the new library building by another six weeks, after residents asked for more time \
    to read the plans and to comment on the costs.";

fn records(dir: &Path) -> Vec<Record> {
    let text = std::fs::read_to_string(dir.join("corpus/corpus.jsonl")).unwrap();
    text.lines().map(|l| Record::from_json(l).unwrap()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refresh_fetches_conditionally_and_writes_only_what_changed() {
    let Some(shared) = support::shared_dir("refresh_fetches_conditionally_and_writes_only_what_changed") else {
        return;
    };
    let articles = support::freepress_articles(&shared, 12);
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    let mut index = String::from("<html><head><title>Local news</title></head><body><p>Stories:</p>");
    for (i, page) in articles.iter().enumerate() {
        std::fs::copy(page, site.join(format!("story-{i}.html"))).unwrap();
        index.push_str(&format!("<a href=\"/story-{i}.html\">story {i}</a> "));
    }
    index.push_str("</body></html>");
    std::fs::write(site.join("index.html"), index).unwrap();
    std::fs::write(site.join("robots.txt"), "User-agent: *\nAllow: /\n").unwrap();

    let server = SiteServer::start("127.0.0.1:0", [("news.test".to_string(), SiteRoot::Dir(site.clone()))].into());
    let seeds = tmp.path().join("seeds.txt");
    std::fs::write(&seeds, "http://news.test/index.html\n").unwrap();
    let toml = support::loopback_config(
        server.addr,
        &["news.test"],
        &format!(
            "[crawl]\nstate_dir = \"{}\"\nout_dir = \"{}\"\n[politeness]\nmin_delay = \"0s\"\n",
            tmp.path().join("state").display(),
            tmp.path().join("corpus").display()
        ),
    );
    let config = Config::parse(&toml, Path::new("test.toml")).unwrap();
    let crawl = |refresh| run(CrawlOptions { config: config.clone(), seeds: seeds.clone(), quiet: true, refresh });
    crawl(false).await.unwrap();
    let first = records(tmp.path());
    let answered: HashSet<String> = server
        .requests()
        .iter()
        .filter(|r| r.status == 200 && r.path != "/robots.txt")
        .map(|r| r.path.clone())
        .collect();
    assert!(answered.len() >= 12, "{answered:?}");

    // One story changes: a new paragraph after the first paragraph of its article text.
    let changed = first.iter().find(|r| r.url.ends_with("/story-3.html")).expect("story 3 has a record");
    let anchor = changed.paragraphs.iter().map(|p| p.text.as_str()).find(|t| t.len() > 200 && t.is_ascii()).unwrap();
    let path = site.join("story-3.html");
    let html = std::fs::read_to_string(&path).unwrap();
    let at = html.find(&anchor[..40]).expect("the paragraph's start is in the HTML");
    let end = at + html[at..].find("</p>").unwrap() + 4;
    std::fs::write(&path, format!("{}<p>{NEW_PARAGRAPH}</p>{}", &html[..end], &html[end..])).unwrap();

    let before = server.requests().len();
    let summary = crawl(true).await.unwrap();
    let again: Vec<_> = server.requests()[before..].to_vec();
    let refetched: HashSet<String> = again.iter().map(|r| r.path.clone()).collect();
    assert_eq!(refetched, answered, "every page answered 200 before is fetched again, nothing else");
    assert!(again.iter().all(|r| r.conditional.starts_with('"')), "every request is conditional");
    let modified: Vec<_> = again.iter().filter(|r| r.status == 200).map(|r| r.path.as_str()).collect();
    assert_eq!(modified, ["/story-3.html"]);
    let unchanged = again.iter().filter(|r| r.status == 304).count() as u64;
    assert_eq!(unchanged as usize, again.len() - 1);
    assert_eq!(summary.counters.discards.get("not_modified").copied(), Some(unchanged));

    let all = records(tmp.path());
    assert_eq!(all.len(), first.len() + 1, "one new record");
    let new = all.last().unwrap();
    assert_eq!(new.id, changed.id, "the same page keeps its id");
    assert!(new.fetched_at >= changed.fetched_at);
    let texts: Vec<&str> = new.paragraphs.iter().map(|p| p.text.as_str()).collect();
    assert!(texts.iter().any(|t| t.starts_with("The city council met again")), "{texts:?}");
    let written: HashSet<&str> = first.iter().flat_map(|r| r.paragraphs.iter().map(|p| p.text.as_str())).collect();
    assert!(texts.iter().all(|t| !written.contains(t)), "Onion drops what the corpus has: {texts:?}");
}
