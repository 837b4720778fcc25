//! The generics of the generated functions: whether a type parameter is bounded by `Real`
//! (what decides which functions a reversible function gets), and the bounds the adjoint and
//! gradient functions add to the user's.

use nilang_ir::ast::{AccOp, Function, Prim, Stmt, StmtKind};
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

/// Whether the type parameter `scalar` of `f` is bounded by `Real` (or `Base`, which implies
/// it), in the parameter list or the `where` clause.
pub(crate) fn bounds_mention_real(f: &Function, scalar: &syn::Ident) -> bool {
    let is_real = |b: &syn::TypeParamBound| match b {
        syn::TypeParamBound::Trait(t) => t
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "Real" || s.ident == "Base"),
        _ => false,
    };
    let in_params = f
        .sig
        .generics
        .type_params()
        .any(|p| &p.ident == scalar && p.bounds.iter().any(is_real));
    let in_where = f.sig.generics.where_clause.as_ref().map_or(false, |w| {
        w.predicates.iter().any(|p| match p {
            syn::WherePredicate::Type(t) => {
                t.bounded_ty.to_token_stream().to_string() == scalar.to_string()
                    && t.bounds.iter().any(is_real)
            }
            _ => false,
        })
    });
    in_params || in_where
}

/// The generics of the adjoint and gradient functions: the user's, with `nilang::Base` added
/// to the bounds of the scalar type (the first type parameter).
pub fn with_base_bound(f: &Function) -> syn::Generics {
    let mut generics = f.sig.generics.clone();
    let Some(t) = generics.type_params_mut().next() else {
        return generics;
    };
    t.bounds.push(syn::parse_quote!(::nilang::Base));
    let scalar = t.ident.to_token_stream();
    let mut bounds = primitive_param_bounds(f, &scalar);
    bounds.extend(function_param_bounds(f, &scalar));
    if !bounds.is_empty() {
        generics.make_where_clause().predicates.extend(bounds);
    }
    generics
}

/// Adds the adjoint programs' gradient type parameter `lane: Grad<scalar>` to `generics`, with
/// what the reversible functions passed as parameters need at it (their adjoint programs on
/// that gradient type, `nilang_ir::fn_params::adjoint_bounds`).
pub fn push_lane_param(
    generics: &mut syn::Generics,
    f: &Function,
    scalar: &syn::Ident,
    lane: &syn::Ident,
) {
    generics
        .params
        .push(syn::parse_quote!(#lane: ::nilang::Grad<#scalar>));
    let bounds = nilang_ir::fn_params::adjoint_bounds(
        &f.sig,
        scalar,
        &scalar.to_token_stream(),
        &lane.to_token_stream(),
    );
    generics.make_where_clause().predicates.extend(bounds);
}

/// What the gradient functions need of the reversible functions passed as parameters
/// (`nilang_ir::fn_params`), with the scalar type taken as `scalar_as` (the scalar itself, or
/// `Dual<T>` for `f_hessian`): their adjoint programs on every gradient type a gradient
/// function runs (one scalar, two or four lanes), and their forward and inverse programs at
/// `scalar_as`.
pub fn function_param_bounds(f: &Function, scalar_as: &TokenStream) -> Vec<syn::WherePredicate> {
    let Some(scalar) = f.sig.generics.type_params().next().map(|t| &t.ident) else {
        return Vec::new();
    };
    let lanes = [
        scalar_as.clone(),
        quote!(::nilang::Lanes<#scalar_as, 2>),
        quote!(::nilang::Lanes<#scalar_as, 4>),
    ];
    let mut out = Vec::new();
    for lane in &lanes {
        for b in nilang_ir::fn_params::adjoint_bounds(&f.sig, scalar, scalar_as, lane) {
            let text = b.to_token_stream().to_string();
            if !out
                .iter()
                .any(|o: &syn::WherePredicate| o.to_token_stream().to_string() == text)
            {
                out.push(b);
            }
        }
    }
    out
}

/// Bounds for the primitives of `f`'s body that are type parameters of `f` (`anc += M(x)` in
/// a function generic over `M`, such as `stdlib::mapreduce::i_mapfoldl`): `M:
/// nilang::Unary<S>` (`Binary` for two operands) for the scalar type `S` the generated code
/// runs on. The user's function has `T: Acc1<M>` (`add_primitive_bounds`), which its
/// adjoint programs cannot turn into `GVar<T, G>: Acc1<M>` for their pairs; `M: Unary<T>` gives
/// that for every gradient type `G` (the blanket rule in `gvar.rs`). A concrete primitive
/// needs none of this: its `impl<T: Float> Unary<T>` proves the bound for every float.
pub fn primitive_param_bounds(f: &Function, scalar: &TokenStream) -> Vec<syn::WherePredicate> {
    fn collect(
        stmts: &[Stmt],
        params: &[&syn::Ident],
        scalar: &TokenStream,
        out: &mut Vec<String>,
    ) {
        for s in stmts {
            if let StmtKind::Instr(instr) = &s.kind {
                let param = match &instr.prim {
                    Prim::User(path) => path.get_ident().filter(|id| params.contains(id)),
                    Prim::Builtin(_) => None,
                };
                let kind = match (instr.op, instr.args.len()) {
                    (AccOp::Add | AccOp::Sub, 1) => Some(quote!(Unary)),
                    (AccOp::Add | AccOp::Sub, 2) => Some(quote!(Binary)),
                    _ => None,
                };
                if let (Some(m), Some(kind)) = (param, kind) {
                    let bound = quote!(#m: ::nilang::#kind<#scalar>).to_string();
                    if !out.contains(&bound) {
                        out.push(bound);
                    }
                }
            }
            for block in s.blocks() {
                collect(block, params, scalar, out);
            }
        }
    }
    let params: Vec<&syn::Ident> = f.sig.generics.type_params().map(|p| &p.ident).collect();
    let mut out = Vec::new();
    collect(&f.body, &params, scalar, &mut out);
    out.iter()
        .map(|b| syn::parse_str(b).expect("a bound"))
        .collect()
}
