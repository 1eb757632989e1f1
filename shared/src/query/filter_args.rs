//! Every filter a user can set, declared once.
//!
//! [`FILTERS`] is the one table of filters. Each row names the filter's
//! argument (the MCP tools' key and the share-link field it fills), its
//! command-line flag, its help text, the shape of its value, how a value
//! is checked, and its share-link code. The front ends derive what they
//! need from it: the command line's flags, the tools' JSON Schema, reading
//! a tool call's arguments, share-link encoding and decoding, and the
//! arguments a plan hands on. What a filter *means* (its predicate) lives
//! in [`super::filters`], which resolves these values against an archive.
//!
//! Adding a filter on a fact the summaries hold touches this table, its
//! field in [`FilterArgs`], and the predicate in [`super::filters`].

use serde_json::{Map, Value};

use crate::time::parse_day;

/// Filter values as a user gave them (checked, where a row says how, by
/// the front end that reads them; resolved by [`super::Filters::resolve`]).
#[derive(
    Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(default)]
pub struct FilterArgs {
    /// Keep videos in these states.
    pub states: Vec<String>,
    /// Uploaded on or after (`YYYYMMDD` or `YYYY-MM-DD`).
    pub date_from: Option<String>,
    /// Uploaded on or before.
    pub date_to: Option<String>,
    /// `video` or `livestream`.
    pub media_type: Option<String>,
    /// `all_ages` or `restricted`.
    pub age: Option<String>,
    /// Channels by slug or name (additive with groups).
    pub channels: Vec<String>,
    /// Groups by id or name.
    pub groups: Vec<String>,
    /// Curated tags by id or label.
    pub tags: Vec<String>,
    /// Let videos with no upload date pass a date filter.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub include_undated: bool,
    /// At least this long: seconds, `m:ss` or `h:mm:ss`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_duration: Option<String>,
    /// At most this long.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_duration: Option<String>,
    /// Who made the captions: `manual`, `auto`, `asr`, `translated`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub captions: Vec<String>,
}

/// The shape of a filter's value.
#[derive(Debug, Clone, Copy)]
pub enum Shape {
    /// One text.
    Text(
        fn(&FilterArgs) -> &Option<String>,
        fn(&mut FilterArgs) -> &mut Option<String>,
    ),
    /// One text, or in JSON a number of seconds.
    Seconds(
        fn(&FilterArgs) -> &Option<String>,
        fn(&mut FilterArgs) -> &mut Option<String>,
    ),
    /// Any number of texts (a repeatable flag, a JSON array).
    List(
        fn(&FilterArgs) -> &Vec<String>,
        fn(&mut FilterArgs) -> &mut Vec<String>,
    ),
    /// On or off.
    Flag(fn(&FilterArgs) -> &bool, fn(&mut FilterArgs) -> &mut bool),
}

/// A value check: the value as stored, or what is wrong with it.
pub type Check = fn(&str) -> Result<String, String>;

/// How a share link carries a filter.
#[derive(Debug, Clone, Copy)]
pub enum LinkField {
    /// Under `code`; a value is written as its short code from `codes`
    /// (`(code, value)`), and either is read. A list is written with one
    /// `code=` per value (`repeat`) or comma-separated.
    Code {
        /// The query key.
        code: &'static str,
        /// Short codes for values.
        codes: &'static [(&'static str, &'static str)],
        /// A list repeats the key rather than joining with commas.
        repeat: bool,
    },
    /// Resolved into the channels it stands for before a link is made.
    AsChannels,
    /// Not carried: a link for a search that sets it is refused, saying
    /// what to do instead.
    Refused(&'static str),
}

/// One filter.
#[derive(Debug, Clone, Copy)]
pub struct Filter {
    /// The tools' argument and the engine's name (`date_from`).
    pub name: &'static str,
    /// The command line's long flag (`date-from`).
    pub flag: &'static str,
    /// An older singular argument the tools still accept (`channel`),
    /// adding one value to the list; not listed in the tools' schemas
    /// (the validator knows it from here).
    pub singular: Option<&'static str>,
    /// What it does, for `--help`.
    pub help: &'static str,
    /// What it does in a few words, for the tools' schema: every tool
    /// that filters repeats it, and `tools/list` is paid for by every
    /// agent. The values it takes, when they are few, are in `values`.
    pub brief: &'static str,
    /// The values it takes, when it takes one of a few (the tools'
    /// schema lists them as an `enum`); empty for free text.
    pub values: &'static [&'static str],
    /// Its value.
    pub shape: Shape,
    /// The check a value must pass where a bad value is a usage error
    /// (the command line, a share link); it gives the value as stored.
    /// Without one, a value is resolved and an unknown one named.
    pub check: Option<Check>,
    /// How share links carry it.
    pub link: LinkField,
}

const STATE_CODES: &[(&str, &str)] = &[
    ("a", "available"),
    ("m", "maybe_missing"),
    ("d", "deleted"),
    ("p", "private"),
    ("mo", "members_only"),
    ("u", "unlisted"),
];

fn day(text: &str) -> Result<String, String> {
    parse_day(text).map_err(|e| e.to_string())
}

fn seconds(text: &str) -> Result<String, String> {
    super::filters::parse_length(text).map(|s| s.to_string())
}

/// Every filter, in the order help and schemas list them.
pub const FILTERS: &[Filter] = &[
    Filter {
        name: "channels",
        flag: "channel",
        singular: Some("channel"),
        help: "Only these channels, by slug or name (additive with groups).",
        brief: "Channel slugs or names (with groups: either).",
        values: &[],
        shape: Shape::List(|a| &a.channels, |a| &mut a.channels),
        check: None,
        link: LinkField::Code { code: "fc", codes: &[], repeat: true },
    },
    Filter {
        name: "groups",
        flag: "group",
        singular: Some("group"),
        help: "Only channels of these groups, by id or name.",
        brief: "Group ids or names.",
        values: &[],
        shape: Shape::List(|a| &a.groups, |a| &mut a.groups),
        check: None,
        link: LinkField::AsChannels,
    },
    Filter {
        name: "media_type",
        flag: "media-type",
        singular: None,
        help: "video or livestream.",
        brief: "Video or livestream.",
        values: &["video", "livestream"],
        shape: Shape::Text(|a| &a.media_type, |a| &mut a.media_type),
        check: None,
        link: LinkField::Code { code: "ft", codes: &[("v", "video"), ("l", "livestream")], repeat: false },
    },
    Filter {
        name: "age",
        flag: "age",
        singular: None,
        help: "all_ages or restricted.",
        brief: "Age restriction.",
        values: &["all_ages", "restricted"],
        shape: Shape::Text(|a| &a.age, |a| &mut a.age),
        check: None,
        link: LinkField::Code { code: "fa", codes: &[("a", "all_ages"), ("r", "restricted")], repeat: false },
    },
    Filter {
        name: "states",
        flag: "state",
        singular: None,
        help: "Keep only videos in these states: available, maybe_missing, deleted, private, members_only, unlisted.",
        brief: "Video states to keep.",
        values: &["available", "maybe_missing", "deleted", "private", "members_only", "unlisted"],
        shape: Shape::List(|a| &a.states, |a| &mut a.states),
        check: None,
        link: LinkField::Code { code: "fav", codes: STATE_CODES, repeat: false },
    },
    Filter {
        name: "date_from",
        flag: "date-from",
        singular: None,
        help: "Uploaded on or after this day: YYYYMMDD or YYYY-MM-DD, a day the calendar has.",
        brief: "Uploaded on or after (YYYY-MM-DD).",
        values: &[],
        shape: Shape::Text(|a| &a.date_from, |a| &mut a.date_from),
        check: Some(day),
        link: LinkField::Code { code: "fdf", codes: &[], repeat: false },
    },
    Filter {
        name: "date_to",
        flag: "date-to",
        singular: None,
        help: "Uploaded on or before this day: YYYYMMDD or YYYY-MM-DD, not before date_from.",
        brief: "Uploaded on or before (YYYY-MM-DD).",
        values: &[],
        shape: Shape::Text(|a| &a.date_to, |a| &mut a.date_to),
        check: Some(day),
        link: LinkField::Code { code: "fdt", codes: &[], repeat: false },
    },
    Filter {
        name: "include_undated",
        flag: "include-undated",
        singular: None,
        help: "Let videos with no upload date pass date_from/date_to (by default they are left out, and the answer says how many matched).",
        brief: "Let undated videos pass the date filters.",
        values: &[],
        shape: Shape::Flag(|a| &a.include_undated, |a| &mut a.include_undated),
        check: None,
        link: LinkField::Refused("drop it, or share the search without a date filter"),
    },
    Filter {
        name: "min_duration",
        flag: "min-duration",
        singular: None,
        help: "Only videos at least this long: seconds, m:ss or h:mm:ss (a video of unknown length is left out).",
        brief: "At least this long: seconds or h:mm:ss.",
        values: &[],
        shape: Shape::Seconds(|a| &a.min_duration, |a| &mut a.min_duration),
        check: Some(seconds),
        link: LinkField::Refused("drop it, or share the search without a length bound"),
    },
    Filter {
        name: "max_duration",
        flag: "max-duration",
        singular: None,
        help: "Only videos at most this long: seconds, m:ss or h:mm:ss (a video of unknown length is left out).",
        brief: "At most this long: seconds or h:mm:ss.",
        values: &[],
        shape: Shape::Seconds(|a| &a.max_duration, |a| &mut a.max_duration),
        check: Some(seconds),
        link: LinkField::Refused("drop it, or share the search without a length bound"),
    },
    Filter {
        name: "captions",
        flag: "captions",
        singular: None,
        help: "Only videos whose captions were made this way: manual (by the uploader), auto (the platform's speech recognition), asr (our own speech to text), translated (a machine translation).",
        brief: "Who made the captions: uploader (manual), platform (auto), our speech to text (asr), machine translation.",
        values: &["manual", "auto", "asr", "translated"],
        shape: Shape::List(|a| &a.captions, |a| &mut a.captions),
        check: None,
        link: LinkField::Refused("drop the captions filter, or share the search without it"),
    },
    Filter {
        name: "tags",
        flag: "tag",
        singular: None,
        help: "Only videos with one of these curated tags, by id or label (see list_tags).",
        brief: "Curated tag ids or labels (list_tags).",
        values: &[],
        shape: Shape::List(|a| &a.tags, |a| &mut a.tags),
        check: None,
        link: LinkField::Refused("drop the tag filter, or name the channels instead"),
    },
];

/// The filter of a name.
pub fn filter(name: &str) -> Option<&'static Filter> {
    FILTERS.iter().find(|f| f.name == name)
}

impl Filter {
    /// Whether `args` sets this filter.
    pub fn is_set(&self, args: &FilterArgs) -> bool {
        match self.shape {
            Shape::Text(get, _) | Shape::Seconds(get, _) => get(args).is_some(),
            Shape::List(get, _) => !get(args).is_empty(),
            Shape::Flag(get, _) => *get(args),
        }
    }

    /// The value in `args` as JSON (`null`, `[]` or `false` when unset).
    pub fn to_json(&self, args: &FilterArgs) -> Value {
        match self.shape {
            Shape::Text(get, _) | Shape::Seconds(get, _) => get(args).clone().into(),
            Shape::List(get, _) => get(args).clone().into(),
            Shape::Flag(get, _) => (*get(args)).into(),
        }
    }

    /// The JSON Schema of the tools' argument: its type, its values when
    /// they are few, and its brief description.
    pub fn schema(&self) -> Value {
        let mut one = serde_json::json!({"type": "string"});
        if !self.values.is_empty() {
            one["enum"] = self.values.into();
        }
        let mut s = match self.shape {
            Shape::Text(..) => one,
            Shape::Seconds(..) => serde_json::json!({"type": ["number", "string"]}),
            Shape::List(..) => serde_json::json!({"type": "array", "items": one}),
            Shape::Flag(..) => serde_json::json!({"type": "boolean"}),
        };
        s["description"] = self.brief.into();
        s
    }

    /// Reads this filter from a tool call's arguments into `args` (a
    /// value of the wrong JSON type is left unset, as the schema refuses
    /// it before a call gets here).
    pub fn read_json(&self, from: &Map<String, Value>, args: &mut FilterArgs) {
        let text = |v: &Value| match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        };
        let value = from.get(self.name);
        match self.shape {
            Shape::Text(_, set) => *set(args) = value.and_then(Value::as_str).map(str::to_string),
            Shape::Seconds(_, set) => *set(args) = value.and_then(text),
            Shape::Flag(_, set) => *set(args) = value.and_then(Value::as_bool).unwrap_or(false),
            Shape::List(_, set) => {
                let list = set(args);
                let items = value.and_then(Value::as_array).into_iter().flatten();
                list.extend(items.filter_map(Value::as_str).map(str::to_string));
                let one = self
                    .singular
                    .and_then(|s| from.get(s))
                    .and_then(Value::as_str);
                list.extend(one.map(str::to_string));
            }
        }
    }

    /// Unsets this filter in `args`.
    pub fn clear(&self, args: &mut FilterArgs) {
        match self.shape {
            Shape::Text(_, set) | Shape::Seconds(_, set) => *set(args) = None,
            Shape::List(_, set) => set(args).clear(),
            Shape::Flag(_, set) => *set(args) = false,
        }
    }

    /// Stores `values` given for this filter on the command line or in a
    /// link: the last one for a single value, all of them for a list.
    pub fn set(&self, args: &mut FilterArgs, values: Vec<String>) {
        match self.shape {
            Shape::Text(_, set) | Shape::Seconds(_, set) => *set(args) = values.into_iter().last(),
            Shape::List(_, set) => set(args).extend(values),
            Shape::Flag(_, set) => *set(args) = !values.is_empty(),
        }
    }
}

impl FilterArgs {
    /// The filters a tool call's arguments set.
    pub fn from_json(from: &Map<String, Value>) -> FilterArgs {
        let mut args = FilterArgs::default();
        for f in FILTERS {
            f.read_json(from, &mut args);
        }
        args
    }

    /// The filters set, as tool arguments (what a plan hands on).
    pub fn to_json(&self) -> Map<String, Value> {
        FILTERS
            .iter()
            .filter(|f| f.is_set(self))
            .map(|f| (f.name.to_string(), f.to_json(self)))
            .collect()
    }
}

/// The filters of a tool call, in the tools' form: each filter of
/// [`FILTERS`] under its name, the older singular forms adding to their
/// lists, a length given as a number of seconds or as text. Its JSON
/// Schema and its reading are both made from the one table, so a tool's
/// declared arguments and what it reads cannot differ; a tool's argument
/// type flattens it in (`#[serde(flatten)]`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallFilters(pub FilterArgs);

impl<'de> serde::Deserialize<'de> for CallFilters {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = Map::<String, Value>::deserialize(d)?;
        Ok(CallFilters(FilterArgs::from_json(&map)))
    }
}

impl serde::Serialize for CallFilters {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.to_json().serialize(s)
    }
}

impl schemars::JsonSchema for CallFilters {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "CallFilters".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        // The singular forms are accepted (see [`Filter::singular`]) but
        // not listed: each would repeat its list's description in every
        // tool that filters.
        let properties: Map<String, Value> = FILTERS
            .iter()
            .map(|f| (f.name.to_string(), f.schema()))
            .collect();
        schemars::json_schema!({"type": "object", "properties": properties})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_filter_reads_back_what_it_writes() {
        let call = json!({
            "states": ["deleted"], "date_from": "2024-01-01", "date_to": "20241231",
            "include_undated": true, "min_duration": 600, "max_duration": "1:00:00",
            "media_type": "video", "age": "restricted", "channels": ["a"], "channel": "b",
            "groups": ["g"], "tags": ["t"], "captions": ["auto"]
        });
        let args = FilterArgs::from_json(call.as_object().unwrap());
        assert_eq!(
            args.channels,
            ["a", "b"],
            "the singular form adds to the list"
        );
        assert_eq!(args.min_duration.as_deref(), Some("600"));
        let back = args.to_json();
        assert_eq!(back.len(), FILTERS.len(), "every filter is set: {back:?}");
        assert_eq!(FilterArgs::from_json(&back), args);
        for f in FILTERS {
            assert!(f.is_set(&args), "{}", f.name);
            assert_eq!(f.schema()["description"], f.brief);
        }
    }

    #[test]
    fn a_filters_listed_values_are_exactly_the_values_it_accepts() {
        use crate::format::{Age, CaptionSource, MediaType, State};
        let names = |all: Vec<&'static str>| all;
        let accepted = [
            (
                "states",
                names(State::ALL.iter().map(|s| s.as_str()).collect()),
            ),
            (
                "media_type",
                names(MediaType::ALL.iter().map(|s| s.as_str()).collect()),
            ),
            ("age", names(Age::ALL.iter().map(|s| s.as_str()).collect())),
            (
                "captions",
                names(CaptionSource::ALL.iter().map(|s| s.as_str()).collect()),
            ),
        ];
        for (name, values) in accepted {
            assert_eq!(filter(name).unwrap().values, values.as_slice(), "{name}");
        }
        let listed: Vec<&str> = FILTERS
            .iter()
            .filter(|f| !f.values.is_empty())
            .map(|f| f.name)
            .collect();
        assert_eq!(listed, ["media_type", "age", "states", "captions"]);
    }

    #[test]
    fn checks_refuse_what_a_usage_error_is() {
        let check = |name: &str, v: &str| (filter(name).unwrap().check.unwrap())(v);
        assert_eq!(check("date_from", "2024-02-29").unwrap(), "20240229");
        assert_eq!(
            check("date_to", "2015-02-31").unwrap_err(),
            "\"2015-02-31\" is not a date: February 2015 has 28 days"
        );
        assert_eq!(check("min_duration", "1:30").unwrap(), "90");
        assert_eq!(
            check("max_duration", "ten minutes").unwrap_err(),
            "\"ten minutes\" is not a length: give seconds (90), m:ss (1:30) or h:mm:ss (1:01:30), never below 0"
        );
    }
}
