//! Random reversible programs as source text, from a seed (issue 14). One generator for two
//! layers of tests: `nilang/tests/random_programs.rs` parses each program with `nilang_ir` and
//! runs it on an interpreter of the IR (very many programs), and this crate's build script
//! writes a corpus of them as Rust source that the `#[i]` macro compiles
//! (`tests/compiled.rs`: the real generated code).
//!
//! A program is `fn f<T: Real>(x: &mut [T], n: &mut [i64], st: &mut Vec<T>)` over [`NX`]
//! floats, [`NN`] integers and a stack, calling the two functions of [`LIBRARY`]. It uses
//! instructions over the primitives, `swap`/`rot`/`irot`/`neg`/`inc`/`dec`, ancillas in
//! routines, `if`/`while`/`for` with correct conditions, calls and uncalls, stack pushes and
//! pops, integer targets, (with [`Features::dynamic_indices`]) loops whose places are
//! indexed by the loop variable (`x[(k + 1) % x.len()]`) and (with
//! [`Features::fixed_point`]) instructions on a fourth parameter `q: &mut [I21F43]` of [`NQ`]
//! fixed-point numbers, (with [`Features::newer_instructions`]) `hadamard`, `inv`,
//! constant add/subtract and `flip`, and (with [`Features::newer_statements`]) broadcasts
//! over whole slices and reversible constructors and destructors, and (with
//! [`Features::parallel_broadcasts`]) broadcasts in `par!` blocks, and (with
//! [`Features::loop_shapes`]) the valid shapes of loops an adversarial review of the unchecked
//! and parallel paths probed: sibling loops that reuse a name, nested loops, `nocheck!` loops
//! with every index shape, broadcasts in sequential loops, `.par()` loops whose iterations
//! write, and hand to calls, their own slots. [`crate::adversarial`] writes the invalid shapes.
//! Only std: the build script includes these files. Each optional kind of statement has a
//! module of its own; this one holds the features, the random numbers, what a block may
//! write and the statements of the first version.

mod dynamic_indices;
mod fixed_point;
mod loop_shapes;
mod newer_instructions;
mod newer_statements;

/// How many floats a program's `x` holds.
pub const NX: usize = 4;
/// How many integers a program's `n` holds.
pub const NN: usize = 3;
/// How many fixed-point numbers a program's `q` holds (with [`Features::fixed_point`]).
pub const NQ: usize = 3;

/// What the generator may write beyond the first version's statements (which the regression
/// seeds of the first version still reproduce with [`Features::FIRST`]).
#[derive(Clone, Copy, Debug)]
pub struct Features {
    /// Loops over every slot whose places are indexed by the loop variable:
    /// `for k in 0..x.len() { x[(k + 1) % x.len()] += sin(x[k]); }`.
    pub dynamic_indices: bool,
    /// Instructions on fixed-point numbers (`nilang::numbers::I21F43`), a parameter
    /// `q: &mut [I21F43]` of [`NQ`] of them: `q[0] += q[1] * q[2];`, `q[1] -= square(q[0]);`,
    /// and loops indexed by their variable over `q`.
    pub fixed_point: bool,
    /// The instructions NiLang.jl has beyond the papers' table: `hadamard(x[0], x[2])`,
    /// `inv(x[1])` (under a condition on its sign, which `inv` keeps: never at the singular
    /// point zero), constant add and subtract (`x[3] += 0.5;`, `n[1] -= 2;`) and `flip` of a
    /// boolean ancilla that a branch decides and that decides a branch.
    pub newer_instructions: bool,
    /// Broadcasts over whole slices (`neg(x[..]);`, `x[..] += 0.5;`, `inc(n[..]);`, which
    /// the parser lowers to loops; only where no slot is frozen) and reversible constructors
    /// and destructors of tuples of ancillas in routines (`let p = new!((t1, t2));`,
    /// `let (u1, u2) = fields!(p);`).
    pub newer_statements: bool,
    /// Broadcasts in `par! { … }` (one or two: `par! { neg(x[..]); inc(n[..]); }`), whose
    /// elements run as parallel loops (with [`Features::newer_statements`]).
    pub parallel_broadcasts: bool,
    /// Valid programs of the shapes an adversarial review of the unchecked and parallel paths
    /// probed (issue 25): sibling loops that reuse a name, nested loops,
    /// `nocheck!` loops with every index shape the bounds hoister meets, broadcasts inside
    /// sequential loops, and parallel loops (`.par()`) whose bodies write, and hand to calls,
    /// owned slots.
    pub loop_shapes: bool,
}

impl Features {
    /// The statements of the first version of the generator.
    pub const FIRST: Features = Features {
        dynamic_indices: false,
        fixed_point: false,
        newer_instructions: false,
        newer_statements: false,
        parallel_broadcasts: false,
        loop_shapes: false,
    };
    /// The first version and the indexed loops (the regression seeds found with it).
    pub const INDEXED: Features = Features {
        dynamic_indices: true,
        fixed_point: false,
        newer_instructions: false,
        newer_statements: false,
        parallel_broadcasts: false,
        loop_shapes: false,
    };
    /// The indexed loops and fixed point (the regression seeds found with them: the first
    /// 100 000 programs of the long run).
    pub const FIXED_POINT: Features = Features {
        dynamic_indices: true,
        fixed_point: true,
        newer_instructions: false,
        newer_statements: false,
        parallel_broadcasts: false,
        loop_shapes: false,
    };
    /// What the compiled corpus writes: everything but fixed point (a fixed-point parameter
    /// beside a differentiable one does not compile in the adjoint programs).
    pub const COMPILED: Features = Features {
        fixed_point: false,
        ..Features::ALL
    };
    /// What the compiled corpus wrote before the newer statements (the regression seeds found
    /// with it).
    pub const COMPILED_INSTRUCTIONS: Features = Features {
        newer_statements: false,
        loop_shapes: false,
        ..Features::COMPILED
    };
    /// Everything but the newer statements (the regression seeds found with it: the 10^6 run).
    pub const NEWER_INSTRUCTIONS: Features = Features {
        dynamic_indices: true,
        fixed_point: true,
        newer_instructions: true,
        newer_statements: false,
        parallel_broadcasts: false,
        loop_shapes: false,
    };
    /// Everything but the parallel broadcasts (the regression seeds found with it).
    pub const NEWER_STATEMENTS: Features = Features {
        parallel_broadcasts: false,
        loop_shapes: false,
        ..Features::ALL
    };
    /// Everything but the loop shapes (what `Features::ALL` wrote before them).
    pub const PARALLEL_BROADCASTS: Features = Features {
        loop_shapes: false,
        ..Features::ALL
    };
    /// What the compiled corpus wrote before the loop shapes.
    pub const COMPILED_BROADCASTS: Features = Features {
        loop_shapes: false,
        ..Features::COMPILED
    };
    /// Everything the generator can write.
    pub const ALL: Features = Features {
        dynamic_indices: true,
        fixed_point: true,
        newer_instructions: true,
        newer_statements: true,
        parallel_broadcasts: true,
        loop_shapes: true,
    };
}

/// A small deterministic generator (xorshift).
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// One of `xs`.
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
    /// A float in [-1, 1].
    pub fn unit(&mut self) -> f64 {
        (self.next() % 20_001) as f64 / 10_000.0 - 1.0
    }
}

/// What a block may write: float and integer slots not frozen by an enclosing condition,
/// routine or stack push; and the slots a push zeroed.
#[derive(Clone)]
pub(crate) struct Free {
    pub(crate) x: Vec<usize>,
    pub(crate) n: Vec<usize>,
    pub(crate) depth: usize,
    pub(crate) zeroed: Vec<usize>,
}

impl Free {
    fn without_x(&self, a: usize) -> Free {
        let mut f = self.clone();
        f.x.retain(|&i| i != a);
        f.depth += 1;
        f
    }

    /// Inside a push of slot `a`: `a` holds zero and is frozen.
    fn pushed(&self, a: usize) -> Free {
        let mut f = self.without_x(a);
        f.zeroed.push(a);
        f
    }
}

pub(crate) const UNARY: &[&str] = &["identity", "sin", "cos", "tanh", "atan", "sigmoid"];
pub(crate) const BINARY: &[&str] = &["+", "-", "*"];

pub(crate) struct Gen {
    pub(crate) rng: Rng,
    pub(crate) counter: usize,
    pub(crate) features: Features,
}

impl Gen {
    pub(crate) fn fresh(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("{prefix}{}", self.counter)
    }

    /// Two distinct float slots, the first writable.
    fn target_and_operand(&mut self, free: &Free) -> Option<(usize, usize)> {
        let a = *self.rng.pick(&free.x);
        let others: Vec<usize> = (0..NX).filter(|&i| i != a).collect();
        Some((a, *self.rng.pick(&others)))
    }

    /// `min` statements and up to `extra - 1` more.
    pub(crate) fn block(&mut self, free: &Free, min: usize, extra: usize) -> Vec<String> {
        let len = min + self.rng.below(extra);
        (0..len).flat_map(|_| self.stmt(free)).collect()
    }

    fn stmt(&mut self, free: &Free) -> Vec<String> {
        let nested = free.depth < 2;
        let kinds = if nested { 12 } else { 6 };
        if free.x.is_empty() {
            return vec![];
        }
        let op = *self.rng.pick(&["+=", "-="]);
        if self.features.dynamic_indices && free.x.len() == NX && self.rng.below(8) == 0 {
            return self.indexed_loop(op);
        }
        if self.features.fixed_point && self.rng.below(6) == 0 {
            return self.fixed_point(op);
        }
        if self.features.newer_instructions && self.rng.below(6) == 0 {
            return self.newer_instruction(free, op);
        }
        if self.features.newer_statements && self.rng.below(8) == 0 {
            return self.newer_statement(free, op);
        }
        if self.features.loop_shapes && self.rng.below(6) == 0 {
            return self.loop_shape(free, op);
        }
        let kind = self.rng.below(kinds);
        if kind < 6 {
            self.flat_stmt(free, op, kind)
        } else {
            self.nested_stmt(free, op, kind)
        }
    }

    /// Statement `kind` (below 6) of [`Gen::stmt`]: an instruction, a builtin or a call.
    fn flat_stmt(&mut self, free: &Free, op: &str, kind: usize) -> Vec<String> {
        match kind {
            0 | 1 => {
                let (a, b) = self.target_and_operand(free).unwrap();
                let f = self.rng.pick(UNARY);
                vec![format!("x[{a}] {op} {f}(x[{b}]);")]
            }
            2 => {
                let (a, b) = self.target_and_operand(free).unwrap();
                let c = (0..NX).find(|&i| i != a && i != b).unwrap();
                let f = self.rng.pick(BINARY);
                // atan2 at the origin is a singular point (a named error in checked
                // gradients): not on two slots that pushes zeroed (seed 13306735003898717078
                // of the compiled corpus)
                let origin = free.zeroed.contains(&b) && free.zeroed.contains(&c);
                if self.rng.below(4) == 0 && !origin {
                    vec![format!("x[{a}] {op} atan2(x[{b}], x[{c}]);")]
                } else {
                    vec![format!("x[{a}] {op} x[{b}] {f} x[{c}];")]
                }
            }
            3 => {
                let a = *self.rng.pick(&free.n);
                let b = (a + 1 + self.rng.below(NN - 1)) % NN;
                match self.rng.below(3) {
                    0 => vec![format!("n[{a}] {op} n[{b}];")],
                    1 => vec![format!("{}(n[{a}]);", self.rng.pick(&["inc", "dec"]))],
                    _ => vec![format!("n[{a}] {op} n[{b}] * n[{}];", (b + 1) % NN)]
                        .into_iter()
                        .filter(|_| (b + 1) % NN != a)
                        .collect(),
                }
            }
            4 => {
                let (a, b) = self.target_and_operand(free).unwrap();
                if free.x.contains(&b) {
                    if self.rng.below(2) == 0 {
                        vec![format!("swap(x[{a}], x[{b}]);")]
                    } else {
                        let c = (0..NX).find(|&i| i != a && i != b).unwrap();
                        let r = self.rng.pick(&["rot", "irot"]);
                        vec![format!("{r}(x[{a}], x[{b}], x[{c}]);")]
                    }
                } else {
                    vec![format!("neg(x[{a}]);")]
                }
            }
            _ => {
                // a call or an uncall of a library function
                let (a, b) = self.target_and_operand(free).unwrap();
                let call = if self.rng.below(2) == 0 {
                    format!("lib_sin(x[{a}], x[{b}])")
                } else {
                    let c = (0..NX).find(|&i| i != a && i != b).unwrap();
                    format!("lib_mix(x[{a}], x[{b}], x[{c}])")
                };
                if self.rng.below(2) == 0 {
                    vec![format!("{call};")]
                } else {
                    vec![format!("uncall!({call});")]
                }
            }
        }
    }

    /// Statement `kind` (6 and above) of [`Gen::stmt`]: a routine, an `if`, a loop or a
    /// push around a block.
    fn nested_stmt(&mut self, free: &Free, op: &str, kind: usize) -> Vec<String> {
        match kind {
            6 | 7 => {
                // compute an ancilla from a read-only slot, use it, uncompute
                let (a, b) = self.target_and_operand(free).unwrap();
                let t = self.fresh("t");
                let f = self.rng.pick(UNARY);
                let g = self.rng.pick(UNARY);
                let inner = free.without_x(b);
                let mut out = vec![
                    "routine! {".to_string(),
                    format!("let {t} = T::zero();"),
                    format!("{t} += {f}(x[{b}]);"),
                    "}".to_string(),
                    format!("x[{a}] {op} {g}({t});"),
                ];
                out.extend(self.block(&inner, 0, 3));
                out.push("uncompute!();".into());
                out
            }
            8 => {
                // an `if` on a slot the branches do not write
                let b = self.rng.below(NX);
                let inner = free.without_x(b);
                let (then, els) = (self.block(&inner, 1, 3), self.block(&inner, 0, 2));
                let mut out = vec![format!("if (x[{b}].val() > 0.0, x[{b}].val() > 0.0) {{")];
                out.extend(then);
                out.push("} else {".into());
                out.extend(els);
                out.push("}".into());
                out
            }
            9 => {
                let k = self.fresh("k");
                let mut out = vec![format!("for {k} in 0..{} {{", 1 + self.rng.below(3))];
                out.extend(self.block(
                    &Free {
                        depth: free.depth + 1,
                        ..free.clone()
                    },
                    1,
                    3,
                ));
                out.push("}".into());
                out
            }
            10 => {
                let c = self.fresh("c");
                let m = 1 + self.rng.below(3);
                let mut out = vec![
                    format!("let {c} = 0i64;"),
                    format!("while ({c} < {m}, {c} > 0) {{"),
                    format!("inc({c});"),
                ];
                out.extend(self.block(
                    &Free {
                        depth: free.depth + 1,
                        ..free.clone()
                    },
                    1,
                    2,
                ));
                out.push("}".into());
                out.push(format!("dealloc!({c} = {m});"));
                out
            }
            _ => {
                // a slot pushed (zeroed) around a block that does not write it
                let a = *self.rng.pick(&free.x);
                let mut out = vec![format!("push!(st, x[{a}]);")];
                out.extend(self.block(&free.pushed(a), 1, 2));
                out.push(format!("pop!(st, x[{a}]);"));
                out
            }
        }
    }
}

/// Two reversible functions every program may call.
pub const LIBRARY: &str = r#"
    #[i]
    fn lib_sin<T: Real>(y: &mut T, z: &mut T) {
        y += sin(z);
    }
    #[i]
    fn lib_mix<T: Real>(y: &mut T, a: &mut T, b: &mut T) {
        routine! {
            let t = T::zero();
            t += a * b;
        }
        y += tanh(t);
        uncompute!();
    }
"#;

/// The source of a random program `f` with everything the generator can write, after the
/// library, from a seed.
pub fn program(seed: u64) -> String {
    program_with(seed, Features::ALL)
}

/// The source of a random program `f` with `features`, after the library.
pub fn program_with(seed: u64, features: Features) -> String {
    format!("{LIBRARY}\n{}", function(seed, features))
}

/// The random function `f` alone (it calls the functions of [`LIBRARY`]).
pub fn function(seed: u64, features: Features) -> String {
    let mut g = Gen {
        rng: Rng(seed | 1),
        counter: 0,
        features,
    };
    let free = Free {
        x: (0..NX).collect(),
        n: (0..NN).collect(),
        depth: 0,
        zeroed: Vec::new(),
    };
    let body = g.block(&free, 1, 6).join("\n        ");
    let q = match features.fixed_point {
        true => ", q: &mut [nilang::numbers::I21F43]",
        false => "",
    };
    format!(
        "    #[i]\n    fn f<T: Real>(x: &mut [T], n: &mut [i64], st: &mut Vec<T>{q}) {{\n        {body}\n    }}\n"
    )
}
