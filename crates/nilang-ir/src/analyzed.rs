//! The analysed IR: a function parsed and checked ([`crate::lower()`]) together with every
//! fact about it that more than one view needs, each computed once here. The generators (the
//! Rust programs of `nilang-macros`, the C++/CUDA text of `nilang-cgen`, the printed adjoint)
//! read these facts instead of computing them again.
//!
//! | fact | computed by | read by |
//! |---|---|---|
//! | [`Analyzed::plans`] | the checker ([`crate::check`], [`crate::parallel::plan`]) | the forward program's parallel loops (`nilang-macros`), the parallel loops' kernels (`nilang-cgen`) |
//! | [`Analyzed::call_reads`] | the checker, with the plans | the call-read assertions beside `f::WRITES` (`nilang-macros`) |
//! | [`Analyzed::with_gradients`] | [`crate::adjoint::ancillas_with_gradients`], with [`crate::activity`] | the adjoint programs and gradient functions (`nilang-macros`), [`crate::adjoint_view::adjoint_text`] |
//! | [`Analyzed::fused`] | [`crate::split::Fused::of`] | the unchecked forward program, the fused gradient halves (`nilang-macros`) |
//! | [`Analyzed::writes`] | [`crate::effects::writes`] | the effects constant `f::WRITES` ([`crate::effects::writes_mask`]) |
//!
//! Facts that depend on the program being generated (the inverse runs the body reversed, an
//! adjoint program in shadow mode, a dead uncomputation is skipped) stay with the generator
//! that makes the program: a parallel loop's plan in the inverse and adjoint programs (and in
//! the uncomputations a program writes), the bounds checks each loop hoists
//! (`crate::bounds`), which routine computations run on values.

use crate::ast::Function;
use crate::effects::Write;
use crate::parallel::{CallRead, Plan};
use crate::split::Fused;
use std::collections::BTreeSet;

/// A checked function and the facts its views need ([`crate::lower()`] builds it). It
/// dereferences to its [`Function`], so a view that only reads the IR takes either.
#[derive(Clone, Debug)]
pub struct Analyzed {
    /// The function.
    pub function: Function,
    /// The plan of each parallel loop of the body as written (inside `if`s, loops, routines'
    /// computations and bodies; not a routine's uncomputation, which is the computation's
    /// inverse), in source order: `plans[k]` is the loop `k` of `nilang_cgen::par_loops`.
    pub plans: Vec<Plan>,
    /// The places the parallel loops (those of routines' uncomputations too) hand to calls
    /// that must not write them: each is a compile-time condition on a callee's effects.
    pub call_reads: Vec<CallRead>,
    /// The ancillas that carry gradients in the adjoint programs.
    pub with_gradients: BTreeSet<String>,
    /// The split of the fused gradient, when the body has the `L P M ~P D` shape.
    pub fused: Option<Fused>,
    /// The roots the body may write, and when (its effects).
    pub writes: Vec<Write>,
    /// The vector ancillas the body reaches only by index ([`crate::local_vectors`]): an
    /// unchecked program may store them inline when short.
    pub local_vectors: BTreeSet<String>,
}

impl Analyzed {
    /// The facts of a checked `function` whose parallel loops the checker planned.
    pub(crate) fn new(function: Function, planned: crate::check::Planned) -> Analyzed {
        Analyzed {
            with_gradients: crate::adjoint::ancillas_with_gradients(&function),
            fused: Fused::of(&function),
            writes: crate::effects::writes(&function.body, &function.sig.ident),
            local_vectors: crate::local_vectors::indexed_only(&function.body),
            plans: planned.plans,
            call_reads: planned.call_reads,
            function,
        }
    }
}

impl Analyzed {
    /// The vector ancillas this function's programs store inline: its
    /// [`local_vectors`](Analyzed::local_vectors) when it is unchecked, none when it is checked
    /// (whose deallocation checks compare each with its declared `vec!`).
    pub fn inline_vectors(&self) -> BTreeSet<String> {
        if self.checked {
            BTreeSet::new()
        } else {
            self.local_vectors.clone()
        }
    }
}

impl std::ops::Deref for Analyzed {
    type Target = Function;

    fn deref(&self) -> &Function {
        &self.function
    }
}
