#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod evals;
pub mod limits;
pub mod protocol;
pub mod runs;
pub mod seeded;

pub use protocol::{serve, Tool};

/// The thread count of `--threads N` / `--threads=N` among a tool's arguments (1 when absent):
/// the size of the rayon pool the evals' parallel loops run on, at most
/// [`limits::max_threads`]. `--natural` ([`natural_option`]) and `--engine NAME`
/// ([`engine_option`]) are accepted beside it; any other argument is refused.
pub fn threads_option(args: &[String]) -> Result<usize, String> {
    let mut threads = 1;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let value = if a == "--natural" || a.starts_with("--engine=") {
            continue;
        } else if a == "--engine" {
            it.next();
            continue;
        } else if a == "--threads" {
            it.next().ok_or("`--threads` needs a number")?.clone()
        } else if let Some(v) = a.strip_prefix("--threads=") {
            v.to_string()
        } else {
            return Err(format!(
                "unknown argument `{a}` (the options are `--threads N`, `--engine NAME`, `--natural`, `--help` and `--version`)"
            ));
        };
        threads = value
            .parse::<usize>()
            .map_err(|_| format!("`--threads` takes a positive number, not `{value}`"))
            .and_then(limits::check_threads)?;
    }
    Ok(threads)
}

/// Whether `--natural` is among a tool's arguments: answer with the evals' natural programs
/// where they have one ([`evals::natural`]).
pub fn natural_option(args: &[String]) -> bool {
    args.iter().any(|a| a == "--natural")
}

/// The engine of `--engine NAME` / `--engine=NAME` among a tool's arguments
/// ([`evals::Engine::from_name`]: `expert`, `natural` or `dualrev`); `--natural` is
/// `--engine natural`. The expert programs when neither is given; two different engines are
/// refused.
///
/// ```
/// use nilang_gradbench::{engine_option, evals::Engine};
/// let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
/// assert_eq!(engine_option(&args(&["--engine", "dualrev"])), Ok(Engine::DualRev));
/// assert_eq!(engine_option(&args(&["--natural"])), Ok(Engine::Natural));
/// assert_eq!(engine_option(&args(&["--threads", "2"])), Ok(Engine::Expert));
/// assert!(engine_option(&args(&["--engine", "tapenade"])).is_err());
/// assert!(engine_option(&args(&["--engine"])).is_err());
/// assert!(engine_option(&args(&["--natural", "--engine=dualrev"])).is_err());
/// ```
pub fn engine_option(args: &[String]) -> Result<evals::Engine, String> {
    let mut chosen = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let engine = if a == "--natural" {
            evals::Engine::Natural
        } else if a == "--engine" {
            let name = it
                .next()
                .ok_or("`--engine` needs a name (expert, natural or dualrev)")?;
            evals::Engine::from_name(name)?
        } else if let Some(name) = a.strip_prefix("--engine=") {
            evals::Engine::from_name(name)?
        } else {
            continue;
        };
        if chosen.is_some_and(|c| c != engine) {
            return Err(
                "two different engines asked for (`--natural` is `--engine natural`)".into(),
            );
        }
        chosen = Some(engine);
    }
    Ok(chosen.unwrap_or_default())
}

/// Serves the GradBench protocol on stdin/stdout ([`protocol::serve_stdio`]) from inside a
/// rayon pool of `threads` threads, on which the evals' parallel loops run, with the caps of
/// [`limits::Limits::from_env`]. A thread count outside `1..=`[`limits::max_threads`] is
/// refused ([`limits::check_threads`]: rayon would take `0` to mean every core, which
/// `nilang gradbench --threads 0` must not do silently, and a pool of far more threads than
/// cores takes minutes to start), and so is a cap's variable that is not a positive number.
///
/// Inside the pool, because a parallel loop entered from a thread outside it hands its work
/// to the pool and sleeps until it is done: about 90 µs per loop instead of 20 µs once the
/// pool's threads sleep (docs/benchmarks.md, "What a parallel loop costs"), which made two
/// threads slower than one on every small input.
pub fn serve_stdio_on(threads: usize) -> Result<(), String> {
    serve_stdio_with(threads, false)
}

/// [`serve_stdio_on`], answering with the evals' natural programs where they have one when
/// `natural` is set (`--natural`, [`protocol::Tool::with_natural`]).
pub fn serve_stdio_with(threads: usize, natural: bool) -> Result<(), String> {
    let engine = if natural {
        evals::Engine::Natural
    } else {
        evals::Engine::Expert
    };
    serve_stdio_engine(threads, engine)
}

/// [`serve_stdio_on`], answering by `engine` where it has a program for the function asked
/// (`--engine`, [`protocol::Tool::with_engine`]).
pub fn serve_stdio_engine(threads: usize, engine: evals::Engine) -> Result<(), String> {
    limits::check_threads(threads)?;
    limits::set(limits::Limits::from_env()?);
    nilang::parallel::min_parallel_work_from_env()?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| format!("cannot start {threads} threads: {e}"))?;
    pool.install(|| protocol::serve_stdio_tool(Tool::with_engine(engine)))
        .map_err(|e| e.to_string())
}
