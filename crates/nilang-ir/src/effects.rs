//! Which places statements may write, seen through the calls they make.
//!
//! An instruction writes its target; a call `g(x, y)` may write its `&mut` arguments, and
//! whether it does is a fact about `g`'s body, which the macro expanding the caller cannot
//! see. So every reversible free function `g` publishes its effects as a constant of its
//! own: `g::WRITES` (see [`WRITES`]; `g` is the struct that carries the function's companions,
//! [`crate::companions`]), one bit per parameter, set when `g`'s body may write
//! that parameter — directly, or by handing it to a callee whose bit for that argument is
//! set. A caller reads a callee's bits in a constant expression, so that a routine whose
//! computation hands read-only data to a call (`P` computing ancillas from parameters through
//! a function) is still known, at compile time, to write only ancillas.
//!
//! A callee whose effects cannot be named by path — a method, a path with a `Self` or type
//! segment, a qualified path, the function itself (recursion) — counts as writing every
//! argument it is handed, as before effects existed.

use crate::ast::*;
use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

/// The name of the associated constant that holds a function's effects: `g::WRITES`, of
/// type `u128`, bit `k` set when `g` may write its parameter `k` (parameters from 128 on are
/// assumed written).
pub const WRITES: &str = "WRITES";

/// A root that statements may write, and when.
#[derive(Clone, Debug)]
pub struct Write {
    /// The variable.
    pub root: String,
    /// `None`: written by an instruction, builtin or stack operation (or handed to a callee
    /// whose effects are unknown). `Some((g, k))`: handed to `g` as argument `k`, written
    /// when `g` writes its parameter `k`.
    pub through: Option<(syn::Path, usize)>,
}

/// The writes of some statements, recursively (a routine's uncomputation writes what its
/// computation does), inside the function `own` (whose calls of itself count as writing
/// every argument).
pub fn writes(stmts: &[Stmt], own: &Ident) -> Vec<Write> {
    let mut out = Vec::new();
    stmts.iter().for_each(|s| stmt_writes(s, own, &mut out));
    out
}

fn stmt_writes(s: &Stmt, own: &Ident, out: &mut Vec<Write>) {
    let mut direct = |v: &Dataview| {
        out.push(Write {
            root: v.root.to_string(),
            through: None,
        })
    };
    match &s.kind {
        StmtKind::Instr(i) => direct(&i.target),
        StmtKind::XorExpr { target, .. } => direct(target),
        StmtKind::Builtin { args, .. } => args.iter().for_each(direct),
        StmtKind::Stack { stack, value, .. } => {
            direct(stack);
            direct(value);
        }
        StmtKind::Fields(f) => f.names().into_iter().for_each(|n| direct(&Dataview::of(n))),
        StmtKind::Call { call, .. } => {
            let path = effects_path(&call.callee, own);
            for (k, a) in call.args.iter().enumerate() {
                if let CallArg::View(v) = a {
                    out.push(Write {
                        root: v.root.to_string(),
                        through: path.clone().map(|p| (p, k)),
                    });
                }
            }
        }
        _ => s
            .blocks()
            .into_iter()
            .flatten()
            .for_each(|s| stmt_writes(s, own, out)),
    }
}

/// The path under which a callee's effects are published (`m::g` for `m::g::<T>`), or
/// `None` when they are not known (see the module's documentation).
pub fn effects_path(callee: &Callee, own: &Ident) -> Option<syn::Path> {
    let Callee::Path(p) = callee else {
        return None;
    };
    let segments = &p.path.segments;
    let recursive = segments.len() == 1 && &segments[0].ident == own;
    if recursive || !crate::companions::names_free_function(p) {
        return None;
    }
    let mut path = p.path.clone();
    path.segments
        .iter_mut()
        .for_each(|s| s.arguments = syn::PathArguments::None);
    Some(path)
}

/// Whether some statements write only allowed variables.
#[derive(Clone, Debug)]
pub enum Only {
    /// They may write another variable.
    No,
    /// They write no other variable.
    Yes,
    /// They write no other variable unless one of these callees writes its argument `k`
    /// (decided at compile time from the callees' [`WRITES`]).
    UnlessCalls(Vec<(syn::Path, usize)>),
}

impl Only {
    /// Do `writes` touch only the roots in `allowed`?
    pub fn of(writes: &[Write], allowed: &[String]) -> Only {
        let mut calls = Vec::new();
        for w in writes.iter().filter(|w| !allowed.contains(&w.root)) {
            match &w.through {
                None => return Only::No,
                Some(c) => calls.push(c.clone()),
            }
        }
        if calls.is_empty() {
            Only::Yes
        } else {
            Only::UnlessCalls(calls)
        }
    }

    /// Is the answer yes whatever the callees do?
    pub fn always(&self) -> bool {
        matches!(self, Only::Yes)
    }

    /// For [`Only::UnlessCalls`], a constant boolean expression, in the function's scope,
    /// that holds when none of the callees writes its argument (`private` is the path of the
    /// runtime's `writes` helper's module); `None` for [`Only::Yes`] and [`Only::No`], which
    /// need no condition.
    pub fn callees_condition(&self, private: &TokenStream) -> Option<TokenStream> {
        let Only::UnlessCalls(calls) = self else {
            return None;
        };
        let writes = calls
            .iter()
            .map(|(g, k)| quote!(#private::writes(#g::WRITES, #k)));
        Some(quote!(!(false #(|| #writes)*)))
    }
}

/// The effects constant of a function whose body makes the `writes` ([`writes`] of its body,
/// [`crate::Analyzed::writes`]): a constant `u128` expression, in the function's scope, with
/// bit `k` set when the body may write parameter `k`.
pub fn writes_mask(f: &Function, writes: &[Write], private: &TokenStream) -> TokenStream {
    let bits = writes.iter().filter_map(|w| {
        let k = f.params.iter().position(|p| p.name == w.root)?;
        if k >= 128 {
            return None;
        }
        Some(match &w.through {
            None => quote!((1u128 << #k)),
            Some((g, arg)) => {
                quote!((if #private::writes(#g::WRITES, #arg) { 1u128 << #k } else { 0 }))
            }
        })
    });
    quote!(0u128 #(| #bits)*)
}
