//! `nilang bench`: the papers' benchmark tables, measured on this machine side by side with
//! real peers, written as a markdown report with SVG plots.

mod apps;
mod ba;
mod bessel;
mod gmm;
mod graph;
mod guide;
pub mod measure;
pub mod plot;
mod sparse;

use indicatif::{ProgressBar, ProgressStyle};
use measure::Budget;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Options of `nilang bench`.
pub struct Options {
    /// Small sizes, short samples and fewer rounds (finishes in seconds).
    pub quick: bool,
    /// Where the report and plots are written.
    pub out: PathBuf,
    /// Only the tables whose name contains this string.
    pub only: Option<String>,
    /// The ADBench data directory (`gmm/`, `ba/`); `None` for [`DEFAULT_DATA`].
    pub data: Option<PathBuf>,
    /// Threads of the rayon pool the programs' parallel loops run on (GMM's blocks of points,
    /// BA's observations). `1`: every program runs its sequential code, timed by the thread's
    /// CPU clock; more: timed by wall time ([`measure::use_wall_clock`]).
    pub threads: usize,
}

/// The ADBench data directory when `--data` is not given (relative to the working directory).
/// Where it is absent, GMM and BA run instances of the same sizes from a seed; a directory
/// named by `--data` must exist.
pub const DEFAULT_DATA: &str = "../shared/data/adbench";

/// A table of the report.
pub struct Table {
    /// Column headers.
    pub header: Vec<String>,
    /// Rows of cells.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with the given headers.
    pub fn new(header: &[&str]) -> Table {
        Table {
            header: header.iter().map(|s| s.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row.
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// The table in markdown.
    pub fn markdown(&self) -> String {
        let mut s = format!("| {} |\n", self.header.join(" | "));
        s += &format!("|{}\n", "---|".repeat(self.header.len()));
        for r in &self.rows {
            s += &format!("| {} |\n", r.join(" | "));
        }
        s
    }
}

/// Writes a plot with `draw` as `name` in the output directory: the names of the plots
/// written (none, with a warning, where it fails).
pub fn write_plot(
    ctx: &Ctx,
    name: &str,
    draw: impl FnOnce(&Path) -> Result<(), Box<dyn std::error::Error>>,
) -> Vec<String> {
    match draw(&ctx.out.join(name)) {
        Ok(()) => vec![name.to_string()],
        Err(e) => {
            eprintln!("warning: could not write {name}: {e}");
            vec![]
        }
    }
}

/// A plot of time ratios against the problem size (log-log), one series per engine, as
/// `name` in the output directory; none where no instance was measured.
pub fn ratio_plot(
    ctx: &Ctx,
    name: &str,
    title: &str,
    size: &str,
    ratio: &str,
    series: &[plot::Series],
) -> Vec<String> {
    if series.iter().all(|(_, points)| points.is_empty()) {
        return vec![];
    }
    write_plot(ctx, name, |path| {
        plot::line_plot(path, title, size, ratio, series, plot::XAxis::Log)
    })
}

/// Markdown text as a plot's plain label (no `**`, no backticks).
pub fn plain(markdown: &str) -> String {
    markdown.replace("**", "").replace('`', "")
}

/// One section of the report.
pub struct Section {
    /// Title.
    pub title: String,
    /// What was measured and how.
    pub intro: String,
    /// The tables.
    pub tables: Vec<Table>,
    /// Conclusions drawn from the numbers (targets met or missed).
    pub notes: Vec<String>,
    /// SVG plots written, relative to the report.
    pub plots: Vec<String>,
}

/// Everything a benchmark section needs.
pub struct Ctx {
    /// Measurement budget.
    pub budget: Budget,
    /// Quick mode.
    pub quick: bool,
    /// Output directory.
    pub out: PathBuf,
    /// Progress bar (one tick per measurement).
    pub progress: ProgressBar,
    /// The ADBench data directory.
    pub data: PathBuf,
}

impl Ctx {
    /// Measures a group of variants (warm-up, then interleaved rounds; see [`measure`]) and
    /// ticks the progress bar once per variant.
    pub fn run(&self, what: &str, group: measure::Group<'_>) -> measure::Results {
        let n = group.len() as u64;
        let results = group.run(self.budget, |step| {
            self.progress.set_message(format!("{what}: {step}"))
        });
        self.progress.inc(n);
        results
    }
}

type SectionFn = fn(&Ctx) -> Section;

/// The tables, in the papers' order: (name, estimated number of measurements, function).
fn sections(quick: bool) -> Vec<(&'static str, u64, SectionFn)> {
    vec![
        ("bessel", bessel::MEASUREMENTS, bessel::run as SectionFn),
        ("sparse", sparse::MEASUREMENTS, sparse::run as SectionFn),
        ("graph", graph::measurements(quick), graph::run as SectionFn),
        ("gmm", gmm::measurements(quick), gmm::run as SectionFn),
        ("ba", ba::measurements(quick), ba::run as SectionFn),
        ("guide", guide::measurements(quick), guide::run as SectionFn),
        ("apps", apps::MEASUREMENTS, apps::run as SectionFn),
    ]
}

/// Runs the tables and writes the report; returns its path.
pub fn run(options: &Options) -> std::io::Result<PathBuf> {
    let invalid = |msg: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, msg);
    let all = sections(options.quick);
    let names: Vec<&str> = all.iter().map(|(name, _, _)| *name).collect();
    let chosen: Vec<_> = all
        .into_iter()
        .filter(|(name, _, _)| options.only.as_deref().map_or(true, |o| name.contains(o)))
        .collect();
    if chosen.is_empty() {
        return Err(invalid(format!(
            "`--only {}` matches no table (the tables: {})",
            options.only.as_deref().unwrap_or_default(),
            names.join(", ")
        )));
    }
    if options.threads == 0 {
        return Err(invalid(
            "`--threads 0`: the programs need at least one thread (leave `--threads` out to use \
             every core)"
                .into(),
        ));
    }
    // the bound of `nilang gradbench --threads`: a pool of far more threads than cores takes
    // minutes to start
    let max = nilang_gradbench::limits::max_threads();
    if options.threads > max {
        return Err(invalid(format!(
            "`--threads {}`: at most {max} threads (64 per core, and never more than 4096)",
            options.threads
        )));
    }
    let data = match &options.data {
        Some(dir) if dir.is_dir() => dir.clone(),
        Some(dir) => {
            return Err(invalid(format!(
                "`--data {}` is not a directory (leave `--data` out to use {DEFAULT_DATA}, or \
                 instances from a seed where it is absent)",
                dir.display()
            )))
        }
        None => PathBuf::from(DEFAULT_DATA),
    };
    std::fs::create_dir_all(&options.out)?;
    let total: u64 = chosen.iter().map(|(_, n, _)| n).sum();
    let progress = ProgressBar::new(total);
    progress.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed_precise} {msg}")
            .expect("a valid template"),
    );
    let ctx = Ctx {
        budget: if options.quick {
            Budget::quick()
        } else {
            Budget::full()
        },
        quick: options.quick,
        out: options.out.clone(),
        progress,
        data,
    };
    let load_at_start = load_average();
    let mut report = String::new();
    writeln!(report, "# nilang benchmark tables").unwrap();
    let clock = if options.threads == 1 {
        "of CPU time (the benchmark thread's CPU clock, so that waiting for a core on a busy \
         machine is not counted; every program runs on one thread, its sequential code)"
            .to_string()
    } else {
        format!(
            "of wall time (the programs' parallel loops run on {} threads, whose work the \
             benchmark thread's CPU clock would not count; waiting for a core on a busy machine \
             is counted; programs without a parallel loop, the peers among them, run on one \
             thread)",
            options.threads
        )
    };
    writeln!(
        report,
        "\nMeasured by `nilang bench{}{}` on this machine ({} logical CPUs). The variants of each \
         comparison are all warmed up first, then timed in {} interleaved rounds ({} when one call \
         takes over {:?}), each round timing every variant once with a batch of calls lasting at \
         least {:?} {clock}. Every time is the median over the rounds; every ratio is the median of the \
         per-round ratios, with their interquartile range in brackets; a target is called met or \
         missed only when the whole interquartile range lies on one side of it, and \
         \"inconclusive (noise)\" otherwise.\n",
        if options.quick { " --quick" } else { "" },
        format_args!(" --threads {}", options.threads),
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1),
        ctx.budget.rounds,
        ctx.budget.slow_rounds,
        ctx.budget.slow_call,
        ctx.budget.sample_time
    )
    .unwrap();
    // One thread: the clock is the benchmark thread's CPU time, and every program runs its
    // sequential code (a one-thread pool makes `.par()` loops and the evals' chunked helpers
    // the sequential loops). Several: wall time, parallel loops on that many threads.
    measure::use_wall_clock(options.threads > 1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .build()
        .map_err(std::io::Error::other)?;
    for (_, _, f) in chosen {
        let section = pool.install(|| f(&ctx));
        let text = render(&section);
        ctx.progress.suspend(|| println!("{text}"));
        report += &text;
    }
    ctx.progress.finish_and_clear();
    let load = format!(
        "Load average (1, 5, 15 min) at the start: {load_at_start}; at the end: {}.",
        load_average()
    );
    println!("{load}");
    writeln!(report, "{load}").unwrap();
    let path = options.out.join("report.md");
    std::fs::write(&path, report)?;
    Ok(path)
}

/// The system's load averages (`/proc/loadavg`), or "unknown".
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

fn render(s: &Section) -> String {
    let mut out = format!("## {}\n\n{}\n\n", s.title, s.intro);
    for t in &s.tables {
        out += &t.markdown();
        out += "\n";
    }
    for n in &s.notes {
        out += &format!("- {n}\n");
    }
    for p in &s.plots {
        out += &format!("\n![{p}]({p})\n");
    }
    out + "\n"
}
