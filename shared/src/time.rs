//! Days and clock times: the one place the project reads a date or a time
//! within a recording.
//!
//! - [`Day`] is a day of the Gregorian calendar. It is read from
//!   `YYYYMMDD` or ISO `YYYY-MM-DD` and checked against the calendar, so
//!   `2015-02-31` and `20150431` are refused with the reason, never
//!   compared as text.
//! - [`DayRange`] is an inclusive range of days whose start is not after
//!   its end: an inverted range cannot be made, so no front end can run a
//!   question that silently answers nothing.
//! - [`parse_clock`] reads `[[h:]m:]s[.fff]`, in the dialect of the text
//!   it comes from ([`Clock`]): WebVTT's strict timestamps, SRT's comma,
//!   or what a person types for a clip window.
//!
//! Every front end (command line, MCP tools, share links, the editor's
//! coverage) calls these, so a date or a time means the same everywhere.

use std::fmt;

/// A calendar day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Day {
    year: u16,
    month: u8,
    day: u8,
}

/// Why a text is not a day.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DayError {
    /// Not eight digits, with or without ISO dashes.
    #[error("{0:?} is not a date: use YYYYMMDD or YYYY-MM-DD")]
    Shape(String),
    /// A month outside 1-12.
    #[error("{text:?} is not a date: there is no month {month} (use 01 to 12)")]
    Month {
        /// What was given.
        text: String,
        /// The month it named.
        month: u32,
    },
    /// A day the month does not have.
    #[error("{text:?} is not a date: {month_name} {year} has {days} days")]
    DayOfMonth {
        /// What was given.
        text: String,
        /// The month's English name.
        month_name: &'static str,
        /// The year.
        year: u32,
        /// How many days that month has that year.
        days: u32,
    },
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

fn is_leap(year: u32) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

impl Day {
    /// Reads `YYYYMMDD` or `YYYY-MM-DD` (surrounding blanks ignored),
    /// checked against the calendar.
    pub fn parse(text: &str) -> Result<Day, DayError> {
        let t = text.trim();
        let shape = || DayError::Shape(text.to_string());
        let digits = match t.len() {
            8 => t.to_string(),
            10 if t.as_bytes()[4] == b'-' && t.as_bytes()[7] == b'-' => t.replace('-', ""),
            _ => return Err(shape()),
        };
        if digits.len() != 8 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(shape());
        }
        let num = |r: std::ops::Range<usize>| digits[r].parse::<u32>().map_err(|_| shape());
        let (year, month, day) = (num(0..4)?, num(4..6)?, num(6..8)?);
        if !(1..=12).contains(&month) {
            return Err(DayError::Month {
                text: text.to_string(),
                month,
            });
        }
        let days = days_in_month(year, month);
        if !(1..=days).contains(&day) {
            return Err(DayError::DayOfMonth {
                text: text.to_string(),
                month_name: MONTHS[month as usize - 1],
                year,
                days,
            });
        }
        Ok(Day {
            year: year as u16,
            month: month as u8,
            day: day as u8,
        })
    }

    /// The day as the archive stores it: `YYYYMMDD`.
    pub fn compact(self) -> String {
        format!("{:04}{:02}{:02}", self.year, self.month, self.day)
    }

    /// The day as ISO 8601 writes it: `YYYY-MM-DD`.
    pub fn iso(self) -> String {
        format!("{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }

    /// The year.
    pub fn year(self) -> u32 {
        self.year.into()
    }

    /// The month, 1 to 12.
    pub fn month(self) -> u32 {
        self.month.into()
    }

    /// Days since 1970-01-01 (negative before it).
    pub fn days_since_epoch(self) -> i64 {
        // Howard Hinnant's days_from_civil, with March as the year's start.
        let (m, d) = (i64::from(self.month), i64::from(self.day));
        let y = i64::from(self.year) - i64::from(m <= 2);
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }
}

impl Day {
    /// The day `days` after 1970-01-01 (the inverse of
    /// [`Day::days_since_epoch`]).
    pub fn from_days_since_epoch(days: i64) -> Day {
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u8;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
        let year = (yoe + era * 400 + i64::from(month <= 2)) as u16;
        Day { year, month, day }
    }
}

/// A moment given in Unix seconds, as people read it: `2026-12-01 10:58 UTC`.
pub fn utc(unix_seconds: u64) -> String {
    let secs = unix_seconds as i64;
    let day = Day::from_days_since_epoch(secs.div_euclid(86_400));
    let in_day = secs.rem_euclid(86_400);
    format!("{day} {:02}:{:02} UTC", in_day / 3600, in_day / 60 % 60)
}

impl fmt::Display for Day {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.iso())
    }
}

/// The day a `YYYYMMDD` or `YYYY-MM-DD` text names, as `YYYYMMDD`.
pub fn parse_day(text: &str) -> Result<String, DayError> {
    Day::parse(text).map(Day::compact)
}

/// An inclusive range of days, either end open; never inverted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DayRange {
    from: Option<Day>,
    to: Option<Day>,
}

/// A range whose start is after its end.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the date range is inverted: date_from {from} is after date_to {to}, so no day is in it; swap the two")]
pub struct InvertedRange {
    /// The start given.
    pub from: Day,
    /// The end given.
    pub to: Day,
}

impl DayRange {
    /// The range from `from` to `to`, refused when `from` is after `to`.
    pub fn new(from: Option<Day>, to: Option<Day>) -> Result<DayRange, InvertedRange> {
        match (from, to) {
            (Some(from), Some(to)) if from > to => Err(InvertedRange { from, to }),
            _ => Ok(DayRange { from, to }),
        }
    }

    /// The first day, when bounded.
    pub fn from(self) -> Option<Day> {
        self.from
    }

    /// The last day, when bounded.
    pub fn to(self) -> Option<Day> {
        self.to
    }
}

/// The kind of text a clock time comes from; each has its own strictness.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// WebVTT: `[h…:]mm:ss.ttt`, minutes and seconds two digits each,
    /// exactly three digits of milliseconds.
    Vtt,
    /// SRT and other caption files: `[h:]m:s[.,]fff`, one to three digits
    /// of fraction (`,` as SRT writes it), or none.
    Caption,
    /// What a person types: a number of seconds, `m:ss` or `h:mm:ss`, the
    /// last part with any fraction.
    Typed,
}

/// Seconds from a clock text in dialect `clock`; `None` for anything that
/// is not one (every part must be digits; minutes and seconds below 60
/// where a larger unit is written).
pub fn parse_clock(text: &str, clock: Clock) -> Option<f64> {
    let (whole, frac) = split_fraction(text, clock)?;
    let parts: Vec<&str> = whole.split(':').collect();
    let digits = |p: &&str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    if !parts.iter().all(digits) {
        return None;
    }
    let allowed = match clock {
        Clock::Typed => 1..=3,
        Clock::Vtt | Clock::Caption => 2..=3,
    };
    if !allowed.contains(&parts.len()) {
        return None;
    }
    if clock == Clock::Vtt && parts.iter().rev().take(2).any(|p| p.len() != 2) {
        return None;
    }
    let nums: Vec<f64> = parts
        .iter()
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let (h, m, s) = match nums[..] {
        [s] => (0.0, 0.0, s),
        [m, s] => (0.0, m, s),
        [h, m, s] => (h, m, s),
        _ => return None,
    };
    // A unit below a written larger one stays below 60; WebVTT's minutes
    // always do.
    let minutes_bounded = nums.len() > 2 || clock == Clock::Vtt;
    if nums.len() > 1 && s >= 60.0 || minutes_bounded && m >= 60.0 {
        return None;
    }
    let fraction: f64 = format!("0.{frac}").parse().ok()?;
    let total = h * 3600.0 + m * 60.0 + s + fraction;
    total.is_finite().then_some(total)
}

/// The clock part and the digits after its decimal mark (`"0"` if none).
fn split_fraction(text: &str, clock: Clock) -> Option<(&str, &str)> {
    let marks: &[char] = match clock {
        Clock::Caption => &['.', ','],
        Clock::Vtt | Clock::Typed => &['.'],
    };
    let Some((whole, frac)) = text.rsplit_once(marks) else {
        return (clock != Clock::Vtt).then_some((text, "0"));
    };
    let ok_len = match clock {
        Clock::Vtt => frac.len() == 3,
        Clock::Caption => (1..=3).contains(&frac.len()),
        Clock::Typed => !frac.is_empty(),
    };
    (ok_len && frac.bytes().all(|b| b.is_ascii_digit()) && !whole.contains(marks))
        .then_some((whole, frac))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_checked_against_the_calendar() {
        assert_eq!(parse_day("2015-02-28").unwrap(), "20150228");
        assert_eq!(parse_day(" 20240229 ").unwrap(), "20240229");
        assert_eq!(
            parse_day("2015-02-31").unwrap_err().to_string(),
            "\"2015-02-31\" is not a date: February 2015 has 28 days"
        );
        assert_eq!(
            parse_day("20150431").unwrap_err().to_string(),
            "\"20150431\" is not a date: April 2015 has 30 days"
        );
        assert_eq!(
            parse_day("2023-02-29").unwrap_err().to_string(),
            "\"2023-02-29\" is not a date: February 2023 has 28 days"
        );
        assert_eq!(
            parse_day("2024-13-01").unwrap_err().to_string(),
            "\"2024-13-01\" is not a date: there is no month 13 (use 01 to 12)"
        );
        for bad in [
            "2024/01/01",
            "yesterday",
            "2024-1-01",
            "",
            "+2024010",
            "2024-0a-01",
        ] {
            assert_eq!(
                parse_day(bad).unwrap_err().to_string(),
                format!("{bad:?} is not a date: use YYYYMMDD or YYYY-MM-DD")
            );
        }
        assert_eq!(
            parse_day("2000-02-29").unwrap(),
            "20000229",
            "2000 is a leap year"
        );
        assert!(parse_day("1900-02-29").is_err(), "1900 is not");
    }

    #[test]
    fn day_numbers_count_from_the_epoch() {
        let n = |t: &str| Day::parse(t).unwrap().days_since_epoch();
        assert_eq!(n("19700101"), 0);
        assert_eq!(n("20240229"), 19_782);
        assert_eq!(n("20240301"), 19_783);
        assert_eq!(n("19691231"), -1);
        for text in ["19700101", "20000229", "20240301", "19691231", "21000301"] {
            let d = Day::parse(text).unwrap();
            assert_eq!(
                Day::from_days_since_epoch(d.days_since_epoch()),
                d,
                "{text}"
            );
        }
        assert_eq!(utc(1_796_112_028), "2026-12-01 08:00 UTC");
    }

    #[test]
    fn an_inverted_range_cannot_be_made() {
        let d = |t: &str| Some(Day::parse(t).unwrap());
        let err = DayRange::new(d("2020-01-01"), d("2015-01-01")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the date range is inverted: date_from 2020-01-01 is after date_to 2015-01-01, so no day is in it; swap the two"
        );
        assert!(DayRange::new(d("2015-01-01"), d("2015-01-01")).is_ok());
        assert!(DayRange::new(d("2015-01-01"), None).is_ok());
    }

    #[test]
    fn clock_times_follow_their_dialect() {
        use Clock::*;
        assert_eq!(parse_clock("00:15.920", Vtt), Some(15.92));
        assert_eq!(parse_clock("1:02:03.500", Vtt), Some(3723.5));
        assert_eq!(parse_clock("123:00:00.000", Vtt), Some(442_800.0));
        for bad in [
            "00:15.92",
            "0:15.920",
            "00:60.000",
            "60:00.000",
            "00:15",
            "00:15,920",
            "a:15.920",
            "1:2:03.000",
        ] {
            assert_eq!(parse_clock(bad, Vtt), None, "{bad}");
        }
        assert_eq!(parse_clock("00:15.920", Caption), Some(15.92));
        assert_eq!(parse_clock("1:02:03.5", Caption), Some(3723.5));
        assert_eq!(parse_clock("01:02:03,045", Caption), Some(3723.045));
        assert_eq!(parse_clock("01:02", Caption), Some(62.0));
        for bad in ["15", "1:60:00", "00:15.9201", "00:15.", "1::2", "1:2:3:4"] {
            assert_eq!(parse_clock(bad, Caption), None, "{bad}");
        }
        assert_eq!(parse_clock("90", Typed), Some(90.0));
        assert_eq!(parse_clock("12.25", Typed), Some(12.25));
        assert_eq!(parse_clock("1:05.5", Typed), Some(65.5));
        assert_eq!(parse_clock("1:00:05", Typed), Some(3605.0));
        for bad in ["1:60", "1:60:00", "1,5", "-3", "", "1:2:3:4", "1.5:00"] {
            assert_eq!(parse_clock(bad, Typed), None, "{bad}");
        }
    }
}
