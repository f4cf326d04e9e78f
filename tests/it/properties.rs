//! Property tests (proptest) of the code that meets hostile input first: charset decoding,
//! the nesting cap and segmentation, robots.txt parsing, URL normalisation and the address
//! policy. Each property runs on generated input; a failing case is shrunk and kept by
//! proptest in `tests/properties.proptest-regressions`. Longer runs:
//! `PROPTEST_CASES=100000 cargo test --release --test properties`.

use proptest::prelude::*;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use url::Url;
use webcorpus::crawl::address::{refused_range, AddressPolicy};
use webcorpus::crawl::robots::RobotsPolicy;
use webcorpus::crawl::url::normalize;
use webcorpus::html::depth::flatten_deep;
use webcorpus::html::{decode_html, segment, Document};

/// Markup-ish text: tags, entities, quotes and words, nested at random. No bare `<`: the
/// flattening scan and html5ever's tokenizer may read a stray `<` differently (misnested
/// elements have their own property, [`formatting_markup`]).
fn markup() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[a-z ]{0,12}",
        Just("<div>".to_string()),
        Just("</div>".to_string()),
        Just("<p>".to_string()),
        Just("<span class=\"x>y\">".to_string()),
        Just("</span>".to_string()),
        Just("<script>".to_string()),
        Just("</script>".to_string()),
        Just("<!--".to_string()),
        Just("-->".to_string()),
        Just("<br/>".to_string()),
        Just("<table><tr><td>".to_string()),
        Just("&amp;".to_string()),
    ];
    proptest::collection::vec(piece, 0..200).prop_map(|v| v.concat())
}

/// Words between formatting elements (`b`, `i`, `font`, `a`) closed in the wrong order and
/// blocks they straddle: the input of html5ever's adoption agency algorithm.
fn formatting_markup() -> impl Strategy<Value = String> {
    const TAGS: &str = "<b>|</b>|<i>|</i>|<font size=2>|</font>|<a href=x>|</a>|<p>|</p>|<blockquote>|\
        </blockquote>|<div>|</div>|<h3>|</h3>|<table><tr><td>|</td></tr></table>| ";
    let tags = proptest::sample::select(TAGS.split('|').collect::<Vec<_>>());
    let piece = prop_oneof![1 => "[a-z ]{0,8}", 9 => tags.prop_map(str::to_string)];
    proptest::collection::vec(piece, 0..120).prop_map(|v| v.concat())
}

/// The characters of a parsed page's text without whitespace, sorted: removing a table
/// tag may move text (foster parenting), never add or lose any.
fn letters(doc: &Document) -> Vec<char> {
    let mut chars: Vec<char> =
        doc.html.root_element().text().flat_map(str::chars).filter(|c| !c.is_whitespace()).collect();
    chars.sort_unstable();
    chars
}

proptest! {
    /// Decoding any bytes with any declared charset gives text, and parsing and segmenting it
    /// never panics.
    #[test]
    fn any_bytes_decode_parse_and_segment(bytes in proptest::collection::vec(any::<u8>(), 0..2000),
                                          charset in prop_oneof![Just(None), Just(Some("text/html; charset=utf-8")),
                                                                 Just(Some("text/html; charset=shift_jis")),
                                                                 Just(Some("text/html; charset=utf-16"))]) {
        let decoded = decode_html(&bytes, charset);
        let doc = Document::parse(&decoded.text);
        let _ = segment::segment(&doc);
    }

    /// Flattening removes tags only (each becomes a space): the text of the parsed page keeps
    /// every character with any cap.
    #[test]
    fn flattening_keeps_the_text(html in markup(), depth in 1usize..8) {
        let flat = flatten_deep(&html, depth);
        prop_assert_eq!(letters(&Document::parse(&flat)), letters(&Document::parse(&html)));
    }

    /// Misnested formatting elements move text, never lose it: the parsed page holds every
    /// character of the input's words, and the segmenter's blocks hold them too
    /// (`webcorpus::html::tree_sink`).
    #[test]
    fn misnested_formatting_keeps_every_word(html in formatting_markup()) {
        let mut words: Vec<char> = html
            .split('<')
            .map(|part| part.split_once('>').map_or(part, |(_, text)| text))
            .flat_map(str::chars)
            .filter(|c| !c.is_whitespace())
            .collect();
        words.sort_unstable();
        let doc = Document::parse(&html);
        prop_assert_eq!(&letters(&doc), &words);
        let mut blocks: Vec<char> =
            segment::segment(&doc).iter().flat_map(|b| b.text.chars()).filter(|c| !c.is_whitespace()).collect();
        blocks.sort_unstable();
        prop_assert_eq!(&blocks, &words);
    }

    /// Any robots.txt parses without a panic, and a byte order mark changes nothing.
    #[test]
    fn robots_txt_with_and_without_bom(body in "(User-agent: [a-z*]{1,5}\n|Disallow: /[a-z]{0,3}\n|Allow: /[a-z]{0,3}\n|Crawl-delay: [0-9.]{1,3}\n|[^\n]{0,20}\n){0,12}",
                                       path in "/[a-z]{0,4}") {
        let url = Url::parse(&format!("http://x.org{path}")).expect("URL");
        let plain = RobotsPolicy::parse(&body, "webcorpus");
        let bom = RobotsPolicy::parse(&format!("\u{feff}{body}"), "webcorpus");
        prop_assert_eq!(plain.is_allowed(&url), bom.is_allowed(&url));
        prop_assert_eq!(plain.crawl_delay(), bom.crawl_delay());
    }

    /// Normalisation is idempotent and drops credentials.
    #[test]
    fn normalize_is_idempotent(user in "[a-z]{0,4}", host in "[a-z]{1,8}(\\.[a-z]{2,3})?", path in "(/[a-zA-Z0-9%._~-]{0,6}){0,3}",
                               query in "(\\?[a-z=&]{0,6})?", fragment in "(#[a-z]{0,4})?") {
        let at = if user.is_empty() { String::new() } else { format!("{user}:pw@") };
        let Ok(url) = Url::parse(&format!("http://{at}{host}{path}{query}{fragment}")) else { return Ok(()) };
        let once = normalize(&url).expect("http URL with a host");
        prop_assert_eq!(normalize(&once), Some(once.clone()));
        prop_assert_eq!(once.username(), "");
        prop_assert_eq!(once.password(), None);
        prop_assert_eq!(once.fragment(), None);
    }

    /// An IPv4 address is refused exactly when its IPv4-mapped and NAT64 IPv6 forms are, and
    /// every spelling of it in a URL (dotted, decimal, hex) gets the same verdict.
    #[test]
    fn every_spelling_of_an_address_gets_one_verdict(raw in any::<u32>()) {
        let v4 = Ipv4Addr::from(raw);
        let refused = refused_range(IpAddr::V4(v4)).is_some();
        prop_assert_eq!(refused_range(IpAddr::V6(v4.to_ipv6_mapped())).is_some(), refused);
        let [a, b, c, d] = v4.octets();
        let nat64 = Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, u16::from_be_bytes([a, b]), u16::from_be_bytes([c, d]));
        prop_assert_eq!(refused_range(IpAddr::V6(nat64)).is_some(), refused);
        let policy = AddressPolicy::default();
        for spelling in [format!("http://{v4}/"), format!("http://{raw}/"), format!("http://{raw:#x}/")] {
            let url = Url::parse(&spelling).expect("an IPv4 URL");
            prop_assert_eq!(policy.check_url(&url).is_err(), refused, "{}", spelling);
        }
    }
}
