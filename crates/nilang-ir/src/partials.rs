//! Loop-invariant operands, whose gradients an adjoint loop may sum in partial accumulators.
//!
//! Run backwards with gradients, `for b in a + 1..d { qx[b] += l[k(b)] * xc[a]; }` adds
//! `q̄x[b] · l[k(b)]` to the gradient of `xc[a]` at every iteration: one chain of dependent
//! additions as long as the loop, which runs at the adder's latency (four cycles a term where
//! the rest of the iteration needs about one). The value of `xc[a]` does not change in the
//! loop, so its gradient may be summed in several partial accumulators, each over every
//! fourth iteration, and the partials added at the end: independent chains, the same terms
//! in another order (gradients differ from the single chain by rounding only; values are
//! untouched).
//!
//! [`invariant_operands`] names such operands for a loop body made only of instructions (no
//! allocations, so every name in it means one binding throughout, and equal dataviews are one
//! place): a dataview read as an operand whose root no instruction of the body writes and
//! whose indices read neither the loop variable nor a variable the body writes.

use crate::ast::*;
use crate::dropped::all_reads;
use syn::Ident;

/// The operands of the loop `for var in … { body }` whose place is the same at every
/// iteration and whose value the body does not change (see the module documentation), each
/// once, in order of first use; empty unless every statement of `body` is an instruction.
pub fn invariant_operands(var: &Ident, body: &[Stmt]) -> Vec<Dataview> {
    let mut instrs = Vec::new();
    for s in body {
        match &s.kind {
            StmtKind::Instr(i) => instrs.push(i),
            _ => return Vec::new(),
        }
    }
    let written: Vec<String> = instrs.iter().map(|i| i.target.root.to_string()).collect();
    let invariant = |v: &Dataview| {
        !written.contains(&v.root.to_string())
            && v.path.iter().all(|a| match a {
                Access::Index(e) => {
                    let reads = all_reads(e);
                    !reads.contains(&var.to_string()) && written.iter().all(|w| !reads.contains(w))
                }
                Access::Field(_) => true,
            })
    };
    let mut out: Vec<Dataview> = Vec::new();
    for v in instrs.iter().flat_map(|i| &i.args).filter_map(|a| match a {
        Operand::View(v) => Some(v),
        Operand::Const(_) => None,
    }) {
        if invariant(v) && !out.iter().any(|o| o.same_as(v)) {
            out.push(v.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body_of(src: &str) -> (Ident, Vec<Stmt>) {
        let item: syn::ItemFn = syn::parse_str(src).unwrap();
        let f = crate::lower(&crate::Options::default(), item).unwrap();
        let StmtKind::For { var, body, .. } = &f.function.body[0].kind else {
            panic!("a loop first")
        };
        (var.clone(), body.clone())
    }

    fn names(src: &str) -> Vec<String> {
        let (var, body) = body_of(src);
        invariant_operands(&var, &body)
            .iter()
            .map(|v| v.text())
            .collect()
    }

    #[test]
    fn an_operand_indexed_outside_the_loop_is_invariant() {
        let src = "fn f(q: &mut [f64], l: &[f64], x: &mut [f64], s: &mut f64, a: usize) {
            for b in a + 1..q.len() { q[b] += l[b] * x[a]; q[b] += s * x[a]; }
        }";
        assert_eq!(names(src), ["x[a]", "s"]);
    }

    #[test]
    fn operands_the_loop_moves_or_writes_are_not() {
        // indexed by the loop variable, or its root written by the body
        let src = "fn f(q: &mut [f64], l: &[f64], x: &mut [f64]) {
            for b in 0..q.len() { q[b] += l[b] * x[0]; x[1] += q[b]; }
        }";
        assert!(names(src).is_empty());
        let src = "fn f(q: &mut [f64], s: &mut f64) {
            for b in 0..q.len() { q[b] += s; s += q[b]; }
        }";
        assert!(names(src).is_empty());
    }

    #[test]
    fn a_body_with_other_statements_has_none() {
        let src = "fn f(q: &mut [f64], s: &mut f64) {
            for b in 0..q.len() { let t = 0.0; t += s; q[b] += t; t -= s; dealloc!(t = 0.0); }
        }";
        assert!(names(src).is_empty());
    }
}
