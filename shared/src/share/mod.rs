//! Viewer share links: one URL that carries a whole search, so that a
//! search made in one place can be re-run, exactly, in another.
//!
//! # Format, version 1
//!
//! `<origin>/?qt=<tree>&fc=<channel>&ft=<type>&fa=<audience>&fav=<states>&fdf=<YYYYMMDD>&fdt=<YYYYMMDD>&fk=<track>&fv=1`
//!
//! - `origin`: the site (or hub) the search ran on, scheme + host + path.
//! - `qt`: the query tree, compact JSON in unpadded base64url. A node is a
//!   term `{"q": "k cups", "s": ["transcripts", "chat"], "re": true,
//!   "cs": true, "na": true}` (`s` omitted: captions and titles; `re`: a
//!   regex; `cs`: case-sensitive regex; `na`: no alias expansion), or
//!   `{"and": [node, …]}`, `{"or": [node, …]}`, `{"not": node}`.
//! - `fc`: a channel by slug or name; repeat it, or separate with commas
//!   (a comma inside a name is `%2C`).
//! - `ft`: `v` video or `l` livestream; `fa`: `a` all ages or `r`
//!   restricted; `fav`: availability codes, comma-separated: `a`
//!   available, `m` maybe missing, `d` deleted, `p` private, `mo` members
//!   only, `u` unlisted (the full state names are accepted too).
//! - `fdf` / `fdt`: the upload-date range, inclusive.
//! - `fk`: a subtitle-track token from older links; decoded and reported
//!   as ignored (a composite tree names its layers itself).
//! - `fv`: the format version (absent means 1).
//!
//! Decoding is strict and bounded: every part that is wrong is named, with
//! what was expected; the link, the tree and each query are size-limited,
//! and a tree may nest at most [`MAX_DEPTH`] deep with at most
//! [`MAX_TERMS`] terms.
//!
//! [`eval`] runs a decoded link on the engine; [`request`] reads the
//! one-line `/sweep` and `/ask` requests a link is pasted into.

pub mod eval;
pub mod request;

use base64::Engine;
use serde_json::{json, Map, Value};

use crate::query::filter_args::{Filter, LinkField, Shape};
use crate::query::{FilterArgs, FILTERS};

/// The format version this build writes and reads.
pub const VERSION: u32 = 1;
/// The longest link accepted, in bytes.
pub const MAX_LINK_BYTES: usize = 16 * 1024;
/// The deepest nesting of `and` / `or` / `not`.
pub const MAX_DEPTH: usize = 8;
/// The most terms one tree may hold.
pub const MAX_TERMS: usize = 32;
/// The longest query of one term, in characters.
pub const MAX_QUERY_CHARS: usize = 1000;

/// Why a share link cannot be read, or made for a search.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    /// A part of the link is wrong: the message names the part and what
    /// was expected.
    #[error("{0}")]
    Malformed(String),
    /// The link is of a newer format version than this build reads.
    #[error("fv={0}: this server reads share links of version {VERSION}; update archilyzer-mcp to open a newer link")]
    NewerVersion(String),
    /// The search sets something the format has no field for.
    #[error("a share link cannot carry {what} (the format has no field for it): {advice}")]
    CannotCarry {
        /// What cannot be carried.
        what: String,
        /// What to do instead.
        advice: &'static str,
    },
}

impl From<String> for LinkError {
    fn from(message: String) -> Self {
        LinkError::Malformed(message)
    }
}

impl From<&str> for LinkError {
    fn from(message: &str) -> Self {
        LinkError::Malformed(message.to_string())
    }
}

/// One search term of a tree.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Term {
    /// The phrase or regex.
    pub query: String,
    /// Whether `query` is a regex.
    pub regex: bool,
    /// Whether a regex minds case.
    pub case_sensitive: bool,
    /// Expand through the archive's aliases (plain queries only).
    pub aliases: bool,
    /// Empty: captions and titles.
    pub scopes: Vec<String>,
}

/// A query tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// One search.
    Term(Term),
    /// Videos every child matches.
    And(Vec<Node>),
    /// Videos any child matches.
    Or(Vec<Node>),
    /// Videos the child does not match (only under an AND).
    Not(Box<Node>),
}

/// A decoded share link.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareLink {
    /// `scheme://host[:port][/path]`, no trailing `/`.
    pub origin: String,
    /// The search, as a tree of terms.
    pub tree: Node,
    /// Channels, type, audience, availability and dates (groups and tags
    /// are never set: the format has no field for them).
    pub filters: FilterArgs,
    /// Parts decoded but not used, each with why.
    pub ignored: Vec<String>,
}

fn b64() -> base64::engine::GeneralPurpose {
    base64::engine::general_purpose::URL_SAFE_NO_PAD
}

impl Node {
    fn to_json(&self) -> Value {
        match self {
            Node::Term(t) => {
                let mut m = Map::new();
                m.insert("q".into(), json!(t.query));
                if !t.scopes.is_empty() {
                    m.insert("s".into(), json!(t.scopes));
                }
                for (flag, key) in [
                    (t.regex, "re"),
                    (t.case_sensitive, "cs"),
                    (!t.aliases, "na"),
                ] {
                    if flag {
                        m.insert(key.into(), json!(true));
                    }
                }
                Value::Object(m)
            }
            Node::And(c) => json!({"and": c.iter().map(Node::to_json).collect::<Vec<_>>()}),
            Node::Or(c) => json!({"or": c.iter().map(Node::to_json).collect::<Vec<_>>()}),
            Node::Not(c) => json!({"not": c.to_json()}),
        }
    }

    /// Reads a node at `path` (for messages), `depth` levels down.
    fn from_json(v: &Value, path: &str, depth: usize, terms: &mut usize) -> Result<Node, String> {
        if depth > MAX_DEPTH {
            return Err(format!(
                "qt: the tree nests deeper than {MAX_DEPTH} levels (at {path})"
            ));
        }
        let Some(obj) = v.as_object() else {
            return Err(format!("qt: {path} is {v}, not a node: use a term {{\"q\": …}} or {{\"and\"|\"or\": […]}} or {{\"not\": …}}"));
        };
        let mut children = |key: &str, list: &Value| -> Result<Vec<Node>, String> {
            let items = list
                .as_array()
                .filter(|a| !a.is_empty())
                .ok_or_else(|| format!("qt: {path}.{key} must be a non-empty list of nodes"))?;
            items
                .iter()
                .enumerate()
                .map(|(i, c)| Node::from_json(c, &format!("{path}.{key}[{i}]"), depth + 1, terms))
                .collect()
        };
        match obj.iter().next().map(|(k, v)| (k.as_str(), v)) {
            Some(("and", list)) if obj.len() == 1 => Ok(Node::And(children("and", list)?)),
            Some(("or", list)) if obj.len() == 1 => Ok(Node::Or(children("or", list)?)),
            Some(("not", inner)) if obj.len() == 1 => Ok(Node::Not(Box::new(Node::from_json(
                inner,
                &format!("{path}.not"),
                depth + 1,
                terms,
            )?))),
            _ if obj.contains_key("q") => {
                *terms += 1;
                if *terms > MAX_TERMS {
                    return Err(format!("qt: the tree has more than {MAX_TERMS} terms"));
                }
                term_from_json(obj, path).map(Node::Term)
            }
            _ => Err(format!(
                "qt: {path} has unknown operator {}: use and, or, not, or a term with q",
                obj.keys()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// The tree as a person reads it: `(a OR b) AND NOT c`.
    pub fn render(&self) -> String {
        match self {
            Node::Term(t) => {
                let scope = if t.scopes.is_empty() {
                    String::new()
                } else {
                    format!("{}:", t.scopes.join("+"))
                };
                let q = if t.regex {
                    format!("/{}/", t.query)
                } else {
                    format!("{:?}", t.query)
                };
                format!("{scope}{q}")
            }
            Node::And(c) => join(c, " AND "),
            Node::Or(c) => join(c, " OR "),
            Node::Not(c) => format!("NOT {}", c.render_nested()),
        }
    }

    fn render_nested(&self) -> String {
        match self {
            Node::And(_) | Node::Or(_) => format!("({})", self.render()),
            _ => self.render(),
        }
    }
}

fn join(c: &[Node], sep: &str) -> String {
    c.iter()
        .map(Node::render_nested)
        .collect::<Vec<_>>()
        .join(sep)
}

/// A term as a link's tree writes it: `{"q": …, "s": [scopes], "re",
/// "cs", "na"}` (regex, case-sensitive, no aliases), each flag false
/// when absent.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct TermJson {
    q: String,
    #[serde(default)]
    s: Vec<String>,
    #[serde(default)]
    re: bool,
    #[serde(default)]
    cs: bool,
    #[serde(default)]
    na: bool,
}

fn term_from_json(obj: &Map<String, Value>, path: &str) -> Result<Term, String> {
    let t: TermJson = serde_json::from_value(Value::Object(obj.clone()))
        .map_err(|e| format!("qt: term {path}: {e} (a term takes q, s, re, cs, na)"))?;
    if t.q.trim().is_empty() || t.q.chars().count() > MAX_QUERY_CHARS {
        return Err(format!(
            "qt: term {path}: q must be 1 to {MAX_QUERY_CHARS} characters"
        ));
    }
    let scopes = t
        .s
        .iter()
        .map(|name| {
            crate::query::Scope::parse(name).map(|sc| sc.as_str().to_string()).ok_or_else(|| {
                format!("qt: term {path}: scope {name:?} is not one of transcripts, chat, metadata, description, tags, posts")
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(Term {
        query: t.q,
        regex: t.re,
        case_sensitive: t.cs,
        aliases: !t.na,
        scopes,
    })
}

fn percent(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

fn unpercent(s: &str) -> String {
    url::form_urlencoded::parse(format!("x={s}").as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

/// The origin a link to `archive` names by default: a hub's or remote
/// site's URL, else the public URL its first site declares, else (a local
/// folder) the folder as a `file://` URL.
pub fn origin_of(archive: &crate::archive::Archive) -> Option<String> {
    use crate::source::SourceHandle;
    match archive.handle() {
        SourceHandle::Hub { url, .. } | SourceHandle::Remote(url) => Some(url.clone()),
        SourceHandle::Local(dir) => archive
            .sites()
            .first()
            .and_then(|s| s.corpus().site.url.clone())
            .or_else(|| local_origin(dir)),
    }
}

/// The origin of a link made from a local archive that declares no public
/// URL: the folder as a `file://` URL, which only this machine can open.
pub fn local_origin(dir: &std::path::Path) -> Option<String> {
    url::Url::from_directory_path(dir)
        .ok()
        .map(|u| u.as_str().trim_end_matches('/').to_string())
}

impl ShareLink {
    /// The link as a URL.
    pub fn encode(&self) -> String {
        let tree = serde_json::to_vec(&self.tree.to_json()).unwrap_or_default();
        let mut q = vec![format!("qt={}", b64().encode(tree))];
        for f in FILTERS {
            q.extend(encode_filter(f, &self.filters));
        }
        q.push(format!("fv={VERSION}"));
        format!("{}/?{}", self.origin, q.join("&"))
    }

    /// The URL schemes a share link may have: what [`ShareLink::decode`]
    /// accepts (`file://` for a local archive, on the machine that made it).
    pub const SCHEMES: [&'static str; 3] = ["http://", "https://", "file://"];

    /// Whether `text` is a URL that names a search (a `qt=` tree): what a
    /// request that mentions a link means by it.
    pub fn names_a_search(text: &str) -> bool {
        Self::is_url(text) && text.contains("qt=")
    }

    /// Whether `text` starts with a scheme a share link may have.
    pub fn is_url(text: &str) -> bool {
        Self::SCHEMES.iter().any(|s| text.starts_with(s))
    }

    /// Decodes `link`; the error names the part that is wrong.
    pub fn decode(link: &str) -> Result<ShareLink, LinkError> {
        let link = link.trim();
        if link.len() > MAX_LINK_BYTES {
            return Err(format!(
                "the link is {} bytes; at most {MAX_LINK_BYTES} are accepted",
                link.len()
            )
            .into());
        }
        let url = url::Url::parse(link).map_err(|e| {
            format!("the link is not a URL ({e}): paste the whole share link, from https://")
        })?;
        if !matches!(url.scheme(), "http" | "https" | "file") {
            return Err(format!(
                "the link's scheme is {}: a share link is http:// or https:// (or file:// for a local archive, on the machine that made it)",
                url.scheme()
            ).into());
        }
        let origin = format!("{}{}", &url[..url::Position::BeforePath], url.path())
            .trim_end_matches('/')
            .to_string();
        let mut link = ShareLink {
            origin,
            tree: Node::And(Vec::new()),
            filters: FilterArgs::default(),
            ignored: Vec::new(),
        };
        let mut tree = None;
        for pair in url
            .query()
            .unwrap_or("")
            .split('&')
            .filter(|p| !p.is_empty())
        {
            let (key, raw) = pair.split_once('=').unwrap_or((pair, ""));
            link.apply(key, raw, &mut tree)?;
        }
        link.tree = tree.ok_or(
            "the link has no qt: it names no search (copy it again with the viewer's Share button)",
        )?;
        Ok(link)
    }

    fn apply(&mut self, key: &str, raw: &str, tree: &mut Option<Node>) -> Result<(), LinkError> {
        let value = unpercent(raw);
        if let Some((f, codes)) = FILTERS.iter().find_map(|f| carried_as(f, key)) {
            let values = decode_filter(f, key, codes, raw)?;
            f.set(&mut self.filters, values);
            return Ok(());
        }
        match key {
            "qt" => *tree = Some(decode_tree(&value)?),
            "fk" => self.ignored.push(format!(
                "fk={value} (a subtitle-track token: a composite link's tree names its own layers)"
            )),
            "fv" => {
                if value != VERSION.to_string() {
                    return Err(LinkError::NewerVersion(value));
                }
            }
            other => self
                .ignored
                .push(format!("{other}={value} (not a share-link field)")),
        }
        Ok(())
    }
}

/// The short codes of `f` when a link carries it under `key`.
fn carried_as(f: &'static Filter, key: &str) -> Option<(&'static Filter, Codes)> {
    match f.link {
        LinkField::Code { code, codes, .. } if code == key => Some((f, codes)),
        _ => None,
    }
}

type Codes = &'static [(&'static str, &'static str)];

/// The `key=value` parts that carry filter `f` of `args` (none when unset
/// or not carried).
fn encode_filter(f: &Filter, args: &FilterArgs) -> Vec<String> {
    let LinkField::Code {
        code,
        codes,
        repeat,
    } = f.link
    else {
        return Vec::new();
    };
    let short = |v: &str| {
        let c = codes.iter().find(|(_, n)| *n == v).map_or(v, |(c, _)| c);
        percent(c)
    };
    let values: Vec<String> = match f.to_json(args) {
        Value::String(v) => vec![short(&v)],
        Value::Array(list) => list.iter().filter_map(Value::as_str).map(short).collect(),
        _ => Vec::new(),
    };
    if values.is_empty() {
        Vec::new()
    } else if repeat {
        values.iter().map(|v| format!("{code}={v}")).collect()
    } else {
        vec![format!("{code}={}", values.join(","))]
    }
}

/// The values of filter `f` carried as `key=raw`: comma-separated parts,
/// each a short code or a full value where the filter has codes, and
/// passing the filter's check where it has one.
fn decode_filter(f: &Filter, key: &str, codes: Codes, raw: &str) -> Result<Vec<String>, String> {
    let parts: Vec<String> = match f.shape {
        Shape::List(..) => raw
            .split(',')
            .map(unpercent)
            .filter(|v| !v.trim().is_empty())
            .collect(),
        _ => vec![unpercent(raw)],
    };
    parts
        .into_iter()
        .map(|v| {
            let v = if codes.is_empty() {
                v
            } else {
                pick(key, &v, codes)?
            };
            match f.check {
                Some(check) => check(&v).map_err(|e| format!("{key}: {e}")),
                None => Ok(v),
            }
        })
        .collect()
}

fn pick(key: &str, value: &str, names: &[(&str, &str)]) -> Result<String, String> {
    names
        .iter()
        .find(|(c, n)| *c == value || *n == value)
        .map(|(_, n)| n.to_string())
        .ok_or_else(|| {
            let valid: Vec<String> = names.iter().map(|(c, n)| format!("{c} ({n})")).collect();
            format!("{key}: {value:?} is not one of {}", valid.join(", "))
        })
}

fn decode_tree(value: &str) -> Result<Node, String> {
    let bytes = b64()
        .decode(value.trim_end_matches('=').as_bytes())
        .map_err(|e| {
            format!("qt is not base64url ({e}): the link was cut or altered; copy it again")
        })?;
    let json: Value = serde_json::from_slice(&bytes)
        .map_err(|e| format!("qt does not hold a JSON tree ({e})"))?;
    Node::from_json(&json, "qt", 0, &mut 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term(q: &str) -> Node {
        Node::Term(Term {
            query: q.into(),
            aliases: true,
            ..Term::default()
        })
    }

    #[test]
    fn a_link_round_trips_through_its_url() {
        let link = ShareLink {
            origin: "https://alphalyzer.example".into(),
            tree: Node::And(vec![
                Node::Or(vec![
                    term("k cups"),
                    Node::Term(Term {
                        query: "cake ?cup".into(),
                        regex: true,
                        scopes: vec!["chat".into()],
                        ..Term::default()
                    }),
                ]),
                Node::Not(Box::new(term("world cup"))),
            ]),
            filters: FilterArgs {
                channels: vec!["Daily, Dispatch".into(), "beta".into()],
                states: vec!["deleted".into(), "members_only".into()],
                media_type: Some("livestream".into()),
                age: Some("all_ages".into()),
                date_from: Some("20240101".into()),
                date_to: Some("20241231".into()),
                ..FilterArgs::default()
            },
            ignored: vec![],
        };
        let url = link.encode();
        assert!(url.starts_with("https://alphalyzer.example/?qt="), "{url}");
        assert!(
            url.contains(
                "&fc=Daily%2C+Dispatch&fc=beta&ft=l&fa=a&fav=d,mo&fdf=20240101&fdt=20241231&fv=1"
            ),
            "{url}"
        );
        assert_eq!(ShareLink::decode(&url).unwrap(), link);
        assert_eq!(
            link.tree.render(),
            "(\"k cups\" OR chat:/cake ?cup/) AND NOT \"world cup\""
        );
    }

    #[test]
    fn hostile_links_are_refused_naming_the_part() {
        let tree = |v: Value| b64().encode(serde_json::to_vec(&v).unwrap());
        let ok = tree(json!({"q": "x"}));
        let err = |u: String| ShareLink::decode(&u).unwrap_err().to_string();
        assert_eq!(err("not a link".into()), "the link is not a URL (relative URL without a base): paste the whole share link, from https://");
        assert!(err("https://a.example/?qt=%%%".into()).starts_with("qt is not base64url"));
        assert!(err("https://a.example/?fc=x".into()).starts_with("the link has no qt"));
        assert!(err(format!(
            "https://a.example/?qt={}",
            tree(json!({"xor": [{"q": "a"}]}))
        ))
        .contains("qt: qt has unknown operator `xor`"));
        let term = |t: Value| err(format!("https://a.example/?qt={}", tree(t)));
        assert!(term(json!({"q": "a", "zz": 1})).contains(
            "qt: term qt: unknown field `zz`, expected one of `q`, `s`, `re`, `cs`, `na`"
        ));
        assert!(term(json!({"q": "a", "re": "yes"}))
            .contains("qt: term qt: invalid type: string \"yes\", expected a boolean"));
        assert!(term(json!({"q": "a", "s": ["lyrics"]}))
            .contains("qt: term qt: scope \"lyrics\" is not one of transcripts"));
        let mut deep = json!({"q": "a"});
        for _ in 0..20 {
            deep = json!({"not": deep});
        }
        assert!(
            err(format!("https://a.example/?qt={}", tree(deep))).contains("nests deeper than 8")
        );
        let wide =
            json!({"or": (0..40).map(|i| json!({"q": format!("w{i}")})).collect::<Vec<_>>()});
        assert!(err(format!("https://a.example/?qt={}", tree(wide))).contains("more than 32 terms"));
        assert!(err(format!("https://a.example/?qt={ok}&fdf=2024-13-99"))
            .starts_with("fdf: \"2024-13-99\" is not a date"));
        assert!(
            err(format!("https://a.example/?qt={ok}&fav=zz")).starts_with(
                "fav: \"zz\" is not one of a (available), m (maybe_missing), d (deleted)"
            )
        );
        assert!(err(format!("https://a.example/?qt={ok}&ft=x"))
            .starts_with("ft: \"x\" is not one of v (video), l (livestream)"));
        assert!(err(format!("https://a.example/?qt={ok}&fv=2")).contains("version 1"));
        assert!(err(format!(
            "https://a.example/?qt={}",
            tree(json!({"q": "a", "s": ["soup"]}))
        ))
        .contains("scope \"soup\" is not one of"));
        assert!(err(format!(
            "https://a.example/?qt={}",
            tree(json!({"and": []}))
        ))
        .contains("non-empty list"));
        assert!(err(format!(
            "https://a.example/?qt={}&x={}",
            ok,
            "y".repeat(MAX_LINK_BYTES)
        ))
        .contains("at most 16384"));
        let l = ShareLink::decode(&format!(
            "https://a.example/site/?qt={ok}&fk=en&fav=deleted"
        ))
        .unwrap();
        assert_eq!(l.origin, "https://a.example/site");
        assert_eq!(l.filters.states, vec!["deleted"]);
        assert!(l.ignored[0].starts_with("fk=en (a subtitle-track token"));
    }
}
