//! Language identification of the records of a webcorpus corpus whose languages are known:
//! whatlang (webcorpus's), whichlang and lingua, on each record's first 2 KiB of text, as
//! webcorpus detects `lang`. Truth: the language of each shared site, and for the wiki
//! (awesomewm.org) the language suffix of its translated pages (`/ru`, `/fr`, `/zh-cn`, ...).
//! Prints accuracy for records of 200 characters or more and for shorter ones, and the
//! detection time per record.
use std::io::BufRead;
use std::time::Instant;

fn truth(host: &str, url: &str) -> Option<&'static str> {
    match host {
        "www.freepressokc.com" | "www-cs.stanford.edu" => Some("en"),
        "www.paraguayos.org" => Some("es"),
        "hidemiyoshi.jp" => Some("ja"),
        "awesomewm.org" => {
            let last = url.trim_end_matches('/').rsplit('/').next().unwrap_or("");
            Some(match last {
                "ru" => "ru",
                "fr" => "fr",
                "de" => "de",
                "es" => "es",
                "it" => "it",
                "pt" | "pt-br" => "pt",
                "pl" => "pl",
                "cs" => "cs",
                "zh" | "zh-cn" | "zh-hans" | "zh-hant" | "zh-tw" => "zh",
                "ja" => "ja",
                "ko" => "ko",
                "tr" => "tr",
                "uk" => "uk",
                "nl" => "nl",
                "sv" => "sv",
                "da" => "da",
                _ => "en",
            })
        }
        _ => None,
    }
}

fn iso1_of_639_3(code: &str) -> String {
    match code {
        "cmn" => "zh".into(),
        "pes" => "fa".into(),
        _ => isolang::Language::from_639_3(code).and_then(|l| l.to_639_1()).map_or(code.to_string(), str::to_string),
    }
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: langid-compare CORPUS.jsonl");
    let file = std::fs::File::open(&path).expect("corpus");
    let mut docs: Vec<(String, &'static str)> = Vec::new();
    for line in std::io::BufReader::new(file).lines() {
        let v: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        let (host, url) = (v["host"].as_str().unwrap_or(""), v["url"].as_str().unwrap_or(""));
        if let Some(t) = truth(host, url) {
            let text = v["text"].as_str().unwrap_or("");
            let mut end = text.len().min(2048);
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            docs.push((text[..end].to_string(), t));
        }
    }
    let lingua = lingua::LanguageDetectorBuilder::from_all_languages().build();
    type Detect<'a> = Box<dyn Fn(&str) -> Option<String> + 'a>;
    let tools: Vec<(&str, Detect)> = vec![
        ("whatlang 0.16", Box::new(|t: &str| whatlang::detect(t).map(|i| iso1_of_639_3(i.lang().code())))),
        ("whichlang 0.1", Box::new(|t: &str| Some(iso1_of_639_3(whichlang::detect_language(t).three_letter_code())))),
        (
            "lingua 1 (17 languages)",
            Box::new(|t: &str| lingua.detect_language_of(t).map(|l| l.iso_code_639_1().to_string())),
        ),
    ];
    println!("{} records with a known language ({path})", docs.len());
    println!("| tool | long (≥200 chars) right | short right | µs per record |");
    println!("| --- | ---: | ---: | ---: |");
    for (name, detect) in &tools {
        let (mut long, mut long_ok, mut short, mut short_ok) = (0, 0, 0, 0);
        let start = Instant::now();
        for (text, truth) in &docs {
            let ok = detect(text).as_deref() == Some(*truth);
            if text.chars().count() >= 200 {
                long += 1;
                long_ok += usize::from(ok);
            } else {
                short += 1;
                short_ok += usize::from(ok);
            }
        }
        let us = start.elapsed().as_secs_f64() * 1e6 / docs.len().max(1) as f64;
        println!(
            "| {name} | {:.1} % ({long_ok}/{long}) | {:.1} % ({short_ok}/{short}) | {us:.0} |",
            100.0 * long_ok as f64 / long.max(1) as f64,
            100.0 * short_ok as f64 / short.max(1) as f64
        );
    }
}
