//! The two halves of a gradient: the forward run on plain scalars and the adjoint sweep on
//! values and gradients, fused (`crate::split`) where the body allows it.

use super::*;
use nilang_ir::split::Split;

/// Where an adjoint sweep runs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Sweep {
    /// On copies of the arguments (`__v{i}`) with gradient buffers of its own (`__s{i}`):
    /// the arguments keep the outputs (`f_grad`, `f_jacobian_of`).
    Copies,
    /// On the arguments themselves and the caller's gradients (`x_grad`): `f_vjp`.
    CallerBuffers,
}

/// The two halves of a gradient: the forward part on plain scalars and the adjoint part on
/// values and gradients (with the fused shape, `L P M` and `~M ~P`; otherwise `f` and
/// `f_adjoint`).
pub(super) struct Halves {
    pub(super) forward: TokenStream,
    pub(super) adjoint: TokenStream,
}

/// `between` runs after the forward half and before the adjoint one (`f_vjp` reads the
/// function's value there); it ends `forward`.
pub(super) fn halves(
    p: &Params,
    sweep: Sweep,
    lane: &TokenStream,
    between: &TokenStream,
) -> Halves {
    // on the caller's buffers, `P` may write arguments whose gradients are zero on entry —
    // not a scalar one: `f_vjp` returns its value after `f`, which the fused forward half
    // `L P M` has not restored
    let zero_tests: Vec<(String, TokenStream)> = match sweep {
        Sweep::CallerBuffers => p
            .diff()
            .into_iter()
            .filter(|(_, _, ty)| !is_ident(ty, &p.scalar))
            .filter_map(|(_, name, ty)| {
                let g = shadow_name(name);
                let test = zero_test(ty, &p.scalar, lane, quote!(&*#g))?;
                Some((name.to_string(), test))
            })
            .collect(),
        Sweep::Copies => Vec::new(),
    };
    let guardable: Vec<String> = zero_tests.iter().map(|(n, _)| n.clone()).collect();
    let then_between = |h: Halves| {
        let forward = h.forward;
        Halves {
            forward: quote!(#forward #between),
            adjoint: h.adjoint,
        }
    };
    let fused = p.f.fused.as_ref();
    match fused.and_then(|s| s.guarded(&guardable, sweep == Sweep::CallerBuffers)) {
        Some((split, guarded)) if guarded.is_empty() => {
            then_between(fused_halves(p, sweep, lane, split))
        }
        Some((split, guarded)) => {
            let zero = zero_tests
                .iter()
                .filter(|(n, _)| guarded.contains(n))
                .map(|(_, t)| t);
            let (fused, plain) = (
                fused_halves(p, sweep, lane, split),
                plain_halves(p, sweep, lane),
            );
            let (ff, fa, pf, pa) = (fused.forward, fused.adjoint, plain.forward, plain.adjoint);
            Halves {
                forward: quote!(if #(#zero)&&* { #ff #between #fa } else { #pf #between #pa }),
                adjoint: TokenStream::new(),
            }
        }
        None => then_between(plain_halves(p, sweep, lane)),
    }
}

/// The fused halves: `L P M` on plain scalars, `~M ~P` on values and gradients.
pub(super) fn fused_halves(p: &Params, sweep: Sweep, lane: &TokenStream, split: &Split) -> Halves {
    let f = p.f;
    let Split {
        head,
        tail,
        live,
        released,
    } = split;
    let mut tail = tail.clone();
    if f.checked {
        tail.extend(released.iter().cloned());
    }
    let name = nilang_ir::adjoint::adjoint_name(&f.sig.ident).to_string();
    let forward = crate::codegen::statements(f, &f.sig.ident.to_string(), head, &[]);
    let tail = crate::adjoint::statements(f, &name, &p.shadows(lane.clone()), &tail, live);
    let adjoint = match sweep {
        Sweep::Copies => {
            let bind = p.bind_shadows();
            let copies = live.iter().map(|l| live_copy(f, &l.name));
            quote!({ #bind #(#copies)* #tail })
        }
        Sweep::CallerBuffers => tail,
    };
    Halves { forward, adjoint }
}

/// `let mut a = copy of a;`: a live ancilla copied for one sweep of the fused halves (a local
/// vector, a `&mut [T]`, into storage of its own: `nilang_ir::local_vectors`).
fn live_copy(f: &nilang_ir::Analyzed, name: &syn::Ident) -> TokenStream {
    if !f.inline_vectors().contains(&name.to_string()) {
        return quote!(let mut #name = ::core::clone::Clone::clone(&#name););
    }
    let store = quote::format_ident!("__store_{}", name);
    quote!(
        let mut #store = ::nilang::__private::LocalStore::new();
        #[allow(unused_mut)]
        let mut #name = #store.copied(&*#name);
    )
}

/// The plain halves: `f`, then `f_adjoint`.
pub(super) fn plain_halves(p: &Params, sweep: Sweep, lane: &TokenStream) -> Halves {
    let fwd = &p.f.sig.ident;
    let tf = p.turbofish(p.scalar.to_token_stream());
    let args = p.forward_args();
    Halves {
        forward: quote!(#fwd #tf(#(#args),*);),
        adjoint: p.adjoint_call(sweep, lane),
    }
}

/// A test that the gradient buffer `g` (a reference) of an argument of type `ty` holds only
/// zeros, for the scalar, and slices, vectors and arrays of such; `None` for other types.
pub(super) fn zero_test(
    ty: &syn::Type,
    scalar: &syn::Ident,
    lane: &TokenStream,
    g: TokenStream,
) -> Option<TokenStream> {
    let elements = |elem: &syn::Type| {
        if is_ident(elem, scalar) {
            return Some(quote!(::nilang::__private::entry::all_zero::<#scalar, #lane>(&(#g)[..])));
        }
        let inner = zero_test(elem, scalar, lane, quote!(__e))?;
        Some(quote!((#g).iter().all(|__e| #inner)))
    };
    match ty {
        syn::Type::Path(tp) if tp.qself.is_none() => {
            let last = tp.path.segments.last()?;
            match &last.arguments {
                syn::PathArguments::None
                    if tp.path.segments.len() == 1 && last.ident == *scalar =>
                {
                    Some(quote!(<#lane as ::nilang::Grad<#scalar>>::is_zero(#g)))
                }
                syn::PathArguments::AngleBracketed(a)
                    if last.ident == "Vec" && a.args.len() == 1 =>
                {
                    match &a.args[0] {
                        syn::GenericArgument::Type(t) => elements(t),
                        _ => None,
                    }
                }
                _ => None,
            }
        }
        syn::Type::Slice(s) => elements(&s.elem),
        syn::Type::Array(a) => elements(&a.elem),
        syn::Type::Paren(p) => zero_test(&p.elem, scalar, lane, g),
        _ => None,
    }
}

/// Whether `ty` is the bare type parameter `ident`.
pub(super) fn is_ident(ty: &syn::Type, ident: &syn::Ident) -> bool {
    matches!(ty, syn::Type::Path(tp) if tp.qself.is_none() && tp.path.is_ident(ident))
}
