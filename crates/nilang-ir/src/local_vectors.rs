//! Vector ancillas reached only element by element: those a code generator may hold in a
//! storage of its own (`nilang::__private::LocalStore`, inline when short) instead of a `Vec`.
//!
//! An ancilla `let t = vec![e; n];` is one when every statement of the function mentions it
//! only as the root of an indexed dataview (`t[i]`, `t[a..b]`), or as the receiver of
//! `.len()` (and the other shape methods [`crate::dropped::all_reads`] skips), and its own
//! allocation and deallocations: no call, stack, constructor, `safe!` block or expression sees
//! the vector whole, so its type is not observable. Names are bindings in the language (no
//! shadowing, decision 0001), so a name is one vector throughout the function; a name
//! allocated twice, or once as something else, is left as a `Vec`.

use crate::ast::*;
use crate::dropped::all_reads;
use quote::ToTokens;
use std::collections::BTreeSet;

/// The ancillas of `body` allocated as `vec![e; n]` (without a written type) that the body
/// reaches only by index (see the module documentation).
pub fn indexed_only(body: &[Stmt]) -> BTreeSet<String> {
    let mut allocations = Vec::new();
    collect_allocations(body, &mut allocations);
    let mut out = BTreeSet::new();
    for (name, is_vec) in &allocations {
        let once = allocations.iter().filter(|(n, _)| n == name).count() == 1;
        if *is_vec && once && body.iter().all(|s| indexed_in(s, name)) {
            out.insert(name.clone());
        }
    }
    out
}

/// `vec![e; n]` (the macro `vec`, any path to it): its value and length.
pub fn vec_repeat(e: &syn::Expr) -> Option<(syn::Expr, syn::Expr)> {
    let syn::Expr::Macro(m) = e else {
        return None;
    };
    if m.mac.path.segments.last()?.ident != "vec" {
        return None;
    }
    let parts = m.mac.parse_body_with(|input: syn::parse::ParseStream| {
        let value: syn::Expr = input.parse()?;
        input.parse::<syn::Token![;]>()?;
        let len: syn::Expr = input.parse()?;
        Ok((value, len))
    });
    parts.ok()
}

fn collect_allocations(block: &[Stmt], out: &mut Vec<(String, bool)>) {
    for s in block {
        if let StmtKind::Alloc(bs) = &s.kind {
            for b in bs {
                let is_vec = b.ty.is_none() && vec_repeat(&b.value).is_some();
                out.push((b.name.to_string(), is_vec));
            }
        }
        if let StmtKind::Fields(f) = &s.kind {
            out.extend(f.names().into_iter().map(|n| (n.to_string(), false)));
        }
        for b in s.blocks() {
            collect_allocations(b, out);
        }
    }
}

/// Whether statement `s` mentions `name` only by index (or not at all).
fn indexed_in(s: &Stmt, name: &str) -> bool {
    let blocks = || {
        s.blocks()
            .into_iter()
            .flatten()
            .all(|s| indexed_in(s, name))
    };
    match &s.kind {
        StmtKind::Instr(i) => {
            view_ok(&i.target, name) && i.args.iter().all(|o| operand_ok(o, name))
        }
        StmtKind::XorExpr { target, expr } => view_ok(target, name) && !mentions(expr, name),
        StmtKind::Builtin { args, operand, .. } => {
            args.iter().all(|v| view_ok(v, name))
                && operand.as_ref().is_none_or(|o| operand_ok(o, name))
        }
        StmtKind::Alloc(bs) | StmtKind::Dealloc(bs) => bs.iter().all(|b| !mentions(&b.value, name)),
        StmtKind::If { pre, post, .. } | StmtKind::While { pre, post, .. } => {
            !mentions(pre, name) && !mentions(post, name) && blocks()
        }
        StmtKind::For { var, range, .. } => {
            var != name
                && !mentions(&range.start, name)
                && !mentions(&range.end, name)
                && range.step.as_ref().is_none_or(|e| !mentions(e, name))
                && blocks()
        }
        StmtKind::Call { call, .. } => {
            let callee = match &call.callee {
                Callee::Path(p) => !all_reads(&p.to_token_stream()).contains(name),
                Callee::Method { receiver, .. } => !mentions(receiver, name),
                Callee::Param(_) => true,
            };
            callee
                && call.args.iter().all(|a| match a {
                    CallArg::View(v) => view_ok(v, name),
                    CallArg::Shared(e) | CallArg::Value(e) => !mentions(e, name),
                })
        }
        StmtKind::Stack { stack, value, .. } => stack.root != name && view_ok(value, name),
        StmtKind::Fields(f) => f.names().into_iter().all(|n| n != name),
        StmtKind::Safe(ts) => !all_reads(ts).contains(name),
        StmtKind::NoCheck(_) | StmtKind::Routine { .. } => blocks(),
    }
}

/// A dataview that is not `name`, or an element or sub-slice of it, with indices that do not
/// mention it.
fn view_ok(v: &Dataview, name: &str) -> bool {
    let indices_ok = v.path.iter().all(|a| match a {
        Access::Index(e) => !mentions(e, name),
        Access::Field(_) => true,
    });
    let rooted_ok = v.root != name || matches!(v.path.first(), Some(Access::Index(_)));
    indices_ok && rooted_ok
}

fn operand_ok(o: &Operand, name: &str) -> bool {
    match o {
        Operand::View(v) => view_ok(v, name),
        Operand::Const(e) => !mentions(e, name),
    }
}

fn mentions(e: &syn::Expr, name: &str) -> bool {
    all_reads(e).contains(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local(src: &str) -> Vec<String> {
        let item: syn::ItemFn = syn::parse_str(src).unwrap();
        let f = crate::lower(&crate::Options::default(), item).unwrap();
        indexed_only(&f.function.body).into_iter().collect()
    }

    #[test]
    fn vectors_reached_by_index_are_local() {
        let src = "fn f<T: Real>(y: &mut T, x: &[f64], g: &mut [T]) {
            let d = x.len();
            let xc = vec![T::zero(); d];
            let ys = ::std::vec![T::zero(); d];
            for j in 0..xc.len() { xc[j] += x[j]; ys[j] += identity(xc[j]); }
            h(g, ys[1..d]);
            for j in 0..d { y += square(ys[j]); }
            for j in 0..d { ys[j] -= identity(xc[j]); xc[j] -= x[j]; }
            dealloc!(xc = vec![T::zero(); d], ys = ::std::vec![T::zero(); d]);
            dealloc!(d = x.len());
        }";
        assert_eq!(local(src), ["xc", "ys"]);
    }

    #[test]
    fn a_vector_named_whole_or_typed_is_not() {
        // handed whole to a call, pushed whole, given a type
        let src = "fn f<T: Real>(y: &mut T, s: &mut Vec<Vec<T>>, n: usize) {
            let a = vec![T::zero(); n];
            let b = vec![T::zero(); n];
            let c: Vec<T> = vec![T::zero(); n];
            h(y, a);
            push!(s, b);
            c[0] += identity(y);
            c[0] -= identity(y);
            dealloc!(c = vec![T::zero(); n]);
            pop!(s, b);
            uncall!(h(y, a));
            dealloc!(a = vec![T::zero(); n], b = vec![T::zero(); n]);
        }";
        assert!(local(src).is_empty(), "{:?}", local(src));
    }
}
