//! [`Config`]: `config.toml` parsed and validated in one step. Every section is a typed
//! struct with `deny_unknown_fields`, so a misspelt key fails at start with the key, the
//! line and the reason; durations are strings like `"2s"`, sizes are bytes with the unit in
//! the key name. `config.toml` at the repository root documents every key and its default.

pub mod cluster;
pub mod net;
pub mod politeness;
pub mod scope;

use crate::dedup::DedupConfig;
use crate::domain::LearnParams;
use crate::extract::{stoplist, ExtractorKind, JusTextParams};
use crate::write::CorpusFormat;
pub use net::NetConfig;
pub use politeness::PolitenessConfig;
pub use scope::Scope;
use serde::Deserialize;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// Errors of loading a config file.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read config file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// TOML syntax error, unknown key or a value of the wrong type (the message names the key
    /// and the line).
    #[error("config file {path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// toml's message with the key, line and column.
        message: String,
    },
    /// A value parsed but is out of range.
    #[error("config file {path}: key `{key}`: {reason}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Dotted key, e.g. `learn.min_sample`.
        key: &'static str,
        /// Why the value is refused.
        reason: String,
    },
}

/// The whole configuration (`config.toml`).
#[derive(Debug, Clone, Default, Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// `[crawl]`: scope, limits, output.
    pub crawl: CrawlConfig,
    /// `[politeness]`: delays, robots.txt caching, back-off.
    pub politeness: PolitenessConfig,
    /// `[net]`: user agent, timeouts, size caps, resolve table.
    pub net: NetConfig,
    /// `[learn]`: per-host sampling and GoldMiner/StaDyNoT learning.
    pub learn: LearnParams,
    /// `[justext]`: jusText thresholds.
    pub justext: JusTextParams,
    /// `[dedup]`: Onion parameters and the form of the seen n-gram set.
    pub dedup: DedupConfig,
    /// `[tree_filter]`: the HTML-tree filter of `boilerpipe-tree`.
    pub tree_filter: crate::extract::tree_filter::TreeFilterParams,
    /// `[eval]`: evaluation data.
    pub eval: EvalConfig,
    /// `[boilernet]`: the BoilerNet model file (default: the shipped one).
    pub boilernet: crate::extract::boilernet::BoilernetConfig,
    /// `[classify]`: the article-vs-other page classifier.
    pub classify: ClassifyConfig,
    /// `[extract]`: what a record holds besides the main content.
    pub extract: ExtractConfig,
    /// `[warc]`: WARC output of the crawl.
    pub warc: crate::write::warc::WarcConfig,
    /// `[cluster]`: one crawl on many workers through Redis (off unless `redis` is set).
    pub cluster: cluster::ClusterConfig,
}

/// `[extract]` section: what a record holds besides the main content.
#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExtractConfig {
    /// Write the text of a page's comment section to the record's `comments` field (the
    /// default extractor; comments are never part of `text`). Default false.
    pub comments: bool,
    /// The default extractor weighs a host model's evidence with the learned host-evidence
    /// model (`crate::extract::host_evidence`); false: by the rules of step 5 of
    /// `crate::extract::pipeline::default_labels` alone. Default true.
    pub host_evidence: bool,
}

impl Default for ExtractConfig {
    fn default() -> Self {
        ExtractConfig { comments: false, host_evidence: true }
    }
}

/// `[classify]` section: the page classifier run on every extracted page.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClassifyConfig {
    /// Drop pages classified as not an article: counted as the discard `not_article`, not
    /// written. Default false (every record is written with its `page_type`).
    pub drop_non_article: bool,
    /// A model file written by `webcorpus train classifier`; empty (default) = the model
    /// shipped in the binary.
    pub model: PathBuf,
}

impl ClassifyConfig {
    /// The classifier: the configured model file (loaded once per path and kept for the
    /// process, as the BoilerNet and combiner models are), or the shipped one.
    ///
    /// # Errors
    /// [`crate::classify::ClassifyError`] when the model file cannot be loaded.
    pub fn classifier(
        &self,
    ) -> Result<std::sync::Arc<crate::classify::PageClassifier>, crate::classify::ClassifyError> {
        type Loaded = std::collections::HashMap<PathBuf, std::sync::Arc<crate::classify::PageClassifier>>;
        static LOADED: std::sync::OnceLock<std::sync::Mutex<Loaded>> = std::sync::OnceLock::new();
        if self.model.as_os_str().is_empty() {
            return Ok(crate::classify::PageClassifier::shipped());
        }
        let mut loaded = LOADED.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
        if let Some(model) = loaded.get(&self.model) {
            return Ok(model.clone());
        }
        let model = std::sync::Arc::new(crate::classify::PageClassifier::load(&self.model)?);
        loaded.insert(self.model.clone(), model.clone());
        Ok(model)
    }
}

/// `[crawl]` section.
#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct CrawlConfig {
    /// State directory (sled): frontier, models, dedup hashes. Default `state`.
    pub state_dir: PathBuf,
    /// Corpus output directory. Default `corpus`.
    pub out_dir: PathBuf,
    /// Corpus format: `jsonl` (default), `vert` or `txt`.
    pub format: CorpusFormat,
    /// Extractor for every page: `default`, `justext`, `goldminer`, `stadynot`, `bte`,
    /// `boilerpipe`, `boilerpipe-tree`, `boilernet`.
    pub extractor: ExtractorKind,
    /// Stoplist language (`"English"`, `"Spanish"`, ...) or `"auto"` (detect per host/page).
    pub language: String,
    /// Which links to follow: `host` (same host as the seed, default), `domain`, `any`.
    pub scope: Scope,
    /// Maximum link depth from a seed (seed = 0). Default 500: blogs chain their posts by
    /// previous/next links, so a post can be hundreds of links from the front page.
    pub max_depth: u32,
    /// Maximum URLs queued per host. Default 100000.
    pub max_pages_per_host: u64,
    /// Hosts fetched in parallel (each host has at most one request in flight). Default 64.
    pub max_parallel_hosts: usize,
    /// Links whose URL contains any of these strings are not followed: crawler traps and
    /// pages with no text of their own (wiki edit/history/special pages, comment-reply
    /// links, login pages). Default [`DEFAULT_EXCLUDE`].
    pub exclude: Vec<String>,
    /// Links taken from one page at most (the rest are ignored). Default 10000.
    pub max_links_per_page: usize,
    /// Worker threads for decoding, parsing, extraction and learning; 0 = one per core.
    /// Default 0.
    pub workers: usize,
    /// Fetched pages waiting for a worker at most; when full, no new request starts
    /// (back-pressure). Default 64.
    pub queue_pages: usize,
    /// A group commit (one corpus fsync, one store batch) closes after this many pages...
    /// Default 100.
    pub commit_pages: usize,
    /// ...or this long after its first page. Default 200ms.
    #[serde(with = "humantime_serde")]
    pub commit_interval: std::time::Duration,
    /// Bytes that must stay free on the filesystems of `state_dir` and `out_dir`: below
    /// this the crawl does not start, or stops cleanly (exit status 75) and resumes when run
    /// again with space. 0 turns the guard off. Default 1 GiB.
    pub min_free_space: u64,
    /// After Ctrl-C or SIGTERM, how long requests in flight may still finish before they are
    /// aborted (and fetched again on resume). Default 5s.
    #[serde(with = "humantime_serde")]
    pub stop_grace: std::time::Duration,
    /// Languages kept, ISO 639-1 codes (`["en", "es"]`): a record whose `lang` is another
    /// (or none) is the discard `wrong_language`. Empty (default): every language.
    pub languages: Vec<String>,
    /// SpiderLing's host pruning (Suchomel & Pomikálek 2012): a host whose yield (bytes of text
    /// written, in `languages` when set, over bytes downloaded) is below this once
    /// `yield_min_pages` of its pages are processed is no longer crawled. 0 (default) = off.
    pub min_yield: f64,
    /// Pages fetched from a host before its yield is judged. Default 50.
    pub yield_min_pages: u64,
    /// Serve the crawl's status page on this address (`PORT` = 127.0.0.1:PORT, or
    /// `ADDRESS:PORT`); empty (default) = off ([`crate::crawl::status_page`], [`parse_addr`]).
    pub status: String,
}

/// URL substrings not followed by default: MediaWiki edit/history/permalink/special pages,
/// WordPress reply/login/feed links, print and share variants.
pub const DEFAULT_EXCLUDE: &[&str] = &[
    "action=edit",
    "action=history",
    "action=info",
    "oldid=",
    "diff=",
    "printable=yes",
    "/Special:",
    "title=Special:",
    "replytocom=",
    "/wp-login.php",
    "/wp-admin/",
    "/feed/",
    "share=",
];

impl Default for CrawlConfig {
    fn default() -> Self {
        CrawlConfig {
            state_dir: PathBuf::from("state"),
            out_dir: PathBuf::from("corpus"),
            format: CorpusFormat::Jsonl,
            extractor: ExtractorKind::Default,
            language: "auto".into(),
            scope: Scope::Host,
            max_depth: 500,
            max_pages_per_host: 100_000,
            max_parallel_hosts: 64,
            exclude: DEFAULT_EXCLUDE.iter().map(|s| s.to_string()).collect(),
            max_links_per_page: 10_000,
            workers: 0,
            queue_pages: 64,
            commit_pages: 100,
            commit_interval: std::time::Duration::from_millis(200),
            min_free_space: 1 << 30,
            stop_grace: std::time::Duration::from_secs(5),
            languages: Vec::new(),
            min_yield: 0.0,
            yield_min_pages: 50,
            status: String::new(),
        }
    }
}

impl CrawlConfig {
    /// True when links to `url` are not followed (`exclude`).
    pub fn is_excluded(&self, url: &str) -> bool {
        self.exclude.iter().any(|pattern| url.contains(pattern.as_str()))
    }

    /// Worker threads: `workers`, or one per core when 0.
    pub fn worker_threads(&self) -> usize {
        match self.workers {
            0 => std::thread::available_parallelism().map_or(2, |n| n.get()),
            n => n,
        }
    }

    /// True when a record in language `lang` (ISO 639-1) is kept under `languages`.
    pub fn keeps_language(&self, lang: Option<&str>) -> bool {
        self.languages.is_empty() || lang.is_some_and(|l| self.languages.iter().any(|k| k == l))
    }

    /// The configured language, `None` for automatic detection.
    pub fn language(&self) -> Option<&str> {
        (!self.language.eq_ignore_ascii_case("auto")).then_some(self.language.as_str())
    }
}

/// The longest duration any key accepts: 30 days.
pub const MAX_DURATION: std::time::Duration = std::time::Duration::from_secs(30 * 86_400);

/// `[eval]` section.
#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct EvalConfig {
    /// Directory of the shared evaluation data. Default `../shared/data`; the environment
    /// variable `WEBCORPUS_DATA` overrides it.
    pub data_dir: PathBuf,
}

impl Default for EvalConfig {
    fn default() -> Self {
        EvalConfig { data_dir: PathBuf::from("../shared/data") }
    }
}

impl Config {
    /// The extraction settings of this config: `[crawl] language`, `[justext]`,
    /// `[learn.stadynot]`, `[tree_filter]`, `[boilernet]`; the shipped combiner.
    pub fn extract_settings(&self) -> crate::extract::pipeline::ExtractSettings {
        crate::extract::pipeline::ExtractSettings {
            language: self.crawl.language().map(str::to_string),
            justext: self.justext.clone(),
            stadynot: self.learn.stadynot.clone(),
            tree_filter: self.tree_filter.clone(),
            boilernet: self.boilernet.clone(),
            combiner: None,
            comments: self.extract.comments,
            host_evidence: None,
            host_rules: !self.extract.host_evidence,
        }
    }

    /// Read and validate `path`.
    ///
    /// # Errors
    /// [`ConfigError`] naming the file, the key and the reason.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text =
            std::fs::read_to_string(path).map_err(|source| ConfigError::Read { path: path.to_path_buf(), source })?;
        Config::parse(&text, path)
    }

    /// Parse and validate TOML `text`; `path` is only used in messages.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let config: Config = toml::from_str(text)
            .map_err(|e| ConfigError::Parse { path: path.to_path_buf(), message: e.to_string() })?;
        config.validate(path)?;
        Ok(config)
    }

    /// Validate a config, also after command-line flags changed it: the checks of
    /// [`Config::load`]; `path` names where the values came from in messages.
    ///
    /// # Errors
    /// [`ConfigError::Invalid`] naming `path`, the key and the reason.
    pub fn validate(&self, path: &Path) -> Result<(), ConfigError> {
        let invalid =
            |key: &'static str, reason: String| ConfigError::Invalid { path: path.to_path_buf(), key, reason };
        if !(self.learn.relearn_miss_rise > 0.0 && self.learn.relearn_miss_rise <= 1.0) {
            return Err(invalid("learn.relearn_miss_rise", "must be above 0 and at most 1".into()));
        }
        if !self.crawl.status.is_empty() {
            parse_addr(&self.crawl.status).map_err(|e| invalid("crawl.status", e))?;
        }
        if let Some((key, reason)) = self.cluster.check() {
            return Err(invalid(key, reason));
        }
        if self.learn.min_sample == 0 {
            return Err(invalid("learn.min_sample", "must be at least 1".into()));
        }
        if self.learn.sample_size < self.learn.min_sample {
            return Err(invalid(
                "learn.sample_size",
                format!("must be at least learn.min_sample ({})", self.learn.min_sample),
            ));
        }
        if !(self.dedup.threshold > 0.0 && self.dedup.threshold <= 1.0) {
            return Err(invalid("dedup.threshold", format!("must be in (0, 1], got {}", self.dedup.threshold)));
        }
        if self.dedup.n == 0 {
            return Err(invalid("dedup.n", "must be at least 1".into()));
        }
        if !(self.dedup.bloom_fp_rate > 0.0 && self.dedup.bloom_fp_rate < 1.0) {
            return Err(invalid("dedup.bloom_fp_rate", format!("must be in (0, 1), got {}", self.dedup.bloom_fp_rate)));
        }
        if self.dedup.bloom_capacity == 0 {
            return Err(invalid("dedup.bloom_capacity", "must be at least 1".into()));
        }
        for (key, value) in [
            ("crawl.commit_pages", self.crawl.commit_pages),
            ("crawl.queue_pages", self.crawl.queue_pages),
            ("crawl.max_links_per_page", self.crawl.max_links_per_page),
        ] {
            if value == 0 {
                return Err(invalid(key, "must be at least 1".into()));
            }
        }
        if self.crawl.max_parallel_hosts == 0 {
            return Err(invalid("crawl.max_parallel_hosts", "must be at least 1".into()));
        }
        for code in &self.crawl.languages {
            let known = code.len() == 2 && isolang::Language::from_639_1(code).is_some();
            if !known {
                return Err(invalid(
                    "crawl.languages",
                    format!("`{code}` is not an ISO 639-1 code in lower case (e.g. \"en\", \"ja\")"),
                ));
            }
        }
        if !(0.0..1.0).contains(&self.crawl.min_yield) {
            return Err(invalid("crawl.min_yield", format!("must be in [0, 1), got {}", self.crawl.min_yield)));
        }
        if let Some(lang) = self.crawl.language() {
            stoplist::validate_language(lang).map_err(|e| invalid("crawl.language", e.to_string()))?;
        }
        if self.boilernet.model.is_some() {
            if let Err(e) = crate::extract::boilernet::model_for(&self.boilernet) {
                return Err(invalid("boilernet.model", e));
            }
        }
        if !self.classify.model.as_os_str().is_empty() {
            if let Err(e) = self.classify.classifier() {
                return Err(invalid("classify.model", e.to_string()));
            }
        }
        let prefix = &self.warc.prefix;
        if prefix.is_empty() || prefix.contains(['/', '\\']) || prefix.starts_with('.') {
            return Err(invalid(
                "warc.prefix",
                format!("`{prefix}` must be a non-empty file name part without / or \\"),
            ));
        }
        if self.warc.max_file_bytes == 0 {
            return Err(invalid("warc.max_file_bytes", "must be at least 1".into()));
        }
        for (host, addr) in &self.net.resolve {
            if addr.parse::<std::net::SocketAddr>().is_err() {
                return Err(invalid("net.resolve", format!("`{host}` maps to `{addr}`, which is not an ip:port")));
            }
        }
        self.validate_ranges(path)
    }

    /// Ranges and orders serde cannot check: non-zero timeouts and sizes, thresholds in
    /// order and in [0, 1], durations below [`MAX_DURATION`].
    fn validate_ranges(&self, path: &Path) -> Result<(), ConfigError> {
        let invalid =
            |key: &'static str, reason: String| ConfigError::Invalid { path: path.to_path_buf(), key, reason };
        let p = &self.politeness;
        p.validate().map_err(|e| invalid(e.key, e.reason))?;
        let n = &self.net;
        for (key, value, may_be_zero) in [
            ("politeness.min_delay", p.min_delay, true),
            ("politeness.max_response_delay", p.max_response_delay, true),
            ("politeness.max_crawl_delay", p.max_crawl_delay, true),
            ("politeness.robots_max_age", p.robots_max_age, false),
            ("politeness.robots_retry", p.robots_retry, false),
            ("politeness.robots_give_up", p.robots_give_up, true),
            ("politeness.backoff_base", p.backoff_base, true),
            ("politeness.backoff_max", p.backoff_max, true),
            ("net.connect_timeout", n.connect_timeout, false),
            ("net.read_timeout", n.read_timeout, false),
            ("net.request_timeout", n.request_timeout, false),
            ("crawl.commit_interval", self.crawl.commit_interval, false),
            ("crawl.stop_grace", self.crawl.stop_grace, true),
        ] {
            if value > MAX_DURATION {
                return Err(invalid(key, format!("{} is more than 30 days", humantime::format_duration(value))));
            }
            if value.is_zero() && !may_be_zero {
                return Err(invalid(key, "must be more than 0".into()));
            }
        }
        if n.max_body_bytes == 0 {
            return Err(invalid("net.max_body_bytes", "must be at least 1".into()));
        }
        if n.user_agent.trim().is_empty() {
            return Err(invalid("net.user_agent", "must name the crawler (product/version and a contact URL)".into()));
        }
        for entry in &n.allow {
            net::AllowEntry::parse(entry).map_err(|e| invalid("net.allow", e))?;
        }
        let j = &self.justext;
        for (key, value) in [
            ("justext.stopwords_low", j.stopwords_low),
            ("justext.stopwords_high", j.stopwords_high),
            ("justext.max_link_density", j.max_link_density),
        ] {
            if !(0.0..=1.0).contains(&value) {
                return Err(invalid(key, format!("must be in [0, 1], got {value}")));
            }
        }
        if j.length_low > j.length_high {
            return Err(invalid("justext.length_low", format!("must not exceed length_high ({})", j.length_high)));
        }
        if j.stopwords_low > j.stopwords_high {
            return Err(invalid(
                "justext.stopwords_low",
                format!("must not exceed stopwords_high ({})", j.stopwords_high),
            ));
        }
        Ok(())
    }

    /// The evaluation data directory: `WEBCORPUS_DATA` if set, else `[eval] data_dir`.
    pub fn data_dir(&self) -> PathBuf {
        std::env::var_os("WEBCORPUS_DATA").map(PathBuf::from).unwrap_or_else(|| self.eval.data_dir.clone())
    }
}

/// Parse a `--status` value: `PORT` (loopback) or `ADDRESS:PORT`.
///
/// # Errors
/// A message naming the value.
pub fn parse_addr(text: &str) -> Result<SocketAddr, String> {
    let text = text.trim();
    if let Ok(port) = text.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    text.parse().map_err(|_| format!("`{text}` is not PORT or ADDRESS:PORT (e.g. 127.0.0.1:8090)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_config_toml_parses_and_equals_the_defaults_it_documents() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("config.toml");
        let c = Config::load(&path).unwrap();
        assert_eq!(c.learn.sample_size, LearnParams::default().sample_size);
        assert_eq!(c.politeness.min_delay, PolitenessConfig::default().min_delay);
        assert_eq!(c.net.max_body_bytes, NetConfig::default().max_body_bytes);
        assert_eq!(c.crawl.exclude, CrawlConfig::default().exclude);
        assert_eq!(c.dedup.n, crate::dedup::OnionParams::default().n);
        assert_eq!(c.learn.goldminer, crate::extract::goldminer::GoldMinerParams::default());
        assert!(c.crawl.is_excluded("https://awesomewm.org/w/index.php?title=X&action=edit"));
        assert_eq!(c.classify, ClassifyConfig::default());
        assert_eq!(c.warc, crate::write::warc::WarcConfig::default());
    }

    #[test]
    fn warc_section_is_checked() {
        let c = Config::parse(
            "[warc]
enabled = false
",
            Path::new("x.toml"),
        )
        .unwrap();
        assert!(!c.warc.enabled);
        for bad in ["prefix = \"a/b\"", "prefix = \"\"", "max_file_bytes = 0"] {
            let err = Config::parse(&format!("[warc]\n{bad}\n"), Path::new("x.toml")).unwrap_err().to_string();
            assert!(err.contains("warc."), "{bad}: {err}");
        }
    }

    #[test]
    fn classify_section_parses_and_checks_its_model() {
        let c = Config::parse("[classify]\ndrop_non_article = true\n", Path::new("x.toml")).unwrap();
        assert!(c.classify.drop_non_article);
        assert!(c.classify.classifier().is_ok(), "the shipped model");
        let err = Config::parse("[classify]\ndrop_non_articles = true\n", Path::new("x.toml")).unwrap_err();
        assert!(err.to_string().contains("drop_non_articles"), "{err}");
        let err = Config::parse("[classify]\nmodel = \"/nonexistent/m.wcnn\"\n", Path::new("x.toml")).unwrap_err();
        assert!(err.to_string().contains("classify.model"), "{err}");
    }

    #[test]
    fn unknown_key_and_bad_value_are_named() {
        let err = Config::parse("[crawl]\nmax_dept = 3\n", Path::new("x.toml")).unwrap_err().to_string();
        assert!(err.contains("max_dept"), "{err}");
        let err = Config::parse("[dedup]\nthreshold = 1.5\n", Path::new("x.toml")).unwrap_err().to_string();
        assert!(err.contains("dedup.threshold"), "{err}");
        let err = Config::parse("[politeness]\nmin_delay = \"soon\"\n", Path::new("x.toml")).unwrap_err().to_string();
        assert!(err.contains("min_delay"), "{err}");
    }

    /// Values that parse but would make a crawl misbehave are refused, naming the key.
    #[test]
    fn out_of_range_values_are_refused() {
        for (toml, key) in [
            ("[politeness]\nresponse_time_factor = -3.0\n", "response_time_factor"),
            ("[politeness]\nmin_delay = \"99999999999s\"\n", "politeness.min_delay"),
            ("[net]\nread_timeout = \"0s\"\n", "net.read_timeout"),
            ("[net]\nrequest_timeout = \"0s\"\n", "net.request_timeout"),
            ("[net]\nmax_body_bytes = 0\n", "net.max_body_bytes"),
            ("[net]\nallow = [\"not a host!\"]\n", "net.allow"),
            ("[justext]\nlength_low = 300\nlength_high = 100\n", "justext.length_low"),
            ("[justext]\nstopwords_low = 0.5\nstopwords_high = 0.3\n", "justext.stopwords_low"),
            ("[justext]\nmax_link_density = 2.0\n", "justext.max_link_density"),
            ("[politeness]\nbackoff_base = \"2h\"\nbackoff_max = \"1h\"\n", "backoff_max"),
        ] {
            let err = Config::parse(toml, Path::new("x.toml")).expect_err(toml).to_string();
            assert!(err.contains(key), "{toml}: {err}");
        }
        // A value set by a flag after the file was read is checked as one from the file.
        let mut config = Config::default();
        config.politeness.min_delay = std::time::Duration::from_secs(99_999_999_999);
        let err = config.validate(Path::new("config.toml and the command line")).unwrap_err().to_string();
        assert!(err.contains("politeness.min_delay") && err.contains("the command line"), "{err}");
        assert!(Config::parse("[net]\nallow = [\"10.0.0.0/8\", \"intranet.example\"]\n", Path::new("x.toml")).is_ok());
        let err =
            Config::parse("[boilernet]\nmodel = \"/nonexistent/bn.wcnn\"\n", Path::new("x.toml")).expect_err("missing");
        assert!(err.to_string().contains("boilernet.model"), "{err}");
    }

    /// Every key of the config structs is in `config.toml` with its default value, and
    /// `config.toml` has no key the structs lack (a commented-out `# key = ` line documents an
    /// optional key without a default).
    #[test]
    fn config_toml_lists_every_key_with_its_default() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("config.toml");
        let text = std::fs::read_to_string(&path).unwrap();
        let shipped = Config::parse(&text, &path).expect("config.toml parses");
        let file: toml::Value = toml::from_str(&text).unwrap();
        let defaults = toml::Value::try_from(Config::default()).unwrap();
        let shipped_value = toml::Value::try_from(shipped).unwrap();
        // Optional keys documented as comments, per section.
        let mut section = String::new();
        let mut commented = std::collections::HashSet::new();
        for line in text.lines() {
            let l = line.trim();
            if l.starts_with('[') {
                section = l.trim_matches(|c| c == '[' || c == ']').split(']').next().unwrap_or("").to_string();
            } else if let Some(rest) = l.strip_prefix("# ") {
                if let Some((key, _)) = rest.split_once(" = ") {
                    commented.insert(format!("{section}.{key}"));
                }
            }
        }
        let toml::Value::Table(sections) = &defaults else { panic!() };
        let mut checked = 0;
        for (name, keys) in sections {
            let toml::Value::Table(keys) = keys else { continue };
            for (key, value) in keys {
                if name == "net" && key == "resolve" {
                    continue; // a testing aid whose entries are the demo hosts
                }
                let in_file = file.get(name).and_then(|s| s.get(key));
                let nested = matches!(value, toml::Value::Table(_));
                assert!(
                    in_file.is_some() || commented.contains(&format!("{name}.{key}")),
                    "config.toml lacks [{name}] {key}"
                );
                if !nested {
                    assert_eq!(shipped_value[name][key], *value, "config.toml's [{name}] {key} is not the default");
                }
                checked += 1;
            }
        }
        assert!(checked > 60, "{checked} keys");
        let optional = Config::parse("[boilernet]\n", Path::new("x.toml")).unwrap();
        assert!(optional.boilernet.model.is_none() && commented.contains("boilernet.model"));
    }
}
