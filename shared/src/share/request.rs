//! The raw `/sweep` and `/ask` request: one line in the user's own words,
//! with a share link anywhere in it and `key=value` settings from a closed
//! list.
//!
//! Promises: nothing the user typed is lost. An unknown `key=value` stays
//! in the question and gets a warning (with a typo hint when it is close to
//! a real key). A bad value falls back to its default with a `⚠` line; it
//! never reaches the plan's arithmetic. A link is any URL a share link
//! may be ([`ShareLink::names_a_search`]): what `open_link` opens.

use super::ShareLink;

/// The settings a request may carry, in the order the docs list them.
pub const KEYS: &[&str] = &[
    "channels",
    "groups",
    "batch_size",
    "parse_model",
    "report",
    "directive",
    "source",
    "content_types",
    "regex",
];

/// Videos per batch when the request names none.
pub const DEFAULT_BATCH: usize = 12;
/// The most videos per batch.
pub const MAX_BATCH: usize = 20;
/// The model that reads the batches when the request names none.
pub const DEFAULT_MODEL: &str = "haiku";

/// Validated settings, defaults filled in.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Channels named (`channels=`).
    pub channels: Vec<String>,
    /// Groups named (`groups=`).
    pub groups: Vec<String>,
    /// Videos per batch.
    pub batch_size: usize,
    /// The model that reads the batches.
    pub parse_model: String,
    /// The report the findings are for (`report=`).
    pub report: Option<String>,
    /// What to look for, beyond the question (`directive=`).
    pub directive: Option<String>,
    /// The corpus named (`source=`).
    pub source: Option<String>,
    /// `video` and/or `post`; empty means both.
    pub content_types: Vec<String>,
    /// Whether the query is a regex (`regex=true`).
    pub regex: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            channels: Vec::new(),
            groups: Vec::new(),
            batch_size: DEFAULT_BATCH,
            parse_model: DEFAULT_MODEL.into(),
            report: None,
            directive: None,
            source: None,
            content_types: Vec::new(),
            regex: false,
        }
    }
}

/// A parsed request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parsed {
    /// The first URL that carries a query tree (`qt=`).
    pub link: Option<String>,
    /// The key=value settings.
    pub settings: Settings,
    /// Everything else, in the order typed.
    pub question: String,
    /// `⚠` lines for the top of the plan.
    pub warnings: Vec<String>,
}

/// The real key `key` is probably a typo of.
pub fn typo_of(key: &str) -> Option<&'static str> {
    crate::typo::nearest(key, KEYS.iter().copied())
}

/// A token: the text as typed, and with a `key="quoted value"`'s quotes
/// removed.
struct Token {
    raw: String,
    cooked: String,
}

/// Splits `text` into tokens, keeping a quoted value (`key="a b"`) whole.
fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let (mut raw, mut cooked) = (String::new(), String::new());
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cooked.push(c),
            (None, '"' | '\'') if cooked.contains('=') => quote = Some(c),
            (None, c) if c.is_whitespace() => {
                if !raw.is_empty() {
                    out.push(Token {
                        raw: std::mem::take(&mut raw),
                        cooked: std::mem::take(&mut cooked),
                    });
                }
                continue;
            }
            (None, c) => cooked.push(c),
        }
        raw.push(c);
    }
    if !raw.is_empty() {
        out.push(Token { raw, cooked });
    }
    out
}

fn list(v: &str) -> Vec<String> {
    v.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Parses the raw request.
pub fn parse(raw: &str) -> Parsed {
    let mut p = Parsed::default();
    let mut words = Vec::new();
    for Token { raw: typed, cooked } in tokens(raw) {
        let is_url = ShareLink::is_url(&cooked);
        if p.link.is_none() && ShareLink::names_a_search(&cooked) {
            p.link = Some(cooked);
            continue;
        }
        let setting = (!is_url).then(|| cooked.split_once('=')).flatten();
        match setting {
            Some((k, v)) if KEYS.contains(&k) => set(&mut p, k, v),
            Some((k, _))
                if !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                let hint = typo_of(k).map_or(String::new(), |t| format!("; did you mean {t}=?"));
                p.warnings.push(format!(
                    "⚠ {typed:?} is not a setting, so it stays in the question{hint} (settings: {})",
                    KEYS.join(", ")
                ));
                words.push(typed);
            }
            _ => words.push(typed),
        }
    }
    p.question = words.join(" ");
    p
}

fn set(p: &mut Parsed, key: &str, value: &str) {
    let s = &mut p.settings;
    let mut warn = |what: String| p.warnings.push(format!("⚠ {what}"));
    match key {
        "channels" => s.channels.extend(list(value)),
        "groups" => s.groups.extend(list(value)),
        "batch_size" => match value.parse::<usize>() {
            Ok(n) if (1..=MAX_BATCH).contains(&n) => s.batch_size = n,
            _ => warn(format!("batch_size {value:?} is not a whole number from 1 to {MAX_BATCH}; using {DEFAULT_BATCH}")),
        },
        "parse_model" if is_token(value) => s.parse_model = value.to_string(),
        "parse_model" => warn(format!("parse_model {value:?} is not a single model name; using {DEFAULT_MODEL}")),
        "report" if is_report_path(value) => s.report = Some(value.to_string()),
        "report" => warn(format!("report {value:?} is not one .md path without \"..\"; using the default")),
        "directive" if !value.trim().is_empty() => s.directive = Some(value.trim().to_string()),
        "directive" => warn("directive is empty; the question is the directive".into()),
        "source" => s.source = Some(value.to_string()),
        "content_types" => {
            let types = list(value);
            if types.iter().all(|t| t == "video" || t == "post") && !types.is_empty() {
                s.content_types = types;
            } else {
                warn(format!("content_types {value:?} must be video, post or video,post; using both"));
            }
        }
        "regex" => match value.to_lowercase().as_str() {
            "true" | "yes" | "1" => s.regex = true,
            "false" | "no" | "0" => s.regex = false,
            _ => warn(format!("regex {value:?} is not true or false; using false")),
        },
        _ => {}
    }
}

/// One model name: letters, digits, `.`, `_`, `:`, `-`.
pub fn is_token(v: &str) -> bool {
    !v.is_empty()
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._:-".contains(c))
}

/// One `.md` path with no `..` segment and no whitespace.
pub fn is_report_path(v: &str) -> bool {
    v.ends_with(".md")
        && !v.chars().any(char::is_whitespace)
        && !v.split(['/', '\\']).any(|seg| seg == "..")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_keeps_every_word_and_takes_only_known_settings() {
        let p = parse("file:///home/me/archive/?qt=abc&fdf=20200101 when was it said?");
        assert_eq!(
            p.link.as_deref(),
            Some("file:///home/me/archive/?qt=abc&fdf=20200101"),
            "a local archive's link, as the command line writes it"
        );
        assert_eq!(p.question, "when was it said?");
        let p = parse("https://a.example/?qt=abc&fav=d This search finds deleted videos. Why might they be gone? batch_size=8 channels=a,b directive=\"list the reasons given\" chanels=c https://other.example/x");
        assert_eq!(p.link.as_deref(), Some("https://a.example/?qt=abc&fav=d"));
        assert_eq!(p.settings.batch_size, 8);
        assert_eq!(p.settings.channels, vec!["a", "b"]);
        assert_eq!(
            p.settings.directive.as_deref(),
            Some("list the reasons given")
        );
        assert_eq!(p.question, "This search finds deleted videos. Why might they be gone? chanels=c https://other.example/x");
        assert_eq!(p.warnings.len(), 1);
        assert!(p.warnings[0].starts_with("⚠ \"chanels=c\" is not a setting, so it stays in the question; did you mean channels=?"), "{:?}", p.warnings);
    }

    #[test]
    fn bad_values_fall_back_with_a_warning() {
        let p = parse("q batch_size=Why parse_model=\"big model\" report=../x.md content_types=audio regex=maybe");
        assert_eq!(p.settings, Settings::default());
        assert_eq!(p.question, "q");
        let w = p.warnings.join("\n");
        for want in [
            "⚠ batch_size \"Why\" is not a whole number from 1 to 20; using 12",
            "⚠ parse_model \"big model\" is not a single model name; using haiku",
            "⚠ report \"../x.md\" is not one .md path",
            "⚠ content_types \"audio\" must be video, post or video,post",
            "⚠ regex \"maybe\" is not true or false",
        ] {
            assert!(w.contains(want), "{want}\n{w}");
        }
        assert_eq!(parse("x batch_size=21").settings.batch_size, 12);
        assert_eq!(parse("x batch_size=20").settings.batch_size, 20);
        assert_eq!(typo_of("batchsize"), Some("batch_size"));
        assert_eq!(typo_of("zzzzzz"), None);
    }
}
