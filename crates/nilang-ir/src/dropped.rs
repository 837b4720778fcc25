//! Gradients that an ancilla's allocation would drop.
//!
//! `let x = *y; z += x; dealloc!(x = *y);` is a correct reversible program, but its gradient
//! is wrong: in the adjoint program the allocation `let x = *y` runs backwards as a
//! deallocation, and the gradient that flowed into `x` (here `z̄`) belongs to `y` — yet a
//! deallocation only checks a value, it cannot hand a gradient back through an expression.
//! NiLang drops it silently. We reject it: an ancilla whose declared value reads a
//! differentiable variable may not receive a gradient. The fix is to allocate the ancilla as
//! a constant and copy with an instruction (`let x = T::zero(); x += identity(y);` …
//! `x -= identity(y); dealloc!(x = T::zero());`), whose adjoint moves the gradient to `y`.
//!
//! *Differentiable* variables are the `&mut` parameters whose type holds the scalar type,
//! and ancillas that hold such values: declared from one, declared with a value or type that
//! names the scalar type (`T::zero()`), or written by an instruction or `swap` from one. An
//! ancilla *receives a gradient* when it is read by an instruction whose target is
//! differentiable, swapped or rotated with a differentiable place, or handed to a call beside
//! one. What calls return (`x.len()`, `T::lit(max(x))`, `Centroids::of(c, d)`) is not a value
//! read: [`value_reads`]. Cases this static rule
//! cannot see (a value made differentiable by a call) are caught at run time in checked
//! adjoint programs: a deallocated ancilla whose declared value reads a writable variable
//! must carry a zero gradient (`nilang::CheckKind::DroppedGradient`).

use crate::ast::*;
use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use std::collections::BTreeSet;
use syn::Ident;

/// The variables an expression reads *as its value*: the roots of its places (`y`, `*y`,
/// `x[i]`, `p.re`, `y.clone()`) and of arithmetic on them. Not counted: path segments
/// (`T::zero`), field and method names, the receivers and arguments of calls (`x.len()`,
/// `Centroids::of(c, d)`: their results are other values). The static rule uses these.
pub fn value_reads(e: &impl ToTokens) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    collect_reads(e.to_token_stream(), Reads::Value, &mut out);
    out
}

/// Every variable an expression mentions, through calls too (`f(y)`, `y.sin()`), except the
/// receivers of `.len()`, `.is_empty()`, `.zero_like()` and `.additive_zero()` (shapes) and what `T::lit(…)` reads
/// (a constant by declaration: it passes through an `f64`, which carries no gradient). The
/// run-time check uses these: it fails only where a gradient is really left.
pub fn all_reads(e: &impl ToTokens) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    collect_reads(e.to_token_stream(), Reads::All, &mut out);
    out
}

/// Which reads [`collect_reads`] collects.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reads {
    /// [`value_reads`]
    Value,
    /// [`all_reads`]
    All,
}

fn collect_reads(ts: TokenStream, which: Reads, out: &mut BTreeSet<String>) {
    let tokens: Vec<TokenTree> = ts.into_iter().collect();
    let punct =
        |k: usize, c: char| matches!(tokens.get(k), Some(TokenTree::Punct(p)) if p.as_char() == c);
    let ident = |k: usize, names: &[&str]| matches!(tokens.get(k), Some(TokenTree::Ident(i)) if names.is_empty() || names.iter().any(|n| i == n));
    let parens = |k: usize| matches!(tokens.get(k), Some(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Parenthesis);
    let method = |k: usize| punct(k + 1, '.') && parens(k + 3);
    // the receiver of a method whose result is not the receiver's value
    let receiver = |k: usize| match which {
        Reads::Value => method(k) && !ident(k + 2, &["clone"]),
        Reads::All => method(k) && ident(k + 2, &["len", "is_empty", "zero_like", "additive_zero"]),
    };
    // the arguments of a call (`f(…)`, `f::<T>(…)`, `x.m(…)`)
    let arguments = |k: usize| {
        k >= 1
            && parens(k)
            && match which {
                Reads::Value => ident(k - 1, &[]) || punct(k - 1, '>'),
                Reads::All => ident(k - 1, &["lit"]),
            }
    };
    for (k, t) in tokens.iter().enumerate() {
        match t {
            TokenTree::Group(_) if arguments(k) || receiver(k) => {}
            TokenTree::Group(g) => collect_reads(g.stream(), which, out),
            TokenTree::Ident(i) => {
                let after_path = k >= 2 && punct(k - 1, ':') && punct(k - 2, ':');
                let after_dot = k >= 1 && punct(k - 1, '.');
                let before_path = punct(k + 1, ':') && punct(k + 2, ':');
                let called = parens(k + 1) || punct(k + 1, '!');
                let keyword =
                    ["_", "as", "use", "true", "false", "self", "Self"].contains(&&*i.to_string());
                if !(after_path || after_dot || before_path || receiver(k) || called || keyword) {
                    out.insert(i.to_string());
                }
            }
            _ => {}
        }
    }
}

/// Does a type or expression name `id` anywhere (`T::zero()`, `Vec<T>`)?
fn mentions(e: &impl ToTokens, id: &Ident) -> bool {
    fn walk(ts: TokenStream, id: &Ident) -> bool {
        ts.into_iter().any(|t| match t {
            TokenTree::Ident(i) => &i == id,
            TokenTree::Group(g) => walk(g.stream(), id),
            _ => false,
        })
    }
    walk(e.to_token_stream(), id)
}

/// One rejected allocation: the ancilla, the differentiable variable its value reads, and
/// where to point.
#[derive(Clone, Debug)]
pub struct DroppedGradient {
    /// The ancilla.
    pub ancilla: Ident,
    /// A differentiable variable its declared value reads.
    pub source: String,
    /// The declared value.
    pub value: syn::Expr,
}

impl DroppedGradient {
    /// The compile error, at the declared value, saying how to restructure.
    pub fn to_error(&self, scalar: &Ident) -> syn::Error {
        let (x, y) = (&self.ancilla, &self.source);
        let copied = crate::text::expr_text(&self.value);
        let copied = copied.trim_start_matches('*').trim();
        syn::Error::new_spanned(
            &self.value,
            format!(
                "ancilla `{x}` starts as a value read from the differentiable `{y}` and receives a \
                 gradient, which its allocation would drop (the gradient with respect to `{y}` \
                 would be silently wrong)\n\
                 help: allocate it as a constant and copy with an instruction, whose adjoint moves \
                 the gradient to `{y}`: `let {x} = {scalar}::zero(); {x} += identity({copied});` … \
                 `{x} -= identity({copied}); dealloc!({x} = {scalar}::zero());` (or mark the function \
                 `#[i(nograd)]` if it is never differentiated)"
            ),
        )
    }
}

/// The allocations of `body` that would drop a gradient, for a function whose differentiable
/// parameters are `params` and whose scalar type is `scalar` (see the module doc).
pub fn dropped_gradients(body: &[Stmt], params: &[String], scalar: &Ident) -> Vec<DroppedGradient> {
    let mut allocs = Vec::new();
    collect_allocations(body, &mut allocs);
    let diff = differentiable(body, params, scalar, &allocs);
    let mut receivers = BTreeSet::new();
    body.iter()
        .for_each(|s| gradient_receivers(s, &diff, &mut receivers));
    allocs
        .into_iter()
        .filter(|b| receivers.contains(&b.name.to_string()))
        .filter_map(|b| {
            let source = value_reads(&b.value)
                .into_iter()
                .find(|r| diff.contains(r))?;
            Some(DroppedGradient {
                ancilla: b.name.clone(),
                source,
                value: b.value.clone(),
            })
        })
        .collect()
}

/// Every `let` binding of a body, at any depth.
fn collect_allocations(body: &[Stmt], out: &mut Vec<Binding>) {
    for s in body {
        if let StmtKind::Alloc(bs) = &s.kind {
            out.extend(bs.iter().cloned());
        }
        s.blocks()
            .into_iter()
            .for_each(|b| collect_allocations(b, out));
    }
}

/// The differentiable variables (module doc), by name, to a fixed point.
fn differentiable(
    body: &[Stmt],
    params: &[String],
    scalar: &Ident,
    allocs: &[Binding],
) -> BTreeSet<String> {
    let mut diff: BTreeSet<String> = params.iter().cloned().collect();
    loop {
        let before = diff.len();
        for b in allocs {
            let names_scalar =
                mentions(&b.value, scalar) || b.ty.as_ref().is_some_and(|t| mentions(t, scalar));
            if names_scalar || value_reads(&b.value).iter().any(|r| diff.contains(r)) {
                diff.insert(b.name.to_string());
            }
        }
        body.iter().for_each(|s| written_from(s, &mut diff));
        if diff.len() == before {
            return diff;
        }
    }
}

/// Adds the targets of instructions and swaps that read a differentiable place.
fn written_from(s: &Stmt, diff: &mut BTreeSet<String>) {
    let is_diff = |v: &Dataview, diff: &BTreeSet<String>| diff.contains(&v.root.to_string());
    match &s.kind {
        StmtKind::Instr(i) => {
            let reads_diff = i
                .args
                .iter()
                .any(|a| matches!(a, Operand::View(v) if is_diff(v, diff)));
            if reads_diff {
                diff.insert(i.target.root.to_string());
            }
        }
        StmtKind::Builtin {
            op: BuiltinOp::Swap | BuiltinOp::Hadamard,
            args,
            ..
        } => {
            if args.iter().any(|v| is_diff(v, diff)) {
                args.iter().for_each(|v| {
                    diff.insert(v.root.to_string());
                });
            }
        }
        _ => s
            .blocks()
            .into_iter()
            .flatten()
            .for_each(|s| written_from(s, diff)),
    }
}

/// Adds the variables that may receive a gradient in the adjoint program (module doc).
fn gradient_receivers(s: &Stmt, diff: &BTreeSet<String>, out: &mut BTreeSet<String>) {
    let is_diff = |v: &Dataview| diff.contains(&v.root.to_string());
    let mut add = |v: &Dataview| {
        out.insert(v.root.to_string());
    };
    match &s.kind {
        StmtKind::Instr(i) if is_diff(&i.target) => i.args.iter().for_each(|a| {
            if let Operand::View(v) = a {
                add(v)
            }
        }),
        StmtKind::Builtin {
            op: BuiltinOp::Swap | BuiltinOp::Rot | BuiltinOp::IRot | BuiltinOp::Hadamard,
            args,
            operand,
        } if args.iter().any(is_diff) => {
            args.iter().for_each(&mut add);
            if let Some(Operand::View(v)) = operand {
                add(v)
            }
        }
        StmtKind::Call { call, .. } => {
            let views: Vec<&Dataview> = call
                .args
                .iter()
                .filter_map(|a| match a {
                    CallArg::View(v) => Some(v),
                    _ => None,
                })
                .collect();
            if views.iter().any(|v| is_diff(v)) {
                views.into_iter().for_each(add);
            }
        }
        _ => s
            .blocks()
            .into_iter()
            .flatten()
            .for_each(|s| gradient_receivers(s, diff, out)),
    }
}
