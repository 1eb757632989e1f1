//! Periods of time a trend counts by: a year, a quarter or a month, each
//! numbered so that consecutive periods are consecutive numbers (the gaps
//! between periods with speech are listed, not skipped).

use serde::Serialize;

use crate::time::Day;

/// The length of the periods a trend counts by.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum By {
    /// Calendar months: `2014-05`.
    Month,
    /// Calendar quarters: `2014-Q2`.
    Quarter,
    /// Calendar years: `2014` (the default).
    #[default]
    Year,
}

/// A period: its number in [`By`]'s sequence (consecutive periods have
/// consecutive numbers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Period(u32);

impl By {
    /// The names requests use, in the order help lists them.
    pub const NAMES: [&'static str; 3] = ["month", "quarter", "year"];

    /// A length by the name requests use; `None` for any other text.
    pub fn parse(text: &str) -> Option<By> {
        match text.trim().to_ascii_lowercase().as_str() {
            "month" => Some(By::Month),
            "quarter" => Some(By::Quarter),
            "year" => Some(By::Year),
            _ => None,
        }
    }

    /// The name requests use.
    pub fn as_str(self) -> &'static str {
        match self {
            By::Month => "month",
            By::Quarter => "quarter",
            By::Year => "year",
        }
    }

    /// The period `day` falls in.
    pub fn period_of(self, day: Day) -> Period {
        let (y, m) = (day.year(), day.month() - 1);
        Period(match self {
            By::Month => y * 12 + m,
            By::Quarter => y * 4 + m / 3,
            By::Year => y,
        })
    }

    /// The period an archive date (`YYYYMMDD`) falls in; `None` when the
    /// date is missing or no calendar day.
    pub fn period_of_date(self, date: Option<&str>) -> Option<Period> {
        let day = Day::parse(date.filter(|d| !d.trim().is_empty())?).ok()?;
        Some(self.period_of(day))
    }

    /// How a period is written: `2014`, `2014-Q2`, `2014-05`.
    pub fn label(self, p: Period) -> String {
        match self {
            By::Month => format!("{:04}-{:02}", p.0 / 12, p.0 % 12 + 1),
            By::Quarter => format!("{:04}-Q{}", p.0 / 4, p.0 % 4 + 1),
            By::Year => format!("{:04}", p.0),
        }
    }

    /// Every period from `first` to `last`, both included.
    pub fn span(self, first: Period, last: Period) -> impl Iterator<Item = Period> {
        (first.0..=last.0).map(Period)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> Day {
        Day::parse(text).unwrap()
    }

    #[test]
    fn periods_are_labelled_as_calendars_write_them_and_run_without_gaps() {
        let (a, b) = (day("20141130"), day("20150203"));
        assert_eq!(By::Year.label(By::Year.period_of(a)), "2014");
        assert_eq!(By::Quarter.label(By::Quarter.period_of(a)), "2014-Q4");
        assert_eq!(By::Month.label(By::Month.period_of(b)), "2015-02");
        let months: Vec<String> = By::Month
            .span(By::Month.period_of(a), By::Month.period_of(b))
            .map(|p| By::Month.label(p))
            .collect();
        assert_eq!(months, ["2014-11", "2014-12", "2015-01", "2015-02"]);
        let quarters = By::Quarter.span(By::Quarter.period_of(a), By::Quarter.period_of(b));
        assert_eq!(quarters.count(), 2);
    }

    #[test]
    fn a_missing_or_impossible_date_has_no_period() {
        assert_eq!(By::Year.period_of_date(None), None);
        assert_eq!(By::Year.period_of_date(Some("")), None);
        assert_eq!(By::Year.period_of_date(Some("20150231")), None);
        assert_eq!(By::parse(" Quarter "), Some(By::Quarter));
        assert_eq!(By::parse("week"), None);
    }
}
