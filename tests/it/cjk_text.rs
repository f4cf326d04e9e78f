//! Text without spaces: a Japanese post of one paragraph is main text. The blog posts of
//! `../shared/sites/hidemiyoshi.jp` are short (often one paragraph of 100–300 characters and
//! no space); extractors that count words by whitespace see one "word" there and drop the post
//! as boilerplate. Words are counted per character in Chinese and Japanese
//! (`webcorpus::html::count_words`), so the per-page default, the rules and Boilerpipe keep
//! those posts without a site model.

use crate::support;

use std::path::{Path, PathBuf};
use webcorpus::extract::pipeline::{extract_html, ExtractSettings};
use webcorpus::extract::ExtractorKind;

/// The blog's posts named by their title: pages under `blog/<year>/<month>/` whose name is not
/// a number (the day archives, and one post, are named by a number).
fn posts(shared: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![shared.join("sites/hidemiyoshi.jp/blog")];
    while let Some(dir) = dirs.pop() {
        for path in std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()) {
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
            if path.is_dir() {
                dirs.push(path);
            } else if stem != "index" && !stem.chars().all(|c| c.is_ascii_digit()) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn text(path: &Path, kind: ExtractorKind) -> String {
    let html = String::from_utf8(std::fs::read(path).unwrap()).expect("the blog is UTF-8");
    let page = extract_html(&html, kind, None, &ExtractSettings::default()).unwrap();
    page.paragraphs.into_iter().map(|p| p.text).collect::<Vec<_>>().join("\n")
}

#[test]
fn japanese_posts_of_one_paragraph_keep_it() {
    let Some(shared) = support::shared_dir("japanese_posts_of_one_paragraph_keep_it") else { return };
    let posts = posts(&shared);
    assert!(posts.len() >= 80, "{} posts", posts.len());

    // Two posts whose whole text is one paragraph after the title.
    let post = |name: &str| posts.iter().find(|p| p.to_string_lossy().contains(name)).expect(name).clone();
    for (page, paragraph) in [
        (post("ヒモから歌舞伎町の錬金術師へ"), "いよいよ明日RISEデビュー。そしていきなり1デイトーナメントに出場。"),
        (post("ファイトウィーク（試合前の最終週）！"), "いよいよ1週間を切りました。"),
    ] {
        for kind in [ExtractorKind::Default, ExtractorKind::Rules, ExtractorKind::Boilerpipe] {
            let text = text(&page, kind);
            assert!(text.contains(paragraph), "{kind:?} lost the post {}: {text:?}", page.display());
        }
    }

    // Every post gives the per-page default more than a title's worth of text.
    let short: Vec<String> = posts
        .iter()
        .filter(|p| text(p, ExtractorKind::Default).chars().filter(|c| webcorpus::html::is_cjk(*c)).count() < 40)
        .map(|p| p.display().to_string())
        .collect();
    assert!(short.is_empty(), "posts with under 40 CJK characters of text: {short:?}");
}
