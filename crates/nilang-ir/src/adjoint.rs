//! The adjoint view: a reversible function's program run on values and their gradients.
//!
//! The adjoint program of `f` is `f`'s inverse program ([`crate::reverse`]) in which every
//! writable place `x` has a *shadow* `x_grad` of the same shape, holding the gradient of the
//! loss with respect to it, and every instruction also moves gradients to its operands. The
//! rule of each instruction is its inverse (from [`crate::reverse`]) plus the gradient update
//! printed here; the arithmetic of those updates lives in one place, the runtime's `GVar`
//! instruction traits, which the generated adjoint calls on value–gradient pairs.
//!
//! This module names the pieces of the view (shadows, adjoint functions) and holds the
//! analyses the adjoint programs ask of a body; [`crate::adjoint_view`] prints the adjoint
//! program as text (`nilang expand`, the fourth view beside forward and inverse).

use crate::ast::*;
use crate::effects::{writes, Only};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};
use syn::Ident;

/// The name of the shadow (gradient) of a parameter or ancilla: `x_grad` for `x`.
pub fn shadow_name(x: &Ident) -> Ident {
    format_ident!("{}_grad", x, span = x.span())
}

/// The names of the ancillas of a function that carry gradients: those written or read by an
/// instruction, a builtin, a stack operation or as a writable call argument, and active
/// ([`crate::activity`]). An ancilla used only in expressions (conditions, `safe!`, arguments
/// computed from it) needs no shadow, nor does one computed from constants and read-only data
/// alone: its instructions run on values.
pub fn ancillas_with_gradients(f: &Function) -> std::collections::BTreeSet<String> {
    let active = crate::activity::active(f);
    let mut out = std::collections::BTreeSet::new();
    f.body.iter().for_each(|s| {
        visit_views(s, Views::Touched, &mut |v| {
            let name = v.root.to_string();
            if active.contains(&name) {
                out.insert(name);
            }
        })
    });
    out
}

/// Which dataviews [`visit_views`] visits.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Views {
    /// Those an instruction, builtin, stack operation or call touches (written or read).
    Touched,
    /// Those a statement may write: targets (`^=` ones too), builtin and stack arguments,
    /// every variable handed to a call.
    Written,
}

/// Visits the dataviews of a statement, recursively, that `which` selects.
fn visit_views(s: &Stmt, which: Views, f: &mut dyn FnMut(&Dataview)) {
    let reads = which == Views::Touched;
    match &s.kind {
        StmtKind::Instr(i) => {
            f(&i.target);
            if reads {
                i.args.iter().for_each(|a| {
                    if let Operand::View(v) = a {
                        f(v)
                    }
                });
            }
        }
        StmtKind::XorExpr { target, .. } if !reads => f(target),
        StmtKind::Builtin { args, operand, .. } => {
            args.iter().for_each(&mut *f);
            if let (true, Some(Operand::View(v))) = (reads, operand) {
                f(v);
            }
        }
        StmtKind::Stack { stack, value, .. } => {
            f(stack);
            f(value);
        }
        // a constructor moves gradients with values: all its names have shadows or none
        StmtKind::Fields(fields) => fields.names().into_iter().for_each(|n| f(&Dataview::of(n))),
        StmtKind::Call { call, .. } => call.args.iter().for_each(|a| {
            if let CallArg::View(v) = a {
                f(v)
            }
        }),
        _ => s
            .blocks()
            .into_iter()
            .flatten()
            .for_each(|s| visit_views(s, which, f)),
    }
}

/// The adjoint program of `f`: `f_adjoint`.
pub fn adjoint_name(f: &Ident) -> Ident {
    format_ident!("{}_adjoint", f, span = f.span())
}

/// What a call of `g` becomes in an adjoint program: the inverse program's statement
/// `uncall!(g(..))` is `g`'s adjoint `g_adjoint`; a call `g(..)` runs `g` forward on values
/// and gradients, `g_adjoint_inv`.
pub fn callee_adjoint_name(g: &Ident, uncall: bool) -> Ident {
    let adjoint = adjoint_name(g);
    if uncall {
        adjoint
    } else {
        format_ident!("{}_inv", adjoint, span = g.span())
    }
}

/// The parameters of an adjoint program: each parameter of `f` followed by its gradient, of
/// the same type for a `&mut` parameter and `()` for a read-only one. With `lane = (T, G)`,
/// the gradient's type has the scalar type `T` replaced by the gradient type `G`
/// (`x_grad: &mut [G]` for `x: &mut [T]`).
pub fn shadowed_inputs(f: &Function, lane: Option<(&Ident, &Ident)>) -> Vec<TokenStream> {
    f.sig
        .inputs
        .iter()
        .flat_map(|input| {
            let shadow = match input {
                syn::FnArg::Typed(pt) => match (&*pt.pat, &*pt.ty) {
                    (syn::Pat::Ident(pi), syn::Type::Reference(r)) if r.mutability.is_some() => {
                        let shadow = shadow_name(&pi.ident);
                        let ty = match lane {
                            Some((scalar, g)) => crate::fn_params::replace_ident(
                                pt.ty.to_token_stream(),
                                scalar,
                                &g.to_token_stream(),
                            ),
                            None => pt.ty.to_token_stream(),
                        };
                        quote!(#shadow: #ty)
                    }
                    _ => quote!(_: ()),
                },
                syn::FnArg::Receiver(_) => quote!(_: ()),
            };
            [input.to_token_stream(), shadow]
        })
        .collect()
}

/// The roots a statement (recursively) may write: instruction targets, builtin and stack
/// arguments, and every variable handed to a call.
pub fn written_roots(s: &Stmt, out: &mut Vec<String>) {
    visit_views(s, Views::Written, &mut |v| out.push(v.root.to_string()));
}

/// A block of the shape `L P X ~P D`: allocations, one routine (`P`, its body `X`, and `~P`),
/// deallocations.
pub struct RoutineBlock<'a> {
    /// The allocations `L`.
    pub allocs: &'a [Stmt],
    /// The routine's computation `P`.
    pub compute: &'a [Stmt],
    /// The routine's body `X`.
    pub body: &'a [Stmt],
}

/// The `L P X ~P D` shape of a block, when it has it.
pub fn routine_block(block: &[Stmt]) -> Option<RoutineBlock<'_>> {
    let start = block
        .iter()
        .take_while(|s| matches!(s.kind, StmtKind::Alloc(_)))
        .count();
    let (routine, deallocs) = block[start..].split_first()?;
    let StmtKind::Routine { compute, body } = &routine.kind else {
        return None;
    };
    deallocs
        .iter()
        .all(|s| matches!(s.kind, StmtKind::Dealloc(_)))
        .then_some(RoutineBlock {
            allocs: &block[..start],
            compute,
            body,
        })
}

/// The names allocated at the top level of some statements.
fn allocated(stmts: &[Stmt]) -> Vec<String> {
    stmts
        .iter()
        .flat_map(|s| match &s.kind {
            StmtKind::Alloc(b) => b.iter().map(|b| b.name.to_string()).collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// The ancillas allocated by the statements right before statement `i` of a block (the
/// longest run of allocations that ends there): fresh ancillas, whose gradients are zero.
pub fn allocated_just_before(block: &[Stmt], i: usize) -> Vec<String> {
    let run = block[..i]
        .iter()
        .rev()
        .take_while(|s| matches!(s.kind, StmtKind::Alloc(_)))
        .count();
    allocated(&block[i - run..i])
}

/// In an adjoint program, a routine `P X ~P` whose computation `P` writes only fresh ancillas
/// (`fresh`, allocated right before the routine, and those `P` allocates itself) may run `P`
/// on values alone: those ancillas' gradients are zero when `P` starts and `P` does not
/// change them, so every gradient update `P` would make adds zero. `X` and `~P` still move
/// gradients. Calls in `P` count by their callees' effects ([`crate::effects`]); `own` is the
/// function the routine is in.
pub fn computes_on_values(compute: &[Stmt], fresh: &[String], own: &Ident) -> Only {
    let mut allowed = allocated(compute);
    allowed.extend_from_slice(fresh);
    Only::of(&writes(compute, own), &allowed)
}

/// The ancillas deallocated by the statements right after statement `i` of a block (the
/// longest run of deallocations that starts there): ancillas that die there.
pub fn deallocated_just_after(block: &[Stmt], i: usize) -> Vec<String> {
    block[i + 1..]
        .iter()
        .take_while(|s| matches!(s.kind, StmtKind::Dealloc(_)))
        .flat_map(|s| match &s.kind {
            StmtKind::Dealloc(b) => b.iter().map(|b| b.name.to_string()).collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// Whether a routine's uncomputation `~P` restores only ancillas that die with it — those its
/// computation `P` allocates, and `dying`, deallocated right after the routine — and runs no
/// `safe!` block: an unchecked run of the program on values (forward or inverse) may then
/// skip it, since nothing it does can be observed (`nilang expand` prints the programs as
/// written, with it). Calls in `P` count by their callees' effects ([`crate::effects`]).
pub fn uncomputation_is_dead(compute: &[Stmt], dying: &[String], own: &Ident) -> Only {
    let mut allowed = allocated(compute);
    // `~P` must not re-allocate what `P` deallocated (an ancilla from before `P`)
    let frees_only_own = compute.iter().all(|s| match &s.kind {
        StmtKind::Dealloc(b) => b.iter().all(|b| allowed.contains(&b.name.to_string())),
        _ => true,
    });
    if !frees_only_own || compute.iter().any(crate::bounds::has_safe) {
        return Only::No;
    }
    allowed.extend_from_slice(dying);
    Only::of(&writes(compute, own), &allowed)
}

/// Whether statement `i` of a block is `t -= f(x)` of one operand on a whole ancilla `t`
/// that the block deallocates as zero before anything else touches it: `t` then held exactly
/// `f(x)` (a difference is zero only between equal numbers), so an unchecked adjoint may read
/// `t` instead of evaluating `f`, for the primitives whose derivative follows from their value
/// (`nilang::Unary::derivative_from_value`: `exp`, `tanh`, `sigmoid`, `sqrt`). The statements
/// in between may only be instructions, builtins, allocations of other variables and routines
/// that do not touch `t`; checked code keeps evaluating `f`, so that the deallocation still
/// checks the program.
pub fn released_before_dealloc(block: &[Stmt], i: usize) -> bool {
    let StmtKind::Instr(instr) = &block[i].kind else {
        return false;
    };
    releasable(instr) && deallocated_as_zero_next(&instr.target.root, &block[i + 1..])
}

/// The instruction `t -= f(x)` that is the whole body of routine `i` of a block, when
/// [`released_before_dealloc`] would release it: what `t -= f(a * b)` lowers to (its operand
/// computed into an ancilla, used, uncomputed). The routine's computation must not touch `t`,
/// so that its uncomputation leaves `t` as the instruction left it.
pub fn released_after_routine(block: &[Stmt], i: usize) -> Option<(&Stmt, &Instr)> {
    let StmtKind::Routine { compute, body } = &block[i].kind else {
        return None;
    };
    let [one @ Stmt {
        kind: StmtKind::Instr(instr),
        ..
    }] = body.as_slice()
    else {
        return None;
    };
    let t = &instr.target.root;
    let released = releasable(instr)
        && !compute.iter().any(|s| touches(s, t))
        && deallocated_as_zero_next(t, &block[i + 1..]);
    released.then_some((one, instr))
}

/// `t -= f(x)`: one operand, a whole target.
fn releasable(instr: &Instr) -> bool {
    instr.op == AccOp::Sub && instr.args.len() == 1 && instr.target.path.is_empty()
}

/// Does a statement (or one nested in it) touch the variable `t`?
fn touches(s: &Stmt, t: &Ident) -> bool {
    let mut touched = false;
    visit_views(s, Views::Touched, &mut |v| touched |= v.root == *t);
    touched
}

/// Whether `rest` deallocates `t` as zero before anything else touches it, with only
/// instructions, builtins, allocations and routines in between.
fn deallocated_as_zero_next(t: &Ident, rest: &[Stmt]) -> bool {
    for s in rest {
        match &s.kind {
            StmtKind::Dealloc(b) => {
                if let Some(b) = b.iter().find(|b| b.name == *t) {
                    return is_zero(&b.value);
                }
            }
            StmtKind::Instr(_)
            | StmtKind::Builtin { .. }
            | StmtKind::Alloc(_)
            | StmtKind::Routine { .. }
                if !touches(s, t) => {}
            _ => return false,
        }
    }
    false
}

/// Is an expression a zero: `T::zero()`, `0.0`, `-0.0`, `0`, `T::lit(-0.0)` (where the front
/// end starts its temporaries), or the zero `expand!` gives its ancillas
/// (`crate::zeros::zero_like_of`)?
fn is_zero(e: &syn::Expr) -> bool {
    use syn::Expr;
    let last_is = |f: &Expr, name: &str| matches!(f, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == name));
    match e {
        Expr::Call(c) if c.args.is_empty() => last_is(&c.func, "zero"),
        Expr::Call(c) if c.args.len() == 1 => last_is(&c.func, "lit") && is_zero(&c.args[0]),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => is_zero(&u.expr),
        Expr::Paren(p) => is_zero(&p.expr),
        Expr::Block(_) => crate::zeros::zero_like_of(e).is_some(),
        Expr::Lit(l) => match &l.lit {
            syn::Lit::Float(f) => f.base10_parse::<f64>().is_ok_and(|v| v == 0.0),
            syn::Lit::Int(n) => n.base10_parse::<u64>().is_ok_and(|v| v == 0),
            _ => false,
        },
        _ => false,
    }
}
