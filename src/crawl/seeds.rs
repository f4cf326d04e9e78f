//! The seeds file: read ([`read_seeds`]) and queued on this machine's frontier
//! ([`add_seeds`]); a cluster crawl queues them through its backend instead.

use crate::crawl::url::{host_key, normalize, parse_seed_line};
use crate::crawl::CrawlError;
use crate::store::{CrawlState, FrontierEntry, HostRecord};
use std::path::Path;
use url::Url;

/// The seeds of the file `path` or, for `-`, standard input, normalised, with their host
/// keys. A UTF-8 byte order mark and CRLF line ends are accepted; bad lines (not UTF-8, not a
/// URL) are reported with their line number and skipped.
///
/// # Errors
/// [`CrawlError::Seeds`] when the file cannot be read or holds no valid seed URL.
pub fn read_seeds(path: &Path) -> Result<Vec<(Url, String)>, CrawlError> {
    parse_seeds(path, true)
}

/// Is the seeds file `path` usable ([`read_seeds`]; its warnings are printed only when it is
/// not)? Checked before a new crawl creates its state, so a refused crawl leaves nothing
/// behind. Standard input (`-`) can be read only once and is not checked here.
///
/// # Errors
/// As [`read_seeds`].
pub fn check_seeds(path: &Path) -> Result<(), CrawlError> {
    match path == Path::new("-") {
        true => Ok(()),
        false => parse_seeds(path, false).or_else(|_| parse_seeds(path, true)).map(|_| ()),
    }
}

/// [`read_seeds`], printing the skipped lines' warnings when `warn`.
fn parse_seeds(path: &Path, warn: bool) -> Result<Vec<(Url, String)>, CrawlError> {
    let bytes = if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut bytes).map(|_| bytes)
    } else {
        std::fs::read(path)
    }
    .map_err(|e| CrawlError::Seeds { path: path.to_path_buf(), reason: e.to_string() })?;
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes);
    let mut seeds = Vec::new();
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let Ok(line) = std::str::from_utf8(line) else {
            if warn {
                crate::warn_line!("warning: {}:{}: seed skipped: the line is not UTF-8", path.display(), i + 1);
            }
            continue;
        };
        let url = match parse_seed_line(line) {
            Ok(Some(u)) => u,
            Ok(None) => continue,
            Err(e) => {
                if warn {
                    crate::warn_line!("warning: {}:{}: seed skipped: {e}", path.display(), i + 1);
                }
                continue;
            }
        };
        if let (Some(url), Some(host)) = (normalize(&url), host_key(&url)) {
            seeds.push((url, host));
        }
    }
    if seeds.is_empty() {
        return Err(CrawlError::Seeds { path: path.to_path_buf(), reason: "no valid seed URL".into() });
    }
    Ok(seeds)
}

/// Queue every seed of `path` not seen before ([`read_seeds`]) on this machine's frontier.
///
/// # Errors
/// An unusable seeds file (unless the state already has hosts: a resumed crawl may run with an
/// empty one), the store's.
pub fn add_seeds(state: &CrawlState, path: &Path) -> Result<(), CrawlError> {
    let seeds = match read_seeds(path) {
        Ok(seeds) => seeds,
        // A resumed crawl may run with an empty seeds file.
        Err(CrawlError::Seeds { .. }) if !state.hosts()?.is_empty() => Vec::new(),
        Err(e) => return Err(e),
    };
    let mut batch = state.batch();
    let mut records: std::collections::BTreeMap<String, HostRecord> = Default::default();
    let mut queued = std::collections::HashSet::new();
    for (url, host) in seeds {
        let mut rec = match records.remove(&host) {
            Some(rec) => rec,
            None => match state.host(&host)? {
                Some(rec) => rec,
                None => HostRecord { host: host.clone(), seed: url.to_string(), ..HostRecord::default() },
            },
        };
        if !state.is_seen(url.as_str())? && queued.insert(CrawlState::url_identity(url.as_str())) {
            batch.push_frontier(&host, FrontierEntry { url: url.to_string(), depth: 0, ..FrontierEntry::default() });
            rec.enqueued += 1;
        }
        records.insert(host, rec);
    }
    for rec in records.values() {
        batch.put_host(rec);
    }
    state.commit(batch)?;
    Ok(())
}
