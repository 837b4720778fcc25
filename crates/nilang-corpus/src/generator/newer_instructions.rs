//! `hadamard`, `inv`, constants added or subtracted, `flip`
//! ([`Features::newer_instructions`]).

use super::*;

impl Gen {
    /// `hadamard`, `inv`, a constant added or subtracted, or `flip` (see
    /// [`Features::newer_instructions`]).
    pub(super) fn newer_instruction(&mut self, free: &Free, op: &str) -> Vec<String> {
        let (a, b) = self.target_and_operand(free).unwrap();
        match self.rng.below(4) {
            0 if free.x.contains(&b) => vec![format!("hadamard(x[{a}], x[{b}]);")],
            0 | 1 => {
                // 1/x has the sign of x, so the condition holds after; zero takes no branch
                let sign = format!("x[{a}].val() {} 0.0", self.rng.pick(&[">", "<"]));
                let mut out = vec![format!("if ({sign}, {sign}) {{"), format!("inv(x[{a}]);")];
                out.extend(self.block(&free.without_x(a), 0, 2));
                out.extend(["} else {".to_string(), "}".to_string()]);
                out
            }
            2 => match self.rng.below(3) {
                0 => {
                    let k = *self.rng.pick(&free.n);
                    vec![format!("n[{k}] {op} {};", 1 + self.rng.below(3))]
                }
                _ => {
                    let c = self.rng.pick(&["0.25", "0.5", "1.5", "2.0"]);
                    vec![format!("x[{a}] {op} {c};")]
                }
            },
            _ => {
                // a boolean that a branch on x[b] decides (flips), decides a branch that
                // does not write x[b], and is uncomputed by the same branch
                let f = self.fresh("b");
                let sign = format!("x[{b}].val() > 0.0");
                let inner = free.without_x(b);
                let (then, els) = (self.block(&inner, 1, 2), self.block(&inner, 0, 2));
                let mut out = vec![
                    "routine! {".to_string(),
                    format!("let {f} = false;"),
                    format!("if ({sign}, {sign}) {{"),
                    format!("flip({f});"),
                    "} else {".into(),
                    "}".into(),
                    "}".into(),
                    format!("if ({f}, {f}) {{"),
                ];
                out.extend(then);
                out.push("} else {".into());
                out.extend(els);
                out.extend(["}".to_string(), "uncompute!();".to_string()]);
                out
            }
        }
    }
}
