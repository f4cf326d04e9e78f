//! Development aid: dump the combiner's block features with gold labels as TSV on stdout.
//! `cargo run --release --example dump_blocks -- ../shared/data/cleaneval ...`
use webcorpus::eval::dataset::{is_holdout_site, Dataset};
use webcorpus::extract::combiner::{features::column_names, inputs};
use webcorpus::extract::stoplist::{language_sample, stoplist_for};
use webcorpus::html::{segment, Document};
use webcorpus::train::labels::page_labels;

fn main() {
    let mut out = String::from("set\tpage\tsite\tholdout\twords\tgold");
    for n in column_names() {
        out.push('\t');
        out.push_str(&n);
    }
    println!("{out}");
    for dir in std::env::args().skip(1) {
        let set = Dataset::load(std::path::Path::new(&dir)).expect("set");
        for page in &set.pages {
            let Ok(html) = set.read_html(page) else { continue };
            let doc = Document::parse(&html);
            let blocks = segment(&doc);
            let stoplist = stoplist_for(None, &language_sample(&blocks));
            let inp = inputs(&doc, &blocks, &stoplist, &Default::default(), &Default::default()).expect("inputs");
            let Some(gold) = page_labels(page, &blocks) else { continue };
            let site = page.site_key();
            let k = column_names().len();
            for (i, b) in blocks.iter().enumerate() {
                let g = match gold[i] {
                    Some(true) => "1",
                    Some(false) => "0",
                    None => "",
                };
                let mut line = format!(
                    "{}\t{}\t{}\t{}\t{}\t{}",
                    set.name,
                    page.id,
                    site,
                    is_holdout_site(&site) as u8,
                    b.words,
                    g
                );
                for v in &inp.features[i * k..(i + 1) * k] {
                    line.push_str(&format!("\t{v:.4}"));
                }
                println!("{line}");
            }
        }
    }
}
