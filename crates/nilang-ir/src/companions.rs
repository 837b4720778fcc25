//! What a reversible free function publishes under its own name, for its callers.
//!
//! `#[i] fn g` generates, beside `g` itself, its inverse `g_inv` and its adjoint programs
//! `g_adjoint` and `g_adjoint_inv`, which the code generated for a caller calls (an uncall
//! calls the inverse, a call in an adjoint program the adjoint). It also generates a struct
//! with the function's own name, `struct g {}`: a braced struct lives only in the type
//! namespace, the function only in the value namespace, so the two share the name, and
//! `use m::g;` (or a path `m::g`) brings both. The struct's associated items are what a
//! caller's generated code needs: `g::WRITES` (the effects, [`crate::effects`]), `g::inv`,
//! `g::adjoint` and `g::adjoint_inv` (forwarding to `g_inv`, or the name chosen with
//! `#[i(inverse = …)]`, `g_adjoint` and `g_adjoint_inv`). So importing a reversible
//! function by its name is enough to call it from another reversible function.
//!
//! A callee that is not a free function named by path — a method, an associated function
//! `Type::g` or `Self::g`, a qualified path — has no such struct; its companions are called
//! by their suffixed names (`Type::g_inv`, `self.g_adjoint_inv(…)`), which its `impl` block
//! holds.

use syn::{Ident, Path};

/// The associated function that forwards to the inverse: `g::inv`.
pub const INVERSE: &str = "inv";
/// The associated function that forwards to the adjoint program: `g::adjoint`.
pub const ADJOINT: &str = "adjoint";
/// The associated function that forwards to the adjoint program's inverse: `g::adjoint_inv`.
pub const ADJOINT_INV: &str = "adjoint_inv";

/// Does a callee path name a free function (whose companions hang off its struct)? No
/// qualified self (`<T as Tr>::g`) and no segment that names a type (`Self`, or a name
/// starting with an upper-case letter: `Model::g`).
pub fn names_free_function(path: &syn::ExprPath) -> bool {
    let names_type = |s: &syn::PathSegment| {
        let name = s.ident.to_string();
        name == "Self" || name.starts_with(|c: char| c.is_uppercase())
    };
    path.qself.is_none() && !path.path.segments.iter().any(names_type)
}

/// The path of a free function's companion: `m::g::<T>` becomes `m::g::inv::<T>` (the
/// generic arguments move to the companion, which carries the function's generics).
pub fn companion_path(path: &Path, companion: &str) -> Path {
    let mut path = path.clone();
    let last = path.segments.last_mut().expect("a path has a segment");
    let arguments = std::mem::replace(&mut last.arguments, syn::PathArguments::None);
    let span = last.ident.span();
    path.segments.push(syn::PathSegment {
        ident: Ident::new(companion, span),
        arguments,
    });
    path
}

/// Which companion a call runs: in a program on values, a call runs the function and an
/// uncall its inverse (`None`: the function itself); in an adjoint program, a call runs
/// [`ADJOINT_INV`] and an uncall [`ADJOINT`].
pub fn callee_companion(adjoint: bool, uncall: bool) -> Option<&'static str> {
    match (adjoint, uncall) {
        (true, true) => Some(ADJOINT),
        (true, false) => Some(ADJOINT_INV),
        (false, true) => Some(INVERSE),
        (false, false) => None,
    }
}
