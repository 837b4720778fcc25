//! Loops whose places are indexed by the loop variable ([`Features::dynamic_indices`]).

use super::*;

impl Gen {
    /// A loop over every float slot whose places are indexed by the loop variable, at
    /// distinct offsets (so that target and operands are different places at every
    /// iteration); only where no slot is frozen.
    pub(super) fn indexed_loop(&mut self, op: &str) -> Vec<String> {
        let k = self.fresh("k");
        let at = |offset: usize| match offset {
            0 => format!("x[{k}]"),
            o => format!("x[({k} + {o}) % x.len()]"),
        };
        let a = self.rng.below(NX);
        let b = (a + 1 + self.rng.below(NX - 1)) % NX;
        let instr = if self.rng.below(3) == 0 {
            let c = (0..NX).find(|&c| c != a && c != b).expect("NX >= 3");
            let f = self.rng.pick(BINARY);
            format!("{} {op} {} {f} {};", at(a), at(b), at(c))
        } else {
            let f = self.rng.pick(UNARY);
            format!("{} {op} {f}({});", at(a), at(b))
        };
        vec![format!("for {k} in 0..x.len() {{"), instr, "}".into()]
    }
}
