//! `webcorpus show` after a crawl of a shared site (the Japanese blog, whose model has a
//! GoldMiner template and StaDyNoT static keys): the HTML marks the navigation menu as static
//! noise, keeps the pages' record paragraphs, and marks a paragraph written before as an
//! Onion duplicate with the URL whose record holds it, and names the blocks the learned
//! combiner dropped with their probability; with Debian's `chromium` there, the
//! page is opened headless and a screenshot taken. A page fetched through a redirect is found
//! by its record's URL.

use crate::support;

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Stdio};
use support::site_server::{shared_sites, SiteServer};
use webcorpus::model::Record;

const HOST: &str = "hidemiyoshi.jp";

/// The blocks of the HTML: (fate class, tag, text, the duplicate's first URL).
fn blocks(html: &str) -> Vec<(String, String, String, Option<String>)> {
    let mut out = Vec::new();
    for part in html.split("<div class=\"b ").skip(1) {
        let class = part.split('"').next().unwrap().to_string();
        let tag = part.split("<span class=\"tag\">").nth(1).and_then(|t| t.split("</span>").next()).unwrap_or("");
        let rest = part.split("</span>").nth(1).unwrap_or("");
        let text = rest.split('<').next().unwrap_or("");
        let first = part.split("duplicate of ").nth(1).and_then(|t| t.split("</span>").next()).map(unescape);
        out.push((class, tag.to_string(), unescape(text), first));
    }
    out
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&")
}

/// Crawl `http://{host}{path}` from the shared sites with no politeness delay; `crawl_extra`
/// goes into the `[crawl]` table.
fn crawl(dir: &Path, addr: std::net::SocketAddr, host: &str, path: &str, crawl_extra: &str) {
    std::fs::write(dir.join("seeds.txt"), format!("http://{host}{path}\n")).unwrap();
    let toml = support::loopback_config(
        addr,
        &[host],
        &format!(
            "[crawl]\nstate_dir = \"{}\"\nout_dir = \"{}\"\n{crawl_extra}[politeness]\nmin_delay = \"0s\"\n",
            dir.join("state").display(),
            dir.join("corpus").display()
        ),
    );
    std::fs::write(dir.join("config.toml"), toml).unwrap();
    assert!(support::crawl_command(dir).status().unwrap().success());
}

/// `webcorpus show --host HOST [--url URL] --max-pages 1000` on the crawl in `dir`: its page.
fn show(dir: &Path, host: &str, url: Option<&str>) -> String {
    let out = dir.join("show.html");
    let status = Command::new(env!("CARGO_BIN_EXE_webcorpus"))
        .arg("show")
        .arg("--state")
        .arg(dir.join("state"))
        .args(["--host", host, "--max-pages", "1000"])
        .args(url.map(|u| ["--url", u]).into_iter().flatten())
        .arg("--config")
        .arg(dir.join("config.toml"))
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success(), "show --host {host} --url {url:?}");
    std::fs::read_to_string(&out).unwrap()
}

#[test]
fn show_marks_static_noise_kept_paragraphs_and_duplicates_with_their_first_url() {
    let Some(shared) =
        support::shared_dir("show_marks_static_noise_kept_paragraphs_and_duplicates_with_their_first_url")
    else {
        return;
    };
    let server = SiteServer::start("127.0.0.1:0", shared_sites(&shared.join("sites")));
    let dir = tempfile::tempdir().unwrap();
    crawl(dir.path(), server.addr, HOST, "/blog/", "");
    let html = show(dir.path(), HOST, None);
    let out = dir.path().join("show.html");
    assert!(!html.contains("<script") && !html.contains("http-equiv"), "self-contained and static");
    assert!(html.contains("GoldMiner begin pattern"), "the learned begin pattern is shown where it matched");
    let shown = blocks(&html);
    // The navigation menu (the same list items on every page) is static noise where the page
    // does not match the learned stretch (elsewhere it is before the begin pattern), on every
    // page extracted with the model ("applied", or "unmatched" by the template: the static
    // keys still apply); where the guard rejected the model for a page, the menu is still not
    // kept.
    let pages: Vec<(&str, Vec<_>)> = html
        .split("<section id=\"p")
        .skip(1)
        .map(|page| (page.split(" · model: ").nth(1).and_then(|m| m.split('<').next()).unwrap_or(""), blocks(page)))
        .collect();
    let rejected = pages.iter().filter(|(model, _)| *model == "rejected").count();
    assert!(rejected * 10 <= pages.len(), "{rejected} of {} pages extracted without the model", pages.len());
    for item in ["Official Site", "KURAYOSHI", "KAATSU"] {
        let fates = |with_model: bool| -> Vec<String> {
            pages
                .iter()
                .filter(|(model, _)| (*model != "rejected") == with_model)
                .flat_map(|(_, b)| b.iter().filter(|(_, tag, text, _)| tag == "listitem" && text == item))
                .map(|b| b.0.clone())
                .collect()
        };
        let learned = fates(true);
        assert!(learned.iter().any(|f| f == "static-noise"), "menu item {item}: {learned:?}");
        assert!(learned.iter().all(|f| f == "static-noise" || f == "outside-stretch"), "menu item {item}: {learned:?}");
        let without = fates(false);
        assert!(!without.iter().any(|f| f == "kept"), "menu item {item} kept without the model: {without:?}");
    }
    // Kept blocks are exactly paragraphs or headlines of the records; duplicates name the URL
    // whose record holds the text.
    let corpus = std::fs::read_to_string(dir.path().join("corpus/corpus.jsonl")).unwrap();
    let records: HashMap<String, Record> =
        corpus.lines().map(|l| Record::from_json(l).unwrap()).map(|r| (r.url.clone(), r)).collect();
    let written: std::collections::HashSet<&str> = records
        .values()
        .flat_map(|r| r.headline.iter().chain(r.paragraphs.iter().map(|p| &p.text)))
        .map(String::as_str)
        .collect();
    let kept: Vec<_> = shown.iter().filter(|b| b.0 == "kept").collect();
    assert!(kept.len() > 100, "{} kept blocks", kept.len());
    let long_kept = kept.iter().filter(|b| b.2.chars().count() > 40).count();
    assert!(long_kept > 50, "article paragraphs kept: {long_kept}");
    for b in &kept {
        assert!(written.contains(b.2.as_str()), "kept but in no record: {:?}", b.2);
    }
    // Text kept by extraction on a page without a record, and in no record (a post whose
    // paragraph is mostly its excerpt, written first from an archive page), is unwritten.
    for b in shown.iter().filter(|b| b.0 == "unwritten") {
        assert!(!written.contains(b.2.as_str()), "unwritten but in a record: {:?}", b.2);
    }
    // A page that keeps headings alone has no record: its headings are marked so, and nothing
    // of it is kept.
    for (_, blocks) in &pages {
        let headings_only: Vec<_> = blocks.iter().filter(|b| b.0 == "no-running-text").collect();
        if !headings_only.is_empty() {
            assert!(headings_only.iter().all(|b| b.1 == "heading"), "{headings_only:?}");
            assert!(!blocks.iter().any(|b| b.0 == "kept" || b.0 == "duplicate"), "{blocks:?}");
        }
    }
    let duplicates: Vec<_> = shown.iter().filter(|b| b.0 == "duplicate").collect();
    assert!(!duplicates.is_empty(), "a paragraph repeated across pages is an Onion duplicate");
    // An exact duplicate names the first URL whose record holds it; a near duplicate (Onion's
    // shingle share, e.g. a listing's excerpt of an article) has no record with its text.
    let mut named = 0;
    for (_, _, text, first) in &duplicates {
        let Some(first) = first.as_deref() else {
            assert!(!written.contains(text.as_str()), "a record holds {text:?} but show names none");
            continue;
        };
        let holder = records.get(first).unwrap_or_else(|| panic!("{first} has a record"));
        assert!(
            holder.headline.as_ref() == Some(text) || holder.paragraphs.iter().any(|p| &p.text == text),
            "{first} holds {text:?}"
        );
        named += 1;
    }
    assert!(named > 0, "exact duplicates name their first URL");
    assert!(html.contains("Legend") && html.contains("class=\"sw static-noise\""), "a legend with every fate");
    // Every block shows the combiner's probability; a block the combiner dropped (inside the
    // stretch, outside static noise) is below its threshold.
    let threshold = webcorpus::extract::combiner::shipped().unwrap().threshold;
    let probability = |part: &str| -> f32 {
        let p = part.split("p = ").nth(1).and_then(|t| t.split('<').next()).expect("a probability on every block");
        p.parse().unwrap()
    };
    let parts: Vec<&str> = html.split("<div class=\"b ").skip(1).collect();
    let by_combiner: Vec<f32> = parts.iter().filter(|p| p.starts_with("combiner\"")).map(|p| probability(p)).collect();
    assert!(!by_combiner.is_empty(), "the combiner drops some blocks inside the stretch");
    assert!(by_combiner.iter().all(|&p| p < threshold), "{by_combiner:?}");
    // Kept blocks show theirs too (inside the learned stretch GoldMiner keeps some below it).
    assert!(parts.iter().filter(|p| p.starts_with("kept\"")).all(|p| probability(p) <= 1.0));
    // Headless Chromium, when Debian's package is installed: the page renders to a screenshot.
    let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].into_iter().find(|p| Path::new(p).exists());
    let Some(chromium) = chromium else {
        eprintln!("\n*** SKIPPED the screenshot of show: chromium not installed (apt-get install chromium) ***\n");
        return;
    };
    let png = dir.path().join("show.png");
    let status = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1200,1600",
        ])
        .arg(format!("--user-data-dir={}", dir.path().join("chromium").display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", out.display()))
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let bytes = std::fs::read(&png).unwrap();
    assert!(bytes.starts_with(b"\x89PNG") && bytes.len() > 20_000, "a real screenshot: {} bytes", bytes.len());
}

/// A page fetched through a redirect (the MediaWiki's `/wiki/Page` → `/wiki/Page/`) is in
/// the WARC under its final URL: `show --url` finds it by its record's URL, and its record's
/// paragraphs are marked kept, not duplicates of the page itself.
#[test]
fn show_finds_a_redirected_page_by_its_record_url() {
    let Some(shared) = support::shared_dir("show_finds_a_redirected_page_by_its_record_url") else {
        return;
    };
    let server = SiteServer::start("127.0.0.1:0", shared_sites(&shared.join("sites")));
    let dir = tempfile::tempdir().unwrap();
    let host = "awesomewm.org";
    crawl(dir.path(), server.addr, host, "/wiki/", "max_pages_per_host = 30\n");
    let corpus = std::fs::read_to_string(dir.path().join("corpus/corpus.jsonl")).unwrap();
    let record = corpus
        .lines()
        .map(|l| Record::from_json(l).unwrap())
        .find(|r| r.final_url != r.url && r.paragraphs.len() > 3)
        .expect("a record of a redirected page");
    let html = show(dir.path(), host, Some(&record.url));
    let shown = blocks(&html);
    let kept: Vec<&str> = shown.iter().filter(|b| b.0 == "kept").map(|b| b.2.as_str()).collect();
    for p in &record.paragraphs {
        assert!(kept.contains(&p.text.as_str()), "{} wrote {:?}, not marked kept", record.url, p.text);
    }
    for (_, _, text, first) in shown.iter().filter(|b| b.0 == "duplicate") {
        assert_ne!(first.as_deref(), Some(record.final_url.as_str()), "{text:?} marked a duplicate of its own page");
    }
    // The state records where the crawl wrote: `show --state` finds the corpus and WARC files
    // with a config that names another `out_dir` (the defaults), from another directory.
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(elsewhere.path().join("config.toml"), "").unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_webcorpus"))
        .current_dir(elsewhere.path())
        .arg("show")
        .arg("--state")
        .arg(dir.path().join("state"))
        .args(["--host", host, "--url", &record.url, "--out", "show.html"])
        .status()
        .unwrap();
    assert!(status.success(), "show --state without --corpus, away from the crawl's directory");
    assert_eq!(blocks(&std::fs::read_to_string(elsewhere.path().join("show.html")).unwrap()), shown);
}

/// `show --site NAME FILE...`: local pages of one site, its model learned from them as
/// `extract --site` learns it; every page's blocks are marked.
#[test]
fn show_site_learns_from_local_files_and_marks_their_blocks() {
    let Some(shared) = support::shared_dir("show_site_learns_from_local_files_and_marks_their_blocks") else {
        return;
    };
    let pages = support::freepress_articles(&shared, 12);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("site.html");
    let status = Command::new(env!("CARGO_BIN_EXE_webcorpus"))
        .args(["show", "--site", "www.freepressokc.com"])
        .args(&pages)
        .arg("--out")
        .arg(&out)
        .arg("--config")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("config.toml"))
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.contains("learned from 12 sampled pages"), "the model is learned from the files");
    let shown = blocks(&html);
    assert_eq!(html.matches("<section id=\"p").count(), 12, "every file shown");
    assert!(shown.iter().any(|b| b.0 == "kept" && b.2.chars().count() > 100), "article paragraphs kept");
    assert!(
        shown.iter().any(|b| b.0 == "outside-stretch" || b.0 == "static-noise"),
        "the learned model drops the template"
    );
}
