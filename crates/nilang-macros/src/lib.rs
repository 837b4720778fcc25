#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

mod adjoint;
mod buffers;
mod check_policy;
mod codegen;
mod cuda;
#[cfg(test)]
mod deep;
#[cfg(test)]
mod fuzz;
mod generics;
mod grad;
mod inline;
mod instruction;
mod parallel;
mod shadows;
mod split;
mod tokens;

use nilang_ir::{lower, lower_method, Options};
use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::{format_ident, quote, ToTokens};

/// Marks a reversible function (or every method of an `impl` block, or one method).
///
/// `#[i] fn f(…) { … }` generates `f` (the forward program) and `f_inv` (its inverse), with the
/// same signature. The runtime reversibility checks follow `debug_assertions` (on in debug
/// builds and tests, off in release builds, like overflow checks); options: `#[i(check)]` keeps
/// them in every build, `#[i(nocheck)]` turns them off in every build,
/// `#[i(inverse = name)]` names the inverse, `#[i(expand)]` expands nested right-hand sides
/// into ancillas, `#[i(unchecked = name)]` also generates `name`, the same program with the
/// checks off (its calls still call the checked callees), `#[i(nograd)]` skips the gradient
/// functions, and `#[i(grad = name, vjp = name, jacobian = name, hessian = name)]` name the
/// gradient functions (default `f_grad`, `f_vjp`, `f_jacobian` with `f_jacobian_of`,
/// `f_hessian`; `jacobian = j` names `j` and `j_of`), `#[i(cuda)]` emits its C++/CUDA text
/// (`F_CUDA`, `f::CUDA`). The statements of the language are listed
/// in the `nilang` crate's guide (`nilang::guide::language`), among them the parallel loop `for i in (a..b).par() { … }`, whose iterations write disjoint
/// places (checked at compile time) and run on rayon's pool (`nilang::parallel`).
#[proc_macro_attribute]
pub fn i(attr: TokenStream, item: TokenStream) -> TokenStream {
    attribute(attr.into(), item.into()).into()
}

/// Makes a plain Rust function over `f64` values, with a hand-written inverse and adjoint, an
/// instruction of the reversible language: `#[instruction(inverse = g_inv, adjoint = g_adj)]`
/// (optionally `adjoint_inv = g_adj_inv`, and `cuda = TEXT`, its C++ for `#[i(cuda)]` callers)
/// on `fn g(out: &mut f64, a: &mut [f64]) { … }`.
/// `#[i]` code then calls it as `g(out, a)`, uncalls it, and differentiates through it. The
/// rules and an example are in the `nilang` crate's guide (`nilang::guide::differentiation`).
#[proc_macro_attribute]
pub fn instruction(attr: TokenStream, item: TokenStream) -> TokenStream {
    instruction::attribute(attr.into(), item.into()).into()
}

/// Makes an ordinary function differentiable: `#[differentiable] fn f(x: &[f64], …) -> f64`
/// keeps `f` as written (without the `#[checkpoint]` attributes of its loops) and adds `f_gradient(x: &[f64], …) -> (f64, gradients)` and `f_rev`,
/// the reversible program the front end (`nilang-auto`) wrote from `f`'s body, compiled as
/// `#[i(expand)]` (with `f_rev_inv`, `f_rev_vjp`, …). The accepted subset of Rust and how the
/// program is built are in the `nilang` crate's guide (`nilang::guide::ordinary`).
#[proc_macro_attribute]
pub fn differentiable(attr: TokenStream, item: TokenStream) -> TokenStream {
    differentiable_here(attr.into(), item.into()).into()
}

/// What `#[differentiable]` does, on `proc_macro2` tokens.
fn differentiable_here(attr: TokenStream2, item: TokenStream2) -> TokenStream2 {
    let translation = match nilang_auto::translate(attr, item.clone()) {
        Ok(t) => t,
        Err(e) => {
            let error = e.to_compile_error();
            let plain = nilang_auto::plain(item);
            return quote!(#error #plain);
        }
    };
    let reversible: TokenStream2 = translation
        .reversible
        .iter()
        .map(|program| attribute(quote!(expand), program.to_token_stream()))
        .collect();
    let (plain, gradient) = (translation.plain, translation.gradient);
    quote!(#plain #reversible #gradient)
}

/// What `#[i]` does, on `proc_macro2` tokens (so that tests can call it): the options in
/// `attr`, the function, method or `impl` block in `item`.
fn attribute(attr: TokenStream2, item: TokenStream2) -> TokenStream2 {
    nilang_ir::on_deep_stack(|| attribute_here(attr, item))
}

/// [`attribute`] on the caller's stack.
fn attribute_here(attr: TokenStream2, item: TokenStream2) -> TokenStream2 {
    let options = match Options::parse(attr) {
        Ok(o) => o,
        Err(e) => return e.to_compile_error(),
    };
    let item: syn::Item = match syn::parse2(item) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    match item {
        syn::Item::Fn(f) if in_impl(&f.sig) => method(&options, impl_item(f)),
        syn::Item::Fn(f) => function(&options, f),
        syn::Item::Impl(imp) => impl_block(&options, imp),
        // A method that does not parse as a function item arrives verbatim.
        syn::Item::Verbatim(ts) => match syn::parse2::<syn::ImplItemFn>(ts) {
            Ok(m) => method(&options, m),
            Err(e) => e.to_compile_error(),
        },
        other => syn::Error::new_spanned(
            other,
            "#[i] applies to a function, a method or an impl block",
        )
        .to_compile_error(),
    }
}

/// Is a function marked `#[i]` on its own certainly an associated function of an `impl`
/// block: does it take `self` or name `Self` in its signature? Such a function gets what a
/// method of an `#[i]` impl block gets (forward and inverse, no effects struct and no gradient
/// functions, items an `impl` cannot hold). An attribute sees only the function's tokens: an
/// associated function without either looks like a free function, so it needs `#[i]` on its
/// `impl` block (the guide says so).
fn in_impl(sig: &syn::Signature) -> bool {
    sig.receiver().is_some() || tokens::mentions_ident(sig.to_token_stream(), "Self")
}

/// A function item as the method of an `impl` block.
fn impl_item(f: syn::ItemFn) -> syn::ImplItemFn {
    syn::ImplItemFn {
        attrs: f.attrs,
        vis: f.vis,
        defaultness: None,
        sig: f.sig,
        block: *f.block,
    }
}

fn inverse_name(options: &Options, sig: &syn::Signature) -> syn::Ident {
    options
        .inverse
        .clone()
        .unwrap_or_else(|| format_ident!("{}_inv", sig.ident))
}

fn function(options: &Options, f: syn::ItemFn) -> TokenStream2 {
    let (attrs, vis, sig) = (f.attrs.clone(), f.vis.clone(), f.sig.clone());
    match lower(options, f) {
        Ok(mut ir) => {
            add_primitive_bounds(&mut ir.function);
            nilang_ir::fn_params::name_bound_lifetimes(&mut ir.function.sig.generics);
            let names = grad::Names::of(options, &ir.sig.ident);
            let mut out = check_policy::by_check_policy(options, &ir, |ir| {
                with_gradients(options, ir, &names)
            });
            out.extend(effects_of(&ir));
            out.extend(inverse_companion(&ir.vis, &ir.sig, &ir.inverse_name));
            out.extend(parallel::call_read_assertions(&ir));
            if !options.cuda {
                out.extend(cuda::no_view(&ir.sig.ident));
            }
            if let Some(name) = &options.unchecked {
                // The same IR with checks off, under another name: one source, two programs.
                // (the facts of the analysis hold for it: the body is the same)
                let mut twin = ir.clone();
                let tf = &mut twin.function;
                tf.checked = false;
                tf.inverse_name = format_ident!("{}_inv", name);
                tf.sig.ident = name.clone();
                tf.attrs.retain(|a| !a.path().is_ident("doc"));
                let doc = format!(
                    "[`{}`] with the runtime reversibility checks off.",
                    ir.sig.ident
                );
                tf.attrs.push(syn::parse_quote!(#[doc = #doc]));
                // the twin's gradient functions keep the default names: `name_grad`, …
                let twin_names = grad::Names::default_for(name);
                out.extend(with_gradients(options, &twin, &twin_names));
                out.extend(effects_of(&twin));
                out.extend(inverse_companion(&twin.vis, &twin.sig, &twin.inverse_name));
                out.extend(cuda::no_view(&twin.sig.ident));
            }
            if options.cuda {
                out.extend(cuda::source(&ir));
            }
            inline::hints(out)
        }
        Err(e) => {
            let errors = e.to_compile_error();
            let mut sig = sig;
            nilang_ir::fn_params::name_bound_lifetimes(&mut sig.generics);
            let stubs = codegen::stubs(&attrs, &vis, &sig, &inverse_name(options, &sig));
            let effects = codegen::effects(&vis, &sig.ident, None);
            let inverse = inverse_companion(&vis, &sig, &inverse_name(options, &sig));
            quote!(#errors #stubs #effects #inverse)
        }
    }
}

/// Adds `T: nilang::Acc1<P>` (`Acc2`, `Scale1`, `Scale2` by the instruction) to the `where`
/// clause of a function generic over a `Real` scalar `T`, for every user primitive `P` its
/// body applies (`y += P(x)`), so that a primitive needs no bound written by hand. The
/// instruction traits hold for every `T: Float` (and `GVar` of one) when `P` implements
/// `nilang::Unary<T>` (or `Binary<T>`) for every `T: Float`.
fn add_primitive_bounds(ir: &mut nilang_ir::Function) {
    fn collect(stmts: &[nilang_ir::ast::Stmt], out: &mut Vec<syn::WherePredicate>, t: &syn::Ident) {
        for s in stmts {
            if let nilang_ir::ast::StmtKind::Instr(instr) = &s.kind {
                if let (nilang_ir::ast::Prim::User(_), Some((tr, _, prim))) =
                    (&instr.prim, codegen::instruction_trait(instr))
                {
                    let bound: syn::WherePredicate = syn::parse_quote!(#t: ::nilang::#tr<#prim>);
                    let text = bound.to_token_stream().to_string();
                    if !out.iter().any(|b| b.to_token_stream().to_string() == text) {
                        out.push(bound);
                    }
                }
            }
            for block in s.blocks() {
                collect(block, out, t);
            }
        }
    }
    let Some(t) = ir
        .sig
        .generics
        .type_params()
        .next()
        .map(|p| p.ident.clone())
    else {
        return;
    };
    if ir.sig.receiver().is_some() || !generics::bounds_mention_real(ir, &t) {
        return;
    }
    let mut bounds = Vec::new();
    collect(&ir.body, &mut bounds, &t);
    if !bounds.is_empty() {
        ir.sig
            .generics
            .make_where_clause()
            .predicates
            .extend(bounds);
    }
}

/// `f::inv`, forwarding to the inverse `inverse` of the free function with signature `sig`
/// (`nilang_ir::companions`), and `nilang::Reversible` for the function as a value.
fn inverse_companion(
    vis: &syn::Visibility,
    sig: &syn::Signature,
    inverse: &syn::Ident,
) -> TokenStream2 {
    let mut inv_sig = sig.clone();
    inv_sig.ident = inverse.clone();
    let companion = codegen::companions(
        &sig.ident,
        vis,
        &[(nilang_ir::companions::INVERSE, &inv_sig)],
    );
    let as_value = codegen::trait_impl(
        &sig.ident,
        quote!(::nilang::Reversible),
        sig,
        &[("call", &sig.ident), ("uncall", inverse)],
    );
    quote!(#companion #as_value)
}

/// The effects of a free function on its parameters, for its callers (`nilang_ir::effects`).
fn effects_of(ir: &nilang_ir::Analyzed) -> TokenStream2 {
    let mask = nilang_ir::effects::writes_mask(ir, &ir.writes, &tokens::private());
    codegen::effects(&ir.vis, &ir.sig.ident, Some(mask))
}

/// The forward and inverse functions, and the gradient functions unless `nograd`, under
/// `names`; a compile error at each chosen name (`grad = …`) when there are none.
fn with_gradients(
    options: &Options,
    ir: &nilang_ir::Analyzed,
    names: &grad::Names,
) -> TokenStream2 {
    let code = codegen::generate(ir);
    let chosen = grad::chosen_names(options);
    if options.nograd {
        let errors = chosen.iter().map(|name| {
            syn::Error::new(
                name.span(),
                "`nograd` turns the gradient functions off, so they cannot be named: remove \
                 `nograd` or the name",
            )
            .to_compile_error()
        });
        return quote!(#code #(#errors)*);
    }
    let grads = grad::generate(ir, names);
    let errors = chosen
        .iter()
        .filter(|_| !grads.gradient_functions)
        .map(|name| syn::Error::new(name.span(), no_gradients_reason(ir)).to_compile_error());
    let grads = grads.code;
    quote!(#code #grads #(#errors)*)
}

/// Why a function gets no gradient functions (for an error at a name chosen for one).
fn no_gradients_reason(ir: &nilang_ir::Function) -> String {
    format!(
        "`{}` has no gradient functions to name: they are generated for a function whose \
         scalar type is its first type parameter, bounded by `Real` (`fn {}<T: Real>(…)`), \
         or `f64` or `f32` in a function without type parameters, and that has a `&mut` \
         parameter holding it (`y: &mut T`, `x: &mut [f64]`)",
        ir.sig.ident, ir.sig.ident
    )
}

fn method(options: &Options, m: syn::ImplItemFn) -> TokenStream2 {
    let (attrs, vis, sig) = (m.attrs.clone(), m.vis.clone(), m.sig.clone());
    let errors = grad::chosen_names(options).into_iter().map(|name| {
        syn::Error::new(
            name.span(),
            "methods have no gradient functions to name: write the method as a free function \
             `fn f<T: Real>(…)` to get `f_grad` and the others",
        )
        .to_compile_error()
    });
    let errors: TokenStream2 = errors.collect();
    match lower_method(options, m) {
        Ok(mut ir) => {
            nilang_ir::fn_params::name_bound_lifetimes(&mut ir.function.sig.generics);
            let code = check_policy::by_check_policy(options, &ir, codegen::generate);
            quote!(#code #errors)
        }
        Err(e) => {
            let errors = e.to_compile_error();
            let stubs = codegen::stubs(&attrs, &vis, &sig, &inverse_name(options, &sig));
            quote!(#errors #stubs)
        }
    }
}

fn impl_block(options: &Options, mut imp: syn::ItemImpl) -> TokenStream2 {
    let mut items = Vec::new();
    for item in std::mem::take(&mut imp.items) {
        match item {
            syn::ImplItem::Fn(mut m) => {
                let own = m.attrs.iter().position(nilang_ir::is_reversible_attr);
                let opts = match own {
                    Some(pos) => {
                        let attr = m.attrs.remove(pos);
                        match &attr.meta {
                            syn::Meta::List(l) => match Options::parse(l.tokens.clone()) {
                                Ok(o) => o,
                                Err(e) => {
                                    items.push(syn::ImplItem::Verbatim(e.to_compile_error()));
                                    continue;
                                }
                            },
                            _ => Options::default(),
                        }
                    }
                    None => options.clone(),
                };
                items.push(syn::ImplItem::Verbatim(method(&opts, m)));
            }
            other => items.push(other),
        }
    }
    imp.items = items;
    quote!(#imp)
}

/// A reversible function as a value. For a free function, `rev!(f)` is the struct that
/// carries `f`'s companions (`nilang_ir::companions`), which implements `nilang::Reversible`
/// (call `f`, uncall `f::inv`) and `nilang::Adjoint` (`f_adjoint`, `f_adjoint_inv`) at
/// whatever generic arguments the arguments decide; a turbofish (`rev!(f::<f64>)`) is checked
/// against `f` and the arguments decide all the same. `use m::f;` is all `rev!(f)` needs. For
/// an associated function, `rev!(Type::f)` is `nilang::Rev::new(Type::f, Type::f_inv)`
/// (call and uncall only).
#[proc_macro]
pub fn rev(input: TokenStream) -> TokenStream {
    let path: syn::ExprPath = match syn::parse(input) {
        Ok(p) => p,
        Err(e) => return e.to_compile_error().into(),
    };
    if nilang_ir::companions::names_free_function(&path) {
        let mut owner = path.path.clone();
        let turbofish = owner
            .segments
            .iter()
            .any(|s| !matches!(s.arguments, syn::PathArguments::None));
        owner
            .segments
            .iter_mut()
            .for_each(|s| s.arguments = syn::PathArguments::None);
        let check = turbofish.then(|| quote!(let _ = #path;));
        return quote!({ #check #owner {} }).into();
    }
    let mut inverse = path.clone();
    let last = inverse
        .path
        .segments
        .last_mut()
        .expect("a path has a segment");
    last.ident = format_ident!("{}_inv", last.ident);
    quote!(::nilang::Rev::new(#path, #inverse)).into()
}

/// `#[derive(Scalars)]` on a struct generic over its scalar type (`struct P<T> { … }` with named
/// fields whose types are `nilang::Scalars<T>`: scalars, arrays, `Vec`s, complex numbers, other
/// derived structs) makes it a differentiable argument of generated gradient functions. Its
/// scalars are flattened field by field, in declaration order.
#[proc_macro_derive(Scalars)]
pub fn derive_scalars(input: TokenStream) -> TokenStream {
    let item: syn::DeriveInput = match syn::parse(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error().into(),
    };
    derive::scalars(&item)
        .unwrap_or_else(|e| e.to_compile_error())
        .into()
}

mod derive {
    use proc_macro2::TokenStream;
    use quote::quote;

    pub fn scalars(item: &syn::DeriveInput) -> syn::Result<TokenStream> {
        let name = &item.ident;
        let syn::Data::Struct(data) = &item.data else {
            return Err(syn::Error::new_spanned(
                name,
                "#[derive(Scalars)] applies to structs with named fields",
            ));
        };
        let syn::Fields::Named(fields) = &data.fields else {
            return Err(syn::Error::new_spanned(
                name,
                "#[derive(Scalars)] applies to structs with named fields",
            ));
        };
        let params: Vec<_> = item.generics.params.iter().collect();
        let scalar = match params.as_slice() {
            [syn::GenericParam::Type(t)] => t.ident.clone(),
            _ => {
                return Err(syn::Error::new_spanned(
                    &item.generics,
                    "#[derive(Scalars)] needs exactly one type parameter, the scalar type: `struct P<T> { … }`",
                ))
            }
        };
        let n = quote!(::nilang);
        let names: Vec<_> = fields
            .named
            .iter()
            .map(|f| f.ident.clone().expect("named"))
            .collect();
        let tys: Vec<_> = fields.named.iter().map(|f| &f.ty).collect();
        let tr = quote!(#n::Scalars<#scalar>);
        Ok(quote! {
            impl<#scalar: #n::Float> #tr for #name<#scalar> {
                type Map<__U: ::core::marker::Copy> = #name<__U>;
                fn count(&self) -> usize {
                    0 #(+ <#tys as #tr>::count(&self.#names))*
                }
                fn map<__U: ::core::marker::Copy>(&self, __f: &mut dyn FnMut(usize, #scalar) -> __U) -> #name<__U> {
                    let mut __off = 0usize;
                    #name {
                        #(#names: {
                            let __o = __off;
                            __off += <#tys as #tr>::count(&self.#names);
                            <#tys as #tr>::map(&self.#names, &mut |__i, __v| __f(__o + __i, __v))
                        },)*
                    }
                }
                fn get_mapped<__U: ::core::marker::Copy>(__m: &#name<__U>, mut __i: usize) -> __U {
                    #(
                        let __c = <#tys as #tr>::count_mapped(&__m.#names);
                        if __i < __c {
                            return <#tys as #tr>::get_mapped(&__m.#names, __i);
                        }
                        __i -= __c;
                    )*
                    ::core::panic!("scalar index past the end of {}", ::core::stringify!(#name))
                }
                fn set_mapped<__U: ::core::marker::Copy>(__m: &mut #name<__U>, mut __i: usize, __v: __U) {
                    #(
                        let __c = <#tys as #tr>::count_mapped(&__m.#names);
                        if __i < __c {
                            return <#tys as #tr>::set_mapped(&mut __m.#names, __i, __v);
                        }
                        __i -= __c;
                    )*
                    ::core::panic!("scalar index past the end of {}", ::core::stringify!(#name))
                }
                fn count_mapped<__U: ::core::marker::Copy>(__m: &#name<__U>) -> usize {
                    0 #(+ <#tys as #tr>::count_mapped(&__m.#names))*
                }
                fn as_value_mut(__m: &mut #name<#scalar>) -> &mut Self {
                    __m
                }
            }
        })
    }
}
