//! The `webcorpus` binary: parse the command line, run the command through the library, map
//! errors to a message and an exit code. `anyhow` lives only here.

use anyhow::{bail, Context, Result};
use clap::Parser;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use webcorpus::cli::{Cli, Command, CrawlArgs, EvalArgs, ExtractArgs, ScoreArgs, StatsArgs, TrainCommand};
use webcorpus::config::Config;
use webcorpus::crawl::stats::report;
use webcorpus::crawl::CrawlOptions;
use webcorpus::domain::{learn::learn, SamplePage};
use webcorpus::extract::files::read_page;
use webcorpus::extract::pipeline::{extract_html, ExtractSettings};
use webcorpus::extract::ExtractorKind;
use webcorpus::store::{CrawlState, SledStore};

fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "webcorpus=warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    match run(Cli::parse()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", error_chain(&e));
            std::process::ExitCode::FAILURE
        }
    }
}

/// The error and its causes joined by ": ", leaving out a cause whose text the message before
/// it already shows (our typed errors print their source themselves).
fn error_chain(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if !out.contains(&text) {
            if !out.is_empty() {
                out.push_str(": ");
            }
            out.push_str(&text);
        }
    }
    out
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Crawl(args) => crawl(args),
        Command::Extract(args) => extract(args),
        Command::Stats(args) => stats(args),
        Command::Score(args) => score(args),
        Command::Eval(args) => eval(args),
        Command::Train(TrainCommand::Boilernet(_args)) => bail!("train boilernet: being built (issue 4)"),
        Command::Train(TrainCommand::Classifier(_args)) => bail!("train classifier: being built (issue 4)"),
    }
}

/// The config file, or the built-in defaults when the default `config.toml` is absent.
fn load_config(path: &Path) -> Result<Config> {
    if !path.exists() && path == Path::new("config.toml") {
        eprintln!("note: no config.toml here; using the built-in defaults");
        return Ok(Config::default());
    }
    Ok(Config::load(path)?)
}

fn crawl(args: CrawlArgs) -> Result<()> {
    let mut config = load_config(&args.config)?;
    if let Some(state) = args.state {
        config.crawl.state_dir = state;
    }
    if let Some(out) = args.out {
        config.crawl.out_dir = out;
    }
    if let Some(extractor) = args.extractor {
        config.crawl.extractor = extractor;
    }
    if let Some(format) = args.format {
        config.crawl.format = format;
    }
    if let Some(delay) = args.min_delay {
        config.politeness.min_delay = delay;
    }
    if let Some(max) = args.max_pages_per_host {
        config.crawl.max_pages_per_host = max;
    }
    let opts = CrawlOptions { config, seeds: args.seeds, quiet: args.quiet };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting tokio")?;
    let summary = runtime.block_on(webcorpus::crawl::run(opts))?;
    let c = &summary.counters;
    println!(
        "{}: {} hosts ({} learned), {} pages fetched, {} failed, {} robots-disallowed",
        if summary.interrupted { "interrupted" } else { "crawl finished" },
        summary.hosts,
        summary.learned,
        c.fetched,
        c.failed,
        c.robots_disallowed
    );
    println!(
        "corpus {}: {} records, {} paragraphs; {} duplicate paragraphs dropped; {} URLs still queued",
        summary.corpus.display(),
        c.records,
        c.paragraphs,
        c.duplicate_paragraphs,
        summary.queued
    );
    if !c.discards.is_empty() {
        println!("pages without a record: {:?}", c.discards);
    }
    Ok(())
}

fn extract(args: ExtractArgs) -> Result<()> {
    let config = load_config(&args.config)?;
    let language = match args.language.as_deref() {
        Some(l) if !l.eq_ignore_ascii_case("auto") => Some(l.to_string()),
        Some(_) => None,
        None => config.crawl.language().map(str::to_string),
    };
    let settings = ExtractSettings { language: language.clone(), ..ExtractSettings::from_config(&config) };
    let pages: Vec<_> = args.files.iter().map(|f| read_page(f)).collect();
    let model = match &args.site {
        Some(site) => {
            let sample: Vec<SamplePage> = pages
                .iter()
                .flatten()
                .map(|p| SamplePage { url: p.id.clone(), html: p.decoded.text.clone() })
                .collect();
            if sample.is_empty() {
                bail!("--site {site}: none of the files could be read");
            }
            let model = learn(site, &sample, language.as_deref(), &config.justext, &config.learn);
            if args.show_model {
                eprint!("{}", model.summary());
            }
            Some(Arc::new(model))
        }
        None => None,
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for (path, page) in args.files.iter().zip(pages) {
        let line = match page {
            Err(e) => serde_json::json!({ "id": webcorpus::extract::files::file_id(path), "error": e.to_string() }),
            Ok(page) => match extract_html(&page.decoded.text, args.extractor, model.as_deref(), &settings) {
                Ok(ex) => serde_json::json!({
                    "id": page.id,
                    "text": webcorpus::model::join_paragraphs(&ex.paragraphs),
                    "paragraphs": ex.paragraphs,
                    "title": ex.title,
                    "language": ex.language,
                    "extractor": ex.extractor,
                }),
                Err(e) => serde_json::json!({ "id": page.id, "error": e.to_string() }),
            },
        };
        writeln!(out, "{line}")?;
    }
    Ok(())
}

fn stats(args: StatsArgs) -> Result<()> {
    if !args.state.exists() {
        bail!("no crawl state at {}", args.state.display());
    }
    let state = CrawlState::open(Arc::new(SledStore::open(&args.state)?))?;
    print!("{}", report(&state, args.host.as_deref())?);
    Ok(())
}

fn score(args: ScoreArgs) -> Result<()> {
    let report = webcorpus::eval::score::score_corpus(&args.corpus, &args.gold)?;
    print!("{}", report.render(args.per_page));
    Ok(())
}

fn eval(args: EvalArgs) -> Result<()> {
    use webcorpus::eval::{dataset, run};
    let config = load_config(&args.config)?;
    let sets = dataset::resolve_sets(&config.data_dir(), &args.data)?;
    let extractors = if args.extractor.is_empty() { ExtractorKind::ALL.to_vec() } else { args.extractor };
    let opts = run::EvalOptions {
        extractors,
        leave_one_out: args.leave_one_out,
        limit: args.limit,
        threads: args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1),
        settings: ExtractSettings::from_config(&config),
        learn: config.learn.clone(),
    };
    let mut reports = Vec::new();
    for dir in sets {
        let set = dataset::Dataset::load(&dir)?;
        let report = run::evaluate_set(&set, &opts);
        println!("{}", report.render(args.per_site));
        reports.push(report);
    }
    if let Some(path) = args.json {
        let file = std::fs::File::create(&path).with_context(|| format!("creating {}", path.display()))?;
        serde_json::to_writer(std::io::BufWriter::new(file), &reports)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}
