//! Indices whose bounds checks can be hoisted out of a `for` loop.
//!
//! In `for i in a..b { … x[e] … }`, an index `e` that is a non-decreasing affine function of
//! `i` (`i`, `i + c`, `c + i`, `i - c`, `c * i`, `c * i + d`, … with `c`, `d` not changed by
//! the loop; or no function of `i` at all) lies between its values at the first and the last
//! iteration. When both are in range of `x` — checked once before the loop — every access in
//! the loop is, provided `x` keeps its length: it is declared before the loop and the loop
//! never hands it to a call, a method or a stack operation, never swaps or moves it whole, and
//! runs no `safe!` block. Code generation then indexes without checks, which lets the compiler
//! vectorise the loop.
//!
//! What the unchecked access relies on, and where each is made sure of (ARCHITECTURE.md,
//! "Soundness"):
//!
//! - *The index the check saw is the index the loop uses.* The loop-invariant parts `c`, `d`
//!   are evaluated once, before the loop, into locals ([`Hoisting::lets`]); check and access
//!   both compute [`Hoisted::unchecked`], the index over those locals and the loop variable,
//!   with `+ - *` only. Names mean one binding each ([`crate::names`]), so the loop variable in
//!   it is the loop's.
//! - *Only accesses that run in every iteration are hoisted* (not those under an `if`, a
//!   `while` or an inner loop, whose index may leave the range where they do not run: `if
//!   i > 0 { y[i - 1] … }`); the same access elsewhere in the body is covered by the check.
//! - *The length checked is the length indexed*: generated code reaches the place through
//!   `nilang::__private::hoist`, which indexes without checks only slices, arrays, `Vec`s and
//!   boxed slices (measured and indexed without user code) and any other type with its own,
//!   checked, `Index`.

use crate::ast::*;
use crate::scope::Scope;
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::{BinOp, Expr, Ident};

/// An index access `root[index]` (the first access of a dataview) that a loop may do without
/// bounds checks once [`checked_index`] of [`Hoisted::unchecked`] is in range at its first and
/// last iteration.
#[derive(Clone, Debug)]
pub struct Hoisted {
    /// The indexed variable.
    pub root: Ident,
    /// The index expression, as written (what [`Hoisted::matches`] compares).
    pub index: Expr,
    /// The index the loop computes: `index` with its loop-invariant parts replaced by the
    /// locals of [`Hoisting::lets`].
    pub unchecked: Expr,
}

/// What a loop hoists: the accesses, and the locals their invariant parts are bound to before
/// the loop (each name made by the caller, unique in the function).
#[derive(Clone, Debug, Default)]
pub struct Hoisting {
    /// The accesses done without checks.
    pub hoisted: Vec<Hoisted>,
    /// `let name = part;` before the loop, in order.
    pub lets: Vec<(Ident, Expr)>,
}

impl Hoisted {
    /// Whether a dataview starts with this access.
    pub fn matches(&self, v: &Dataview) -> bool {
        v.root == self.root
            && matches!(v.path.first(), Some(Access::Index(e)) if same(e, &self.index))
    }
}

fn same(a: &Expr, b: &Expr) -> bool {
    a.to_token_stream().to_string() == b.to_token_stream().to_string()
}

/// The indices of a loop body over `var` whose checks can be hoisted (see the module doc);
/// `scope` is the scope at the loop (without `var`); `local` names each local of
/// [`Hoisting::lets`]. Nothing for a loop with a step.
pub fn hoistable(
    var: &Ident,
    range: &RangeSpec,
    body: &[Stmt],
    outer: &Scope,
    local: &mut dyn FnMut() -> Ident,
) -> Hoisting {
    let scope = outer;
    let mut out = Hoisting::default();
    if range.step.is_some() || body.iter().any(has_safe) {
        return out;
    }
    let mut views = Vec::new();
    body.iter().for_each(|s| collect_views(s, var, &mut views));
    let mut moved = Vec::new();
    body.iter().for_each(|s| collect_resizable(s, &mut moved));
    // names bound inside the body (ancillas, inner loop variables) change from one iteration
    // to the next: they are not invariant even where the scope at the loop does not know them
    let mut inner = moved.clone();
    body.iter().for_each(|s| collect_bound(s, &mut inner));
    // (the function's own name only tells how its recursive calls write: every root handed to
    // any call counts as written here)
    let own = Ident::new("__nilang_loop", proc_macro2::Span::call_site());
    let written = crate::effects::writes(body, &own)
        .into_iter()
        .map(|w| w.root)
        .collect();
    let scope = &Invariants {
        scope,
        inner,
        written,
    };
    for v in views {
        let Some(Access::Index(index)) = v.path.first() else {
            continue;
        };
        let declared_before = outer.lookup(&v.root).is_some();
        let keeps_length = !moved.contains(&v.root.to_string());
        if declared_before
            && keeps_length
            && (affine(index, var, scope) || invariant(index, var, scope))
            && !out.hoisted.iter().any(|h| h.matches(v))
        {
            let unchecked = over_locals(index, var, scope, &mut out.lets, local);
            out.hoisted.push(Hoisted {
                root: v.root.clone(),
                index: index.clone(),
                unchecked,
            });
        }
    }
    out
}

/// Names `__hoisted1`, `__hoisted2`, … for [`hoistable`]'s locals, for a caller that emits
/// one loop (generators number them across the function instead).
pub fn numbered_locals() -> impl FnMut() -> Ident {
    let mut n = 0usize;
    move || {
        n += 1;
        quote::format_ident!("__hoisted{}", n)
    }
}

/// An affine or invariant index with each maximal invariant part that is not a literal
/// replaced by a new local (`lets`): `d * i + idx[2]` becomes `__h1 * i + __h2`.
fn over_locals(
    e: &Expr,
    var: &Ident,
    scope: &Invariants,
    lets: &mut Vec<(Ident, Expr)>,
    local: &mut dyn FnMut() -> Ident,
) -> Expr {
    match e {
        Expr::Lit(_) => e.clone(),
        _ if invariant(e, var, scope) => {
            let name = local();
            lets.push((name.clone(), e.clone()));
            syn::parse_quote!(#name)
        }
        Expr::Paren(p) => {
            let inner = over_locals(&p.expr, var, scope, lets, local);
            syn::parse_quote!((#inner))
        }
        Expr::Binary(b) => {
            let (l, r) = (
                over_locals(&b.left, var, scope, lets, local),
                over_locals(&b.right, var, scope, lets, local),
            );
            let op = &b.op;
            syn::parse_quote!(#l #op #r)
        }
        // the loop variable
        _ => e.clone(),
    }
}

/// `Option<usize>`-valued code for an affine index at the current value of the loop variable,
/// with checked arithmetic (`None` on overflow).
pub fn checked_index(e: &Expr, var: &Ident) -> TokenStream {
    match e {
        Expr::Paren(p) => checked_index(&p.expr, var),
        Expr::Binary(b) if mentions(e, var) => {
            let (l, r) = (checked_index(&b.left, var), checked_index(&b.right, var));
            let op = match b.op {
                BinOp::Add(_) => quote!(checked_add),
                BinOp::Sub(_) => quote!(checked_sub),
                _ => quote!(checked_mul),
            };
            quote!(match (#l, #r) {
                (::core::option::Option::Some(__a), ::core::option::Option::Some(__b)) => __a.#op(__b),
                _ => ::core::option::Option::None,
            })
        }
        // an index is a `usize`, and so is every part of an affine one
        _ => quote!(::core::option::Option::<usize>::Some(#e)),
    }
}

/// Is `e` a non-decreasing affine function of `var` with loop-invariant coefficients?
fn affine(e: &Expr, var: &Ident, scope: &Invariants) -> bool {
    match e {
        Expr::Paren(p) => affine(&p.expr, var, scope),
        Expr::Path(p) => p.path.is_ident(var),
        Expr::Binary(b) => match b.op {
            BinOp::Add(_) | BinOp::Mul(_) => {
                (affine(&b.left, var, scope) && invariant(&b.right, var, scope))
                    || (invariant(&b.left, var, scope) && affine(&b.right, var, scope))
            }
            BinOp::Sub(_) => affine(&b.left, var, scope) && invariant(&b.right, var, scope),
            _ => false,
        },
        _ => false,
    }
}

/// Is `e` built from literals and names the loop cannot change (read-only parameters,
/// enclosing loop variables, constants, variables the body does not write) with `+ - * / %`,
/// fields, indexing, casts and `len()`?
fn invariant(e: &Expr, var: &Ident, scope: &Invariants) -> bool {
    match e {
        Expr::Lit(_) => true,
        Expr::Paren(p) => invariant(&p.expr, var, scope),
        Expr::Path(p) => match p.path.get_ident() {
            Some(id) if id == var || scope.inner.contains(&id.to_string()) => false,
            Some(id) => {
                scope.scope.lookup(id).is_none_or(|k| !k.writable())
                    || !scope.written.contains(&id.to_string())
            }
            None => true,
        },
        Expr::Binary(b) => {
            matches!(
                b.op,
                BinOp::Add(_) | BinOp::Sub(_) | BinOp::Mul(_) | BinOp::Div(_) | BinOp::Rem(_)
            ) && invariant(&b.left, var, scope)
                && invariant(&b.right, var, scope)
        }
        // a field or an element of something the loop cannot change (`PAIRS[p].0`, `idx[j]`
        // of a read-only parameter, `dims.n`)
        Expr::Field(f) => invariant(&f.base, var, scope),
        Expr::Cast(c) => invariant(&c.expr, var, scope),
        // the length of something the loop cannot resize
        Expr::MethodCall(m) if m.method == "len" && m.args.is_empty() => {
            keeps_length(&m.receiver, var, scope) || invariant(&m.receiver, var, scope)
        }
        Expr::Index(ix) => invariant(&ix.expr, var, scope) && invariant(&ix.index, var, scope),
        _ => false,
    }
}

/// Is `e` a variable whose length the loop cannot change (one it does not bind, resize, swap
/// whole or hand to a call or stack; writing its elements keeps the length)?
fn keeps_length(e: &Expr, var: &Ident, scope: &Invariants) -> bool {
    match e {
        Expr::Paren(p) => keeps_length(&p.expr, var, scope),
        Expr::Path(p) => p
            .path
            .get_ident()
            .is_some_and(|id| id != var && !scope.inner.contains(&id.to_string())),
        _ => false,
    }
}

/// What a loop body cannot change: the scope at the loop, less the names bound or handed
/// to calls and stacks inside it (`inner`); a writable variable is unchanged when the body
/// never writes it (`written`: the roots its statements write).
struct Invariants<'s> {
    scope: &'s Scope,
    inner: Vec<String>,
    written: Vec<String>,
}

/// The names a body binds: ancillas and loop variables, at any depth.
fn collect_bound(s: &Stmt, out: &mut Vec<String>) {
    match &s.kind {
        StmtKind::Alloc(b) => out.extend(b.iter().map(|b| b.name.to_string())),
        StmtKind::Fields(f) => out.extend(f.created().into_iter().map(|n| n.to_string())),
        StmtKind::For { var, .. } => out.push(var.to_string()),
        _ => {}
    }
    s.blocks()
        .into_iter()
        .flatten()
        .for_each(|s| collect_bound(s, out));
}

fn mentions(e: &Expr, var: &Ident) -> bool {
    fn walk(ts: TokenStream, var: &Ident) -> bool {
        ts.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => &i == var,
            proc_macro2::TokenTree::Group(g) => walk(g.stream(), var),
            _ => false,
        })
    }
    walk(e.to_token_stream(), var)
}

/// Does a statement (recursively) hold a `safe!` block?
pub fn has_safe(s: &Stmt) -> bool {
    matches!(s.kind, StmtKind::Safe(_)) || s.blocks().into_iter().flatten().any(has_safe)
}

/// The dataviews that statements run in every iteration read or write: not those under an
/// `if`, a `while` or an inner loop.
fn collect_views<'a>(s: &'a Stmt, var: &Ident, out: &mut Vec<&'a Dataview>) {
    match &s.kind {
        StmtKind::Instr(i) => {
            out.push(&i.target);
            out.extend(i.args.iter().filter_map(|a| match a {
                Operand::View(v) => Some(v),
                Operand::Const(_) => None,
            }));
        }
        StmtKind::Builtin { args, operand, .. } => {
            out.extend(args);
            if let Some(Operand::View(v)) = operand {
                out.push(v);
            }
        }
        StmtKind::If { .. } | StmtKind::While { .. } | StmtKind::For { .. } => {}
        _ => s
            .blocks()
            .into_iter()
            .flatten()
            .for_each(|s| collect_views(s, var, out)),
    }
}

/// The variables a body might resize or replace: stacks, whole variables moved by stack
/// operations, swapped, or moved by a constructor or destructor, what calls are handed or
/// name, and names it allocates.
fn collect_resizable(s: &Stmt, out: &mut Vec<String>) {
    match &s.kind {
        StmtKind::Stack { stack, value, .. } => {
            out.push(stack.root.to_string());
            if value.path.is_empty() {
                out.push(value.root.to_string());
            }
        }
        // a call may resize what it is handed, its receiver, and anything its arguments by
        // value or by `&` name (they are evaluated as plain Rust: `rows.at(i)`)
        StmtKind::Call { call, .. } => {
            let mut names = std::collections::BTreeSet::new();
            for a in &call.args {
                match a {
                    CallArg::View(v) => {
                        names.insert(v.root.to_string());
                    }
                    CallArg::Value(e) | CallArg::Shared(e) if crate::names::may_change(e) => {
                        crate::names::identifiers(e.to_token_stream(), &mut names)
                    }
                    CallArg::Value(_) | CallArg::Shared(_) => {}
                }
            }
            if let Callee::Method { receiver, .. } = &call.callee {
                crate::names::identifiers(receiver.to_token_stream(), &mut names);
            }
            out.extend(names);
        }
        StmtKind::Alloc(b) => out.extend(b.iter().map(|b| b.name.to_string())),
        // a constructor or destructor moves whole values
        StmtKind::Fields(f) => out.extend(f.names().into_iter().map(|n| n.to_string())),
        // a whole variable swapped or rotated with another may change its length
        StmtKind::Builtin { args, .. } => out.extend(
            args.iter()
                .filter(|v| v.path.is_empty())
                .map(|v| v.root.to_string()),
        ),
        _ => s
            .blocks()
            .into_iter()
            .flatten()
            .for_each(|s| collect_resizable(s, out)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{lower, Options};

    /// The hoisted indices (as text) of the first `for` loop of a function body.
    fn hoisted_of(item: syn::ItemFn) -> Vec<String> {
        let f = lower(&Options::default(), item).unwrap();
        let mut scope = Scope::for_function(&f);
        scope.push();
        for s in &f.body {
            match &s.kind {
                StmtKind::Alloc(b) => b
                    .iter()
                    .for_each(|b| scope.declare(&b.name, crate::scope::VarKind::Ancilla)),
                StmtKind::For { var, range, body } => {
                    return hoistable(var, range, body, &scope, &mut numbered_locals())
                        .hoisted
                        .iter()
                        .map(|h| format!("{}[{}]", h.root, h.index.to_token_stream()))
                        .collect();
                }
                _ => {}
            }
        }
        panic!("no loop")
    }

    #[test]
    fn affine_indices_of_the_loop_variable_are_hoisted() {
        let h = hoisted_of(syn::parse_quote! {
            fn f<T: Real>(y: &mut [T], x: &[T], d: usize) {
                for i in 0..y.len() {
                    y[i] += x[d * i + 1];
                    y[i + d] += x[(i - 1) * 2];
                }
            }
        });
        assert_eq!(h, ["y[i]", "x[d * i + 1]", "y[i + d]", "x[(i - 1) * 2]"]);
    }

    #[test]
    fn fields_and_elements_of_invariant_places_are_invariant() {
        // a pair table indexed by an outer loop variable, a read-only index slice, a field
        let h = hoisted_of(syn::parse_quote! {
            fn f<T: Real>(y: &mut [T], x: &[T], idx: &[usize], k: usize) {
                for c in 0..k {
                    y[PAIRS[3].0 * k + c] += x[idx[2] * k + c];
                    y[c] += x[DIMS.n + c];
                }
            }
        });
        assert_eq!(
            h,
            [
                "y[PAIRS [3] . 0 * k + c]",
                "x[idx [2] * k + c]",
                "y[c]",
                "x[DIMS . n + c]"
            ]
        );
    }

    #[test]
    fn indices_that_do_not_change_in_the_loop_are_hoisted() {
        let h = hoisted_of(syn::parse_quote! {
            fn f<T: Real>(y: &mut [T], x: &[T], m: &Model, k: usize) {
                for c in 0..k {
                    y[k] += x[x.len() + c];
                    y[2 * k + 1] += x[m.parents[k] as usize];
                }
            }
        });
        assert_eq!(
            h,
            [
                "y[k]",
                "x[x . len () + c]",
                "y[2 * k + 1]",
                "x[m . parents [k] as usize]"
            ]
        );
    }

    #[test]
    fn variables_the_loop_does_not_write_are_invariant() {
        // a writable offset that the loop leaves alone, a length of a slice whose elements it
        // writes, a remainder
        let h = hoisted_of(syn::parse_quote! {
            fn f<T: Real>(y: &mut [T], x: &mut [T], s: &mut usize, l: usize) {
                let base = 3;
                for c in 0..l {
                    y[base + c] += x[y.len() + c];
                    x[2 * c + 1 - l % 2] += 1.0;
                }
                dealloc!(base = 3);
            }
        });
        assert_eq!(
            h,
            ["y[base + c]", "x[y . len () + c]", "x[2 * c + 1 - l % 2]"]
        );
        // the same offset written in the loop is not
        let h = hoisted_of(syn::parse_quote! {
            fn f<T: Real>(y: &mut [T], l: usize) {
                let base = 3;
                for c in 0..l {
                    y[base + c] += 1.0;
                    base += 1;
                }
                base -= l;
                dealloc!(base = 3);
            }
        });
        assert!(h.is_empty(), "{h:?}");
    }

    #[test]
    fn elements_of_places_the_loop_writes_are_not_invariant() {
        let h = hoisted_of(syn::parse_quote! {
            fn f<T: Real>(y: &mut [T], x: &[T], idx: &mut [usize], k: usize) {
                for c in 0..k {
                    y[c] += x[idx[2] * k + c];
                    y[c] += x[idx[c] + 1];
                    idx[2] += 1;
                }
            }
        });
        assert_eq!(h, ["y[c]", "idx[2]"]);
    }

    #[test]
    fn indices_the_loop_changes_are_not_hoisted() {
        // a decreasing index, an inner loop variable, a writable index, a resized stack
        let h = hoisted_of(syn::parse_quote! {
            fn f<T: Real>(y: &mut [T], x: &[T], k: &mut usize, s: &mut Vec<T>) {
                for i in 0..y.len() {
                    y[i] += x[10 - i];
                    for j in 0..3 {
                        y[i + j] += x[j];
                    }
                    y[i] += x[*k + i];
                    s[i] += x[i];
                    push!(s, y[i]);
                }
            }
        });
        // (`x[j]` is the inner loop's to hoist)
        assert_eq!(h, ["y[i]", "x[i]"]);
    }

    #[test]
    fn what_a_call_takes_by_value_keeps_its_checks_only_if_it_may_change_something() {
        // `2 * k` and `&x[0..1]` cannot change `k` or `x`; `rows.at(k)` may change `rows`
        // and, as far as names go, `k`
        let h = hoisted_of(syn::parse_quote! {
            fn f<T: Real>(y: &mut [T], x: &[T], z: &mut [T], k: usize) {
                for c in 0..k {
                    y[c * k] += x[c];
                    g(z[0], 2 * k, &x[0..1]);
                }
            }
        });
        assert_eq!(h, ["y[c * k]", "x[c]"]);
        let h = hoisted_of(syn::parse_quote! {
            fn f<T: Real>(y: &mut [T], x: &[T], z: &mut [T], rows: &mut Rows, k: usize) {
                for c in 0..k {
                    y[c * k] += x[c];
                    h(z[0], rows.at(k));
                }
            }
        });
        assert_eq!(h, ["x[c]"]);
    }

    #[test]
    fn loops_with_a_step_or_safe_code_hoist_nothing() {
        let stepped = hoisted_of(syn::parse_quote! {
            fn f<T: Real>(y: &mut [T]) {
                for i in (0..y.len()).step_by(2) {
                    y[i] += 1.0;
                }
            }
        });
        let with_safe = hoisted_of(syn::parse_quote! {
            fn f<T: Real>(y: &mut [T]) {
                for i in 0..y.len() {
                    y[i] += 1.0;
                    safe! { println!("{i}"); }
                }
            }
        });
        assert!(stepped.is_empty() && with_safe.is_empty());
    }
}
