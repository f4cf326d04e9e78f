//! The `webcorpus` binary: parse the command line, run the command through the library, map
//! errors to a message and an exit code. `anyhow` lives only here.

use anyhow::{bail, Context, Result};
use clap::Parser;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use webcorpus::cli::{
    Cli, Command, CrawlArgs, DedupArgs, EvalArgs, ExtractArgs, ScoreArgs, ShowArgs, StatsArgs, TrainCommand,
};
use webcorpus::config::Config;
use webcorpus::crawl::record::RecordSource;
use webcorpus::crawl::stats::report;
use webcorpus::crawl::CrawlOptions;
use webcorpus::domain::{learn::learn, DomainModel, SamplePage};
use webcorpus::extract::combiner::CombinerModel;
use webcorpus::extract::files::read_page;
use webcorpus::extract::pipeline::{ExtractSettings, ModelUse};
use webcorpus::extract::warc_input::{is_warc, read_warc};
use webcorpus::extract::ExtractorKind;

#[path = "main/train.rs"]
mod train;

/// mimalloc: html5ever allocates a node, a tendril and attribute vectors per element, and the
/// system allocator was about a tenth of the extraction time (`perf`, modern2026-dev). Built
/// with `no_thp`: mimalloc does not ask for transparent huge pages, whose partly used 2 MiB
/// pages counted in full took a crawl's resident memory from about 340 to 410 MB for the same
/// CPU time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "webcorpus=warn".into()),
        )
        // Every log line bounded: a line may carry what a server sent.
        .with_writer(webcorpus::logging::BoundedLines(std::io::stderr))
        // Colour codes only on a terminal, not in log files and pipes.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    match run(Cli::parse()) {
        Ok(code) => std::process::ExitCode::from(code),
        Err(e) => {
            webcorpus::warn_line!("error: {}", error_chain(&e));
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

/// Run a command; the exit status on success (non-zero only for a crawl that stopped early
/// or gave hosts up, see `CrawlSummary::exit_code`).
fn run(cli: Cli) -> Result<u8> {
    match cli.command {
        Command::Crawl(args) => return crawl(args),
        Command::Extract(args) => extract(args),
        Command::Stats(args) => stats(args),
        Command::Show(args) => show(args),
        Command::Score(args) => score(args),
        Command::Dedup(args) => dedup(args),
        Command::Export(args) => export(args),
        Command::Eval(args) => eval(args),
        Command::Train(TrainCommand::Boilernet(args)) => train::boilernet(args),
        Command::Train(TrainCommand::Classifier(args)) => train::classifier(args),
        Command::Train(TrainCommand::Combiner(args)) => train::combiner(args),
        Command::Train(TrainCommand::HostEvidence(args)) => train::host_evidence(args),
    }?;
    Ok(0)
}

/// The config file, or the built-in defaults when the default `config.toml` is absent.
pub(crate) fn load_config(path: &Path) -> Result<Config> {
    if !path.exists() && path == Path::new("config.toml") {
        eprintln!("note: no config.toml here; using the built-in defaults");
        return Ok(Config::default());
    }
    Ok(Config::load(path)?)
}

fn crawl(args: CrawlArgs) -> Result<u8> {
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
    if args.no_warc {
        config.warc.enabled = false;
    }
    if args.comments {
        config.extract.comments = true;
    }
    if let Some(status) = args.status {
        webcorpus::crawl::status_page::parse_addr(&status).map_err(|e| anyhow::anyhow!("--status: {e}"))?;
        config.crawl.status = status;
    }
    if let Some(redis) = args.cluster {
        config.cluster.redis = redis;
    }
    if let Some(id) = args.worker_id {
        config.cluster.worker_id = id;
    }
    if let Some(name) = args.crawl_name {
        config.cluster.name = name;
    }
    // The file's values with the flags on top, checked as one.
    config.validate(Path::new(&format!("{} and the command line", args.config.display())))?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting tokio")?;
    let example_seeds = args.seeds.ends_with("seeds/example.txt");
    let summary = match config.cluster.enabled() {
        true => {
            let (cluster, state_dir) = (config.cluster.clone(), config.crawl.state_dir.clone());
            let mode = webcorpus::cluster::worker::ClusterMode::new(cluster, state_dir, config.crawl.commit_interval);
            let opts = CrawlOptions { config, seeds: args.seeds, quiet: args.quiet, refresh: args.refresh };
            runtime.block_on(webcorpus::crawl::run_with(opts, mode))
        }
        false => {
            let opts = CrawlOptions { config, seeds: args.seeds, quiet: args.quiet, refresh: args.refresh };
            runtime.block_on(webcorpus::crawl::run(opts))
        }
    };
    // The crawl's state is committed and closed: a task still waiting (a resolver lookup, a
    // Redis reconnection after an outage) must not keep the process, and its state lock, alive.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    let summary = match summary {
        Ok(summary) => summary,
        // The disk guard's refusal has its own exit status, as its stop during a crawl has.
        Err(e @ webcorpus::crawl::CrawlError::DiskLow(_)) => {
            webcorpus::warn_line!("error: {e}");
            return Ok(e.exit_code());
        }
        Err(e) => return Err(e.into()),
    };
    let c = &summary.counters;
    let outcome = match &summary.stopped {
        Some(reason) => format!("{reason}; run the same command again to resume"),
        None if summary.exit_code() != 0 => format!(
            "crawl finished, but every host was given up: none could be reached (the warnings above say why){}",
            if example_seeds {
                "; the example seeds' sites are served by scripts/serve-sites.sh: start it first (README, \"Quick start\")"
            } else {
                ""
            }
        ),
        None if !summary.given_up_hosts.is_empty() => {
            "crawl finished, with hosts given up for this run (run the same command again to retry them)".to_string()
        }
        None => "crawl finished".to_string(),
    };
    println!(
        "{outcome}: {} hosts ({} learned, {} given up), {} pages fetched, {} failed, {} robots-disallowed",
        summary.hosts, summary.learned, summary.given_up, c.fetched, c.failed, c.robots_disallowed
    );
    println!(
        "corpus {}: {} records, {} paragraphs; {} duplicate paragraphs dropped; {} URLs still queued",
        summary.corpus.display(),
        c.records,
        c.paragraphs,
        c.duplicate_paragraphs,
        summary.queued
    );
    if c.sitemaps + c.feeds > 0 {
        println!("{} sitemaps and {} feeds read, listing {} page URLs", c.sitemaps, c.feeds, c.source_urls);
    }
    print_given_up(&summary.given_up_hosts);
    if !c.discards.is_empty() {
        println!("pages without a record: {}", webcorpus::crawl::stats::discard_list(&c.discards));
    }
    let before = &summary.counters_before;
    if before.fetched > 0 {
        println!(
            "this run: {} pages fetched, {} records written (the numbers above include the earlier runs)",
            c.fetched - before.fetched.min(c.fetched),
            c.records - before.records.min(c.records)
        );
    }
    Ok(summary.exit_code())
}

/// The hosts given up, one line each, at most 20 (then how many more).
fn print_given_up(hosts: &[(String, Option<webcorpus::store::GivenUp>)]) {
    const LISTED: usize = 20;
    if hosts.is_empty() {
        return;
    }
    println!("hosts given up for this run ({}; a later run tries them again):", hosts.len());
    for (host, why) in hosts.iter().take(LISTED) {
        match why {
            Some(why) => println!("  {host}: {why}"),
            None => println!("  {host}"),
        }
    }
    if hosts.len() > LISTED {
        println!("  … and {} more (webcorpus stats lists them all)", hosts.len() - LISTED);
    }
}

fn extract(args: ExtractArgs) -> Result<()> {
    let mut config = load_config(&args.config)?;
    if args.comments {
        config.extract.comments = true;
    }
    let language = match args.language.as_deref() {
        Some(l) if !l.eq_ignore_ascii_case("auto") => Some(l.to_string()),
        Some(_) => None,
        None => config.crawl.language().map(str::to_string),
    };
    if args.per_site {
        return extract_per_site(args, config, language);
    }
    let settings = ExtractSettings { language: language.clone(), ..config.extract_settings() };
    // With --site every page is read first to learn the site's model; without, one page at a
    // time is read, extracted and written (no page stays in memory).
    let (pages, model) = match &args.site {
        Some(site) => {
            if let Some(warc) = args.files.iter().find(|f| is_warc(f)) {
                bail!("--site {site}: {} is a WARC file; --site takes HTML files only", warc.display());
            }
            let pages: Vec<_> = args.files.iter().map(|f| read_page(f)).collect();
            let sample: Vec<SamplePage> = pages
                .iter()
                .flatten()
                .map(|p| SamplePage { url: p.id.clone(), html: p.decoded.text.clone() })
                .collect();
            if sample.is_empty() {
                bail!("--site {site}: none of the files could be read");
            }
            // The crawl's rule: below `min_sample` pages a site is extracted without a model.
            if !webcorpus::domain::learns_whole_site(&config.learn, sample.len()) {
                eprintln!(
                    "--site {site}: {} pages, fewer than [learn] min_sample = {}: no model, each page extracted alone",
                    sample.len(),
                    config.learn.min_sample
                );
                (Some(pages), None)
            } else {
                let model = learn(site, &sample, language.as_deref(), &config.justext, &config.learn);
                if args.show_model {
                    eprint!("{}", model.summary());
                }
                (Some(pages), Some(Arc::new(model)))
            }
        }
        None => (None, None),
    };
    let classifier = config.classify.classifier()?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut pages = pages.map(Vec::into_iter);
    // Malformed records read past in WARC files (their records are lost; exit status 1).
    let mut damaged = 0;
    for path in &args.files {
        if is_warc(path) {
            let mut failed = None;
            let counts = read_warc(path, |page| {
                if failed.is_some() {
                    return;
                }
                let decoded = webcorpus::html::decode_html(&page.body, page.content_type.as_deref());
                // The crawl's host key (`host:port` off the default port), as its records have.
                let host = url::Url::parse(&page.url).ok().and_then(|u| webcorpus::crawl::url::host_key(&u));
                let source = RecordSource::warc_page(
                    &page,
                    host.as_deref().unwrap_or_default(),
                    Some(path.display().to_string()),
                );
                let line = extraction_line(
                    page.record_id.clone(),
                    &decoded.text,
                    source,
                    args.extractor,
                    None,
                    &settings,
                    &classifier,
                );
                if let Err(e) = writeln!(out, "{line}") {
                    failed = Some(e);
                }
            })?;
            if let Some(e) = failed {
                return Err(e.into());
            }
            let skipped: Vec<String> = counts.skipped.iter().map(|(k, n)| format!("{} {n}", k.key())).collect();
            eprintln!(
                "{}: {} records, {} HTML pages extracted; skipped: {}",
                path.display(),
                counts.records,
                counts.pages,
                if skipped.is_empty() { "none".to_string() } else { skipped.join(", ") }
            );
            for damage in &counts.damaged {
                webcorpus::warn_line!("error: {damage}");
            }
            damaged += counts.damaged.len();
            continue;
        }
        let page = match &mut pages {
            Some(read) => read.next().expect("one page per file"),
            None => read_page(path),
        };
        let line = match page {
            // The id is the path as given: unique per file, unlike the file's stem
            // (`a/index.html` and `b/index.html`).
            Err(e) => serde_json::json!({ "id": path.display().to_string(), "error": e.to_string() }).to_string(),
            Ok(page) => {
                // A local file has no URL: the model uses its training mean for the URL features.
                let source = RecordSource::page("", "");
                extraction_line(
                    path.display().to_string(),
                    &page.decoded.text,
                    source,
                    args.extractor,
                    model.as_deref(),
                    &settings,
                    &classifier,
                )
            }
        };
        writeln!(out, "{line}")?;
    }
    if damaged > 0 {
        bail!("{damaged} malformed WARC record(s) read past (above): the records between each and the next were lost");
    }
    Ok(())
}

/// `extract --per-site`: WARC files re-extracted as the crawl extracts (`crawl::replay`).
fn extract_per_site(args: ExtractArgs, mut config: Config, language: Option<String>) -> Result<()> {
    if let Some(other) = args.files.iter().find(|f| !is_warc(f)) {
        bail!("--per-site takes WARC files (.warc, .warc.gz); {} is not one", other.display());
    }
    config.crawl.extractor = args.extractor;
    config.crawl.language = language.unwrap_or_else(|| "auto".to_string());
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let summary = webcorpus::crawl::replay::replay_warcs(&args.files, &config, args.format, &mut out, true)?;
    let skipped: Vec<String> = summary.skipped.iter().map(|(k, n)| format!("{k} {n}")).collect();
    eprintln!(
        "{} WARC records, {} HTML pages of {} hosts ({} with a learned model): {} records, {} duplicate paragraphs dropped; without a record: {}",
        summary.warc_records,
        summary.pages,
        summary.hosts,
        summary.learned,
        summary.records,
        summary.duplicate_paragraphs,
        if skipped.is_empty() { "none".to_string() } else { skipped.join(", ") }
    );
    for damage in &summary.damaged {
        webcorpus::warn_line!("error: {damage}");
    }
    if !summary.damaged.is_empty() {
        bail!(
            "{} damaged place(s) in the WARC files (above): the records before each were written, those after it only from the next readable record on",
            summary.damaged.len()
        );
    }
    Ok(())
}

/// One page's extraction as the JSON line of `extract`: the crawl's corpus record
/// ([`webcorpus::crawl::record::page_record`]) with `id` and, with `--site`, `model` (how the
/// host's model took part); `{"id", "error"}` when the extractor failed.
fn extraction_line(
    id: String,
    html: &str,
    source: RecordSource<'_>,
    extractor: ExtractorKind,
    model: Option<&DomainModel>,
    settings: &ExtractSettings,
    classifier: &webcorpus::classify::PageClassifier,
) -> String {
    /// The record, fields in the corpus's order, then `model`.
    #[derive(serde::Serialize)]
    struct Line {
        #[serde(flatten)]
        record: webcorpus::model::Record,
        #[serde(skip_serializing_if = "Option::is_none")]
        model: Option<&'static str>,
    }
    match webcorpus::crawl::record::page_record(html, source, extractor, model, settings, classifier) {
        Ok(webcorpus::crawl::record::PageRecord { mut record, model_use, .. }) => {
            record.id = id;
            let model = match model_use {
                ModelUse::None => None,
                ModelUse::Applied => Some("applied"),
                ModelUse::Unmatched => Some("unmatched"),
                ModelUse::Rejected => Some("rejected"),
            };
            serde_json::to_string(&Line { record, model }).expect("records serialise")
        }
        Err(e) => serde_json::json!({ "id": id, "error": e.to_string() }).to_string(),
    }
}

fn show(args: ShowArgs) -> Result<()> {
    let config = load_config(&args.config)?;
    let (host, view) = match (&args.site, &args.host) {
        (Some(site), _) => (site.clone(), show_site(site, &args.files, args.max_pages, &config)?),
        (None, Some(host)) => {
            let url = args.url.as_deref();
            (
                host.clone(),
                webcorpus::show::show_host(&args.state, args.corpus.as_deref(), host, url, args.max_pages, &config)?,
            )
        }
        (None, None) => bail!("show: give --host (a host of a crawl) or --site NAME FILE..."),
    };
    let html = webcorpus::show::render(&host, &view);
    std::fs::write(&args.out, html).with_context(|| format!("writing {}", args.out.display()))?;
    let blocks: usize = view.pages.iter().map(|p| p.blocks.len()).sum();
    println!(
        "{}: {} pages of {host}, {blocks} text blocks, each marked kept or why it was dropped",
        args.out.display(),
        view.pages.len()
    );
    Ok(())
}

/// `show --site`: local HTML files of one site, its model learned from them as `extract
/// --site` learns it (none below `[learn] min_sample` pages).
fn show_site(
    site: &str,
    files: &[std::path::PathBuf],
    max_pages: usize,
    config: &Config,
) -> Result<webcorpus::show::HostView> {
    let settings = config.extract_settings();
    let mut pages = Vec::new();
    let mut failed = Vec::new();
    for path in files {
        match read_page(path) {
            Ok(page) => pages.push(page),
            Err(e) => failed.push((path.display().to_string(), e.to_string())),
        }
    }
    let sample: Vec<SamplePage> =
        pages.iter().map(|p| SamplePage { url: p.id.clone(), html: p.decoded.text.clone() }).collect();
    if sample.is_empty() {
        bail!("--site {site}: none of the files could be read");
    }
    let model = webcorpus::domain::learns_whole_site(&config.learn, sample.len())
        .then(|| learn(site, &sample, config.crawl.language(), &config.justext, &config.learn));
    let kind = config.crawl.extractor;
    let mut views = Vec::new();
    for page in pages.iter().take(max_pages) {
        let html = &page.decoded.text;
        match webcorpus::show::explain_page(
            &page.id,
            html,
            kind,
            model.as_ref(),
            &settings,
            webcorpus::show::Written::NoCorpus,
            &|_| None,
        ) {
            Ok(view) => views.push(view),
            Err(e) => failed.push((page.id.clone(), e.to_string())),
        }
    }
    let record = webcorpus::store::HostRecord { host: site.to_string(), ..Default::default() };
    Ok(webcorpus::show::HostView { record, model, pages: views, failed })
}

fn stats(args: StatsArgs) -> Result<()> {
    if let Some(redis) = &args.cluster {
        let mut cluster = load_config(&args.config)?.cluster;
        cluster.redis = redis.clone();
        if let Some(name) = &args.crawl_name {
            cluster.name = name.clone();
        }
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().context("starting tokio")?;
        let report = runtime.block_on(webcorpus::cluster::report::cluster_report(&cluster))?;
        if args.json {
            println!("{}", serde_json::to_string_pretty(&report)?);
        } else {
            print!("{}", webcorpus::cluster::report::render(&report));
        }
        return Ok(());
    }
    if !args.state.exists() {
        bail!("no crawl state at {}", args.state.display());
    }
    let state = match webcorpus::store::open_state_dir(&args.state) {
        Ok(state) => state,
        Err(open_error) => {
            // A running crawl holds sled's lock: show its status snapshot instead.
            use webcorpus::crawl::{snapshot, stats};
            let snap = snapshot::read(&args.state).map_err(|_| {
                anyhow::anyhow!(
                    "cannot read the crawl state at {} ({open_error}); a running crawl writes {} there every \
                     few seconds, and there is none yet",
                    args.state.display(),
                    snapshot::STATUS_FILE
                )
            })?;
            if args.json {
                println!("{}", stats::snapshot_json(&snap, args.host.as_deref()));
            } else {
                if args.host.is_some() {
                    eprintln!("note: the state is in use by a running crawl; its model is shown when the crawl stops");
                }
                print!("{}", stats::report_snapshot(&snap));
            }
            return Ok(());
        }
    };
    if let Some(host) = &args.host {
        if state.host(host)?.is_none() {
            bail!("host {host} is not in the crawl state at {} (`stats` lists its hosts)", args.state.display());
        }
    }
    if args.json {
        println!("{}", webcorpus::crawl::stats::report_json(&state, args.host.as_deref())?);
        return Ok(());
    }
    print!("{}", report(&state, args.host.as_deref())?);
    Ok(())
}

/// An `--lang` value as the records' `lang` spells it: an ISO 639-1 code (`ja`), or an ISO
/// 639-3 code with a 639-1 form (`jpn` gives `ja`); anything else (`japanese`) is refused.
fn lang_code(value: &str) -> Result<String> {
    let v = value.trim().to_ascii_lowercase();
    if v.len() == 2 && v.chars().all(|c| c.is_ascii_lowercase()) {
        return Ok(v);
    }
    if let Some(code) = isolang::Language::from_639_3(&v).and_then(|l| l.to_639_1()) {
        return Ok(code.to_string());
    }
    if v.len() == 3 && isolang::Language::from_639_3(&v).is_some() {
        return Ok(v);
    }
    bail!(
        "--lang {value}: not a language code; give ISO 639-1 codes as the records' `lang` has them \
         (ja, en, de; `stats` and the records show them)"
    )
}

fn export(args: webcorpus::cli::ExportArgs) -> Result<()> {
    use webcorpus::write::export::{export, ExportFilter, ExportTarget};
    let langs = args.lang.iter().map(|l| lang_code(l)).collect::<Result<Vec<_>>>()?;
    let filter = ExportFilter { langs, page_types: args.page_type, hosts: args.host };
    let dir = (args.out.as_os_str() != "-").then_some(args.out);
    let target = ExportTarget {
        format: args.format,
        dir,
        gzip: args.gzip,
        shard_bytes: args.shard_bytes,
        headline_in_text: args.headline,
    };
    let summary = export(&args.inputs, &filter, &target)?;
    eprintln!(
        "{} records read, {} written, {} left out by the filters{}",
        summary.read,
        summary.written,
        summary.filtered,
        if summary.incomplete_tail { "; a last record still being written was left out" } else { "" }
    );
    for f in &summary.files {
        eprintln!("  {}", f.display());
    }
    Ok(())
}

fn dedup(args: DedupArgs) -> Result<()> {
    use webcorpus::dedup::corpus::{dedup_corpora, format_of};
    let config = load_config(&args.config)?;
    let format = match args.format {
        Some(f) => f,
        None => {
            let first = format_of(&args.inputs[0])?;
            for input in &args.inputs[1..] {
                if format_of(input)? != first {
                    bail!("{}: the inputs are in different formats", input.display());
                }
            }
            first
        }
    };
    let total: u64 = args.inputs.iter().filter_map(|p| std::fs::metadata(p).ok()).map(|m| m.len()).sum();
    let bar = if args.quiet { indicatif::ProgressBar::hidden() } else { indicatif::ProgressBar::new(total) };
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}")
            .expect("valid template"),
    );
    let s = dedup_corpora(&args.inputs, format, &args.out, &config.dedup, |read| bar.set_position(read))?;
    bar.finish_and_clear();
    println!(
        "{} documents in, {} written to {}; {} paragraphs, {} duplicates dropped ({:.1} %); {} distinct n-grams; {:.1} MB of text in {:.2} s = {:.1} MB/s (Onion alone: {:.2} s = {:.1} MB/s)",
        s.documents,
        s.documents_kept,
        args.out.display(),
        s.paragraphs,
        s.duplicates,
        100.0 * s.duplicates as f64 / s.paragraphs.max(1) as f64,
        s.ngrams,
        s.text_bytes as f64 / 1e6,
        s.seconds,
        s.text_bytes as f64 / 1e6 / s.seconds.max(1e-9),
        s.onion_seconds,
        s.text_bytes as f64 / 1e6 / s.onion_seconds.max(1e-9)
    );
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
    let combiner_folds = match &args.combiner_cv {
        Some(dir) => Some(std::sync::Arc::new(
            (0..dataset::SITE_FOLDS)
                .map(|k| CombinerModel::load(&dir.join(format!("fold-{k}.json"))))
                .collect::<Result<Vec<_>, _>>()
                .with_context(|| format!("reading the fold models of {} (train combiner --cv)", dir.display()))?,
        )),
        None => None,
    };
    // The host-evidence fold models beside the combiner's (`train host-evidence --cv`), when
    // they are there: each host's pages are then judged by a model that never saw the host.
    let host_evidence_folds = match &args.combiner_cv {
        Some(dir) if dir.join("host-evidence-fold-0.json").exists() => Some(std::sync::Arc::new(
            (0..dataset::SITE_FOLDS)
                .map(|k| {
                    webcorpus::extract::host_evidence::HostEvidenceModel::load(
                        &dir.join(format!("host-evidence-fold-{k}.json")),
                    )
                })
                .collect::<Result<Vec<_>, _>>()
                .with_context(|| format!("reading the host-evidence fold models of {}", dir.display()))?,
        )),
        _ => None,
    };
    let opts = run::EvalOptions {
        combiner_folds,
        host_evidence_folds,
        outputs: args.outputs.clone(),
        extractors,
        leave_one_out: args.leave_one_out,
        limit: args.limit,
        threads: worker_threads(args.threads),
        settings: config.extract_settings(),
        learn: webcorpus::domain::LearnParams {
            min_sample: args.min_sample.unwrap_or(config.learn.min_sample).max(1),
            ..config.learn.clone()
        },
    };
    if let Some(dir) = &args.combiner_cv {
        println!(
            "The default's combiner is cross-validated: each page is extracted with the model of {} trained without its site's fold.\n",
            dir.display()
        );
    }
    let mut reports = Vec::new();
    let mut html_sections = Vec::new();
    for dir in sets {
        let mut set = dataset::Dataset::load(&dir)?;
        set.retain_split(args.split);
        let mut report = run::evaluate_set(&set, &opts);
        for reference in &args.reference {
            report.rows.push(webcorpus::eval::reference::evaluate_reference(&set, reference, &opts)?);
        }
        println!("{}", report.render(args.per_site));
        if args.html.is_some() {
            html_sections.push(webcorpus::eval::html::set_section(&report, &set, &opts.settings));
        }
        reports.push(report);
    }
    if let Some(path) = &args.html {
        std::fs::write(path, webcorpus::eval::html::page(&html_sections))
            .with_context(|| format!("writing {}", path.display()))?;
        eprintln!("{}: the evaluation as a page", path.display());
    }
    if let Some(path) = args.json {
        let file = std::fs::File::create(&path).with_context(|| format!("creating {}", path.display()))?;
        serde_json::to_writer(std::io::BufWriter::new(file), &reports)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// `--threads`, or one worker per core.
pub(crate) fn worker_threads(threads: Option<usize>) -> usize {
    threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1)
}

/// The training sets named by `--data` (names under the data directory, or directories).
pub(crate) fn load_sets(
    config: &Config,
    data: &[std::path::PathBuf],
) -> Result<Vec<webcorpus::eval::dataset::Dataset>> {
    use webcorpus::eval::dataset::{resolve_sets, Dataset};
    Ok(resolve_sets(&config.data_dir(), data)?.iter().map(|d| Dataset::load(d)).collect::<Result<Vec<_>, _>>()?)
}
