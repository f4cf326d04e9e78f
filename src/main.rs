//! The `webcorpus` binary: parse the command line, run the command through the library, map
//! errors to a message and an exit code. `anyhow` lives only here.

use anyhow::{bail, Context, Result};
use clap::Parser;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use webcorpus::cli::{
    Cli, Command, CrawlArgs, DedupArgs, EvalArgs, ExtractArgs, ScoreArgs, ShowArgs, StatsArgs, TrainBoilernetArgs,
    TrainClassifierArgs, TrainCombinerArgs, TrainCommand, TrainHostEvidenceArgs,
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
        Command::Train(TrainCommand::Boilernet(args)) => train_boilernet(args),
        Command::Train(TrainCommand::Classifier(args)) => train_classifier(args),
        Command::Train(TrainCommand::Combiner(args)) => train_combiner(args),
        Command::Train(TrainCommand::HostEvidence(args)) => train_host_evidence(args),
    }?;
    Ok(0)
}

/// The config file, or the built-in defaults when the default `config.toml` is absent.
fn load_config(path: &Path) -> Result<Config> {
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

/// `webcorpus train classifier`: extract the typed pages, optionally run the feature ablation,
/// train with per-epoch validation scores, print the test scores, save the model.
fn train_classifier(args: TrainClassifierArgs) -> Result<()> {
    use indicatif::{ProgressBar, ProgressStyle};
    use webcorpus::classify::data::{load_pages, Split};
    use webcorpus::train::classifier::{ablation, confusion_by_type, evaluate, train, TrainOptions};
    const FOCUS: &str = "modern2026-dev";
    let config = load_config(&args.config)?;
    let sets = load_sets(&config, &args.data)?;
    let threads = worker_threads(args.threads);
    let style = ProgressStyle::with_template("{prefix:>8} [{bar:30}] {pos}/{len} {msg}")
        .expect("valid template")
        .progress_chars("=> ");
    let started = std::time::Instant::now();
    let bar = ProgressBar::new(0).with_style(style.clone()).with_prefix("extract");
    let pages = load_pages(&sets, &config.extract_settings(), threads, args.limit, &|done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    });
    bar.finish_and_clear();
    let extract_time = started.elapsed();
    let part = |s: Split| pages.iter().filter(|p| p.split == s).collect::<Vec<_>>();
    let (tr, va, te) = (part(Split::Train), part(Split::Validation), part(Split::Test));
    println!(
        "{} typed pages ({} articles) of {} in {:.1}s; train {}, validation {}, test {} (split by site); {} unreadable",
        pages.len(),
        pages.iter().filter(|p| p.article).count(),
        sets.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", "),
        extract_time.as_secs_f64(),
        tr.len(),
        va.len(),
        te.len(),
        pages.iter().filter(|p| p.features.is_none()).count()
    );
    let mut opts = TrainOptions {
        seed: args.seed,
        epochs: args.epochs.max(1),
        hidden: args.hidden,
        l2: args.l2,
        balance: args.balanced,
        ..TrainOptions::default()
    };
    if !args.features.is_empty() {
        opts.features = args.features.clone();
    }
    if args.ablation {
        println!("feature ablation: site-grouped 5-fold cross-validation on the train + validation sites");
        let pool: Vec<_> = tr.iter().chain(&va).copied().collect();
        ablation(&pool, &opts, FOCUS, &mut |row| {
            println!("  {:<26} all: {}   {FOCUS}: {}", row.name, row.all.line(), row.focus.line());
        })?;
    }
    let train_started = std::time::Instant::now();
    let bar = ProgressBar::new(opts.epochs as u64).with_style(style).with_prefix("train");
    let stride = (opts.epochs / 20).max(1);
    let trained = train(&tr, &va, &opts, &mut |e| {
        bar.inc(1);
        let line = format!(
            "epoch {:>4}: train loss {:.4} · validation loss {:.4} · {}",
            e.epoch,
            e.train_loss,
            e.val_loss,
            e.val.line()
        );
        bar.set_message(line.clone());
        if e.epoch == 1 || e.epoch % stride == 0 {
            if bar.is_hidden() {
                println!("{line}");
            } else {
                bar.println(line);
            }
        }
    })?;
    bar.finish_and_clear();
    let train_time = train_started.elapsed();
    let test = evaluate(&trained.mlp, &te);
    let focus: Vec<_> = te.iter().copied().filter(|p| p.set == FOCUS).collect();
    let test_focus = evaluate(&trained.mlp, &focus);
    println!(
        "kept epoch {} (lowest validation loss); training took {:.1}s",
        trained.best_epoch,
        train_time.as_secs_f64()
    );
    println!("test (held-out sites): {}", test.line());
    println!("test, {FOCUS} only:   {}", test_focus.line());
    println!("test pages by type (classified article / other):");
    for (t, a, o) in confusion_by_type(&trained.mlp, &te) {
        println!("  {t:<32} {a:>4} / {o:<4}");
    }
    let score = |m: &webcorpus::train::classifier::Metrics| {
        serde_json::json!({
            "accuracy": m.accuracy(),
            "precision": m.precision(),
            "recall": m.recall(),
            "f1": m.f1(),
            "confusion": m,
        })
    };
    let header = serde_json::json!({
        "command": std::env::args().collect::<Vec<_>>().join(" "),
        "data": sets.iter().map(|s| s.name.clone()).collect::<Vec<_>>(),
        "seed": opts.seed,
        "epochs": opts.epochs,
        "best_epoch": trained.best_epoch,
        "pages": {"train": tr.len(), "validation": va.len(), "test": te.len()},
        "test": score(&test),
        "test_modern2026": score(&test_focus),
    });
    trained.mlp.to_model_file(header).save(&args.out)?;
    let size = std::fs::metadata(&args.out).map(|m| m.len()).unwrap_or(0);
    println!("model written to {} ({size} bytes, features: {})", args.out.display(), trained.mlp.features.join(","));
    Ok(())
}

/// `webcorpus train combiner`: label the blocks, fit the trees on the training sites, print
/// the held-out comparison with the rule-based default, write the model.
fn train_combiner(args: TrainCombinerArgs) -> Result<()> {
    use webcorpus::extract::combiner::gbdt::GbdtParams;
    use webcorpus::train::combiner::{load_blocks, train};
    let config = load_config(&args.config)?;
    let sets = load_sets(&config, &args.data)?;
    let threads = worker_threads(args.threads);
    let started = std::time::Instant::now();
    let data = load_blocks(&sets, threads, args.snippet_power);
    println!("labelled {} blocks in {:.1}s:", data.targets.len(), started.elapsed().as_secs_f64());
    for (name, (pages, labelled)) in data.sets.iter().zip(&data.pages) {
        println!("  {name:<18} {labelled:>4}/{pages:<4} pages with labelled blocks");
    }
    let params = GbdtParams {
        trees: args.trees,
        max_depth: args.depth,
        learning_rate: args.lr,
        seed: args.seed,
        bags: args.bags as usize,
        column_sample: args.column_sample,
        ..GbdtParams::default()
    };
    let started = std::time::Instant::now();
    let (model, _) = train(&data, &params, args.threshold, args.page_power, None, threads);
    println!("trained {} × {} trees on every site in {:.1}s", args.bags, args.trees, started.elapsed().as_secs_f64());
    let json = serde_json::to_string(&model)?;
    std::fs::write(&args.out, json).with_context(|| format!("writing {}", args.out.display()))?;
    println!("wrote {}", args.out.display());
    if let Some(dir) = &args.cv {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        for fold in 0..webcorpus::eval::dataset::SITE_FOLDS {
            let started = std::time::Instant::now();
            let (fold_model, scores) = train(&data, &params, args.threshold, args.page_power, Some(fold), threads);
            let path = dir.join(format!("fold-{fold}.json"));
            std::fs::write(&path, serde_json::to_string(&fold_model)?)
                .with_context(|| format!("writing {}", path.display()))?;
            println!(
                "fold {fold}: trained in {:.1}s, wrote {}; its held-out sites, word-weighted block P / R / F1:",
                started.elapsed().as_secs_f64(),
                path.display()
            );
            for s in &scores {
                println!(
                    "  {:<18} {:>6} blocks  combiner {:.3} / {:.3} / {:.3}   rules {:.3} / {:.3} / {:.3}",
                    s.set, s.blocks, s.combiner.0, s.combiner.1, s.combiner.2, s.rules.0, s.rules.1, s.rules.2
                );
            }
        }
    }
    Ok(())
}

fn train_host_evidence(args: TrainHostEvidenceArgs) -> Result<()> {
    use webcorpus::extract::combiner::gbdt::GbdtParams;
    use webcorpus::train::host_evidence::{load_host_rows, train};
    let config = load_config(&args.config)?;
    let sets = load_sets(&config, &args.data)?;
    let threads = worker_threads(args.threads);
    let folds = (0..webcorpus::eval::dataset::SITE_FOLDS)
        .map(|k| CombinerModel::load(&args.combiner_cv.join(format!("fold-{k}.json"))).map(std::sync::Arc::new))
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("reading the combiner's fold models of {}", args.combiner_cv.display()))?;
    let learn = webcorpus::domain::LearnParams { min_sample: args.min_sample.max(1), ..config.learn.clone() };
    let started = std::time::Instant::now();
    let rows = load_host_rows(&sets, &folds, &config.extract_settings(), &learn, threads);
    println!(
        "{} hosts, {} labelled blocks in {:.1}s:",
        rows.hosts.len(),
        rows.data.targets.len(),
        started.elapsed().as_secs_f64()
    );
    for (name, (pages, with_rows)) in rows.data.sets.iter().zip(&rows.data.pages) {
        println!("  {name:<18} {with_rows:>4}/{pages:<4} host pages where the host model applies");
    }
    let params = GbdtParams {
        trees: args.trees,
        max_depth: args.depth,
        learning_rate: args.lr,
        min_child_rows: args.min_rows,
        bags: args.bags as usize,
        column_sample: 1.0,
        ..GbdtParams::default()
    };
    let (model, _) = train(&rows, &params, args.threshold, None, threads);
    std::fs::write(&args.out, serde_json::to_string(&model)?)
        .with_context(|| format!("writing {}", args.out.display()))?;
    println!("wrote {}", args.out.display());
    if args.cv {
        for fold in 0..webcorpus::eval::dataset::SITE_FOLDS {
            let (fold_model, scores) = train(&rows, &params, args.threshold, Some(fold), threads);
            let path = args.combiner_cv.join(format!("host-evidence-fold-{fold}.json"));
            std::fs::write(&path, serde_json::to_string(&fold_model)?)
                .with_context(|| format!("writing {}", path.display()))?;
            println!("fold {fold}: wrote {}; its held-out hosts, word-weighted block P / R / F1:", path.display());
            for s in scores.iter().filter(|s| s.blocks > 0) {
                let f = |t: (f64, f64, f64)| format!("{:.3} / {:.3} / {:.3}", t.0, t.1, t.2);
                println!(
                    "  {:<18} {:>6} blocks  learned {}   rules {}   unlearned {}",
                    s.set,
                    s.blocks,
                    f(s.learned),
                    f(s.rules),
                    f(s.unlearned)
                );
            }
        }
    }
    Ok(())
}

/// `webcorpus train boilernet`: load and label the sets, train with a progress bar and
/// per-epoch validation, write the best epoch's model with its provenance.
fn train_boilernet(args: TrainBoilernetArgs) -> Result<()> {
    use indicatif::{ProgressBar, ProgressStyle};
    use webcorpus::extract::boilernet::NetConfig;
    use webcorpus::train::boilernet::{load_pages, train, TrainEvent, TrainOptions};
    let config = load_config(&args.config)?;
    let sets = load_sets(&config, &args.data)?;
    let threads = worker_threads(args.threads);
    let started = std::time::Instant::now();
    let (pages, stats) = load_pages(&sets, args.limit, threads);
    println!(
        "labelled {} pages in {:.1}s (block = content when > 50 % of its words align with the gold):",
        pages.len(),
        started.elapsed().as_secs_f64()
    );
    for s in &stats {
        println!(
            "  {:<18} {:>4}/{:<4} pages labelled ({} held out, {} unreadable), {:>6} blocks, {:>6} labelled, {:>6} content",
            s.set, s.labelled_pages, s.pages, s.holdout_pages, s.unreadable, s.blocks, s.labelled_blocks, s.content_blocks
        );
    }
    let opts = TrainOptions {
        net: NetConfig { dense: args.dense, hidden: args.hidden, layers: args.layers, dropout: args.dropout },
        epochs: args.epochs,
        batch: args.batch,
        lr: args.lr,
        seed: args.seed,
        threads,
        max_tags: args.tags,
        max_words: args.words,
    };
    let style = ProgressStyle::with_template("{prefix:>9} [{bar:30}] {pos}/{len} {elapsed} {msg}")
        .expect("valid template")
        .progress_chars("=> ");
    let bar = ProgressBar::new(0).with_style(style).with_prefix("epoch 1");
    let train_started = std::time::Instant::now();
    let trained = train(&pages, &opts, &mut |e| match e {
        TrainEvent::Batch { done, total, loss } => {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
            bar.set_message(format!("loss {loss:.4}"));
        }
        TrainEvent::Epoch(r) => {
            let line = format!(
                "epoch {:>3}: train loss {:.4} · validation loss {:.4} · block P {:.3} R {:.3} F1 {:.3} · {:.1}s",
                r.epoch,
                r.train_loss,
                r.val_loss,
                r.val.precision(),
                r.val.recall(),
                r.val.f1(),
                r.secs
            );
            if bar.is_hidden() {
                println!("{line}");
            } else {
                bar.println(line);
            }
            bar.set_prefix(format!("epoch {}", r.epoch + 1));
            bar.set_position(0);
        }
    })?;
    bar.finish_and_clear();
    let secs = train_started.elapsed().as_secs_f64();
    let best = &trained.epochs[trained.best_epoch - 1];
    println!(
        "kept epoch {} (best validation block F1 {:.4}); {} training / {} validation pages; training took {:.1}s on {threads} threads",
        trained.best_epoch,
        best.val.f1(),
        trained.pages.0,
        trained.pages.1,
        secs
    );
    let mut model = trained.model;
    model.provenance = serde_json::json!({
        "command": std::env::args().collect::<Vec<_>>().join(" "),
        "data": sets.iter().map(|s| s.name.clone()).collect::<Vec<_>>(),
        "seed": args.seed,
        "epochs": args.epochs,
        "batch": args.batch,
        "lr": args.lr,
        "best_epoch": trained.best_epoch,
        "class_weights": trained.class_weights,
        "pages": {"train": trained.pages.0, "validation": trained.pages.1},
        "labels": stats,
        "validation": trained.epochs,
        "train_secs": secs,
        "threads": threads,
    });
    model.to_model_file().save(&args.out)?;
    let size = std::fs::metadata(&args.out).map(|m| m.len()).unwrap_or(0);
    println!("model written to {} ({size} bytes)", args.out.display());
    Ok(())
}

/// `--threads`, or one worker per core.
fn worker_threads(threads: Option<usize>) -> usize {
    threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1)
}

/// The training sets named by `--data` (names under the data directory, or directories).
fn load_sets(config: &Config, data: &[std::path::PathBuf]) -> Result<Vec<webcorpus::eval::dataset::Dataset>> {
    use webcorpus::eval::dataset::{resolve_sets, Dataset};
    Ok(resolve_sets(&config.data_dir(), data)?.iter().map(|d| Dataset::load(d)).collect::<Result<Vec<_>, _>>()?)
}
