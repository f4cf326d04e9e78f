//! `webcorpus eval --html`: the evaluation as one self-contained page — a chart per set with
//! error bars, the per-site and per-page-type breakdowns, the worst pages beside their gold;
//! and `--outputs`, every row's text per page.

use crate::support;

use std::process::Command;

#[test]
fn eval_html_draws_charts_breakdowns_and_the_worst_pages_beside_their_gold() {
    let Some(shared) = support::shared_dir("eval_html_draws_charts_breakdowns_and_the_worst_pages_beside_their_gold")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("eval.html");
    let data = shared.join("data");
    let status = Command::new(env!("CARGO_BIN_EXE_webcorpus"))
        .arg("eval")
        .arg("--data")
        .arg(format!("{},{}", data.join("cleanportaleval").display(), data.join("modern2026-dev").display()))
        .args(["--extractor", "default,justext", "--limit", "40", "--threads", "1"])
        .arg("--html")
        .arg(&out)
        .arg("--outputs")
        .arg(dir.path().join("outputs"))
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(!html.contains("<script") && !html.contains("src=\"http"), "self-contained");
    for set in ["cleanportaleval", "modern2026-dev"] {
        assert!(html.contains(&format!("<h2 id=\"{set}\">")), "{set} has a section");
        assert!(html.contains(&format!("{set} — word F1")) && html.contains(&format!("{set} — shingle F1")));
    }
    assert_eq!(html.matches("<svg").count(), 4, "two charts per set");
    // Both sets trained the shipped combiner, so the default's scores are marked as such.
    assert_eq!(html.matches("<b>Not held out:</b>").count(), 2, "each set says its default is not held out");
    assert!(html.contains("stroke=\"#000\""), "error bars drawn");
    assert!(html.contains(": per site</h3>"));
    assert!(html.contains(": per page type</h3>"), "modern2026-dev has page types");
    let worst = html.matches("<div class=\"pair\">").count();
    assert_eq!(worst, 20, "ten worst pages per set");
    assert!(html.contains("<div class=\"b kept\""), "the worst pages' blocks are marked");
    assert!(html.matches("<div class=\"gold\">").count() == worst, "each beside its gold");
    // --outputs: one text file per row and page, in the layout --reference reads.
    for (row, set) in [("default", "cleanportaleval"), ("justext", "modern2026-dev")] {
        let texts = dir.path().join("outputs").join(row).join(set);
        let files: Vec<_> = std::fs::read_dir(&texts).unwrap().map(|e| e.unwrap().path()).collect();
        assert_eq!(files.len(), 40, "{row} on {set}: one file per page");
        let empty = files.iter().filter(|f| std::fs::read_to_string(f).unwrap().trim().is_empty()).count();
        assert!(empty < 10, "{row} on {set}: {empty} of 40 pages without text");
    }
}

/// With the site-grouped fold models (`--combiner-cv`) the default's scores are held out and no
/// set carries the note; the text report prints the note when they are not.
#[test]
fn eval_says_when_the_defaults_scores_are_not_held_out() {
    let Some(shared) = support::shared_dir("eval_says_when_the_defaults_scores_are_not_held_out") else {
        return;
    };
    let run = |cv: bool| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_webcorpus"));
        cmd.arg("eval").arg("--data").arg(shared.join("data/l3s-gn1"));
        cmd.args(["--extractor", "default", "--limit", "5", "--threads", "1"]);
        if cv {
            cmd.arg("--combiner-cv").arg(concat!(env!("CARGO_MANIFEST_DIR"), "/models/combiner-cv"));
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let plain = run(false);
    assert!(plain.contains("Note: The default's combiner was trained on the pages of l3s-gn1"), "{plain}");
    let cv = run(true);
    assert!(!cv.contains("Note:"), "{cv}");
}
