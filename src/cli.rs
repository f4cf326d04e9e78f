//! The command line (clap): `crawl`, `extract`, `stats`, `score`, `eval`. Parsing only; `main.rs`
//! runs the commands through the library.
//!
//! The doc comments here are the `--help` text, shown verbatim: they name configuration tables
//! (`[crawl]`, `[learn]`) and path patterns (`DIR/<set>/<id>.txt`) that rustdoc would read as
//! links and HTML tags.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

use crate::extract::ExtractorKind;
use crate::write::CorpusFormat;
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::time::Duration;

/// webcorpus: crawl seed URLs into a clean, deduplicated text corpus.
#[derive(Debug, Parser)]
#[command(name = "webcorpus", version, about)]
pub struct Cli {
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Crawl from seeds, learn each host's template, extract, deduplicate and write the
    /// corpus. Run again with the same --state to resume. Exit status: 0 done, 1 error, 2 bad
    /// command line, 3 every host given up (none could be reached), 69 a cluster worker lost
    /// Redis, 75 stopped by the disk guard, 130/143 stopped by SIGINT/SIGTERM.
    Crawl(CrawlArgs),
    /// Extract main text from local HTML files (plain or .gz) and WARC files (.warc, .warc.gz);
    /// one JSON line per page.
    Extract(ExtractArgs),
    /// Print what a crawl state holds: hosts, pages, models, queues, corpus, duplicates.
    Stats(StatsArgs),
    /// Write one self-contained HTML file that shows, for a host of a crawl, why each text
    /// block of its pages was kept or dropped, with its learned model.
    Show(ShowArgs),
    /// Onion paragraph deduplication over existing corpora (JSONL, vertical, text), in the
    /// order given: the first instance of a paragraph wins. Also merges several crawls.
    Dedup(DedupArgs),
    /// Convert a crawl's JSONL corpus (finished or still being written) to jsonl, vert, text
    /// or dolma, filtered by language, page type or host, gzip-compressed and sharded.
    Export(ExportArgs),
    /// Score a JSONL corpus against gold text (word-level P/R/F1, CleanEval style).
    Score(ScoreArgs),
    /// Evaluate extractors on the annotated sets (../shared/data): word, bag-of-words,
    /// shingle and snippet scores with bootstrap standard errors, and throughput.
    Eval(EvalArgs),
    /// Train a learned model on the annotated sets, on the CPU: the default extractor's block
    /// combiner, the BoilerNet block labeller or the article-vs-other page classifier.
    #[command(subcommand)]
    Train(TrainCommand),
}

/// `webcorpus train <model>`.
#[derive(Debug, Subcommand)]
pub enum TrainCommand {
    /// BoilerNet (Leonhardt et al. 2020): a BiLSTM labelling text blocks as main content.
    Boilernet(TrainBoilernetArgs),
    /// The article-vs-other page classifier (an MLP over page features).
    Classifier(TrainClassifierArgs),
    /// The default extractor's combiner: boosted trees over every cheap extractor's block
    /// label, the markup's hints and the block's text statistics.
    Combiner(TrainCombinerArgs),
    /// The default extractor's host-evidence model: boosted trees over a host model's signals
    /// (learned stretch, static noise, ...) and the combiner's probability, on the hosts with
    /// several pages.
    HostEvidence(TrainHostEvidenceArgs),
}

/// `webcorpus train host-evidence`: the host-evidence model on the hosts of the sets with at
/// least `--min-sample` pages, each page extracted with its host's model learned without it
/// and the combiner fold model that never saw its site; with `--cv`, also one model per site
/// fold, each scored on the fold it never saw. Defaults are the shipped model's
/// (`models/README.md`).
#[derive(Debug, clap::Args)]
pub struct TrainHostEvidenceArgs {
    /// Sets to train on (names under the data directory, or directories), comma-separated.
    #[arg(long, value_delimiter = ',', required = true)]
    pub data: Vec<PathBuf>,
    /// Where to write the model (JSON).
    #[arg(long)]
    pub out: PathBuf,
    /// The combiner's fold models (`train combiner --cv DIR`); the host-evidence fold models
    /// are written beside them with `--cv`.
    #[arg(long, value_name = "DIR", default_value = "models/combiner-cv")]
    pub combiner_cv: PathBuf,
    /// Also write one model per site fold into DIR/host-evidence-fold-K.json.
    #[arg(long)]
    pub cv: bool,
    /// Learn a model for every host with at least N pages.
    #[arg(long, default_value_t = 5)]
    pub min_sample: usize,
    /// Number of trees (of each bag).
    #[arg(long, default_value_t = 100)]
    pub trees: usize,
    /// Maximum tree depth.
    #[arg(long, default_value_t = 3)]
    pub depth: usize,
    /// Shrinkage per tree.
    #[arg(long, default_value_t = 0.1)]
    pub lr: f32,
    /// Minimum rows in a leaf.
    #[arg(long, default_value_t = 50)]
    pub min_rows: usize,
    /// Probability of main content at which a block is kept.
    #[arg(long, default_value_t = 0.5)]
    pub threshold: f32,
    /// Ensembles fitted with seeds 1, 2, … and averaged.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=16))]
    pub bags: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Configuration file (for [eval] data_dir, [learn]).
    #[arg(long, default_value = "config.toml")]
    pub config: PathBuf,
}

/// `webcorpus train combiner`: the default extractor's block combiner on the sets' gold block
/// labels of every site; with `--cv`, also one model per site fold, each scored on the fold
/// it never saw. Defaults are the shipped model's (`models/README.md`).
#[derive(Debug, clap::Args)]
pub struct TrainCombinerArgs {
    /// Sets to train on (names under the data directory, or directories), comma-separated.
    #[arg(long, value_delimiter = ',', required = true)]
    pub data: Vec<PathBuf>,
    /// Where to write the model (JSON).
    #[arg(long)]
    pub out: PathBuf,
    /// Number of trees (of each bag).
    #[arg(long, default_value_t = 200)]
    pub trees: usize,
    /// Maximum tree depth.
    #[arg(long, default_value_t = 7)]
    pub depth: usize,
    /// Shrinkage per tree.
    #[arg(long, default_value_t = 0.1)]
    pub lr: f32,
    /// Probability of main content at which a block is kept.
    #[arg(long, default_value_t = 0.5)]
    pub threshold: f32,
    /// Seed of the row and column sampling (bag K uses seed + K).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Ensembles of `--trees` trees fitted with seeds seed, seed + 1, … and averaged into one
    /// model (lowers the seed-to-seed variance; the model has bags × trees trees to evaluate).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=16))]
    pub bags: u64,
    /// Share of the feature columns each tree may split on (drawn per tree).
    #[arg(long, default_value_t = 0.5)]
    pub column_sample: f64,
    /// A block weighs its words / its page's words^P: 0 weighs every word the same, 1 every
    /// page.
    #[arg(long, default_value_t = 0.5)]
    pub page_power: f64,
    /// On snippet-labelled pages a block weighs its words^S, scaled to the page's words: 0
    /// weighs every snippet the same (as the snippet score counts), 1 every word.
    #[arg(long, default_value_t = 0.5)]
    pub snippet_power: f64,
    /// Also train one model per site fold (`eval::dataset::site_fold`; fold K's sites held
    /// out, and its held-out blocks scored) into DIR/fold-K.json, for `webcorpus eval
    /// --combiner-cv DIR`.
    #[arg(long, value_name = "DIR")]
    pub cv: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Configuration file (for [eval] data_dir).
    #[arg(long, default_value = "config.toml")]
    pub config: PathBuf,
}

/// `webcorpus train boilernet`: BoilerNet (Leonhardt et al. 2020) on the sets' gold block
/// labels; the held-out sites (about a fifth of each set's sites, the pages `eval --split
/// holdout` scores) validate every epoch, and the epoch with the best validation F1 is written. Defaults are the paper's sizes.
#[derive(Debug, clap::Args)]
pub struct TrainBoilernetArgs {
    /// Sets to train on (names under the data directory, or directories), comma-separated.
    #[arg(long, value_delimiter = ',', required = true)]
    pub data: Vec<PathBuf>,
    /// Where to write the model.
    #[arg(long)]
    pub out: PathBuf,
    /// Seed of initialisation, shuffling and dropout.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Passes over the training pages.
    #[arg(long, default_value_t = 20)]
    pub epochs: usize,
    /// LSTM units per direction.
    #[arg(long, default_value_t = 256)]
    pub hidden: usize,
    /// Width of the dense projection of the input.
    #[arg(long, default_value_t = 256)]
    pub dense: usize,
    /// BiLSTM layers.
    #[arg(long, default_value_t = 2)]
    pub layers: usize,
    /// Dropout after the last BiLSTM layer.
    #[arg(long, default_value_t = 0.5)]
    pub dropout: f32,
    /// Pages per batch.
    #[arg(long, default_value_t = 16)]
    pub batch: usize,
    /// Adam learning rate.
    #[arg(long, default_value_t = 1e-3)]
    pub lr: f32,
    /// Tag vocabulary size (plus one out-of-vocabulary slot).
    #[arg(long, default_value_t = 50)]
    pub tags: usize,
    /// Word vocabulary size (plus one out-of-vocabulary slot).
    #[arg(long, default_value_t = 1000)]
    pub words: usize,
    /// Use only the first N pages of each set (quick runs).
    #[arg(long)]
    pub limit: Option<usize>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Configuration file (for [eval] data_dir).
    #[arg(long, default_value = "config.toml")]
    pub config: PathBuf,
}

/// `webcorpus train classifier`: the article-vs-other page classifier on the typed pages of
/// the sets (article/blog vs. the other types), split by site into train/validation/test.
#[derive(Debug, clap::Args)]
pub struct TrainClassifierArgs {
    /// Sets to train on (names under the data directory, or directories), comma-separated.
    /// Default: every set there (untyped pages are skipped).
    #[arg(long, value_delimiter = ',')]
    pub data: Vec<PathBuf>,
    /// Where to write the model.
    #[arg(long)]
    pub out: PathBuf,
    /// Seed of the initialisation and the shuffling.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Passes over the training pages (the epoch with the lowest validation loss is kept).
    #[arg(long, default_value_t = 300)]
    pub epochs: usize,
    /// Features, comma-separated (default: the shipped model's set; see models/README.md).
    #[arg(long, value_delimiter = ',')]
    pub features: Vec<String>,
    /// Hidden units.
    #[arg(long, default_value_t = 35)]
    pub hidden: usize,
    /// L2 weight decay λ.
    #[arg(long, default_value_t = 1e-3)]
    pub l2: f32,
    /// Weight the classes equally in the loss (default: as the data's article share; the
    /// ablation measured unbalanced better).
    #[arg(long)]
    pub balanced: bool,
    /// First run the feature ablation (site-grouped 5-fold cross-validation on the training
    /// and validation sites) and print it.
    #[arg(long)]
    pub ablation: bool,
    /// Use at most N typed pages per set (quick runs).
    #[arg(long)]
    pub limit: Option<usize>,
    /// Worker threads for extraction (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Configuration file (for [justext], [learn.stadynot], [crawl] language, [eval] data_dir).
    #[arg(long, default_value = "config.toml")]
    pub config: PathBuf,
}

/// `webcorpus crawl`.
#[derive(Debug, clap::Args)]
pub struct CrawlArgs {
    /// Seeds file: one URL per line, `#` starts a comment; `-` reads standard input.
    #[arg(long)]
    pub seeds: PathBuf,
    /// Configuration file (missing default file = built-in defaults).
    #[arg(long, default_value = "config.toml")]
    pub config: PathBuf,
    /// State directory (overrides [crawl] state_dir).
    #[arg(long)]
    pub state: Option<PathBuf>,
    /// Corpus output directory (overrides [crawl] out_dir).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Extractor: default, rules, justext, goldminer, stadynot, bte, boilerpipe, boilerpipe-tree,
    /// boilernet (overrides [crawl] extractor).
    #[arg(long)]
    pub extractor: Option<ExtractorKind>,
    /// Corpus format: jsonl (one record per line), vert (Sketch Engine vertical), txt (plain
    /// text), dolma (Dolma's documents) (overrides [crawl] format, default jsonl).
    #[arg(long)]
    pub format: Option<CorpusFormat>,
    /// Minimum delay between two requests to one host, e.g. "2s", "200ms" (overrides
    /// [politeness] min_delay).
    #[arg(long, value_parser = humantime::parse_duration)]
    pub min_delay: Option<Duration>,
    /// Maximum pages fetched per host: at most this many of a host's URLs are ever queued
    /// (overrides [crawl] max_pages_per_host).
    #[arg(long)]
    pub max_pages_per_host: Option<u64>,
    /// Write no WARC files (overrides [warc] enabled).
    #[arg(long)]
    pub no_warc: bool,
    /// Write each page's comment section to its record's `comments` field (`[extract]
    /// comments`); comments are never part of `text`.
    #[arg(long)]
    pub comments: bool,
    /// Re-crawl: fetch every page of the state again with If-None-Match / If-Modified-Since
    /// (304 = unchanged, counted as not_modified); changed pages are extracted again and written
    /// as new records with the same id, Onion dropping the paragraphs already written.
    #[arg(long)]
    pub refresh: bool,
    /// Serve a live status page (HTML at `/`, JSON at `/status.json`) on `PORT` (loopback) or
    /// `ADDRESS:PORT` while the crawl runs (overrides [crawl] status).
    #[arg(long, value_name = "[ADDRESS:]PORT")]
    pub status: Option<String>,
    /// Join a crawl shared by several workers through this Redis server, e.g.
    /// `redis://10.0.0.5:6379/` (overrides [cluster] redis; see `docs/cluster.md`).
    #[arg(long, value_name = "REDIS_URL")]
    pub cluster: Option<String>,
    /// This worker's name in the cluster crawl, unique and the same across its restarts
    /// (overrides [cluster] worker_id).
    #[arg(long)]
    pub worker_id: Option<String>,
    /// The cluster crawl's name: workers with the same Redis and name share one crawl
    /// (overrides [cluster] name).
    #[arg(long)]
    pub crawl_name: Option<String>,
    /// No progress bars.
    #[arg(long, short)]
    pub quiet: bool,
}

/// `webcorpus extract`.
#[derive(Debug, clap::Args)]
pub struct ExtractArgs {
    /// HTML files, plain or gzip-compressed (.gz), and WARC files (.warc, .warc.gz).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Extractor: default, rules, justext, goldminer, stadynot, bte, boilerpipe, boilerpipe-tree,
    /// boilernet.
    #[arg(long, default_value = "default")]
    pub extractor: ExtractorKind,
    /// Take all files as pages of one site with this name: learn a domain model from them
    /// first and extract each with it (the GoldMiner/StaDyNoT protocol).
    #[arg(long)]
    pub site: Option<String>,
    /// With --site: print the learned model (patterns, static noise keys) to stderr.
    #[arg(long)]
    pub show_model: bool,
    /// WARC files only: extract as the crawl does, each host's pages with the model learned
    /// from its first [learn] sample_size pages, Onion-deduplicated in file order, and write
    /// the crawl's corpus records (see --format) instead of one line per page.
    #[arg(long, conflicts_with = "site")]
    pub per_site: bool,
    /// With --per-site: corpus format of the records written to standard output: jsonl, vert,
    /// txt, dolma.
    #[arg(long, default_value = "jsonl", requires = "per_site")]
    pub format: crate::write::CorpusFormat,
    /// Configuration file (for [justext], [learn], [crawl] language).
    #[arg(long, default_value = "config.toml")]
    pub config: PathBuf,
    /// Stoplist language (overrides [crawl] language; "auto" detects).
    #[arg(long)]
    pub language: Option<String>,
    /// Write each page's comment section to its record's `comments` field (`[extract]
    /// comments`); comments are never part of `text`.
    #[arg(long)]
    pub comments: bool,
}

/// `webcorpus stats`.
#[derive(Debug, clap::Args)]
pub struct StatsArgs {
    /// State directory of a crawl.
    #[arg(long, default_value = "state")]
    pub state: PathBuf,
    /// Show this host's learned model (patterns and static noise keys).
    #[arg(long)]
    pub host: Option<String>,
    /// Print the counters, the queue size, the WARC position and the host records as one
    /// JSON object (for monitoring) instead of the report.
    #[arg(long)]
    pub json: bool,
    /// Report on a cluster crawl instead, from its Redis server (`redis://HOST:PORT/`): every
    /// worker, its partitions, hosts and rate, and the crawl's totals.
    #[arg(long, value_name = "REDIS_URL")]
    pub cluster: Option<String>,
    /// The cluster crawl's name (with --cluster; default: [cluster] name of --config).
    #[arg(long)]
    pub crawl_name: Option<String>,
    /// Configuration file, for [cluster] (with --cluster).
    #[arg(long, default_value = "config.toml")]
    pub config: PathBuf,
}

/// `webcorpus show`.
#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// State directory of a finished (or stopped) crawl.
    #[arg(long, default_value = "state")]
    pub state: PathBuf,
    /// The host (as `webcorpus stats` lists it).
    #[arg(long, required_unless_present = "site")]
    pub host: Option<String>,
    /// Local HTML files of one site instead of a crawl: the site's model is learned from them
    /// (as `extract --site`, with the crawl's `min_sample` rule) and every file is shown.
    #[arg(long, requires = "files")]
    pub site: Option<String>,
    /// The HTML files (with --site).
    pub files: Vec<PathBuf>,
    /// Only this page of the host.
    #[arg(long)]
    pub url: Option<String>,
    /// The crawl's corpus directory, with its `warc/` (default: where the crawl wrote, as its
    /// state records it, else [crawl] out_dir).
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// Pages shown at most, in crawl order.
    #[arg(long, default_value_t = 100)]
    pub max_pages: usize,
    /// The HTML file to write.
    #[arg(long, default_value = "show.html")]
    pub out: PathBuf,
    /// The crawl's configuration file (extractor, thresholds).
    #[arg(long, default_value = "config.toml")]
    pub config: PathBuf,
}

/// `webcorpus dedup`.
#[derive(Debug, clap::Args)]
pub struct DedupArgs {
    /// Input corpora, read in this order (.jsonl, .vert or .txt; all in one format).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// The deduplicated corpus, in the inputs' format.
    #[arg(long)]
    pub out: PathBuf,
    /// The inputs' format when their names do not tell it: jsonl (dolma files too), vert or txt.
    #[arg(long)]
    pub format: Option<crate::write::CorpusFormat>,
    /// Configuration file ([dedup]: n, threshold, mode, Bloom filter size).
    #[arg(long, default_value = "config.toml")]
    pub config: PathBuf,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// `webcorpus export`.
#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// The crawl's JSONL corpus files (.jsonl or .jsonl.gz), read in this order.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Output format: jsonl (webcorpus records), vert (Sketch Engine vertical), text, dolma
    /// (Dolma's document schema).
    #[arg(long, default_value = "jsonl")]
    pub format: CorpusFormat,
    /// Directory for the shard files corpus-00000.<ext>[.gz], ...; `-` writes to standard output.
    #[arg(long, default_value = "export")]
    pub out: PathBuf,
    /// Compress every shard with gzip.
    #[arg(long)]
    pub gzip: bool,
    /// Begin a new shard after this many (uncompressed) bytes; 0 = one file.
    #[arg(long, default_value_t = 0)]
    pub shard_bytes: u64,
    /// Put each record's headline back into its text, as the first paragraph (a heading),
    /// for tools that expect it there (the vertical format marks it `<head type="headline">`
    /// either way).
    #[arg(long)]
    pub headline: bool,
    /// Keep only records in these languages (ISO 639-1 codes of `lang`, comma-separated; an ISO
    /// 639-3 code is read as its 639-1 form, `jpn` as `ja`; a language name is refused).
    #[arg(long, value_delimiter = ',')]
    pub lang: Vec<String>,
    /// Keep only these page types: article, other (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub page_type: Vec<crate::classify::PageType>,
    /// Keep only these hosts (comma-separated, as in the records' `host`).
    #[arg(long, value_delimiter = ',')]
    pub host: Vec<String>,
}

/// `webcorpus score`.
#[derive(Debug, clap::Args)]
pub struct ScoreArgs {
    /// The corpus (JSONL written by `crawl`).
    #[arg(long)]
    pub corpus: PathBuf,
    /// Gold file (`gold.jsonl` of a set in ../shared/data: url and text per page).
    #[arg(long)]
    pub gold: PathBuf,
    /// Also print one line per gold page.
    #[arg(long)]
    pub per_page: bool,
}

/// `webcorpus eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// Sets: directories, or names of sets under the data directory (WEBCORPUS_DATA or
    /// [eval] data_dir), comma-separated. Default: every set there.
    #[arg(long, value_delimiter = ',')]
    pub data: Vec<PathBuf>,
    /// Extractors, comma-separated. Default: all.
    #[arg(long, value_delimiter = ',')]
    pub extractor: Vec<ExtractorKind>,
    /// Write every number (rows, sites, pages) to this JSON file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write the evaluation as one self-contained HTML page: charts with error bars, per-site
    /// and per-page-type breakdowns, each set's ten worst pages beside their gold text.
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Add per-site rows (sites with at least [learn] min_sample pages; the rest pooled).
    #[arg(long)]
    pub per_site: bool,
    /// Also evaluate per-site extractors with each page's model learned without it, and the
    /// default without any model ("default (unlearned)").
    #[arg(long)]
    pub leave_one_out: bool,
    /// Learn a model for every site (host) with at least N pages, overriding [learn]
    /// min_sample for this evaluation (e.g. 5, to compare learned and unlearned on smaller
    /// hosts than the crawl learns from).
    #[arg(long, value_name = "N")]
    pub min_sample: Option<usize>,
    /// Evaluate only the first N pages of each set.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Pages to evaluate: all, train or holdout. The holdout pages are those of about a fifth of
    /// each set's sites (chosen by a hash of the site's name), which BoilerNet never trained on,
    /// so every extractor can be compared on the pages BoilerNet never saw.
    #[arg(long, default_value = "all")]
    pub split: crate::eval::dataset::Split,
    /// Worker threads (default: all cores); pages/s is per thread either way.
    #[arg(long)]
    pub threads: Option<usize>,
    /// An external tool's precomputed outputs as one more row named NAME: DIR/<set>/<id>.txt
    /// per page (missing = a discard), optional DIR/<set>/timing.json for pages/s
    /// (`eval::reference`; made by scripts/reference-tools.sh). Repeatable.
    #[arg(long, value_name = "NAME=DIR")]
    pub reference: Vec<crate::eval::reference::Reference>,
    /// Site-grouped cross-validation of the default's combiner: DIR holds the fold models of
    /// `webcorpus train combiner --cv DIR`, and each page is extracted with the model trained
    /// without its site's fold, so no page is judged by a combiner that saw its site.
    #[arg(long, value_name = "DIR")]
    pub combiner_cv: Option<PathBuf>,
    /// Write every row's extracted text to `DIR/<row>/<set>/<id>.txt` (the layout of
    /// `--reference`; a discard has no file), to read beside the gold or score with another
    /// scorer.
    #[arg(long, value_name = "DIR")]
    pub outputs: Option<PathBuf>,
    /// Configuration file (for [justext], [learn], [crawl] language, [eval] data_dir).
    #[arg(long, default_value = "config.toml")]
    pub config: PathBuf,
}
