//! Shared test support: the loopback site server and paths to `../shared`.

#![allow(dead_code)]

pub mod hostile_server;
pub mod redis_server;
pub mod site_server;
pub mod warc;

use std::path::PathBuf;

/// `../shared` beside the repository (override with `WEBCORPUS_SHARED`), or `None` with a
/// loud message when it is missing, so that only the tests that need it are skipped.
pub fn shared_dir(test: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("WEBCORPUS_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    if dir.join("sites").is_dir() && dir.join("data").is_dir() {
        Some(dir)
    } else if std::env::var_os("CI").is_some() {
        panic!("{test}: shared data not found at {} (CI must run with ../shared)", dir.display());
    } else {
        eprintln!("\n*** SKIPPED {test}: shared data not found at {} (set WEBCORPUS_SHARED) ***\n", dir.display());
        None
    }
}

/// A tool `test` needs is missing: the test fails (a check that did not run never reports
/// ok), saying how to get the tool (`install`).
///
/// # Panics
/// Always.
pub fn missing_tool(test: &str, tool: &str, install: &str) -> ! {
    panic!("{test}: {tool} is missing, so this check cannot run; install it: {install}")
}

/// Make sure `python3` can import `module`, installing `package` from PyPI (`python3 -m pip
/// install`, else `--user`) when it cannot; one documented step instead of a silent skip.
///
/// # Panics
/// When there is no `python3` or the install fails ([`missing_tool`]).
pub fn python_module(test: &str, module: &str, package: &str) {
    let import = || {
        std::process::Command::new("python3")
            .args(["-c", &format!("import {module}")])
            .status()
            .is_ok_and(|s| s.success())
    };
    if import() {
        return;
    }
    // Into the active environment (a virtualenv, pyenv), else into the user's site-packages
    // (a system Python that refuses installs into itself).
    for user in [&[][..], &["--user"][..]] {
        let _ = std::process::Command::new("python3")
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check"])
            .args(user)
            .arg(package)
            .status();
        if import() {
            return;
        }
    }
    missing_tool(test, &format!("the Python module {module}"), &format!("python3 -m pip install {package}"));
}

/// The first `n` article pages of the shared Free Press site (`<slug>/index.html` over 20 kB),
/// in name order: real pages for fixtures whose own links lead nowhere.
pub fn freepress_articles(shared: &std::path::Path, n: usize) -> Vec<PathBuf> {
    let root = shared.join("sites/www.freepressokc.com");
    let mut pages: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path().join("index.html"))
        .filter(|p| p.is_file() && std::fs::metadata(p).unwrap().len() > 20_000)
        .collect();
    pages.sort();
    pages.truncate(n);
    assert_eq!(pages.len(), n, "article pages in {}", root.display());
    pages
}

/// A config file for a loopback crawl: every given host resolved to `addr`.
pub fn loopback_config(addr: std::net::SocketAddr, hosts: &[&str], extra: &str) -> String {
    let mut toml = String::from("[net.resolve]\n");
    for h in hosts {
        toml.push_str(&format!("\"{h}\" = \"{addr}\"\n"));
    }
    format!("{extra}\n{toml}")
}

/// `webcorpus crawl --seeds DIR/seeds.txt --config DIR/config.toml --quiet`, output discarded.
pub fn crawl_command(dir: &std::path::Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_webcorpus"));
    cmd.arg("crawl")
        .arg("--seeds")
        .arg(dir.join("seeds.txt"))
        .arg("--config")
        .arg(dir.join("config.toml"))
        .arg("--quiet")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    cmd
}
