//! The report's SVG plots: lines over a shared x axis (time against k, ratios against the
//! problem size) and horizontal bars (one time per engine). Every plot keeps its legend in a
//! panel of its own beside the chart, so that it never covers a line, and sizes the label
//! areas to the text they hold.

use plotters::coord::combinators::WithKeyPoints;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

type PlotResult = Result<(), Box<dyn std::error::Error>>;

/// One named series of points.
pub type Series = (String, Vec<(f64, f64)>);

/// Height of the pictures of line plots.
const HEIGHT: u32 = 500;
/// Width of a line plot's chart, without its legend.
const CHART_WIDTH: u32 = 760;
/// Approximate width of one character of the 13-pixel sans-serif font, in pixels.
const CHAR_WIDTH: u32 = 7;

/// How a line plot's x axis is scaled.
#[derive(Clone, Copy, PartialEq)]
pub enum XAxis {
    /// Linear; where every x is an integer (k), ticks at integers only.
    Linear,
    /// Logarithmic (problem sizes spanning decades).
    Log,
}

/// Writes a line plot (log-scale y) of several series over a shared x axis.
pub fn line_plot(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    x_axis: XAxis,
) -> PlotResult {
    let legend_width = legend_width(series.iter().map(|(name, _)| name.as_str()));
    let root = SVGBackend::new(path, (CHART_WIDTH + legend_width, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let (chart_area, legend_area) = root.split_horizontally(CHART_WIDTH);
    let (x0, x1) = bounds(series.iter().flat_map(|(_, p)| p.iter().map(|q| q.0)));
    let (y0, y1) = bounds(series.iter().flat_map(|(_, p)| p.iter().map(|q| q.1)));
    let y_range = log_axis(y0, y1);
    let mut builder = ChartBuilder::on(&chart_area);
    builder
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(50)
        .y_label_area_size(95);
    match x_axis {
        XAxis::Linear => {
            let mut chart = builder.build_cartesian_2d(x0..x1, y_range)?;
            // an axis of integers (k) gets a tick at integers only
            let integral = series
                .iter()
                .all(|(_, p)| p.iter().all(|q| q.0.fract() == 0.0));
            let x_ticks = if integral {
                ((x1 - x0) as usize + 1).min(12)
            } else {
                10
            };
            let x_format = |x: &f64| match integral {
                true if x.fract() != 0.0 => String::new(),
                true => format!("{x:.0}"),
                false => format!("{x}"),
            };
            chart
                .configure_mesh()
                .x_desc(x_label)
                .y_desc(y_label)
                .x_labels(x_ticks)
                .x_label_formatter(&x_format)
                .y_label_formatter(&log_tick)
                .axis_desc_style(("sans-serif", 16))
                .draw()?;
            draw_lines(&mut chart, series)?;
        }
        XAxis::Log => {
            let mut chart = builder.build_cartesian_2d(log_axis(x0, x1), y_range)?;
            chart
                .configure_mesh()
                .x_desc(x_label)
                .y_desc(y_label)
                .x_label_formatter(&log_tick)
                .y_label_formatter(&log_tick)
                .axis_desc_style(("sans-serif", 16))
                .draw()?;
            draw_lines(&mut chart, series)?;
        }
    }
    let entries: Vec<&str> = series.iter().map(|(name, _)| name.as_str()).collect();
    draw_legend(&legend_area, &entries)?;
    root.present()?;
    Ok(())
}

/// Writes a horizontal bar chart (log-scale x), one bar per named value, top to bottom.
pub fn bar_plot(path: &Path, title: &str, x_label: &str, bars: &[(String, f64)]) -> PlotResult {
    let label_width = 20
        + CHAR_WIDTH
            * bars
                .iter()
                .map(|(n, _)| n.chars().count())
                .max()
                .unwrap_or(0) as u32;
    let height = 110 + 30 * bars.len() as u32;
    let root = SVGBackend::new(path, (label_width + 620, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let (lo, hi) = bounds(bars.iter().map(|(_, v)| *v));
    let n = bars.len();
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(50)
        .y_label_area_size(label_width)
        // a discrete range holds its end: n bars are the values 0..=n - 1
        .build_cartesian_2d(log_axis(lo, hi), (0..n - 1).into_segmented())?;
    // the first bar at the top
    let name_of = |v: &SegmentValue<usize>| match v {
        SegmentValue::CenterOf(i) if *i < n => bars[n - 1 - i].0.clone(),
        _ => String::new(),
    };
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc(x_label)
        .y_labels(n)
        .y_label_formatter(&name_of)
        .y_label_style(("sans-serif", 13))
        .x_label_formatter(&log_tick)
        .axis_desc_style(("sans-serif", 16))
        .draw()?;
    let base = log_range(lo, hi).start;
    chart.draw_series(bars.iter().enumerate().map(|(k, (_, v))| {
        let row = n - 1 - k;
        let mut bar = Rectangle::new(
            [
                (base, SegmentValue::Exact(row)),
                (*v, SegmentValue::Exact(row + 1)),
            ],
            Palette99::pick(0).filled(),
        );
        bar.set_margin(4, 4, 0, 0);
        bar
    }))?;
    root.present()?;
    Ok(())
}

/// The label of a tick on a log axis: ticks at 1, 2 and 5 times a power of ten are labelled
/// (`2e-4`, or `20` between 1 and 10⁴), the others left blank, so that the labels of a range
/// narrower than a decade (where the axis ticks every multiple) do not run into each other.
fn log_tick(v: &f64) -> String {
    let exponent = v.log10().floor();
    let mantissa = v / 10f64.powf(exponent);
    let shown = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .any(|m| (mantissa - m).abs() < 0.01 * m);
    match shown {
        false => String::new(),
        true if (1.0..1e4).contains(v) => format!("{}", v.round()),
        true => format!("{:.0e}", v),
    }
}

/// A log axis's range for values from `lo` to `hi`: a margin of a quarter on each side, and
/// at least a decade (centred on the values), so that it holds ticks at 1, 2 or 5 times a
/// power of ten ([`log_tick`]).
fn log_range(lo: f64, hi: f64) -> std::ops::Range<f64> {
    let (lo, hi) = (lo * 0.8, hi * 1.25);
    let widen = (10.0 / (hi / lo)).max(1.0).sqrt();
    lo / widen..hi * widen
}

/// A log axis for values from `lo` to `hi` ([`log_range`]) whose ticks are the multiples 1, 2
/// and 5 of the powers of ten in it (plotters' own ticks on a range narrower than a few
/// decades are every multiple, or linear steps: labels that run into each other, or none).
fn log_axis(lo: f64, hi: f64) -> WithKeyPoints<LogCoord<f64>> {
    let range = log_range(lo, hi);
    let mut ticks = Vec::new();
    let mut power = 10f64.powf(range.start.log10().floor());
    while power <= range.end {
        for m in [1.0, 2.0, 5.0] {
            let t = m * power;
            if range.contains(&t) {
                ticks.push(t);
            }
        }
        power *= 10.0;
    }
    range.log_scale().with_key_points(ticks)
}

/// The smallest and the largest of some values.
fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    })
}

/// Draws each series as a line with its points marked, in the palette's colour of its index.
fn draw_lines<X, Y>(
    chart: &mut ChartContext<'_, SVGBackend<'_>, Cartesian2d<X, Y>>,
    series: &[Series],
) -> PlotResult
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    for (i, (_, points)) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart.draw_series(LineSeries::new(
            points.iter().copied(),
            color.stroke_width(2),
        ))?;
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
    }
    Ok(())
}

/// The width of a legend panel for these names.
fn legend_width<'a>(names: impl Iterator<Item = &'a str>) -> u32 {
    60 + CHAR_WIDTH * names.map(|n| n.chars().count()).max().unwrap_or(0) as u32
}

/// The legend in a panel of its own: a line sample in each series' colour and its name.
fn draw_legend(area: &DrawingArea<SVGBackend<'_>, Shift>, names: &[&str]) -> PlotResult {
    let style = TextStyle::from(("sans-serif", 13)).color(&BLACK);
    for (i, name) in names.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let y = 70 + 24 * i as i32;
        area.draw(&PathElement::new(
            vec![(8, y), (36, y)],
            color.stroke_width(3),
        ))?;
        area.draw(&Text::new(name.to_string(), (44, y - 7), style.clone()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `<text>` elements of an SVG: (x, y, text).
    fn texts(svg: &str) -> Vec<(f64, f64, String)> {
        svg.split("<text")
            .skip(1)
            .filter_map(|t| {
                let (attrs, rest) = t.split_once('>')?;
                let label = rest.split_once("</text>")?.0.trim();
                let label = label
                    .replace("&apos;", "'")
                    .replace("&quot;", "\"")
                    .replace("&lt;", "<")
                    .replace("&gt;", ">")
                    .replace("&amp;", "&");
                Some((number_attr(attrs, "x")?, number_attr(attrs, "y")?, label))
            })
            .collect()
    }

    /// The number in attribute `name` of an SVG element (`x="12.5"`).
    fn number_attr(element: &str, name: &str) -> Option<f64> {
        let key = format!(" {name}=\"");
        element
            .split(key.as_str())
            .nth(1)?
            .split('"')
            .next()?
            .parse()
            .ok()
    }

    /// The width of an SVG picture.
    fn width(svg: &str) -> f64 {
        number_attr(svg, "width").expect("a width")
    }

    fn temp(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("nilang-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    #[test]
    fn an_integral_axis_has_integer_ticks_and_the_labels_fit() {
        let path = temp("k.svg");
        let series = vec![
            (
                "objective".to_string(),
                (2..=10).map(|k| (k as f64, 1e-6 * k as f64)).collect(),
            ),
            (
                "gradient".to_string(),
                (2..=10).map(|k| (k as f64, 3e-6 * k as f64)).collect(),
            ),
        ];
        line_plot(
            &path,
            "a plot over k",
            "k",
            "seconds",
            &series,
            XAxis::Linear,
        )
        .unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        let texts = texts(&svg);
        // the x tick labels sit below the plot area, above the axis description
        let x_ticks: Vec<&String> = texts
            .iter()
            .filter(|(_, y, _)| *y > 430.0 && *y < 470.0)
            .map(|(_, _, t)| t)
            .collect();
        assert!(x_ticks.len() >= 5, "x tick labels: {x_ticks:?}\n{svg}");
        for l in &x_ticks {
            assert!(
                l.parse::<i64>().is_ok(),
                "a tick label that is not an integer: {l:?}"
            );
        }
        // the y axis description (rotated, centred on x) lies inside the picture
        let desc = svg
            .split("<text")
            .find(|t| {
                t.split_once('>')
                    .is_some_and(|(_, r)| r.trim_start().starts_with("seconds"))
            })
            .expect("a y axis description");
        let attr = |name: &str| number_attr(desc, name).expect("an attribute");
        assert!(
            attr("x") - attr("font-size") > 0.0,
            "y label at x = {}",
            attr("x")
        );
        // the legend lies right of the chart, so it covers no line, and inside the picture
        for name in ["objective", "gradient"] {
            let (x, _, _) = texts
                .iter()
                .find(|(_, _, t)| t == name)
                .expect("a legend entry");
            assert!(*x > CHART_WIDTH as f64, "legend entry {name} at x = {x}");
            assert!(
                x + (CHAR_WIDTH as usize * name.len()) as f64 <= width(&svg),
                "legend entry {name} clipped"
            );
        }
    }

    #[test]
    fn bars_are_labelled_by_name_inside_the_picture() {
        let path = temp("bars.svg");
        let bars = vec![
            ("native f64 (the paper's series)".to_string(), 2e-8),
            ("reversal (forward + adjoint)".to_string(), 5e-8),
            ("tape (echidna)".to_string(), 1e-6),
        ];
        bar_plot(&path, "some engines", "seconds", &bars).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        let texts = texts(&svg);
        let mut ys = Vec::new();
        for (name, _) in &bars {
            let (x, y, _) = texts
                .iter()
                .find(|(_, _, t)| t == name)
                .expect("a bar's label");
            assert!(*x >= 0.0, "{name} starts left of the picture at x = {x}");
            ys.push(*y);
        }
        // top to bottom in the given order
        assert!(ys.windows(2).all(|w| w[0] < w[1]), "bar labels at {ys:?}");
        assert_eq!(
            svg.matches("<rect").count(),
            bars.len() + 1,
            "a bar each, and the background"
        );
    }

    #[test]
    fn log_ticks_at_one_two_and_five() {
        let labels: Vec<String> = [1e-4, 2e-4, 3e-4, 5e-4, 7e-4, 1.0, 2.0, 4.0, 20.0, 1e5]
            .iter()
            .map(log_tick)
            .collect();
        assert_eq!(
            labels,
            ["1e-4", "2e-4", "", "5e-4", "", "1", "2", "", "20", "1e5"]
        );
    }

    #[test]
    fn a_log_axis_spans_the_sizes() {
        let path = temp("sizes.svg");
        let series = vec![(
            "reversal".to_string(),
            vec![(1e2, 2.0), (1e4, 2.5), (1e6, 3.0)],
        )];
        line_plot(
            &path,
            "ratio",
            "parameters",
            "÷ objective",
            &series,
            XAxis::Log,
        )
        .unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        let labels: Vec<String> = texts(&svg).into_iter().map(|(_, _, t)| t).collect();
        assert!(
            labels.iter().any(|l| l == "100") && labels.iter().any(|l| l == "1e6"),
            "{labels:?}"
        );
        // the y values 2..3 span less than a decade: the axis is widened to one, so that it
        // has labelled ticks
        assert!(
            labels.iter().any(|l| l == "2") && labels.iter().any(|l| l == "5"),
            "{labels:?}"
        );
    }
}
