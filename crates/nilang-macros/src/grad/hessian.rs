//! `f_hessian`: `f_grad` run on dual numbers, one direction per differentiable scalar.

use super::*;
use crate::generics::{function_param_bounds, primitive_param_bounds};

/// `f_hessian`: dual numbers through `f_grad` (forward over reverse), one column per pass.
pub(super) fn hessian_fn(p: &Params, names: &Names) -> TokenStream {
    let (n, s) = (quote!(::nilang), quote!(::nilang::__private::entry));
    let scalar = &p.scalar;
    let f = p.f;
    let name_str = f.sig.ident.to_string();
    let (grad_name, hess_name) = (&names.grad, &names.hessian);
    let loss = p.added_param("loss");
    let mut generics = gradient_generics(p);
    // `f_grad` runs on dual numbers: primitives passed as type parameters need their rule there
    let mut dual_bounds = primitive_param_bounds(f, &quote!(#n::Dual<#scalar>));
    dual_bounds.extend(function_param_bounds(f, &quote!(#n::Dual<#scalar>)));
    if !dual_bounds.is_empty() {
        generics.make_where_clause().predicates.extend(dual_bounds);
    }
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let (vis, inputs) = (&f.vis, &f.sig.inputs);
    let diff = p.diff();
    let counts = p.counts();
    let lifted = |i: usize| format_ident!("__w{}", i);
    let lift: TokenStream = p
        .iter()
        .map(|(i, name, role)| {
            let w = lifted(i);
            match role {
                Role::Diff(ty) => quote! {
                    let mut #w = #s::lift::<#scalar, #ty>(&*#name, __off, __j);
                    __off += <#ty as #n::Scalars<#scalar>>::count(&*#name);
                },
                Role::State => quote!(let mut #w = #s::state_copy(&*#name);),
                Role::ValueScalar(ty) => {
                    quote!(let #w = #s::constant_dual::<#scalar, #ty>(&#name);)
                }
                Role::SharedScalar(ty) => {
                    quote!(let #w = #s::constant_dual::<#scalar, #ty>(#name);)
                }
                _ => TokenStream::new(),
            }
        })
        .collect();
    let dual_args = p.iter().map(|(i, name, role)| {
        let w = lifted(i);
        match role {
            Role::Diff(_) | Role::State => quote!(&mut #w),
            Role::Value => quote!(::core::clone::Clone::clone(&#name)),
            Role::Shared => quote!(#name),
            Role::ValueScalar(_) => quote!(::core::clone::Clone::clone(&#w)),
            Role::SharedScalar(_) => quote!(&#w),
        }
    });
    let grads: Vec<syn::Ident> = diff
        .iter()
        .map(|(i, _, _)| format_ident!("__g{}", i))
        .collect();
    let read_col: TokenStream = diff
        .iter()
        .zip(&grads)
        .map(|((_, name, ty), g)| quote!(#s::grad_tangents::<#scalar, #ty>(&*#name, &#g, &mut __col);))
        .collect();
    let tf_dual = p.turbofish(quote!(#n::Dual<#scalar>));
    let validate = p.validate();
    let labels = p.labels();
    let doc = format!(
        "Hessian of the loss of [`{name_str}`] over its differentiable scalars, by dual numbers \
         through `{name_str}_grad` (one column per pass). The arguments are not changed. See \
         `nilang::ad`. {}",
        p.layout_doc()
    );
    let allow = allow();
    quote! {
        #[doc = #doc]
        #allow
        #vis fn #hess_name #impl_generics (#loss: #n::Loss, #inputs)
            -> ::core::result::Result<#n::ad::Matrix<#scalar>, #n::GradError> #where_clause
        {
            let __loss = #loss;
            #validate
            let __n = 0usize #(+ #counts)*;
            let mut __hess = #n::ad::Matrix::filled(__n, __n, <#scalar as #n::Float>::f_zero());
            let mut __col = ::std::vec::Vec::with_capacity(__n);
            for __j in 0..__n {
                let mut __off = 0usize;
                #lift
                let (#(#grads,)*) = #grad_name #tf_dual(__loss, #(#dual_args),*)?;
                __col.clear();
                #read_col
                for (__i, __v) in __col.iter().enumerate() {
                    __hess.set(__i, __j, *__v);
                }
            }
            #labels
            ::core::result::Result::Ok(__hess.with_labels(__labels.clone(), __labels))
        }
    }
}
