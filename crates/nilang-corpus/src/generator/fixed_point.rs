//! Instructions on the fixed-point numbers `q` ([`Features::fixed_point`]).

use super::*;

impl Gen {
    /// An instruction on the fixed-point numbers `q` (exact: the inverse gives back every
    /// bit), or a loop of them indexed by its variable. No statement freezes `q`.
    pub(super) fn fixed_point(&mut self, op: &str) -> Vec<String> {
        let a = self.rng.below(NQ);
        let b = (a + 1 + self.rng.below(NQ - 1)) % NQ;
        let c = (0..NQ).find(|&c| c != a && c != b).expect("NQ >= 3");
        match self.rng.below(5) {
            0 => vec![format!("q[{a}] {op} q[{b}];")],
            1 => vec![format!("q[{a}] {op} q[{b}] * q[{c}];")],
            2 => vec![format!("q[{a}] {op} q[{b}] - q[{c}];")],
            3 => vec![format!(
                "q[{a}] {op} {}(q[{b}]);",
                self.rng.pick(&["square", "abs"])
            )],
            _ => {
                let k = self.fresh("k");
                vec![
                    format!("for {k} in 0..q.len() {{"),
                    format!("q[({k} + 1) % q.len()] {op} q[{k}] * q[({k} + 2) % q.len()];"),
                    "}".into(),
                ]
            }
        }
    }
}
