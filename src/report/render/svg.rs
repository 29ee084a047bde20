//! Line charts as inline SVG for the HTML report: linear or logarithmic axes with round ticks, a
//! grid, and a legend. No script and no font is fetched; the page uses the reader's system fonts.

use std::fmt::Write as _;

/// One line of a chart.
pub struct Series {
    /// Legend text.
    pub name: String,
    /// Stroke colour (CSS).
    pub color: &'static str,
    /// (x, y) points, in x order.
    pub points: Vec<(f64, f64)>,
}

/// How an axis maps values.
#[derive(Clone, Copy, PartialEq)]
pub enum Scale {
    /// Evenly spaced values, from 0.
    Linear,
    /// Powers of ten evenly spaced (values must be positive).
    Log,
}

/// A chart to draw.
pub struct Chart<'a> {
    /// Heading above the chart.
    pub title: &'a str,
    /// Under the x axis.
    pub x_label: &'a str,
    /// Beside the y axis.
    pub y_label: &'a str,
    /// The x axis.
    pub x_scale: Scale,
    /// The y axis.
    pub y_scale: Scale,
    /// Labels for x ticks instead of numbers: (value, text).
    pub x_ticks: Option<Vec<(f64, String)>>,
    /// The lines.
    pub series: Vec<Series>,
}

const WIDTH: f64 = 860.0;
const HEIGHT: f64 = 320.0;
const LEFT: f64 = 78.0;
const RIGHT: f64 = 40.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = 52.0;

/// Round tick values covering `lo..=hi` on a linear axis.
fn linear_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = (hi - lo).max(f64::MIN_POSITIVE);
    let raw = span / 5.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|s| span / s <= 6.0)
        .unwrap_or(10.0 * magnitude);
    let first = (lo / step).floor() * step;
    let mut ticks = Vec::new();
    let mut t = first;
    // Up to the first tick at or above `hi`, so that no value lies beyond the axis.
    loop {
        ticks.push(t);
        if t >= hi - step * 1e-9 {
            break;
        }
        t += step;
    }
    ticks
}

/// Powers of ten covering `lo..=hi` (both positive).
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    (a..=b.max(a + 1)).map(|e| 10f64.powi(e)).collect()
}

/// A number on an axis, short.
pub fn short(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{}G", trim(v / 1e9, 2))
    } else if a >= 1e6 {
        format!("{}M", trim(v / 1e6, 2))
    } else if a >= 1e4 {
        format!("{}k", trim(v / 1e3, 2))
    } else if a > 0.0 && a < 1.0 {
        // Enough decimals for two significant digits: 0.001, 0.0015, 0.25.
        trim(v, (-a.log10()).ceil() as usize + 1)
    } else {
        trim(v, 2)
    }
}

fn trim(v: f64, decimals: usize) -> String {
    let text = format!("{v:.decimals$}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Escapes text for SVG and HTML.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

struct Axis {
    scale: Scale,
    lo: f64,
    hi: f64,
    from: f64,
    to: f64,
}

impl Axis {
    fn new(
        scale: Scale,
        values: impl Iterator<Item = f64>,
        from: f64,
        to: f64,
    ) -> (Axis, Vec<f64>) {
        let values: Vec<f64> = values
            .filter(|v| v.is_finite() && (scale == Scale::Linear || *v > 0.0))
            .collect();
        let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let (lo, hi) = if values.is_empty() {
            (if scale == Scale::Log { 1.0 } else { 0.0 }, 1.0)
        } else {
            (lo, hi)
        };
        let ticks = match scale {
            Scale::Linear => linear_ticks(
                lo.min(0.0),
                if hi > lo.min(0.0) {
                    hi
                } else {
                    lo.min(0.0) + 1.0
                },
            ),
            Scale::Log => log_ticks(lo, hi.max(lo * 10.0)),
        };
        let axis = Axis {
            scale,
            lo: ticks[0],
            hi: *ticks.last().expect("ticks"),
            from,
            to,
        };
        (axis, ticks)
    }

    fn at(&self, v: f64) -> f64 {
        let f = match self.scale {
            Scale::Linear => (v - self.lo) / (self.hi - self.lo),
            Scale::Log => {
                (v.max(self.lo).log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
            }
        };
        self.from + f * (self.to - self.from)
    }
}

/// The chart as an `<svg>` element.
pub fn render(chart: &Chart) -> String {
    let all = || chart.series.iter().flat_map(|s| s.points.iter());
    let (x, mut x_ticks) = Axis::new(chart.x_scale, all().map(|p| p.0), LEFT, WIDTH - RIGHT);
    let (y, y_ticks) = Axis::new(chart.y_scale, all().map(|p| p.1), HEIGHT - BOTTOM, TOP);
    let mut svg = String::new();
    let _ = write!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" width=\"{WIDTH}\" height=\"{HEIGHT}\" role=\"img\" aria-label=\"{}\">",
        escape(chart.title)
    );
    let _ = write!(
        svg,
        "<text x=\"{LEFT}\" y=\"20\" class=\"title\">{}</text>",
        escape(chart.title)
    );
    // Grid and y ticks.
    for t in &y_ticks {
        let py = y.at(*t);
        let _ = write!(
            svg,
            "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{py:.1}\" y2=\"{py:.1}\" class=\"grid\"/><text x=\"{}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"end\">{}</text>",
            WIDTH - RIGHT,
            LEFT - 6.0,
            py + 4.0,
            short(*t)
        );
    }
    let labelled: Vec<(f64, String)> = match &chart.x_ticks {
        Some(ticks) => ticks.clone(),
        None => {
            if chart.x_scale == Scale::Linear {
                x_ticks.retain(|t| *t <= x.hi);
            }
            x_ticks.iter().map(|t| (*t, short(*t))).collect()
        }
    };
    for (t, text) in &labelled {
        let px = x.at(*t);
        let _ = write!(
            svg,
            "<line x1=\"{px:.1}\" x2=\"{px:.1}\" y1=\"{TOP}\" y2=\"{}\" class=\"grid\"/><text x=\"{px:.1}\" y=\"{}\" class=\"tick\" text-anchor=\"middle\">{}</text>",
            HEIGHT - BOTTOM,
            HEIGHT - BOTTOM + 16.0,
            escape(text)
        );
    }
    let _ = write!(
        svg,
        "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{b}\" y2=\"{b}\" class=\"axis\"/><line x1=\"{LEFT}\" x2=\"{LEFT}\" y1=\"{TOP}\" y2=\"{b}\" class=\"axis\"/>",
        WIDTH - RIGHT,
        b = HEIGHT - BOTTOM
    );
    let _ = write!(
        svg,
        "<text x=\"{}\" y=\"{}\" class=\"label\" text-anchor=\"middle\">{}</text>",
        (LEFT + WIDTH - RIGHT) / 2.0,
        HEIGHT - 12.0,
        escape(chart.x_label)
    );
    let _ = write!(
        svg,
        "<text transform=\"translate(16,{}) rotate(-90)\" class=\"label\" text-anchor=\"middle\">{}</text>",
        (TOP + HEIGHT - BOTTOM) / 2.0,
        escape(chart.y_label)
    );
    for (i, series) in chart.series.iter().enumerate() {
        let points: Vec<String> = series
            .points
            .iter()
            .filter(|(px, py)| {
                px.is_finite() && py.is_finite() && (chart.y_scale == Scale::Linear || *py > 0.0)
            })
            .map(|(px, py)| format!("{:.1},{:.1}", x.at(*px), y.at(*py)))
            .collect();
        if points.len() == 1 {
            let (cx, cy) = points[0].split_once(',').expect("x,y");
            let _ = write!(
                svg,
                "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"3\" fill=\"{}\"/>",
                series.color
            );
        } else if !points.is_empty() {
            let _ = write!(
                svg,
                "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.8\"/>",
                points.join(" "),
                series.color
            );
        }
        let lx = LEFT + 10.0 + i as f64 * 150.0;
        let _ = write!(
            svg,
            "<rect x=\"{lx}\" y=\"{}\" width=\"14\" height=\"4\" fill=\"{}\"/><text x=\"{}\" y=\"{}\" class=\"legend\">{}</text>",
            TOP - 18.0,
            series.color,
            lx + 18.0,
            TOP - 13.0,
            escape(&series.name)
        );
    }
    svg.push_str("</svg>");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_values() {
        assert_eq!(
            linear_ticks(0.0, 97.0),
            vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]
        );
        assert_eq!(
            log_ticks(3.0, 2500.0),
            vec![1.0, 10.0, 100.0, 1000.0, 10000.0]
        );
        assert_eq!(short(1_500_000.0), "1.5M");
        assert_eq!(short(25_000.0), "25k");
        assert_eq!(short(0.25), "0.25");
        assert_eq!(short(0.001), "0.001");
        assert_eq!(short(0.0015), "0.0015");
        assert_eq!(short(100.0), "100");
    }

    #[test]
    fn the_last_tick_is_at_or_above_the_largest_value() {
        for hi in [434_981.0, 400_000.0, 449_999.0, 0.7, 97.0] {
            let ticks = linear_ticks(0.0, hi);
            assert!(*ticks.last().unwrap() >= hi, "{hi}: {ticks:?}");
            assert!(ticks.len() <= 8, "{hi}: {ticks:?}");
        }
    }

    #[test]
    fn a_chart_draws_every_series_inside_its_plot() {
        let chart = Chart {
            title: "IOPS <over> time",
            x_label: "seconds",
            y_label: "IOPS",
            x_scale: Scale::Linear,
            y_scale: Scale::Log,
            x_ticks: None,
            series: vec![
                Series {
                    name: "read".into(),
                    color: "#1f77b4",
                    points: vec![(0.0, 10.0), (1.0, 1000.0), (2.0, 0.0)],
                },
                Series {
                    name: "write".into(),
                    color: "#d62728",
                    points: vec![(1.0, 50.0)],
                },
            ],
        };
        let svg = render(&chart);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert!(svg.contains("IOPS &lt;over&gt; time"));
        assert_eq!(svg.matches("<polyline").count(), 1);
        assert_eq!(svg.matches("<circle").count(), 1, "a single point is a dot");
        // The zero on a log axis is left out rather than drawn at minus infinity.
        let line = svg
            .split("points=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert_eq!(line.split(' ').count(), 2);
        for point in line.split(' ') {
            let (x, y) = point.split_once(',').unwrap();
            let (x, y): (f64, f64) = (x.parse().unwrap(), y.parse().unwrap());
            assert!((LEFT..=WIDTH - RIGHT).contains(&x) && (TOP..=HEIGHT - BOTTOM).contains(&y));
        }
    }
}
