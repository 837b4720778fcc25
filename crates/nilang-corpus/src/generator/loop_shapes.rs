//! The valid shapes of loops an adversarial review of the unchecked and parallel paths
//! probed ([`Features::loop_shapes`]): sibling loops that reuse a name, nested loops,
//! `nocheck!` loops with every index shape, broadcasts in sequential loops, `.par()` loops
//! whose iterations write, and hand to calls, their own slots.

use super::*;

impl Gen {
    /// A valid program of a shape the adversarial review of the unchecked and parallel paths
    /// probed (see [`Features::loop_shapes`]); with a frozen float slot, one on `n` alone.
    pub(super) fn loop_shape(&mut self, free: &Free, op: &str) -> Vec<String> {
        let whole_x = free.x.len() == NX;
        let f = *self.rng.pick(UNARY);
        let k = self.fresh("k");
        if !whole_x {
            return match self.rng.below(3) {
                0 => nocheck(vec![
                    format!("for {k} in 0..n.len() {{"),
                    format!("n[{k}] {op} n[({k} + 1) % n.len()];"),
                    "}".into(),
                ]),
                1 => self.parallel_over_n(&k, op),
                _ => {
                    let b = self.broadcast(false, op);
                    vec![format!("for {k} in 0..2 {{"), b, "}".into()]
                }
            };
        }
        match self.rng.below(7) {
            // sibling loops that reuse a name: the second `k` is a new variable
            0 => {
                let g = *self.rng.pick(UNARY);
                let mut out = vec![
                    format!("for {k} in 0..x.len() {{"),
                    format!("x[({k} + 1) % x.len()] {op} {f}(x[{k}]);"),
                    "}".into(),
                ];
                let second = vec![
                    format!("for {k} in 0..x.len() {{"),
                    format!("x[{k}] {op} {g}(x[({k} + 2) % x.len()]);"),
                    "}".into(),
                ];
                out.extend(match self.rng.below(2) {
                    0 => nocheck(second),
                    _ => second,
                });
                out
            }
            // nested loops with distinct names
            1 => {
                let j = self.fresh("k");
                let range = *self.rng.pick(&["0..x.len() / 2", "0..2"]);
                let nested = vec![
                    format!("for {k} in {range} {{"),
                    format!("for {j} in 0..2 {{"),
                    format!("x[(2 * {k} + {j} + 1) % x.len()] {op} {f}(x[2 * {k} + {j}]);"),
                    "}".into(),
                    "}".into(),
                ];
                match self.rng.below(2) {
                    0 => nocheck(nested),
                    _ => nested,
                }
            }
            // unchecked loops with the index shapes the bounds hoister meets
            2 | 3 => {
                let mut out = Vec::new();
                for _ in 0..1 + self.rng.below(3) {
                    let k = self.fresh("k");
                    out.extend(self.indexed(&k, op));
                }
                match self.rng.below(4) {
                    0 => out,
                    _ => nocheck(out),
                }
            }
            // broadcasts inside a sequential loop (in a `par!` block too)
            4 => {
                let range = *self.rng.pick(&["0..2", "0..x.len()"]);
                let mut out = vec![format!("for {k} in {range} {{")];
                if self.rng.below(2) == 0 {
                    out.push(format!("x[({k} + 1) % x.len()] {op} {f}(x[{k}]);"));
                }
                let on_x = self.rng.below(2) == 0;
                let b = self.broadcast(on_x, op);
                match self.features.parallel_broadcasts && self.rng.below(3) == 0 {
                    true => out.extend(["par! {".to_string(), b, "}".to_string()]),
                    false => out.push(b),
                }
                out.push("}".into());
                out
            }
            // parallel loops writing, and handing to calls, owned slots
            _ => {
                let par = match self.rng.below(4) {
                    0 => self.parallel_over_n(&k, op),
                    _ => self.parallel_over_pairs(&k, op),
                };
                match self.rng.below(3) {
                    0 => nocheck(par),
                    _ => par,
                }
            }
        }
    }

    /// A loop over `x` (or `n`) with one of the index shapes of unchecked loops: `x[k]`,
    /// `x[k + c]`, `x[2 * k + d]`, `x[k - c]` over `c..`, `x[(k + 1) % x.len()]`,
    /// `x[x.len() - 1 - k]` (decreasing), `x[k - 1]` under `if k > 0`, an invariant part read
    /// from the integer parameter (`x[k + ((n[j] * n[j]) % 2) as usize]`), `n[k]`; the target
    /// and the operand are distinct places at every iteration.
    fn indexed(&mut self, k: &str, op: &str) -> Vec<String> {
        let f = *self.rng.pick(UNARY);
        let c = 1 + self.rng.below(NX - 1);
        let rev = |range: String, r: bool| match r {
            true => format!("({range}).rev()"),
            false => range,
        };
        let r = self.rng.below(4) == 0;
        let (range, body) = match self.rng.below(9) {
            0 => (
                rev(format!("0..x.len() - {c}"), r),
                vec![format!("x[{k}] {op} {f}(x[{k} + {c}]);")],
            ),
            1 => (
                rev(format!("0..x.len() - {c}"), r),
                vec![format!("x[{k} + {c}] {op} {f}(x[{k}]);")],
            ),
            2 => {
                let d = self.rng.below(2);
                (
                    rev("0..x.len() / 2".into(), r),
                    vec![format!(
                        "x[2 * {k} + {d}] {op} {f}(x[2 * {k} + {}]);",
                        1 - d
                    )],
                )
            }
            3 => (
                rev(format!("{c}..x.len()"), r),
                vec![format!("x[{k} - {c}] {op} {f}(x[{k}]);")],
            ),
            4 => (
                "0..x.len()".into(),
                vec![format!("x[({k} + 1) % x.len()] {op} {f}(x[{k}]);")],
            ),
            5 => (
                rev("0..x.len() / 2".into(), r),
                vec![format!("x[x.len() - 1 - {k}] {op} {f}(x[{k}]);")],
            ),
            6 => (
                rev("0..x.len()".into(), r),
                match self.rng.below(2) {
                    0 => vec![
                        format!("if {k} > 0 {{"),
                        format!("x[{k}] {op} {f}(x[{k} - 1]);"),
                        "}".into(),
                    ],
                    _ => vec![
                        format!("if {k} + 1 < x.len() {{"),
                        format!("x[{k} + 1] {op} {f}(x[{k}]);"),
                        "}".into(),
                    ],
                },
            ),
            7 => {
                let j = self.rng.below(NN);
                (
                    rev("0..x.len() - 1".into(), r),
                    vec![format!(
                        "x[{k} + ((n[{j}] * n[{j}]) % 2) as usize] {op} {f}(x[({k} + 2) % x.len()]);"
                    )],
                )
            }
            _ => (
                "0..n.len()".into(),
                vec![format!("n[{k}] {op} n[({k} + 1) % n.len()];")],
            ),
        };
        let mut out = vec![format!("for {k} in {range} {{")];
        out.extend(body);
        out.push("}".into());
        out
    }

    /// A parallel loop over pairs of `x`, each iteration writing its own `x[2 * k]` and
    /// `x[2 * k + 1]`: instructions, a call or an uncall of the library on the pair, a routine
    /// whose ancilla a call reads, an inner loop over the pair.
    fn parallel_over_pairs(&mut self, k: &str, op: &str) -> Vec<String> {
        let f = *self.rng.pick(UNARY);
        let d = self.rng.below(2);
        let (a, b) = (
            format!("x[2 * {k} + {d}]"),
            format!("x[2 * {k} + {}]", 1 - d),
        );
        let mut out = vec![format!("for {k} in (0..x.len() / 2).par() {{")];
        for _ in 0..1 + self.rng.below(2) {
            match self.rng.below(7) {
                0 => out.push(format!("{a} {op} {f}({b});")),
                1 | 2 => out.push(match self.rng.below(2) {
                    0 => format!("lib_sin({a}, {b});"),
                    _ => format!("uncall!(lib_sin({a}, {b}));"),
                }),
                3 | 4 => {
                    let t = self.fresh("t");
                    let call = format!("lib_mix({a}, {b}, {t})");
                    out.extend([
                        "routine! {".to_string(),
                        format!("let {t} = T::zero();"),
                        format!("{t} += {f}({b});"),
                        "}".into(),
                        match self.rng.below(2) {
                            0 => format!("{call};"),
                            _ => format!("uncall!({call});"),
                        },
                        "uncompute!();".into(),
                    ]);
                }
                5 => {
                    let j = self.fresh("k");
                    let c = self.rng.pick(&["0.25", "0.5", "1.5"]);
                    out.extend([
                        format!("for {j} in 0..2 {{"),
                        match self.rng.below(2) {
                            0 => format!("neg(x[2 * {k} + {j}]);"),
                            _ => format!("x[2 * {k} + {j}] {op} {c};"),
                        },
                        "}".into(),
                    ]);
                }
                _ => out.push(format!("swap({a}, {b});")),
            }
        }
        out.push("}".into());
        out
    }

    /// A parallel loop over `n`, each iteration writing its own `n[k]`.
    fn parallel_over_n(&mut self, k: &str, op: &str) -> Vec<String> {
        let mut out = vec![format!("for {k} in (0..n.len()).par() {{")];
        for _ in 0..1 + self.rng.below(2) {
            out.push(match self.rng.below(2) {
                0 => format!("{}(n[{k}]);", self.rng.pick(&["inc", "dec"])),
                _ => format!("n[{k}] {op} {};", 1 + self.rng.below(3)),
            });
        }
        out.push("}".into());
        out
    }
}

/// `lines` in a `nocheck!` block.
fn nocheck(lines: Vec<String>) -> Vec<String> {
    let mut out = vec!["nocheck! {".to_string()];
    out.extend(lines);
    out.push("}".into());
    out
}
