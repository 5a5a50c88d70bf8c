//! The report's pictures: bar and line charts drawn as inline SVG by
//! `plotters` (its SVG backend, no font files: text is SVG `<text>`), and
//! matrices as HTML tables coloured as heat maps (a table keeps names
//! readable and each cell's numbers selectable).

use super::html::escape;
use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;

/// One horizontal bar: a label, its value and an optional interval drawn as
/// an error bar (a 95 % confidence interval, say).
#[derive(Debug, Clone)]
pub struct Bar {
    pub label: String,
    pub value: f64,
    pub interval: Option<(f64, f64)>,
}

/// The SVG text plotters wrote, or a note when drawing failed.
fn finish(svg: String, drawn: Result<(), String>) -> String {
    match drawn {
        Ok(()) => format!("<div class=\"chart\">{svg}</div>"),
        Err(e) => format!("<p class=\"note\">(picture not drawn: {})</p>", escape(&e)),
    }
}

/// A label no longer than `max` characters.
fn short(label: &str, max: usize) -> String {
    if label.chars().count() <= max {
        label.to_string()
    } else {
        let cut: String = label.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}

/// Horizontal bars in the given order, one row per label, with `x_label`
/// under the axis.
pub fn bars(x_label: &str, bars: &[Bar]) -> String {
    if bars.iter().all(|b| b.value == 0.0 && b.interval.is_none()) {
        return format!(
            "<p class=\"note\">None: every bot has 0 {}.</p>",
            escape(x_label)
        );
    }
    let n = bars.len().max(1);
    let height = (22 * n + 70) as u32;
    let longest = bars
        .iter()
        .map(|b| short(&b.label, 28).chars().count())
        .max()
        .unwrap_or(4);
    let max = bars
        .iter()
        .map(|b| b.interval.map_or(b.value, |(_, hi)| hi.max(b.value)))
        .fold(0.0_f64, f64::max);
    let max = if max > 0.0 { max * 1.05 } else { 1.0 };
    let mut svg = String::new();
    let drawn = (|| -> Result<(), Box<dyn std::error::Error>> {
        let root = SVGBackend::with_string(&mut svg, (760, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size((longest * 7 + 16) as u32)
            .build_cartesian_2d(0.0..max, (0..n).into_segmented())?;
        let labels: Vec<String> = bars.iter().map(|b| short(&b.label, 28)).collect();
        chart
            .configure_mesh()
            .disable_y_mesh()
            .light_line_style(WHITE)
            .y_labels(n)
            // The first bar on top: row i is drawn at n - 1 - i.
            .y_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) if *i < n => {
                    labels.get(n - 1 - *i).cloned().unwrap_or_default()
                }
                _ => String::new(),
            })
            .x_desc(x_label)
            .label_style(("sans-serif", 13))
            .draw()?;
        let fill = RGBColor(70, 130, 180);
        chart.draw_series(bars.iter().enumerate().map(|(i, b)| {
            let i = n - 1 - i;
            let mut r = Rectangle::new(
                [
                    (0.0, SegmentValue::Exact(i)),
                    (b.value.max(0.0), SegmentValue::Exact(i + 1)),
                ],
                fill.mix(0.8).filled(),
            );
            r.set_margin(3, 3, 0, 0);
            r
        }))?;
        chart.draw_series(bars.iter().enumerate().filter_map(|(i, b)| {
            let i = n - 1 - i;
            let (lo, hi) = b.interval?;
            Some(ErrorBar::new_horizontal(
                SegmentValue::CenterOf(i),
                lo,
                b.value,
                hi,
                BLACK.stroke_width(1),
                8,
            ))
        }))?;
        root.present()?;
        Ok(())
    })()
    .map_err(|e| e.to_string());
    finish(svg, drawn)
}

/// One line of a line chart: a name and its points.
#[derive(Debug, Clone)]
pub struct Line {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// Lines with a legend (at most 12 named; more lines are drawn unnamed).
pub fn lines(x_label: &str, y_label: &str, lines: &[Line]) -> String {
    let all = lines.iter().flat_map(|l| l.points.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (0.0_f64, 1.0_f64, 0.0_f64, 1.0_f64);
    for &(x, y) in all {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    let pad = (y1 - y0).abs() * 0.05 + f64::EPSILON;
    let mut svg = String::new();
    let drawn = (|| -> Result<(), Box<dyn std::error::Error>> {
        let root = SVGBackend::with_string(&mut svg, (760, 380)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(86)
            .build_cartesian_2d(x0..x1, (y0 - pad)..(y1 + pad))?;
        let whole = |v: &f64| {
            if v.fract() == 0.0 {
                format!("{v:.0}")
            } else {
                String::new()
            }
        };
        let span = y1 - y0;
        let number = |v: &f64| {
            if span >= 10.0 {
                format!("{v:.0}")
            } else {
                format!("{v:.2}")
            }
        };
        chart
            .configure_mesh()
            .light_line_style(WHITE)
            .x_label_formatter(&whole)
            .y_label_formatter(&number)
            .x_desc(x_label)
            .y_desc(y_label)
            .label_style(("sans-serif", 13))
            .draw()?;
        for (i, line) in lines.iter().enumerate() {
            let color = color(i);
            let series = chart.draw_series(LineSeries::new(
                line.points.iter().copied(),
                color.stroke_width(2),
            ))?;
            if i < 12 {
                series.label(short(&line.name, 24)).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
                });
            }
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 12))
            .position(SeriesLabelPosition::UpperLeft)
            .draw()?;
        root.present()?;
        Ok(())
    })()
    .map_err(|e| e.to_string());
    finish(svg, drawn)
}

/// Ten distinct colours that read on white (Tableau 10), then plotters'
/// palette.
fn color(i: usize) -> RGBAColor {
    const TEN: [(u8, u8, u8); 10] = [
        (31, 119, 180),
        (255, 127, 14),
        (44, 160, 44),
        (214, 39, 40),
        (148, 103, 189),
        (140, 86, 75),
        (227, 119, 194),
        (127, 127, 127),
        (188, 189, 34),
        (23, 190, 207),
    ];
    match TEN.get(i) {
        Some(&(r, g, b)) => RGBColor(r, g, b).to_rgba(),
        None => Palette99::pick(i).to_rgba(),
    }
}

/// A square matrix as a heat map table: row bot against column bot. Each
/// cell holds its text and a share in 0..=1 (green for the row bot, red
/// for the column bot); `None` for the diagonal or a pair not played.
/// Rows and columns are shown in `order` (indices into `names`; the
/// standings' order puts the winner top left).
pub fn heat_map(
    names: &[String],
    cells: &[Vec<Option<(f64, String)>>],
    order: &[usize],
    legend: &str,
) -> String {
    let order: Vec<usize> = order.iter().copied().filter(|&i| i < names.len()).collect();
    let mut out = String::from("<div class=\"matrix\"><table class=\"heat\"><tr><th></th>");
    for (k, &j) in order.iter().enumerate() {
        out.push_str(&format!(
            "<th title=\"{}\">{}</th>",
            escape(&names[j]),
            k + 1
        ));
    }
    out.push_str("</tr>");
    for (k, &i) in order.iter().enumerate() {
        let name = &names[i];
        out.push_str(&format!(
            "<tr><th class=\"name\">{} <sub>{}</sub></th>",
            escape(name),
            k + 1
        ));
        for &j in &order {
            let against = &names[j];
            let cell = cells
                .get(i)
                .and_then(|row| row.get(j))
                .and_then(Option::as_ref);
            match cell {
                Some((share, text)) => out.push_str(&format!(
                    "<td style=\"background:{}\" title=\"{} vs {}: {}\">{}</td>",
                    heat_color(*share),
                    escape(name),
                    escape(against),
                    escape(text),
                    escape(text)
                )),
                None => out.push_str("<td class=\"none\"></td>"),
            }
        }
        out.push_str("</tr>");
    }
    out.push_str(&format!(
        "</table><p class=\"note\">{}</p></div>",
        escape(legend)
    ));
    out
}

/// Red (0) through pale yellow (0.5) to green (1).
fn heat_color(share: f64) -> String {
    let s = share.clamp(0.0, 1.0);
    let (lo, mid, hi) = (
        (215.0, 48.0, 39.0),
        (255.0, 255.0, 191.0),
        (26.0, 152.0, 80.0),
    );
    let mix = |a: f64, b: f64, t: f64| (a + (b - a) * t).round() as u8;
    let (a, b, t) = if s < 0.5 {
        (lo, mid, s * 2.0)
    } else {
        (mid, hi, s * 2.0 - 1.0)
    };
    format!(
        "rgb({},{},{})",
        mix(a.0, b.0, t),
        mix(a.1, b.1, t),
        mix(a.2, b.2, t)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charts_are_inline_svg_with_their_labels() {
        let b = bars(
            "win %",
            &[
                Bar {
                    label: "alpha".into(),
                    value: 60.0,
                    interval: Some((50.0, 70.0)),
                },
                Bar {
                    label: "beta".into(),
                    value: 40.0,
                    interval: None,
                },
            ],
        );
        assert!(
            b.contains("<svg") && b.contains("alpha") && b.contains("beta"),
            "{b}"
        );
        let l = lines(
            "game",
            "credits",
            &[Line {
                name: "gamma".into(),
                points: vec![(0.0, 1.0), (1.0, 3.0)],
            }],
        );
        assert!(l.contains("<svg") && l.contains("gamma"), "{l}");
        assert!(!b.contains("http://") || b.contains("http://www.w3.org/2000/svg"));
    }

    #[test]
    fn a_heat_map_colours_by_share_and_escapes_names() {
        let names = vec!["<a>".to_string(), "b".to_string()];
        let cells = vec![
            vec![None, Some((1.0, "2-0".to_string()))],
            vec![Some((0.0, "0-2".to_string())), None],
        ];
        let h = heat_map(&names, &cells, &[1, 0], "row against column");
        assert!(
            h.find("<th class=\"name\">b").unwrap()
                < h.find("<th class=\"name\">&lt;a&gt;").unwrap()
        );
        assert!(h.contains("&lt;a&gt;") && !h.contains("<a>"), "{h}");
        assert!(
            h.contains("rgb(26,152,80)") && h.contains("rgb(215,48,39)"),
            "{h}"
        );
    }
}
