//! Reversible functions passed as parameters.
//!
//! A parameter `f: &F` (or `f: F`) whose type parameter is bounded by
//! `nilang::Reversible<(A₀, A₁, …)>` is a reversible function of those arguments. A call
//! `f(a, b)` in the body is a call of it ([`crate::ast::Callee::Param`]): the forward program
//! calls it through `Reversible::call`, the inverse through `Reversible::uncall`, the adjoint
//! programs through `Adjoint::adjoint_inv` and `Adjoint::adjoint` with each argument followed
//! by its gradient. Its effects are unknown to the caller, so such a call counts as writing
//! every argument it is handed ([`crate::effects`]).
//!
//! The bound names the arguments as the user writes them, `Reversible<(&mut T, &T)>`; the
//! generated functions need every reference in it to have a lifetime, so
//! [`name_bound_lifetimes`] makes the bound higher-ranked (`for<'__r0, '__r1>
//! Reversible<(&'__r0 mut T, &'__r1 T)>`), and [`adjoint_bounds`] writes the bounds the adjoint
//! programs and gradient functions add for a given gradient type.

use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::{GenericArgument, Ident, PathArguments, Type, TypeParamBound};

/// The name of the trait a function parameter's type is bounded by.
pub const TRAIT: &str = "Reversible";

/// A parameter that is a reversible function.
#[derive(Clone, Debug)]
pub struct FunctionParam {
    /// The parameter (`f`).
    pub name: Ident,
    /// Its type parameter (`F`).
    pub ty: Ident,
    /// The arguments it takes: the elements of the tuple in `Reversible<(…)>`.
    pub args: Vec<Type>,
}

/// The parameters of `sig` that are reversible functions: `f: &F` or `f: F` with `F` a type
/// parameter bounded by `Reversible<(…)>`, in the parameter list or the `where` clause.
pub fn function_params(sig: &syn::Signature) -> Vec<FunctionParam> {
    let mut out = Vec::new();
    for input in &sig.inputs {
        let syn::FnArg::Typed(pt) = input else {
            continue;
        };
        let syn::Pat::Ident(pi) = &*pt.pat else {
            continue;
        };
        let ty = match &*pt.ty {
            Type::Reference(r) if r.mutability.is_none() => &*r.elem,
            other => other,
        };
        let Some(ty) = single_ident(ty) else {
            continue;
        };
        if let Some(args) = reversible_args(&sig.generics, &ty) {
            out.push(FunctionParam {
                name: pi.ident.clone(),
                ty,
                args,
            });
        }
    }
    out
}

/// `T` for a type that is a single identifier.
fn single_ident(ty: &Type) -> Option<Ident> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.get_ident().cloned(),
        Type::Paren(p) => single_ident(&p.elem),
        _ => None,
    }
}

/// The argument tuple of the `Reversible<(…)>` bound of the type parameter `ty`.
fn reversible_args(generics: &syn::Generics, ty: &Ident) -> Option<Vec<Type>> {
    let inline = generics
        .type_params()
        .filter(|p| &p.ident == ty)
        .flat_map(|p| p.bounds.iter());
    let in_where = generics
        .where_clause
        .iter()
        .flat_map(|w| w.predicates.iter())
        .filter_map(|p| match p {
            syn::WherePredicate::Type(t) if single_ident(&t.bounded_ty).as_ref() == Some(ty) => {
                Some(t.bounds.iter())
            }
            _ => None,
        })
        .flatten();
    inline.chain(in_where).find_map(bound_args)
}

/// The elements of `A` in a bound `Reversible<A>` (one element when `A` is not a tuple).
fn bound_args(b: &TypeParamBound) -> Option<Vec<Type>> {
    let tuple = bound_tuple(b)?;
    Some(match tuple {
        Type::Tuple(t) => t.elems.iter().cloned().collect(),
        other => vec![other.clone()],
    })
}

fn bound_tuple(b: &TypeParamBound) -> Option<&Type> {
    let TypeParamBound::Trait(t) = b else {
        return None;
    };
    let last = t.path.segments.last()?;
    if last.ident != TRAIT {
        return None;
    }
    let PathArguments::AngleBracketed(a) = &last.arguments else {
        return None;
    };
    match a.args.iter().collect::<Vec<_>>()[..] {
        [GenericArgument::Type(ty)] => Some(ty),
        _ => None,
    }
}

/// Gives every reference without a lifetime in the `Reversible<(…)>` bounds of `generics` a
/// lifetime of its own, bound by the bound itself (`for<'__r0, …>`), so that the bound holds
/// for arguments borrowed for any time.
pub fn name_bound_lifetimes(generics: &mut syn::Generics) {
    generics
        .type_params_mut()
        .flat_map(|p| p.bounds.iter_mut())
        .for_each(name_lifetimes);
    if let Some(w) = &mut generics.where_clause {
        for p in &mut w.predicates {
            if let syn::WherePredicate::Type(t) = p {
                t.bounds.iter_mut().for_each(name_lifetimes);
            }
        }
    }
}

fn name_lifetimes(b: &mut TypeParamBound) {
    if bound_tuple(b).is_none() {
        return;
    }
    let TypeParamBound::Trait(t) = b else {
        return;
    };
    let mut named = Vec::new();
    if let Some(PathArguments::AngleBracketed(a)) =
        t.path.segments.last_mut().map(|s| &mut s.arguments)
    {
        for arg in &mut a.args {
            if let GenericArgument::Type(ty) = arg {
                fill_lifetimes(ty, &mut named);
            }
        }
    }
    if named.is_empty() {
        return;
    }
    let lifetimes = t.lifetimes.get_or_insert_with(|| syn::parse_quote!(for<>));
    lifetimes.lifetimes = std::mem::take(&mut lifetimes.lifetimes)
        .into_iter()
        .filter(|p| !matches!(p, syn::GenericParam::Lifetime(l) if renamable(&l.lifetime)))
        .collect();
    for l in named {
        lifetimes.lifetimes.push(syn::parse_quote!(#l));
    }
}

/// Names every elided lifetime of the references in `ty` (`&`, `&mut`, `'_`), pushing the
/// names it makes. A lifetime named here before (`'__r…`; user names cannot start with `__`)
/// is named again, so that a bound built from another's arguments binds all of its own.
pub fn fill_lifetimes(ty: &mut Type, named: &mut Vec<syn::Lifetime>) {
    fill_lifetimes_as(ty, named, "__r")
}

/// [`fill_lifetimes`] with the names `'{prefix}0`, `'{prefix}1`, … (an `impl` naming its own,
/// beside bounds that bind `'__r…`, takes another prefix).
pub fn fill_lifetimes_as(ty: &mut Type, named: &mut Vec<syn::Lifetime>, prefix: &str) {
    rename_lifetimes(ty, &mut || {
        let l = syn::Lifetime::new(&format!("'{prefix}{}", named.len()), Span::call_site());
        named.push(l.clone());
        l
    })
}

/// Gives every elided or [`renamable`] lifetime of the references and paths in `ty` the
/// lifetime `new` makes.
fn rename_lifetimes(ty: &mut Type, new: &mut dyn FnMut() -> syn::Lifetime) {
    match ty {
        Type::Reference(r) => {
            if r.lifetime.as_ref().map_or(true, renamable) {
                r.lifetime = Some(new());
            }
            rename_lifetimes(&mut r.elem, new);
        }
        Type::Slice(s) => rename_lifetimes(&mut s.elem, new),
        Type::Array(a) => rename_lifetimes(&mut a.elem, new),
        Type::Paren(p) => rename_lifetimes(&mut p.elem, new),
        Type::Group(g) => rename_lifetimes(&mut g.elem, new),
        Type::Tuple(t) => t.elems.iter_mut().for_each(|e| rename_lifetimes(e, new)),
        Type::Path(p) => {
            for s in &mut p.path.segments {
                if let PathArguments::AngleBracketed(a) = &mut s.arguments {
                    for arg in &mut a.args {
                        match arg {
                            GenericArgument::Type(t) => rename_lifetimes(t, new),
                            GenericArgument::Lifetime(l) if renamable(l) => *l = new(),
                            _ => {}
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

/// An elided (`'_`) lifetime, or one this module named.
fn renamable(l: &syn::Lifetime) -> bool {
    l.ident == "_" || l.ident.to_string().starts_with("__r")
}

/// `ty` with the scalar type `scalar` replaced by the tokens `to` (unchanged without one).
fn renamed(ty: &Type, scalar: Option<&Ident>, to: &TokenStream) -> Type {
    match scalar {
        Some(scalar) => {
            syn::parse2(replace_ident(ty.to_token_stream(), scalar, to)).expect("a type")
        }
        None => ty.clone(),
    }
}

/// The bounds a function that runs the adjoint programs on gradient type `lane`, with the
/// scalar type `scalar` taken as `scalar_as`, needs of each reversible function parameter of
/// `sig`: `F: for<…> Adjoint<(A₀, G₀, A₁, G₁, …)>` ([`FunctionParam::shadowed`]); and, when
/// `scalar_as` is not the scalar, `F: for<…> Reversible<(A₀, A₁, …)>` at `scalar_as`.
pub fn adjoint_bounds(
    sig: &syn::Signature,
    scalar: &Ident,
    scalar_as: &TokenStream,
    lane: &TokenStream,
) -> Vec<syn::WherePredicate> {
    let mut out = Vec::new();
    for p in function_params(sig) {
        let f = &p.ty;
        let shadowed = p.shadowed(Some(scalar), scalar_as, lane);
        out.push(higher_ranked(
            quote!(#f),
            quote!(::nilang::Adjoint),
            shadowed,
        ));
        if scalar_as.to_string() != scalar.to_string() {
            let values = p.values(Some(scalar), scalar_as);
            out.push(higher_ranked(
                quote!(#f),
                quote!(::nilang::Reversible),
                values,
            ));
        }
    }
    out
}

impl FunctionParam {
    /// The argument types with the scalar type `scalar` taken as `scalar_as` (as written for
    /// a function without a scalar type parameter).
    pub fn values(&self, scalar: Option<&Ident>, scalar_as: &TokenStream) -> Vec<Type> {
        self.args
            .iter()
            .map(|a| renamed(a, scalar, scalar_as))
            .collect()
    }

    /// The arguments of the adjoint programs (`Adjoint`'s tuple), on gradient type `lane`:
    /// each argument type followed by its gradient's, the argument's type with the scalar
    /// replaced by `lane` for a `&mut` argument, `()` for any other; as the callee's
    /// `f_adjoint` takes them.
    pub fn shadowed(
        &self,
        scalar: Option<&Ident>,
        scalar_as: &TokenStream,
        lane: &TokenStream,
    ) -> Vec<Type> {
        let values = self.values(scalar, scalar_as);
        values
            .into_iter()
            .zip(&self.args)
            .flat_map(|(value, written)| {
                let shadow = match written {
                    Type::Reference(r) if r.mutability.is_some() => renamed(written, scalar, lane),
                    _ => syn::parse_quote!(()),
                };
                [value, shadow]
            })
            .collect()
    }
}

/// The tuple type of some arguments, as an expression's generic argument: the lifetimes this
/// module named (`'__r…`) left to inference.
pub fn inferred_tuple(args: &[Type]) -> Type {
    let mut tuple: Type = syn::parse_quote!((#(#args,)*));
    elide_lifetimes(&mut tuple);
    tuple
}

fn elide_lifetimes(ty: &mut Type) {
    rename_lifetimes(ty, &mut || syn::Lifetime::new("'_", Span::call_site()))
}

/// `f: for<'__r0, …> tr<(args…,)>`, with every reference of the arguments given a lifetime.
fn higher_ranked(f: TokenStream, tr: TokenStream, args: Vec<Type>) -> syn::WherePredicate {
    let mut tuple: Type = syn::parse_quote!((#(#args,)*));
    let mut named = Vec::new();
    fill_lifetimes(&mut tuple, &mut named);
    syn::parse_quote!(#f: for<#(#named),*> #tr<#tuple>)
}

/// `ts` with every identifier `from` replaced by the tokens `to` (the scalar type by a gradient
/// type: the shadow types of [`crate::adjoint::shadowed_inputs`] and the bounds here).
pub fn replace_ident(ts: TokenStream, from: &Ident, to: &TokenStream) -> TokenStream {
    use proc_macro2::{Group, TokenTree};
    ts.into_iter()
        .flat_map(|t| -> Vec<TokenTree> {
            match t {
                TokenTree::Ident(i) if &i == from => to.clone().into_iter().collect(),
                TokenTree::Group(g) => {
                    let mut n = Group::new(g.delimiter(), replace_ident(g.stream(), from, to));
                    n.set_span(g.span());
                    vec![TokenTree::Group(n)]
                }
                other => vec![other],
            }
        })
        .collect()
}
