//! A trend as an SVG chart: one line per query over the periods, hits on
//! the vertical axis, the periods with no speech in scope shaded and
//! named in the legend, the undated matches said under the axis. The
//! file is standalone: a browser shows it as it is, and an HTML report
//! inlines it.

use std::fmt::Write;

use archilyzer_core::trend::Trend;

/// One colour per query (a trend compares at most eight).
const COLOURS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
];
const WIDTH: f64 = 900.0;
const HEIGHT: f64 = 440.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 60.0;
const BOTTOM: f64 = 90.0;

/// Text safe inside SVG or HTML.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The chart of `t`, titled `title`.
pub fn svg(t: &Trend, title: &str) -> String {
    let mut out = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12" role="img">"#
    );
    let _ = write!(
        out,
        r#"<title>{0}</title><rect width="100%" height="100%" fill="white"/><text x="{LEFT}" y="22" font-size="15" font-weight="bold">{0}</text>"#,
        escape(title)
    );
    let n = t.periods.len();
    if n == 0 {
        out.push_str(r#"<text x="70" y="120">No dated match and no dated speech in scope.</text>"#);
    } else {
        let top = t
            .periods
            .iter()
            .flat_map(|r| r.by_query.values().map(|c| c.hits))
            .max()
            .unwrap_or(0);
        let (step, ticks) = ticks(top);
        let plot = Plot {
            n,
            y_max: (step * ticks) as f64,
        };
        quiet_periods(&mut out, t, &plot);
        axes(&mut out, t, &plot, step, ticks);
        series(&mut out, t, &plot);
    }
    legend(&mut out, t);
    let _ = write!(
        out,
        r##"<text x="{LEFT}" y="{}" fill="#555">undated (not on the time axis): {}</text></svg>"##,
        HEIGHT - 8.0,
        escape(&undated(t))
    );
    out.push('\n');
    out
}

/// Each query's undated matches, or `none`.
fn undated(t: &Trend) -> String {
    let each: Vec<String> = t
        .undated
        .by_query
        .iter()
        .map(|(q, c)| format!("{q:?} {} video(s), {} hit(s)", c.videos, c.hits))
        .collect();
    match each.is_empty() {
        true => "none".into(),
        false => each.join("; "),
    }
}

/// Where the plot area maps periods and hits.
struct Plot {
    n: usize,
    y_max: f64,
}

impl Plot {
    fn slot(&self) -> f64 {
        (WIDTH - LEFT - RIGHT) / self.n as f64
    }
    fn x(&self, i: usize) -> f64 {
        LEFT + self.slot() * (i as f64 + 0.5)
    }
    fn y(&self, hits: usize) -> f64 {
        HEIGHT - BOTTOM - (HEIGHT - TOP - BOTTOM) * hits as f64 / self.y_max
    }
}

/// A round step and how many steps reach `max` (at least one of 1).
fn ticks(max: usize) -> (usize, usize) {
    let rough = (max as f64 / 5.0).max(1.0);
    let magnitude = 10f64.powf(rough.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= rough)
        .unwrap_or(10.0 * magnitude) as usize;
    (step, max.div_ceil(step).max(1))
}

fn quiet_periods(out: &mut String, t: &Trend, plot: &Plot) {
    for (i, row) in t.periods.iter().enumerate() {
        if row.hours == 0.0 {
            let _ = write!(
                out,
                r##"<rect class="no-speech" x="{:.1}" y="{TOP}" width="{:.1}" height="{}" fill="#e8e8e8"><title>{}: no speech in scope</title></rect>"##,
                plot.x(i) - plot.slot() / 2.0,
                plot.slot(),
                HEIGHT - TOP - BOTTOM,
                escape(&row.period)
            );
        }
    }
}

fn axes(out: &mut String, t: &Trend, plot: &Plot, step: usize, ticks: usize) {
    let (x0, x1, y0) = (LEFT, WIDTH - RIGHT, HEIGHT - BOTTOM);
    let _ = write!(
        out,
        r##"<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y0}" stroke="#333"/><line x1="{x0}" y1="{TOP}" x2="{x0}" y2="{y0}" stroke="#333"/>"##
    );
    for k in 0..=ticks {
        let y = plot.y(k * step);
        let _ = write!(
            out,
            r##"<line x1="{x0}" y1="{y:.1}" x2="{x1}" y2="{y:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
            x0 - 6.0,
            y + 4.0,
            k * step
        );
    }
    let every = plot.n.div_ceil(12);
    for (i, row) in t.periods.iter().enumerate().filter(|(i, _)| i % every == 0) {
        let x = plot.x(i);
        let _ = write!(
            out,
            r#"<text x="{x:.1}" y="{}" text-anchor="end" transform="rotate(-40 {x:.1} {})">{}</text>"#,
            y0 + 16.0,
            y0 + 16.0,
            escape(&row.period)
        );
    }
    let _ = write!(
        out,
        r#"<text x="18" y="{:.1}" transform="rotate(-90 18 {:.1})" text-anchor="middle">hits (confirmed)</text><text x="{:.1}" y="{}" text-anchor="middle">{}</text>"#,
        (TOP + y0) / 2.0,
        (TOP + y0) / 2.0,
        (x0 + x1) / 2.0,
        HEIGHT - 28.0,
        t.by.as_str()
    );
}

fn series(out: &mut String, t: &Trend, plot: &Plot) {
    for (k, query) in t.queries.iter().enumerate() {
        let colour = COLOURS[k % COLOURS.len()];
        let points: Vec<(f64, f64, usize, &str)> = t
            .periods
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let hits = r.by_query.get(query).map_or(0, |c| c.hits);
                (plot.x(i), plot.y(hits), hits, r.period.as_str())
            })
            .collect();
        let path: Vec<String> = points
            .iter()
            .map(|(x, y, _, _)| format!("{x:.1},{y:.1}"))
            .collect();
        let _ = write!(
            out,
            r#"<polyline class="series" fill="none" stroke="{colour}" stroke-width="2" points="{}"/>"#,
            path.join(" ")
        );
        for (x, y, hits, period) in points {
            let _ = write!(
                out,
                r#"<circle cx="{x:.1}" cy="{y:.1}" r="3" fill="{colour}"><title>{}: {}: {hits} hit(s)</title></circle>"#,
                escape(query),
                escape(period)
            );
        }
    }
}

fn legend(out: &mut String, t: &Trend) {
    let mut x = LEFT;
    let y = 42.0;
    for (k, query) in t.queries.iter().enumerate() {
        let label = format!("{query:?}");
        let _ = write!(
            out,
            r#"<rect x="{x}" y="{}" width="12" height="12" fill="{}"/><text x="{}" y="{y}">{}</text>"#,
            y - 10.0,
            COLOURS[k % COLOURS.len()],
            x + 16.0,
            escape(&label)
        );
        x += 28.0 + 7.0 * label.chars().count() as f64;
    }
    if t.periods.iter().any(|r| r.hours == 0.0) {
        let _ = write!(
            out,
            r##"<rect x="{x}" y="{}" width="12" height="12" fill="#e8e8e8" stroke="#999"/><text x="{}" y="{y}">no speech in scope</text>"##,
            y - 10.0,
            x + 16.0
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_steps_are_round_and_reach_the_top() {
        assert_eq!(ticks(0), (1, 1));
        assert_eq!(ticks(7), (2, 4));
        assert_eq!(ticks(1375), (500, 3));
        assert_eq!(escape("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
    }
}
