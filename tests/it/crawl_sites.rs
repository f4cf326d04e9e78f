//! End to end: crawl the five real sites of `../shared/sites` over loopback and check the
//! crawler's contract — every reachable page fetched once, robots.txt Disallow rules and
//! per-host delays honoured, one model learned per site, no paragraph twice, and the
//! template lines repeated on every page of a site absent from the corpus.

use crate::support;

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::Duration;
use support::site_server::{shared_sites, SiteServer};
use url::Url;
use webcorpus::classify::PageType;
use webcorpus::config::Config;
use webcorpus::crawl::{run, CrawlOptions};
use webcorpus::html::{decode_html, segment, Document};
use webcorpus::model::{ParagraphKind, Record};
use webcorpus::store::HostPhase;

const HOSTS: [&str; 5] =
    ["www.freepressokc.com", "www.paraguayos.org", "hidemiyoshi.jp", "awesomewm.org", "www-cs.stanford.edu"];
const SEEDS: [&str; 5] = [
    "http://www.freepressokc.com/index.html",
    "https://www.paraguayos.org/",
    "http://hidemiyoshi.jp/blog/",
    "http://awesomewm.org/wiki/",
    "http://www-cs.stanford.edu/index.html",
];
const MIN_DELAY_MS: u64 = 20;

fn html_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "html") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The HTML files of a site reachable from `seed` by links, found by a breadth-first walk
/// over the files as a static server maps URLs to them (directories redirect to `dir/` and
/// serve `index.html`; queries are ignored): the oracle for "every reachable page fetched".
/// URLs the crawl is configured not to follow (`skip`) are not walked.
fn reachable_files(site: &Path, seed: &str, skip: &dyn Fn(&Url) -> bool) -> HashSet<String> {
    let a = scraper::Selector::parse("a[href], area[href]").unwrap();
    let mut queue = std::collections::VecDeque::from([Url::parse(seed).unwrap()]);
    let host = queue[0].host_str().unwrap().to_string();
    let mut files = HashSet::new();
    while let Some(mut url) = queue.pop_front() {
        if url.host_str() != Some(host.as_str()) || skip(&url) {
            continue;
        }
        let path = percent_encoding::percent_decode_str(url.path()).decode_utf8_lossy().into_owned();
        let mut file = site.join(path.trim_start_matches('/'));
        if file.is_dir() {
            if !path.ends_with('/') {
                url.set_path(&format!("{}/", url.path()));
            }
            file = file.join("index.html");
        }
        let rel = file.strip_prefix(site).unwrap().to_string_lossy().into_owned();
        if !file.is_file() || !files.insert(rel) {
            continue;
        }
        let doc = Document::parse(&decode_html(&std::fs::read(&file).unwrap(), None).text);
        for el in doc.html.select(&a) {
            if let Ok(mut link) = url.join(el.value().attr("href").unwrap_or("").trim()) {
                link.set_fragment(None);
                queue.push_back(link);
            }
        }
    }
    files
}

/// Block texts of three or more words present on every one of (up to) 30 pages of a site:
/// its template lines, found independently of the crawler's learning.
fn template_lines(site: &Path) -> HashSet<String> {
    let files = html_files(site);
    let step = (files.len() / 30).max(1);
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut pages = 0;
    for f in files.iter().step_by(step).take(30) {
        let bytes = std::fs::read(f).unwrap();
        let doc = Document::parse(&decode_html(&bytes, None).text);
        let texts: HashSet<String> = segment(&doc).into_iter().map(|b| b.text).collect();
        for t in texts {
            *counts.entry(t).or_default() += 1;
        }
        pages += 1;
    }
    // Lines of one or two words ("About", "Education") are menu items that are also real
    // headings of some pages; the longer ones are unambiguous chrome.
    counts.into_iter().filter(|(t, n)| *n == pages && t.split_whitespace().count() >= 3).map(|(t, _)| t).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crawl_five_real_sites_over_loopback() {
    let Some(shared) = support::shared_dir("crawl_five_real_sites_over_loopback") else { return };
    let sites = shared.join("sites");
    let server = SiteServer::start("127.0.0.1:0", shared_sites(&sites));
    let tmp = tempfile::tempdir().unwrap();
    let seeds = tmp.path().join("seeds.txt");
    std::fs::write(&seeds, format!("# the five sites\n{}\nnot a url\n", SEEDS.join("\n"))).unwrap();
    let mut hosts = HOSTS.to_vec();
    hosts.push("paraguayos.org");
    let toml = support::loopback_config(
        server.addr,
        &hosts,
        &format!(
            "[crawl]\nstate_dir = \"{}\"\nout_dir = \"{}\"\n[politeness]\nmin_delay = \"{MIN_DELAY_MS}ms\"\n",
            tmp.path().join("state").display(),
            tmp.path().join("corpus").display()
        ),
    );
    let config = Config::parse(&toml, Path::new("test.toml")).unwrap();
    let crawl_config = config.clone();
    let summary = run(CrawlOptions { config, seeds, quiet: true, refresh: false }).await.unwrap();
    assert_eq!(summary.stopped, None);
    assert_eq!(summary.queued, 0, "the frontier is empty at the end");

    let requests = server.requests();
    // Every page fetched once: no (host, path) requested twice.
    let mut seen = HashSet::new();
    for r in &requests {
        assert!(seen.insert((r.host.clone(), r.path.clone())), "requested twice: {} {}", r.host, r.path);
        assert!(r.user_agent.starts_with("webcorpus/"), "user agent {}", r.user_agent);
    }
    // Every reachable page fetched: the files served with 200 (`/x/` and `/x/index.html`
    // are two URLs of one file) are exactly the files reachable from the seed by links that
    // robots.txt allows and the crawl follows (not non-HTML-looking, not excluded).
    let config = crawl_config;
    let robots = webcorpus::crawl::robots::RobotsPolicy::parse(
        &std::fs::read_to_string(sites.join("www.paraguayos.org/robots.txt")).unwrap(),
        "webcorpus",
    );
    for (host, seed) in HOSTS.iter().zip(SEEDS) {
        let skip = |u: &Url| {
            !webcorpus::crawl::url::looks_like_html(u)
                || config.crawl.is_excluded(u.as_str())
                || (u.host_str() == Some("www.paraguayos.org") && !robots.is_allowed(u))
        };
        let reachable = reachable_files(&sites.join(host), seed, &skip);
        let served: HashSet<String> = requests
            .iter()
            .filter(|r| r.host == *host && r.status == 200 && r.path != "/robots.txt")
            .map(|r| {
                let path = percent_encoding::percent_decode_str(r.path.split('?').next().unwrap_or(""))
                    .decode_utf8_lossy()
                    .into_owned();
                let path = if path.ends_with('/') { format!("{path}index.html") } else { path };
                path.trim_start_matches('/').to_string()
            })
            .collect();
        let files = html_files(&sites.join(host)).len();
        eprintln!("{host}: {} files served, {} reachable, {files} in the snapshot", served.len(), reachable.len());
        assert!(reachable.len() * 2 > files, "{host}: the oracle found only {} files", reachable.len());
        let missed: Vec<_> = reachable.difference(&served).collect();
        assert!(missed.is_empty(), "{host}: reachable but not fetched: {missed:?}");
        let extra: Vec<_> = served.difference(&reachable).collect();
        assert!(extra.is_empty(), "{host}: fetched but not reachable: {extra:?}");
    }
    // robots.txt: fetched first, Disallow rules honoured.
    for host in HOSTS {
        let first = requests.iter().find(|r| r.host == host).unwrap();
        assert_eq!(first.path, "/robots.txt", "{host}: robots.txt comes first");
    }
    for r in requests.iter().filter(|r| r.host == "www.paraguayos.org") {
        for bad in ["/category/", "/tag/", "/page/", "/wp-admin/", "/archives/", "/search"] {
            assert!(!r.path.starts_with(bad), "robots.txt disallows {}", r.path);
        }
        assert!(!r.path.contains('?'), "robots.txt disallows /*? but {} was fetched", r.path);
    }
    // Politeness: one request at a time per host, at least min_delay apart (our user agent
    // is not in the robots.txt group that has a Crawl-delay).
    for host in HOSTS {
        let times: Vec<_> = requests.iter().filter(|r| r.host == host).map(|r| r.at).collect();
        for w in times.windows(2) {
            let gap = w[1].duration_since(w[0]);
            assert!(gap >= Duration::from_millis(MIN_DELAY_MS), "{host}: requests {gap:?} apart");
        }
    }
    // One model learned per site.
    let state = webcorpus::store::open_state_dir(&tmp.path().join("state")).unwrap();
    for host in HOSTS {
        let rec = state.host(host).unwrap().unwrap();
        assert_eq!(rec.learning.phase, HostPhase::Learned, "{host}");
        assert!(state.model(host).unwrap().is_some(), "{host}: model stored");
        assert!(rec.written > 0, "{host}: records written");
    }
    // The gold-free check of the models: pages whose learned extraction keeps less than half of
    // the unlearned one's words are counted per host and listed (with their share) by `stats`.
    let (mut halved, mut halved_rejected) = (0, 0);
    for host in HOSTS {
        let rec = state.host(host).unwrap().unwrap();
        halved += rec.model_halved;
        halved_rejected += rec.model_halved_rejected;
        assert!(rec.model_halved_rejected <= rec.model_halved.min(rec.model_rejected), "{host}");
        assert_eq!(rec.model_halved_pages.len() as u64, rec.model_halved.min(20), "{host}");
        for (url, share) in &rec.model_halved_pages {
            assert!(*share < 0.5 && Url::parse(url).unwrap().host_str() == Some(host), "{host}: {url} {share}");
        }
    }
    assert_eq!(halved, summary.counters.model_halved);
    assert_eq!(halved_rejected, summary.counters.model_halved_rejected);
    let report = webcorpus::crawl::stats::report(&state, None).unwrap();
    eprintln!("{report}");
    let json = webcorpus::crawl::stats::report_json(&state, None).unwrap();
    assert_eq!(json["counters"]["records"], summary.counters.records);
    assert_eq!(json["queued"], 0);
    assert_eq!(json["hosts"].as_array().unwrap().len(), state.hosts().unwrap().len());
    let one = webcorpus::crawl::stats::report_json(&state, Some("hidemiyoshi.jp")).unwrap();
    assert_eq!(one["hosts"][0]["host"], "hidemiyoshi.jp");
    assert!(
        report.contains(&format!("keeps less than half of the unlearned one's words: {halved}")),
        "stats lists the halved pages"
    );
    // No paragraph twice; template lines absent.
    let corpus = std::fs::read_to_string(tmp.path().join("corpus/corpus.jsonl")).unwrap();
    let records: Vec<Record> = corpus.lines().map(|l| Record::from_json(l).unwrap()).collect();
    assert_eq!(records.len() as u64, summary.counters.records);
    let mut paragraphs = HashSet::new();
    let mut urls = HashSet::new();
    for r in &records {
        assert!(urls.insert(r.url.clone()), "record twice: {}", r.url);
        assert!(r.page_type.is_some() && r.page_type_prob.is_some_and(|p| (0.0..=1.0).contains(&p)), "{}", r.url);
        for p in &r.paragraphs {
            assert!(paragraphs.insert(p.text.clone()), "paragraph twice: {:?} ({})", p.text, r.url);
        }
    }
    check_warc_output(&tmp.path().join("corpus/warc"), &requests, &records, &config);
    // Each record's own language: the Japanese blog, the Spanish news site, and the French
    // pages of the English wiki.
    let share = |host: &str, lang: &str, pick: &dyn Fn(&Record) -> bool| {
        let of: Vec<&Record> = records.iter().filter(|r| r.host == host && pick(r)).collect();
        assert!(!of.is_empty(), "{host}");
        of.iter().filter(|r| r.lang.as_deref() == Some(lang)).count() as f64 / of.len() as f64
    };
    let long = |r: &Record| r.text.len() >= 200;
    assert!(share("hidemiyoshi.jp", "ja", &long) >= 0.95);
    assert!(share("www.paraguayos.org", "es", &long) >= 0.95);
    assert!(share("awesomewm.org", "fr", &|r: &Record| long(r) && r.url.ends_with("/fr")) >= 0.9);
    assert!(records.iter().all(|r| r.lang_score.is_none_or(|s| (0.0..=1.0).contains(&s))));
    assert!(records.iter().all(|r| r.word_count > 0));
    // Words, not space-separated runs: Japanese is segmented, punctuation is not a word.
    let words = |host: &str| -> (u64, usize) {
        let of = records.iter().filter(|r| r.host == host);
        (of.clone().map(|r| r.word_count).sum(), of.map(|r| r.text.split_whitespace().count()).sum())
    };
    let (ja_words, ja_runs) = words("hidemiyoshi.jp");
    assert!(ja_words > 5 * ja_runs as u64, "Japanese words {ja_words}, space-separated runs {ja_runs}");
    let (en_words, en_runs) = words("www.freepressokc.com");
    assert!(en_words as f64 > 0.85 * en_runs as f64 && en_words as f64 <= 1.1 * en_runs as f64);
    // jusText's stoplist follows the page's language, not the host's.
    let stoplist_share = |host: &str, lang: &str, stoplist: Option<&str>| {
        let of: Vec<&Record> =
            records.iter().filter(|r| r.host == host && long(r) && r.lang.as_deref() == Some(lang)).collect();
        // Pages whose text is mostly in `lang` (a mixed page of prose and English code is not).
        let of: Vec<&Record> = of.into_iter().filter(|r| r.lang_score.is_some_and(|s| s >= 0.9)).collect();
        assert!(!of.is_empty(), "{host} {lang}");
        of.iter().filter(|r| r.language.as_deref() == stoplist).count() as f64 / of.len() as f64
    };
    assert!(stoplist_share("awesomewm.org", "ru", Some("Russian")) >= 0.85);
    assert!(stoplist_share("awesomewm.org", "fr", Some("French")) >= 0.85);
    assert!(stoplist_share("hidemiyoshi.jp", "ja", None) >= 0.95, "no Japanese stoplist: language-independent");
    // Response and page metadata.
    assert!(records.iter().all(|r| r.http_status == Some(200)));
    assert!(records.iter().all(|r| r.content_type.as_deref().is_some_and(|c| c.starts_with("text/html"))));
    for host in ["www.freepressokc.com", "www.paraguayos.org"] {
        let of: Vec<&Record> =
            records.iter().filter(|r| r.host == host && r.page_type == Some(PageType::Article)).collect();
        let dated =
            of.iter().filter(|r| r.date.as_deref().is_some_and(|d| d.len() == 10 && d.starts_with("20"))).count();
        assert!(dated as f64 >= 0.9 * of.len() as f64, "{host}: {dated} of {} articles dated", of.len());
    }
    let bylines = records.iter().filter(|r| r.host == "www.freepressokc.com" && r.author.is_some()).count();
    assert!(bylines >= 100, "Free Press articles state their author: {bylines}");
    check_vertical(&tmp.path().join("corpus/corpus.jsonl"), tmp.path());
    check_record_schema(&corpus);
    load_with_pyarrow(&tmp.path().join("corpus/corpus.jsonl"), records.len());
    let mut template_total = 0;
    for host in HOSTS {
        let template = template_lines(&sites.join(host));
        eprintln!("{host}: {} template lines", template.len());
        template_total += template.len();
        // A menu item is also the heading of the page it links to ("Política de Privacidad"
        // on the privacy page): a line found only in records whose title contains it is the
        // page's own heading, not chrome. On a listing page (typed `other`) a category's menu
        // item also heads the section that lists the category's stories ("City Hall Notes" on
        // the front page): kept as a heading there, it is the page's content.
        let leaked: Vec<(&String, &str)> = records
            .iter()
            .filter(|r| r.host == host)
            .flat_map(|r| r.paragraphs.iter().map(move |p| (r, p)))
            .filter(|(r, p)| !(p.kind == ParagraphKind::Heading && r.page_type == Some(PageType::Other)))
            .filter_map(|(r, p)| template.get(&p.text).map(|t| (t, r)))
            .filter(|(t, r)| !r.title.as_deref().unwrap_or("").contains(t.as_str()))
            .map(|(t, r)| (t, r.url.as_str()))
            .collect();
        assert!(leaked.is_empty(), "{host}: template lines in the corpus: {leaked:?}");
    }
    assert!(template_total >= 20, "the test found only {template_total} template lines");
}

/// The record table of `docs/corpus.md` (field, type, meaning) against the crawl's records:
/// every key a record has is in the table, every field of the table occurs in some record, and
/// each value has the type the table gives.
fn check_record_schema(corpus: &str) {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/corpus.md")).unwrap();
    let table = doc.split("| field | type | meaning |").nth(1).expect("the record table of docs/corpus.md");
    let mut fields: HashMap<String, String> = HashMap::new();
    for row in table.lines().skip(2).take_while(|l| l.starts_with('|')) {
        let cells: Vec<&str> = row.split(" | ").collect();
        let ty = cells[1].to_string();
        for name in cells[0].trim_start_matches("| ").split(", ") {
            fields.insert(name.trim_matches('`').to_string(), ty.clone());
        }
    }
    assert!(fields.len() >= 20, "{fields:?}");
    let mut occurring = HashSet::new();
    for line in corpus.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        for (key, value) in v.as_object().unwrap() {
            let ty = fields.get(key).unwrap_or_else(|| panic!("record key `{key}` is not in docs/corpus.md's table"));
            occurring.insert(key.clone());
            let ok = match value {
                serde_json::Value::String(_) => ty.contains("string") || ty.starts_with("`\""),
                serde_json::Value::Number(n) if n.is_u64() => ty.contains("integer") || ty.contains("number"),
                serde_json::Value::Number(_) => ty.contains("number"),
                serde_json::Value::Array(_) => ty.starts_with("array"),
                serde_json::Value::Null => ty.contains("null"),
                _ => false,
            };
            assert!(ok, "`{key}`: {value} does not match the type in docs/corpus.md {ty:?}");
        }
    }
    let missing: Vec<&String> = fields.keys().filter(|f| !occurring.contains(*f)).collect();
    assert!(missing.is_empty(), "docs/corpus.md fields never in a record: {missing:?}");
}

/// The corpus loads as a table in pyarrow (what Hugging Face `datasets` reads JSONL with;
/// installed from PyPI when missing, [`support::python_module`]).
fn load_with_pyarrow(corpus: &Path, records: usize) {
    support::python_module("the JSONL load check", "pyarrow", "pyarrow");
    let script = "import sys, pyarrow.json as j; t = j.read_json(sys.argv[1]); print(t.num_rows)";
    match std::process::Command::new("python3").args(["-c", script]).arg(corpus).output() {
        Ok(out) if out.status.success() => {
            let rows: usize = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
            assert_eq!(rows, records, "pyarrow reads every record");
        }
        Ok(out) => panic!("pyarrow cannot read the corpus: {}", String::from_utf8_lossy(&out.stderr)),
        Err(e) => support::missing_tool("the JSONL load check", &format!("python3 ({e})"), "apt-get install python3"),
    }
}

/// The corpus exported to the vertical format (`webcorpus export`): well-formed XML per
/// document, `<s>` sentences and `<g/>` glue, the Japanese blog tokenised into words (no token
/// over 20 characters), no control characters.
fn check_vertical(corpus: &Path, tmp: &Path) {
    use webcorpus::write::export::{export, ExportFilter, ExportTarget};
    use webcorpus::write::CorpusFormat;
    let dir = tmp.join("vert");
    let target = ExportTarget {
        format: CorpusFormat::Vert,
        dir: Some(dir.clone()),
        gzip: false,
        shard_bytes: 0,
        headline_in_text: false,
    };
    let filter = ExportFilter { hosts: vec!["hidemiyoshi.jp".into()], ..ExportFilter::default() };
    let summary = export(&[corpus.to_path_buf()], &filter, &target).unwrap();
    assert!(summary.written >= 50);
    let vert = std::fs::read_to_string(&summary.files[0]).unwrap();
    let wrapped = format!("<corpus>{vert}</corpus>");
    let mut reader = quick_xml::Reader::from_str(&wrapped);
    let mut depth = 0i32;
    loop {
        match reader.read_event().expect("well-formed") {
            quick_xml::events::Event::Start(_) => depth += 1,
            quick_xml::events::Event::End(_) => depth -= 1,
            quick_xml::events::Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!(depth, 0);
    let tokens: Vec<&str> = vert.lines().filter(|l| !l.starts_with('<')).collect();
    let cjk_tokens: Vec<&&str> = tokens.iter().filter(|t| t.chars().any(webcorpus::write::tokenize::is_cjk)).collect();
    assert!(cjk_tokens.len() > 1000, "{} Japanese tokens", cjk_tokens.len());
    let long: Vec<&&&str> = cjk_tokens.iter().filter(|t| t.chars().count() > 20).collect();
    assert!(long.is_empty(), "Japanese tokens over 20 characters: {long:?}");
    assert!(tokens.iter().all(|t| !t.is_empty() && !t.chars().any(char::is_control)));
    let lines: Vec<&str> = vert.lines().collect();
    assert!(lines.contains(&"<s>") && lines.contains(&"<g/>"));
    assert_eq!(lines.iter().filter(|l| **l == "<s>").count(), lines.iter().filter(|l| **l == "</s>").count());
}

/// The crawl's WARC output: one `response` record (with its `request` record) per request the
/// server saw, none torn; each corpus record names its response record, which sits at the
/// record's offset; `warcio check` passes and `warcio index` lists every record; re-extracting
/// the files (`extract --per-site`) gives the corpus's records with the same text, up to
/// paragraphs that Onion drops from whichever host's page comes second (the crawl writes hosts
/// interleaved, the replay in file order).
fn check_warc_output(dir: &Path, requests: &[support::site_server::RequestLog], records: &[Record], config: &Config) {
    use support::warc::{read_records, record_at, warc_files, warcio_available, warcio_check_and_index};
    let entries = read_records(dir);
    let responses: Vec<_> = entries.iter().filter(|e| e.kind == "response").collect();
    let mut recorded: Vec<(String, String)> = responses
        .iter()
        .map(|e| {
            let u = Url::parse(&e.target).unwrap();
            let path = match u.query() {
                Some(q) => format!("{}?{q}", u.path()),
                None => u.path().to_string(),
            };
            (webcorpus::crawl::url::host_key(&u).unwrap(), path)
        })
        .collect();
    let mut asked: Vec<(String, String)> = requests.iter().map(|r| (r.host.clone(), r.path.clone())).collect();
    recorded.sort();
    asked.sort();
    assert_eq!(recorded, asked, "one response record per request the server answered");
    let ids: HashMap<&str, &support::warc::WarcEntry> = responses.iter().map(|e| (e.id.as_str(), *e)).collect();
    let requests_recorded = entries.iter().filter(|e| e.kind == "request").collect::<Vec<_>>();
    assert_eq!(requests_recorded.len(), responses.len());
    for e in requests_recorded {
        assert!(e.concurrent_to.as_deref().is_some_and(|id| ids.contains_key(id)), "{e:?}");
    }
    assert_eq!(entries.iter().filter(|e| e.kind == "warcinfo").count(), warc_files(dir).len());
    for r in records {
        let id = r.warc_record_id.as_deref().expect("every record names its WARC record");
        let e = ids.get(id).unwrap_or_else(|| panic!("{}: no response record {id}", r.url));
        assert_eq!(e.target, r.final_url);
        let file = dir.join(r.warc_file.as_deref().unwrap());
        assert_eq!(&file, &e.file);
        let at = record_at(&file, r.warc_offset.unwrap());
        assert!(at.starts_with("WARC/1.1\r\nWARC-Type: response\r\n") && at.contains(id), "{}", r.url);
    }
    if warcio_available("crawl_five_real_sites_over_loopback") {
        assert_eq!(warcio_check_and_index(dir), entries.len(), "warcio index lists every record");
    }
    // The round trip: WARC -> extract --per-site -> the corpus.
    let mut out = Vec::new();
    let summary = webcorpus::crawl::replay::replay_warcs(
        &warc_files(dir),
        config,
        webcorpus::write::CorpusFormat::Jsonl,
        &mut out,
        false,
    )
    .unwrap();
    let replayed: HashMap<String, Record> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| Record::from_json(l).unwrap())
        .map(|r| (r.warc_record_id.clone().unwrap(), r))
        .collect();
    assert_eq!(summary.records as usize, replayed.len());
    assert_eq!(replayed.len(), records.len(), "the replay writes as many records as the crawl");
    // Onion compares lower-cased words: "Next »" on one host and "Next" on another share them.
    let words = |t: &str| -> String {
        t.to_lowercase().split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
    };
    let mut hosts_of: HashMap<String, HashSet<&str>> = HashMap::new();
    for r in records.iter().chain(replayed.values()) {
        for p in &r.paragraphs {
            hosts_of.entry(words(&p.text)).or_default().insert(r.host.as_str());
        }
    }
    assert!(records.iter().any(|r| r.url != r.final_url), "the shared wiki's pages come through redirects");
    let mut differing = 0;
    for r in records {
        let again = &replayed[r.warc_record_id.as_deref().unwrap()];
        assert_eq!((&again.title, &again.extractor, again.page_type), (&r.title, &r.extractor, r.page_type));
        // Where the page is in the files, and the URL asked for before the redirects.
        assert_eq!(
            (&again.url, &again.final_url, &again.warc_file, again.warc_offset),
            (&r.url, &r.final_url, &r.warc_file, r.warc_offset),
            "{}",
            r.url
        );
        if again.text == r.text {
            continue;
        }
        differing += 1;
        let mine: HashSet<&str> = r.paragraphs.iter().map(|p| p.text.as_str()).collect();
        let theirs: HashSet<&str> = again.paragraphs.iter().map(|p| p.text.as_str()).collect();
        for p in mine.symmetric_difference(&theirs) {
            assert!(hosts_of[&words(p)].len() > 1, "{}: paragraph {p:?} differs and is on no other host", r.url);
        }
    }
    eprintln!(
        "WARC: {} records, {} responses; replay: {} records, {differing} with other text",
        entries.len(),
        responses.len(),
        replayed.len()
    );
    assert!(differing * 50 <= records.len(), "{differing} of {} records differ", records.len());
    // A cut file is read up to the cut: its last 5 bytes gone, the replay writes the records
    // before it and names the damage.
    let cut_dir = tempfile::tempdir().unwrap();
    let files = warc_files(dir);
    let copies: Vec<_> = files.iter().map(|f| cut_dir.path().join(f.file_name().unwrap())).collect();
    for (from, to) in files.iter().zip(&copies) {
        std::fs::copy(from, to).unwrap();
    }
    let last = copies.last().unwrap();
    let len = std::fs::metadata(last).unwrap().len();
    std::fs::OpenOptions::new().write(true).open(last).unwrap().set_len(len - 5).unwrap();
    let mut out = Vec::new();
    let cut =
        webcorpus::crawl::replay::replay_warcs(&copies, config, webcorpus::write::CorpusFormat::Jsonl, &mut out, false)
            .expect("a cut file is no error of the replay");
    assert_eq!(cut.damaged.len(), 1, "{:?}", cut.damaged);
    assert!(cut.records + 1 >= summary.records && cut.records > 0, "{} of {}", cut.records, summary.records);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn robots_crawl_delay_is_honoured() {
    let Some(shared) = support::shared_dir("robots_crawl_delay_is_honoured") else { return };
    let server = SiteServer::start("127.0.0.1:0", shared_sites(&shared.join("sites")));
    let tmp = tempfile::tempdir().unwrap();
    let seeds = tmp.path().join("seeds.txt");
    std::fs::write(&seeds, "https://www.paraguayos.org/\n").unwrap();
    // msnbot is in the robots.txt group with `Crawl-delay: 30`; the test caps the honoured
    // delay at 1 s (`max_crawl_delay`, 300 s by default) to keep it short.
    let toml = support::loopback_config(
        server.addr,
        &["www.paraguayos.org"],
        &format!(
            "[crawl]\nstate_dir = \"{}\"\nout_dir = \"{}\"\nmax_pages_per_host = 3\n[politeness]\nmin_delay = \"10ms\"\nmax_crawl_delay = \"1s\"\n[net]\nuser_agent = \"msnbot/2.0 (+http://example.test/bot)\"\n",
            tmp.path().join("state").display(),
            tmp.path().join("corpus").display()
        ),
    );
    let config = Config::parse(&toml, Path::new("test.toml")).unwrap();
    run(CrawlOptions { config, seeds, quiet: true, refresh: false }).await.unwrap();
    let times: Vec<_> = server.requests().iter().map(|r| r.at).collect();
    assert!(times.len() >= 3, "robots.txt and at least two pages: {}", times.len());
    for w in times.windows(2) {
        let gap = w[1].duration_since(w[0]);
        assert!(gap >= Duration::from_millis(1000), "Crawl-delay not honoured: {gap:?}");
    }
}
