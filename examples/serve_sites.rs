//! Serve the real web sites of `../shared/sites` (and optionally the CleanPortalEval pages at
//! their original URL paths) on 127.0.0.1, chosen by `Host` header, for crawl demos and
//! scripts. Prints `READY <addr>` once listening and one line per request when `--log` is
//! given. Stop with Ctrl-C.
//!
//! `cargo run --example serve_sites -- [--addr 127.0.0.1:8700] [--sites DIR] [--cleanportaleval DIR] [--log]`

#[path = "../tests/it/support/site_server.rs"]
mod site_server;

use site_server::{shared_sites, SiteRoot, SiteServer};
use std::collections::HashMap;
use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

fn main() {
    let mut addr = "127.0.0.1:8700".to_string();
    let mut sites_dir: Option<PathBuf> = None;
    let mut cpe_dir: Option<PathBuf> = None;
    let mut log = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--addr" => addr = args.next().expect("--addr ADDR"),
            "--sites" => sites_dir = Some(args.next().expect("--sites DIR").into()),
            "--cleanportaleval" => cpe_dir = Some(args.next().expect("--cleanportaleval DIR").into()),
            "--log" => log = true,
            other => {
                eprintln!("unknown argument {other}");
                std::process::exit(2);
            }
        }
    }
    let mut sites = HashMap::new();
    if let Some(dir) = &sites_dir {
        sites.extend(shared_sites(dir));
    }
    if let Some(dir) = &cpe_dir {
        sites.extend(cleanportaleval_sites(dir));
    }
    if sites.is_empty() {
        eprintln!("nothing to serve: give --sites DIR and/or --cleanportaleval DIR");
        std::process::exit(2);
    }
    // A port already taken (an earlier server still running) is the usual failure: say which
    // and how to choose another, rather than panicking inside the server.
    if let Err(e) = std::net::TcpListener::bind(&addr) {
        eprintln!(
            "error: cannot serve on {addr}: {e}\n\
             Another program holds the port (an earlier scripts/serve-sites.sh still running?): stop it, or \
             choose another address with SERVE_ADDR=127.0.0.1:PORT scripts/serve-sites.sh ... and point \
             config.toml's [net.resolve] entries at the same address."
        );
        std::process::exit(1);
    }
    let server = SiteServer::start(&addr, sites);
    println!("READY {}", server.addr);
    let mut seen = 0;
    loop {
        std::thread::sleep(std::time::Duration::from_millis(200));
        if log {
            let reqs = server.requests();
            for r in &reqs[seen..] {
                println!("{} {} {}", r.status, r.host, r.path);
            }
            seen = reqs.len();
        }
    }
}

/// CleanPortalEval pages served at the path of their gold URL, per host.
fn cleanportaleval_sites(dir: &std::path::Path) -> HashMap<String, SiteRoot> {
    let gold = std::fs::read_to_string(dir.join("gold.jsonl")).expect("gold.jsonl");
    let mut per_host: HashMap<String, HashMap<String, Vec<u8>>> = HashMap::new();
    for line in gold.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("gold line");
        let (Some(id), Some(url)) = (v["id"].as_str(), v["url"].as_str()) else { continue };
        let url = url::Url::parse(url).expect("gold URL");
        let mut bytes = Vec::new();
        let file = std::fs::File::open(dir.join("html").join(format!("{id}.html.gz"))).expect("page");
        flate2::read::GzDecoder::new(file).read_to_end(&mut bytes).expect("gzip");
        let body = webcorpus::extract::files::strip_cleaneval_wrapper(&bytes).to_vec();
        let mut path = url.path().to_string();
        if let Some(q) = url.query() {
            path = format!("{path}?{q}");
        }
        per_host.entry(url.host_str().unwrap_or("").to_string()).or_default().insert(path, body);
    }
    per_host.into_iter().map(|(h, pages)| (h, SiteRoot::Pages(Arc::new(pages)))).collect()
}
