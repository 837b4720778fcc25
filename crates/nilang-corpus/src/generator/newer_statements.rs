//! Broadcasts over whole slices, and routines whose ancillas a constructor packs and a
//! destructor unpacks ([`Features::newer_statements`]).

use super::*;

impl Gen {
    /// A broadcast over a whole slice, or a routine whose ancillas a constructor packs and a
    /// destructor unpacks (see [`Features::newer_statements`]).
    pub(super) fn newer_statement(&mut self, free: &Free, op: &str) -> Vec<String> {
        let whole_x = free.x.len() == NX;
        let parallel = self.features.parallel_broadcasts;
        match self.rng.below(3) {
            0 | 1 if parallel && self.rng.below(3) == 0 => {
                let mut out = vec!["par! {".to_string()];
                for _ in 0..1 + self.rng.below(2) {
                    let on_x = whole_x && self.rng.below(2) == 0;
                    out.push(self.broadcast(on_x, op));
                }
                out.push("}".into());
                out
            }
            0 if whole_x => vec![self.broadcast(true, op)],
            0 | 1 => vec![self.broadcast(false, op)],
            _ => self.constructed_pair(free, op),
        }
    }

    /// A broadcast over all of `x` (`on_x`) or of `n`.
    pub(super) fn broadcast(&mut self, on_x: bool, op: &str) -> String {
        match (on_x, self.rng.below(if on_x { 3 } else { 2 })) {
            (true, 0) => "neg(x[..]);".to_string(),
            (true, _) => {
                let c = self.rng.pick(&["0.25", "0.5", "1.5"]);
                format!("x[..] {op} {c};")
            }
            (false, 0) => format!("{}(n[..]);", self.rng.pick(&["inc", "dec"])),
            (false, _) => format!("n[..] {op} {};", 1 + self.rng.below(3)),
        }
    }

    /// Two ancillas computed from read-only slots, packed into a tuple by `new!`, unpacked
    /// by `fields!` (in either order), used, and uncomputed.
    fn constructed_pair(&mut self, free: &Free, op: &str) -> Vec<String> {
        let (a, b) = self.target_and_operand(free).unwrap();
        let c = (0..NX).find(|&c| c != a && c != b).expect("NX >= 3");
        let (t1, t2, p, u1, u2) = (
            self.fresh("t"),
            self.fresh("t"),
            self.fresh("p"),
            self.fresh("u"),
            self.fresh("u"),
        );
        let (f, g) = (self.rng.pick(UNARY), self.rng.pick(UNARY));
        let packed = match self.rng.below(2) {
            0 => format!("({t1}, {t2})"),
            _ => format!("({t2}, {t1})"),
        };
        let h = self.rng.pick(BINARY);
        let mut out = vec![
            "routine! {".to_string(),
            format!("let {t1} = T::zero();"),
            format!("{t1} += {f}(x[{b}]);"),
            format!("let {t2} = T::zero();"),
            format!("{t2} += {g}(x[{c}]);"),
            format!("let {p} = new!({packed});"),
            format!("let ({u1}, {u2}) = fields!({p});"),
            "}".to_string(),
            format!("x[{a}] {op} {u1} {h} {u2};"),
        ];
        out.extend(self.block(&free.without_x(b).without_x(c), 0, 2));
        out.push("uncompute!();".into());
        out
    }
}
