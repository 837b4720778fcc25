//! `f_vjp`, the vector–Jacobian product on the caller's gradient buffers.

use super::*;

/// `f_vjp`: the vector–Jacobian product in place, on the caller's gradient buffers: `f`
/// forward on plain scalars, then its adjoint (fused when the body has the `L P M ~P D`
/// shape). No copy and no allocation of its own.
pub(super) fn vjp_fn(p: &Params, names: &Names) -> TokenStream {
    let f = p.f;
    let fwd = &f.sig.ident;
    let name = &names.vjp;
    let adjoint = nilang_ir::adjoint::adjoint_name(fwd);
    let mut generics = gradient_generics(p);
    let lane = crate::shadows::lane_param();
    let scalar = &p.scalar;
    crate::generics::push_lane_param(&mut generics, f, scalar, &lane);
    let where_clause = &generics.where_clause;
    let inputs = nilang_ir::adjoint::shadowed_inputs(f, Some((&p.scalar, &lane)));
    let vis = &f.vis;
    let (output, value) = vjp_value(p);
    let Halves {
        forward,
        adjoint: backward,
    } = halves(
        p,
        Sweep::CallerBuffers,
        &lane.to_token_stream(),
        &quote!(__value = #value;),
    );
    let doc = format!(
        "Vector–Jacobian product of [`{fwd}`] in place: on entry each `&mut` argument holds an \
         input of `{fwd}` and its `*_grad` the gradient of a loss with respect to that \
         argument's output (the seed, e.g. 1 on the loss); on return each argument holds its \
         input again and each `*_grad` the gradient with respect to the input. Runs `{fwd}` \
         and [`{adjoint}`] (fused when the body computes, copies and uncomputes) on the \
         caller's buffers: no copy, no allocation. Read-only parameters take `()` as their \
         gradient. Returns the value of each scalar `&mut` argument after `{fwd}` (a loss \
         `out: &mut T`: its value, computed on the way). See `nilang::ad`."
    );
    let allow = allow();
    let checks = crate::buffers::length_checks(f, name);
    quote! {
        #[doc = #doc]
        #allow
        #vis fn #name #generics (#(#inputs),*) #output #where_clause {
            #checks
            let __value;
            #forward
            #backward
            __value
        }
    }
}

/// What `f_vjp` returns, and how it reads it after the forward half: the values of the
/// parameters that are `&mut` to one scalar (`-> T` for one, a tuple for several, nothing
/// for none).
pub(super) fn vjp_value(p: &Params) -> (TokenStream, TokenStream) {
    let scalar = &p.scalar;
    let outputs: Vec<&syn::Ident> = p
        .diff()
        .into_iter()
        .filter(|(_, _, ty)| is_ident(ty, scalar))
        .map(|(_, name, _)| name)
        .collect();
    match outputs.as_slice() {
        [] => (TokenStream::new(), quote!(())),
        [one] => (quote!(-> #scalar), quote!(*#one)),
        many => {
            let scalars = many.iter().map(|_| scalar);
            (quote!(-> (#(#scalars),*)), quote!((#(*#many),*)))
        }
    }
}
