//! The integration tests, one binary (the library is linked once): each module is one area,
//! and [`support`] holds the loopback servers and the one test-data locator.

mod support;

mod cjk_text;
mod cluster;
mod consent_boxes;
mod crawl_bad_input;
mod crawl_engine;
mod crawl_sites;
mod eval_floors;
mod eval_html;
mod heading_controls;
mod headline;
mod hostile;
mod languages;
mod learning_guards;
mod media_fallback;
mod properties;
mod refresh;
mod relearn;
mod resume_kill;
mod show;
mod status_page;
mod unicode_forms;
mod url_sources;
mod warc_bombs;
mod warc_input;
