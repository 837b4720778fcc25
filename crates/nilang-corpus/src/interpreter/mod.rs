//! An interpreter of the IR that exists only for the random programs' tests (issue 14): it
//! runs a program that `nilang_ir` parsed, forward or its reversal, on `GVar<T>` for any scalar
//! `T` (`f64` for values, the inverse and the reversal gradient; the tape engine's `DualRev`
//! for a second AD mode), with the real instruction traits of `nilang` and fixed point of
//! `nilang::numbers`. It makes the checks the generated code makes, and records what the
//! compiled code cannot show: every branch decision and loop count (the trace that tells
//! whether finite differences cross a decision, and whether an inverse took the forward's
//! decisions), the largest float of the run, and the smallest margin of a float condition.
//! Rounded results can be moved at random within their round-off (Monte Carlo arithmetic).
//!
//! Both layers run it: `nilang/tests/random_programs.rs` checks very many programs on it
//! alone, and `tests/compiled.rs` runs it beside the code `#[i]` generated for the same
//! program (whose values it gives bit for bit) for the decisions of each difference step.
//!
//! ```
//! use nilang_corpus::interpreter::{run, Order, Program};
//! use nilang_corpus::{input, program_with, Features};
//!
//! let seed = 7;
//! let program = Program::parse(&program_with(seed, Features::ALL)).unwrap();
//! let (s0, _weights) = input(seed);
//! let (s1, trace) = run(&program, &s0, Order::Post).unwrap();
//! // the inverse restores the integers bit for bit, and takes the forward's decisions
//! let (s2, back) = run(&program, &s1, Order::Pre).unwrap();
//! assert_eq!(s2.n, s0.n);
//! assert!(back.iter().rev().eq(trace.iter()));
//! ```

mod instr;
mod stmt;

use crate::compare::ROUND_OFF_SAMPLES;
use crate::{Rng, NN, NQ, NX};
use nilang::__private::{Acc1, Acc2, Hadamard, Invert, Negate, Rotate};
use nilang::{prims, Float, GVar};
use nilang_ir::ast::*;
use nilang_ir::reverse::{expand_routines, reverse_block};
use nilang_ir::Function;
use std::collections::HashMap;

/// The interpreter's numbers: values and gradients over a scalar `T` (`f64` for the program,
/// its inverse and the reversal gradient; `DualRev` for the tape engine's gradient).
type G<T> = GVar<T>;
type Q = nilang::numbers::I21F43;
#[derive(Clone, Debug)]
enum Val<T> {
    F(G<T>),
    I(i64),
    B(bool),
    FArr(Vec<G<T>>),
    IArr(Vec<i64>),
    QArr(Vec<Q>),
    Stack(Vec<G<T>>),
    /// A tuple built by a reversible constructor.
    Tuple(Vec<Val<T>>),
}

#[derive(Clone, Copy, Debug)]
struct Loc {
    slot: usize,
    index: Option<usize>,
}

#[derive(Clone, Copy, Debug)]
enum E {
    F(f64),
    I(i64),
    B(bool),
}

struct Machine<'p, T> {
    program: &'p Program,
    slots: Vec<Val<T>>,
    /// Every branch decision and loop count, to tell whether finite differences cross one
    /// and whether the inverse took the forward's decisions.
    trace: Vec<i64>,
    /// Whether a decision is recorded after its statement's body (the forward) or before it
    /// (the inverse): an inverse that takes the forward's decisions then records the
    /// forward's trace reversed (its statements run in mirror order).
    order: Order,
    /// The largest magnitude a float took during the run.
    peak: f64,
    /// The smallest distance of a float condition's operands (`x[1].val() > 0.0` at
    /// `x[1] = 0`: zero): a decision that round-off can turn.
    margin: std::cell::Cell<f64>,
    /// Where set, every rounded result (of an instruction, `rot`, `hadamard`, `inv`) is moved
    /// at random within the round-off of the operations that made it (see [`Self::rounded`]):
    /// Monte Carlo arithmetic, which samples how the run amplifies round-off (see
    /// [`round_off`]).
    jitter: Option<Rng>,
}

type Frame = HashMap<syn::Ident, Loc>;

/// A reversibility failure found by the interpreter (a check the generated code makes), or
/// a singular point (a NaN or an infinity from moderate values).
#[derive(Debug)]
pub struct Failed {
    /// What failed, at which statement.
    pub what: String,
    /// Whether it is a singular point (a NaN or an infinity from moderate values).
    pub singular: bool,
    /// Whether a float had overflowed to infinity when a check failed (set by `run`).
    pub overflowed: bool,
}

impl Failed {
    fn check(what: String) -> Failed {
        Failed {
            what,
            singular: false,
            overflowed: false,
        }
    }
}

impl<T: Float> Machine<'_, T> {
    fn place(&self, frame: &Frame, v: &Dataview) -> Loc {
        let loc = frame[&v.root];
        match v.path.as_slice() {
            [] => loc,
            [Access::Index(e)] => match self.eval(frame, e) {
                E::I(i) => Loc {
                    slot: loc.slot,
                    index: Some(i as usize),
                },
                other => panic!("index {other:?}"),
            },
            other => panic!("path {other:?}"),
        }
    }

    fn get_f(&self, l: Loc) -> G<T> {
        match (&self.slots[l.slot], l.index) {
            (Val::F(g), None) => *g,
            (Val::FArr(a), Some(i)) => a[i],
            other => panic!("not a float: {other:?}"),
        }
    }

    fn set_f(&mut self, l: Loc, v: G<T>) {
        self.peak = self.peak.max(v.x.to_f64().abs());
        match (&mut self.slots[l.slot], l.index) {
            (Val::F(g), None) => *g = v,
            (Val::FArr(a), Some(i)) => a[i] = v,
            other => panic!("not a float: {other:?}"),
        }
    }

    /// A rounded result, moved where the run is jittered by a random amount within
    /// `ε·scale`: `scale` bounds the magnitudes the operations rounded (for `y += f(x)`, the
    /// result and `f(x)`, which can be much larger than the result where they cancel; for a
    /// rotation, the norm of the pair).
    fn rounded(&mut self, mut v: G<T>, scale: f64) -> G<T> {
        if let Some(rng) = &mut self.jitter {
            v.x = v.x + T::from_f64(f64::EPSILON * scale * rng.unit());
        }
        v
    }

    /// The result `y` of `y += f(x)` (or `-=`) from `before`: rounded in `f(x)` and in the sum.
    fn rounded_sum(&mut self, y: G<T>, before: f64) -> G<T> {
        let after = y.x.to_f64();
        self.rounded(y, after.abs() + (after - before).abs())
    }

    fn get_i(&self, l: Loc) -> Option<i64> {
        match (&self.slots[l.slot], l.index) {
            (Val::I(v), None) => Some(*v),
            (Val::IArr(a), Some(i)) => Some(a[i]),
            _ => None,
        }
    }

    fn set_i(&mut self, l: Loc, v: i64) {
        match (&mut self.slots[l.slot], l.index) {
            (Val::I(x), None) => *x = v,
            (Val::IArr(a), Some(i)) => a[i] = v,
            other => panic!("not an integer: {other:?}"),
        }
    }

    fn get_q(&self, l: Loc) -> Option<Q> {
        match (&self.slots[l.slot], l.index) {
            (Val::QArr(a), Some(i)) => Some(a[i]),
            _ => None,
        }
    }

    fn set_q(&mut self, l: Loc, v: Q) {
        match (&mut self.slots[l.slot], l.index) {
            (Val::QArr(a), Some(i)) => a[i] = v,
            other => panic!("not a fixed-point number: {other:?}"),
        }
    }

    fn is_float(&self, l: Loc) -> bool {
        matches!(
            (&self.slots[l.slot], l.index),
            (Val::F(_), None) | (Val::FArr(_), Some(_))
        )
    }

    fn eval(&self, frame: &Frame, e: &syn::Expr) -> E {
        use syn::Expr;
        match e {
            Expr::Lit(l) => match &l.lit {
                syn::Lit::Int(i) => E::I(i.base10_parse().unwrap()),
                syn::Lit::Float(f) => E::F(f.base10_parse().unwrap()),
                syn::Lit::Bool(b) => E::B(b.value),
                other => panic!("literal {other:?}"),
            },
            Expr::Paren(p) => self.eval(frame, &p.expr),
            // an integer cast to an index (`(n[0] % 2) as usize`): the same integer
            Expr::Cast(c) => match self.eval(frame, &c.expr) {
                E::I(i) => E::I(i),
                other => panic!("cast of {other:?}"),
            },
            Expr::Path(_) | Expr::Index(_) => {
                let v = nilang_ir::parse::dataview(e).expect("a place");
                let l = self.place(frame, &v);
                match (&self.slots[l.slot], self.get_i(l)) {
                    (Val::B(b), _) => E::B(*b),
                    (_, Some(i)) => E::I(i),
                    _ => E::F(self.get_f(l).x.to_f64()),
                }
            }
            Expr::MethodCall(m) if m.method == "val" => self.eval(frame, &m.receiver),
            Expr::MethodCall(m) if m.method == "len" => E::I(self.len(frame, &m.receiver)),
            Expr::Call(_) => E::F(0.0), // T::zero()
            Expr::Binary(b) => {
                let (l, r) = (self.eval(frame, &b.left), self.eval(frame, &b.right));
                // index arithmetic, as Rust computes it (`x[x.len() - 1 - k]`, `x[2 * k + 1]`,
                // `x[k + ((n[0] * n[0]) % 2) as usize]`)
                match (l, r, b.op) {
                    (E::I(l), E::I(r), syn::BinOp::Add(_)) => return E::I(l + r),
                    (E::I(l), E::I(r), syn::BinOp::Sub(_)) => return E::I(l - r),
                    (E::I(l), E::I(r), syn::BinOp::Mul(_)) => return E::I(l * r),
                    (E::I(l), E::I(r), syn::BinOp::Div(_)) => return E::I(l / r),
                    (E::I(l), E::I(r), syn::BinOp::Rem(_)) => return E::I(l % r),
                    _ => {}
                }
                let (l, r) = match (l, r) {
                    (E::I(a), E::I(b)) => (a as f64, b as f64),
                    (E::F(a), E::F(b)) => {
                        self.margin.set(self.margin.get().min((a - b).abs()));
                        (a, b)
                    }
                    other => panic!("operands {other:?}"),
                };
                match b.op {
                    syn::BinOp::Lt(_) => E::B(l < r),
                    syn::BinOp::Gt(_) => E::B(l > r),
                    other => panic!("operator {other:?}"),
                }
            }
            other => panic!("expression {}", nilang_ir::text::expr_text(other)),
        }
    }

    /// The length of the slice `e` names.
    fn len(&self, frame: &Frame, e: &syn::Expr) -> i64 {
        let v = nilang_ir::parse::dataview(e).expect("a variable");
        match &self.slots[self.place(frame, &v).slot] {
            Val::FArr(a) => a.len() as i64,
            Val::IArr(a) => a.len() as i64,
            Val::QArr(a) => a.len() as i64,
            other => panic!("len of {other:?}"),
        }
    }

    fn cond(&self, frame: &Frame, e: &syn::Expr) -> bool {
        match self.eval(frame, e) {
            E::B(b) => b,
            other => panic!("condition {other:?}"),
        }
    }

    /// The place of the decision of a statement that starts: reserved now in pre-order.
    fn reserve(&mut self) -> Option<usize> {
        (self.order == Order::Pre).then(|| {
            self.trace.push(0);
            self.trace.len() - 1
        })
    }

    /// Records a decision at its reserved place, or (post-order) after everything its
    /// statement's body recorded.
    fn decided(&mut self, at: Option<usize>, decision: i64) {
        match at {
            Some(k) => self.trace[k] = decision,
            None => self.trace.push(decision),
        }
    }
}

/// Where a run records a statement's decision relative to its body's decisions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Order {
    /// After the body: the forward program.
    Post,
    /// Before the body: the inverse program.
    Pre,
}

/// The state: `x` (floats), `n` (integers), an empty stack, `q` (fixed point, when the
/// program takes it).
#[derive(Clone, Debug)]
pub struct State<T> {
    /// The floats, with their gradients.
    pub x: Vec<G<T>>,
    /// The integers.
    pub n: Vec<i64>,
    /// The fixed-point numbers.
    pub q: Vec<Q>,
    /// The largest magnitude a float took in the run that made this state.
    pub peak: f64,
    /// The smallest distance of a float condition's operands in that run.
    pub margin: f64,
}

/// A parsed program ready to run: each function's body and its reversal (what `uncall!`
/// and the inverse run), with every routine expanded into its steps, made once. (Made at
/// every call and routine, the reversals took half the interpreter's time, most of it
/// printing each reversed statement's source text.)
pub struct Program {
    functions: Vec<Prepared>,
}

/// A function of a [`Program`].
struct Prepared {
    name: syn::Ident,
    params: Vec<syn::Ident>,
    /// The body, routines expanded.
    forward: Vec<Stmt>,
    /// The reversed body, routines expanded.
    inverse: Vec<Stmt>,
}

impl Program {
    /// Prepares parsed functions (one of them `f`).
    pub fn new(functions: &[Function]) -> Program {
        let prepared = |f: &Function| Prepared {
            name: f.sig.ident.clone(),
            params: f.params.iter().map(|p| p.name.clone()).collect(),
            forward: expand_routines(&f.body),
            inverse: expand_routines(&reverse_block(&f.body)),
        };
        Program {
            functions: functions.iter().map(prepared).collect(),
        }
    }

    /// Parses a source file; the function checked is `f`.
    pub fn parse(src: &str) -> Result<Program, String> {
        let analyzed = nilang_ir::parse_file(src).map_err(|e| format!("{e}\n{src}"))?;
        let functions: Vec<Function> = analyzed.into_iter().map(|a| a.function).collect();
        Ok(Program::new(&functions))
    }

    fn function(&self, name: &syn::Ident) -> &Prepared {
        self.functions.iter().find(|f| f.name == *name).unwrap()
    }

    /// The function checked, `f`.
    fn f(&self) -> &Prepared {
        self.functions.iter().find(|f| f.name == "f").unwrap()
    }
}

/// Runs the program `f` (`Order::Post`) or its inverse (`Order::Pre`) on a state; the
/// decision trace with it.
pub fn run<T: Float>(
    program: &Program,
    s: &State<T>,
    order: Order,
) -> Result<(State<T>, Vec<i64>), Failed> {
    run_jittered(program, s, order, None)
}

/// [`run`], with every rounded result moved within its round-off by `jitter` where given.
pub fn run_jittered<T: Float>(
    program: &Program,
    s: &State<T>,
    order: Order,
    jitter: Option<Rng>,
) -> Result<(State<T>, Vec<i64>), Failed> {
    let f = program.f();
    let body = match order {
        Order::Post => &f.forward,
        Order::Pre => &f.inverse,
    };
    let mut m = Machine {
        program,
        slots: vec![
            Val::FArr(s.x.clone()),
            Val::IArr(s.n.clone()),
            Val::Stack(vec![]),
            Val::QArr(s.q.clone()),
        ],
        trace: vec![],
        order,
        peak: 0.0,
        margin: std::cell::Cell::new(f64::INFINITY),
        jitter,
    };
    let mut frame = Frame::new();
    for (k, p) in f.params.iter().enumerate() {
        frame.insert(
            p.clone(),
            Loc {
                slot: k,
                index: None,
            },
        );
    }
    m.block(&mut frame, body).map_err(|e| Failed {
        overflowed: !e.singular && m.peak == f64::INFINITY,
        ..e
    })?;
    let (Val::FArr(x), Val::IArr(n), Val::Stack(st), Val::QArr(q)) =
        (&m.slots[0], &m.slots[1], &m.slots[2], &m.slots[3])
    else {
        unreachable!()
    };
    assert!(st.is_empty(), "the stack is balanced");
    Ok((
        State {
            x: x.clone(),
            n: n.clone(),
            q: q.clone(),
            peak: m.peak,
            margin: m.margin.get(),
        },
        m.trace,
    ))
}

/// The input of a seed: floats in [-1, 1], integers in -3..=3, fixed point in [-4, 4]; and
/// the weights of the linear loss whose gradient is checked.
pub fn input(seed: u64) -> (State<f64>, Vec<f64>) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let x: Vec<G<f64>> = (0..NX).map(|_| G::new(rng.unit())).collect();
    let n: Vec<i64> = (0..NN).map(|_| rng.below(7) as i64 - 3).collect();
    // from a generator of their own, so that the other inputs of a seed stay as they were
    let mut qrng = Rng(seed ^ 0x51ED_F1CE_D0C0_FFEE | 1);
    let q: Vec<Q> = (0..NQ).map(|_| Q::from_num(4.0 * qrng.unit())).collect();
    let w: Vec<f64> = (0..NX).map(|_| rng.unit()).collect();
    let (peak, margin) = (0.0, f64::INFINITY);
    (
        State {
            x,
            n,
            q,
            peak,
            margin,
        },
        w,
    )
}

/// Whether a run is too ill-conditioned for its inverse to be compared (`Compared::Nothing`
/// in both layers' tests), from the forward's output `s1` with its decisions `trace` and the
/// inverse's run from it: the forward passed 1e3 and the inverse's products overflow on the
/// way back (seeds 7164858835918242479, 16934990449402922581 of a release long run: an
/// ancilla deallocated as NaN, integers changed by branches on NaN), or the inverse's floats,
/// off by amplified round-off, decide a branch otherwise than the forward did (seeds
/// 17192442607949975595, 10160311474237256323 of the 10^6 run: the fixed-point numbers that
/// branch changes do not come back). A moderate run decides otherwise too where a
/// condition's operands were equal, or within what the inverse restores (1e-6 relatively),
/// on the way forward: seed 11731786694130093399 of the 10^6 run takes input `x[1] = 0`, so
/// `x[1].val() > 0.0` is false; the inverse brings `x[1]` back as 1e-16 and takes the branch
/// (`inv` makes it 2^53), and the fixed-point numbers that branch changes do not come back.
pub fn ill_conditioned(
    s1: &State<f64>,
    trace: &[i64],
    inverse: &Result<(State<f64>, Vec<i64>), Failed>,
) -> bool {
    let decided_otherwise = match inverse {
        Ok((_, back)) => !back.iter().rev().eq(trace.iter()),
        Err(_) => true,
    };
    let overflowed = matches!(inverse, Ok((s2, _)) if s2.x.iter().any(|v| !v.x.is_finite()));
    let marginal = s1.margin <= 1e-6 * s1.peak.max(1.0);
    (s1.peak > 1e3 && (decided_otherwise || overflowed)) || (marginal && decided_otherwise)
}

/// How far round-off moves what the inverse computes, sampled by Monte Carlo arithmetic:
/// the largest deviations over [`ROUND_OFF_SAMPLES`] runs of the inverse from `seeded` (the
/// output with the loss's weights as gradients) whose every rounded result is moved at random
/// within its round-off ([`run_jittered`]), from the unjittered run `back`.
pub fn round_off(program: &Program, seeded: &State<f64>, back: &State<f64>) -> RoundOff {
    let infinite = RoundOff {
        values: f64::INFINITY,
        gradient: f64::INFINITY,
    };
    (1..=ROUND_OFF_SAMPLES)
        .map(|k| {
            let jitter = Some(Rng(k.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
            match run_jittered(program, seeded, Order::Pre, jitter) {
                Ok((m, _)) => RoundOff {
                    values: deviation(&m, back),
                    gradient: gradient_deviation(&m, back),
                },
                Err(_) => infinite,
            }
        })
        .fold(RoundOff::default(), |a, b| RoundOff {
            values: a.values.max(b.values),
            gradient: a.gradient.max(b.gradient),
        })
}

/// Round-off sampled by [`round_off`], relatively.
#[derive(Clone, Copy, Debug, Default)]
pub struct RoundOff {
    /// Of the restored inputs (each relatively to its magnitude, at least 1).
    pub values: f64,
    /// Of the reversal's gradient (relatively to its largest component, at least 1).
    pub gradient: f64,
}

/// The largest distance of `a`'s gradients from `b`'s, relatively to `b`'s largest (at
/// least 1).
pub fn gradient_deviation(a: &State<f64>, b: &State<f64>) -> f64 {
    let largest = b.x.iter().fold(1.0, |m: f64, v| m.max(v.g.abs()));
    a.x.iter()
        .zip(&b.x)
        .map(|(a, b)| (a.g - b.g).abs() / largest)
        .fold(0.0, f64::max)
}

/// The largest distance of `a`'s floats from `b`'s, relatively to `b`'s (at least 1).
pub fn deviation(a: &State<f64>, b: &State<f64>) -> f64 {
    a.x.iter()
        .zip(&b.x)
        .map(|(a, b)| (a.x - b.x).abs() / b.x.abs().max(1.0))
        .fold(0.0, f64::max)
}
