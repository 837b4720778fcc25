//! `#[instruction(…)]`: a plain Rust function over `f64` values, with a hand-written inverse
//! and adjoint, made a statement of the reversible language (decision 0036).
//!
//! The item the attribute is put on is the forward function, over `f64` scalars and slices:
//! `fn g(out: &mut f64, a: &mut [f64]) { … }`. The attribute names the other functions, all
//! over `f64`, with the signatures the companions of an `#[i]` function have
//! (`nilang_ir::companions`): `inverse = g_inv` (same parameters), `adjoint = g_adj` and, when
//! the instruction may run inside an uncomputed routine with nonzero gradients,
//! `adjoint_inv = g_adj_inv` (each parameter followed by its gradient: a `&mut f64` /
//! `&mut [f64]` of the same shape for a `&mut` parameter, `()` for any other).
//!
//! Generated, beside the forward function (made generic over the scalar type, so that the
//! generic code of `#[i]` callers calls it):
//!
//! - `fn g<T: 'static>(…)`, which runs the user's forward on the values;
//! - `struct g {}` with `WRITES` (every `&mut` parameter: the conservative effects) and the
//!   associated functions `inv`, `adjoint` and `adjoint_inv` a caller's generated code calls
//!   (`g::inv`, `g::adjoint::<T, __G>`), generic over the scalar type `T` and the gradient
//!   type `__G: nilang::Grad<T>`.
//!
//! The generic functions run the user's `f64` functions when `T` is `f64` and panic with the
//! instruction's name otherwise (`nilang::__private::user_instr`): an opaque function has no
//! rule for dual numbers (Hessians, forward mode) or `GVar`. The adjoints run in place on `f64`
//! gradients, and once per lane on copies of the values for `Lanes<f64, N>` (`f_jacobian`):
//! an adjoint's gradient part is linear in the gradients and its value part does not read
//! them. Without `adjoint_inv`, `g::adjoint_inv` runs the forward on the values and panics
//! when a gradient is nonzero (it would need the inverse transpose of the Jacobian).
//!
//! `cuda = TEXT` gives the instruction's C++/CUDA view, `g::CUDA`: the C++ that a caller's
//! translation (`nilang-cgen`) calls, `g`/`g_inv` on `double` and on `gvar` (the adjoint and
//! its inverse). Without it `g::CUDA` is a compile error where used, which a `#[i(cuda)]`
//! caller does.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

/// What one parameter of an instruction is.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// `&mut f64`: written or differentiated; followed by a `&mut` gradient.
    ScalarMut,
    /// `&mut [f64]`
    SliceMut,
    /// `&f64`: read-only, no gradient.
    Scalar,
    /// `&[f64]`
    Slice,
    /// any other type (`usize`, `&[usize]`): passed as it is, no gradient.
    Other,
}

impl Kind {
    fn of(ty: &syn::Type) -> Kind {
        let is_f64 = |t: &syn::Type| matches!(t, syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident("f64"));
        match ty {
            syn::Type::Reference(r) => {
                let (scalar, slice) = match &*r.elem {
                    t if is_f64(t) => (true, false),
                    syn::Type::Slice(s) if is_f64(&s.elem) => (false, true),
                    _ => (false, false),
                };
                match (r.mutability.is_some(), scalar, slice) {
                    (true, true, _) => Kind::ScalarMut,
                    (true, _, true) => Kind::SliceMut,
                    (false, true, _) => Kind::Scalar,
                    (false, _, true) => Kind::Slice,
                    _ => Kind::Other,
                }
            }
            _ => Kind::Other,
        }
    }

    fn mutable(self) -> bool {
        matches!(self, Kind::ScalarMut | Kind::SliceMut)
    }

    /// The parameter's type in the generic functions, over the scalar type `t`.
    fn generic(self, ty: &syn::Type, t: &syn::Ident) -> TokenStream {
        match self {
            Kind::ScalarMut => quote!(&mut #t),
            Kind::SliceMut => quote!(&mut [#t]),
            Kind::Scalar => quote!(&#t),
            Kind::Slice => quote!(&[#t]),
            Kind::Other => ty.to_token_stream(),
        }
    }

    /// The conversion of a generic argument `x` to its `f64` view.
    fn view(self, x: &syn::Ident, name: &str, what: &str) -> TokenStream {
        let f = match self {
            Kind::ScalarMut => quote!(scalar_mut),
            Kind::SliceMut => quote!(slice_mut),
            Kind::Scalar => quote!(scalar),
            Kind::Slice => quote!(slice),
            Kind::Other => return x.to_token_stream(),
        };
        quote!(::nilang::__private::user_instr::#f(#x, #name, #what))
    }
}

/// The options of the attribute.
#[derive(Default)]
struct Options {
    inverse: Option<syn::Path>,
    adjoint: Option<syn::Path>,
    adjoint_inv: Option<syn::Path>,
    /// The C++/CUDA view: an expression of type `&'static str`.
    cuda: Option<syn::Expr>,
}

fn options(attr: TokenStream) -> syn::Result<Options> {
    let mut o = Options::default();
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("cuda") {
            if o.cuda.is_some() {
                return Err(meta.error("this option of #[instruction] is given twice"));
            }
            o.cuda = Some(meta.value()?.parse()?);
            return Ok(());
        }
        let slot = if meta.path.is_ident("inverse") {
            &mut o.inverse
        } else if meta.path.is_ident("adjoint") {
            &mut o.adjoint
        } else if meta.path.is_ident("adjoint_inv") {
            &mut o.adjoint_inv
        } else {
            return Err(meta.error(
                "unknown option of #[instruction]: expected `inverse = f`, `adjoint = f`, `adjoint_inv = f` or `cuda = TEXT`",
            ));
        };
        if slot.is_some() {
            return Err(meta.error("this option of #[instruction] is given twice"));
        }
        *slot = Some(meta.value()?.parse()?);
        Ok(())
    });
    syn::parse::Parser::parse2(parser, attr)?;
    Ok(o)
}

/// The attribute on tokens.
pub fn attribute(attr: TokenStream, item: TokenStream) -> TokenStream {
    match expand(attr, item) {
        Ok(ts) => ts,
        Err(e) => e.to_compile_error(),
    }
}

fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let f: syn::ItemFn = syn::parse2(item)?;
    let o = options(attr)?;
    let missing = |what: &str| {
        syn::Error::new(
            f.sig.ident.span(),
            format!(
                "#[instruction] needs `{what} = f`: the {what} of `{}` as a function over f64",
                f.sig.ident
            ),
        )
    };
    let inverse = o.inverse.clone().ok_or_else(|| missing("inverse"))?;
    let adjoint = o.adjoint.clone().ok_or_else(|| missing("adjoint"))?;
    let sig = &f.sig;
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        return Err(syn::Error::new_spanned(
            &sig.generics,
            "an instruction is written over f64 and has no generic parameters: the macro makes it generic",
        ));
    }
    if let syn::ReturnType::Type(_, t) = &sig.output {
        return Err(syn::Error::new(
            t.span(),
            "an instruction returns nothing: it writes its `&mut` parameters",
        ));
    }
    let qualifier = sig
        .asyncness
        .map(|a| a.span())
        .or(sig.unsafety.map(|u| u.span()))
        .or(sig.constness.map(|c| c.span()))
        .or(sig.abi.as_ref().map(|a| a.span()));
    if let Some(span) = qualifier {
        return Err(syn::Error::new(
            span,
            "an instruction is a plain `fn`: not async, unsafe, const or extern",
        ));
    }
    let mut params = Vec::new();
    for input in &sig.inputs {
        match input {
            syn::FnArg::Typed(pt) => match &*pt.pat {
                syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                    params.push((pi.ident.clone(), (*pt.ty).clone(), Kind::of(&pt.ty)))
                }
                other => {
                    return Err(syn::Error::new(
                        other.span(),
                        "a parameter of an instruction is a plain name",
                    ))
                }
            },
            syn::FnArg::Receiver(r) => {
                return Err(syn::Error::new(
                    r.span(),
                    "an instruction is a free function, not a method",
                ))
            }
        }
    }
    if !params.iter().any(|(_, _, k)| k.mutable()) {
        return Err(syn::Error::new_spanned(
            &sig.inputs,
            "an instruction writes or differentiates at least one parameter of type `&mut f64` or `&mut [f64]`",
        ));
    }

    let name = &sig.ident;
    let name_text = name.to_string();
    let vis = &f.vis;
    let t = format_ident!("__T");
    let g = format_ident!("__G");
    let attrs = &f.attrs;
    let block = &f.block;
    let user_inputs = &sig.inputs;
    let fwd_inner = format_ident!("__nilang_forward");

    // plain parameters (values), generic over __T
    let value_params: Vec<TokenStream> = params
        .iter()
        .map(|(x, ty, k)| {
            let ty = k.generic(ty, &t);
            quote!(#x: #ty)
        })
        .collect();
    let value_views: Vec<TokenStream> = params
        .iter()
        .map(|(x, _, k)| k.view(x, &name_text, "values"))
        .collect();
    // adjoint parameters: each followed by its gradient
    let grad_name = |x: &syn::Ident| format_ident!("{}_grad", x);
    let adjoint_params: Vec<TokenStream> = params
        .iter()
        .flat_map(|(x, ty, k)| {
            let vt = k.generic(ty, &t);
            let gx = grad_name(x);
            let gt = if k.mutable() {
                k.generic(ty, &g)
            } else {
                quote!(())
            };
            [quote!(#x: #vt), quote!(#gx: #gt)]
        })
        .collect();
    let adjoint_views: Vec<TokenStream> = params
        .iter()
        .flat_map(|(x, _, k)| {
            let gx = grad_name(x);
            let gv = if k.mutable() {
                k.view(&gx, &name_text, "gradients")
            } else {
                quote!(#gx)
            };
            [k.view(x, &name_text, "values"), gv]
        })
        .collect();
    // bit k: parameter k may be written; past 128 parameters, "writes everything"
    let mask: u128 = if params.len() > 128 {
        u128::MAX
    } else {
        params
            .iter()
            .enumerate()
            .filter(|(_, (_, _, k))| k.mutable())
            .fold(0, |m, (i, _)| m | (1u128 << i))
    };
    let value_generics = quote!(<#t: 'static>);
    let adjoint_generics = quote!(<#t: 'static, #g: ::nilang::Grad<#t>>);

    // an adjoint on f64 gradients runs in place; on several lanes (`Lanes<f64, N>`), once per
    // lane on copies of the values (the gradients' part of an adjoint is linear in them, its
    // values' part does not read them), when every other parameter can be passed again
    let repeatable = params
        .iter()
        .all(|(_, ty, k)| *k != Kind::Other || copy_type(ty));
    let by_lanes = |user: TokenStream| -> TokenStream {
        let direct = quote!(#user(#(#adjoint_views),*));
        if !repeatable {
            return direct;
        }
        let ui = quote!(::nilang::__private::user_instr);
        let (mut save, mut lane_in, mut args, mut lane_out, mut keep, mut restore) =
            (vec![], vec![], vec![], vec![], vec![], vec![]);
        for (x, _, k) in &params {
            let gx = grad_name(x);
            let (orig, val, gl, out) = (
                format_ident!("__orig_{}", x),
                format_ident!("__value_{}", x),
                format_ident!("__lane_{}", x),
                format_ident!("__out_{}", x),
            );
            match k {
                Kind::ScalarMut => {
                    save.push(quote!(let #orig: f64 = *#ui::scalar(&*#x, #name_text, "values"); let mut #out = #orig;));
                    lane_in.push(quote!(let mut #val = #orig; let mut #gl = #ui::lane_of::<#t, #g>(&*#gx, __k, #name_text);));
                    args.push(quote!(&mut #val));
                    args.push(quote!(&mut #gl));
                    lane_out
                        .push(quote!(#ui::set_lane_of::<#t, #g>(&mut *#gx, __k, #gl, #name_text);));
                    keep.push(quote!(#out = #val;));
                    restore.push(quote!(*#ui::scalar_mut(#x, #name_text, "values") = #out;));
                }
                Kind::SliceMut => {
                    save.push(quote!(let #orig: ::std::vec::Vec<f64> = #ui::slice(&*#x, #name_text, "values").to_vec(); let mut #out = #orig.clone();));
                    lane_in.push(quote!(let mut #val = #orig.clone(); let mut #gl = #ui::lanes_of::<#t, #g>(&*#gx, __k, #name_text);));
                    args.push(quote!(&mut #val[..]));
                    args.push(quote!(&mut #gl[..]));
                    lane_out.push(
                        quote!(#ui::set_lanes_of::<#t, #g>(&mut *#gx, __k, &#gl, #name_text);),
                    );
                    keep.push(quote!(#out = #val;));
                    restore.push(
                        quote!(#ui::slice_mut(#x, #name_text, "values").copy_from_slice(&#out);),
                    );
                }
                _ => {
                    args.push(k.view(x, &name_text, "values"));
                    args.push(quote!(#gx));
                }
            }
        }
        quote! {
            if #ui::plain_gradient::<#g>() {
                #direct
            } else {
                #(#save)*
                for __k in 0..#ui::lanes::<#t, #g>(#name_text) {
                    #(#lane_in)*
                    #user(#(#args),*);
                    #(#lane_out)*
                    if __k == 0 {
                        #(#keep)*
                    }
                }
                #(#restore)*
            }
        }
    };
    let adjoint_body = by_lanes(adjoint.to_token_stream());
    let adjoint_inv_body = match &o.adjoint_inv {
        Some(p) => by_lanes(p.to_token_stream()),
        None => {
            let zero_checks = params.iter().filter(|(_, _, k)| k.mutable()).map(|(x, _, k)| {
                let gx = grad_name(x);
                let all = if *k == Kind::ScalarMut {
                    quote!(::core::slice::from_ref(&*#gx))
                } else {
                    quote!(&*#gx)
                };
                let gx_text = gx.to_string();
                quote!(::nilang::__private::user_instr::zero_gradients::<#t, #g>(#all, #name_text, #gx_text);)
            });
            let value_views = value_views.clone();
            quote! {
                #(#zero_checks)*
                #fwd_inner(#(#value_views),*)
            }
        }
    };
    let adjoint_inv_note = if o.adjoint_inv.is_some() {
        ""
    } else {
        " Without a user `adjoint_inv`, it runs the forward on the values and panics when a \
         gradient is nonzero."
    };
    let struct_doc = format!(
        "The companions of the instruction [`{name_text}`](fn@{name_text}), reached through its \
         name by the code `#[i]` generates for its callers."
    );
    let inv_doc = format!(
        "The inverse of the instruction `{name_text}` (`{}`).",
        inverse.to_token_stream()
    );
    let adj_doc = format!(
        "The adjoint of the instruction `{name_text}` (`{}`): called with the outputs and \
         their gradients, it restores the inputs and leaves their gradients.",
        adjoint.to_token_stream()
    );
    let adj_inv_doc = format!("The inverse of `{name_text}::adjoint`.{adjoint_inv_note}");
    let span = name.span();
    let allow =
        quote!(#[allow(non_snake_case, non_camel_case_types, unused_variables, clippy::all)]);
    let fwd_call = quote_spanned!(span=> #fwd_inner(#(#value_views),*));
    let fwd_inner_item = quote! {
        #[inline(always)]
        #allow
        fn #fwd_inner(#user_inputs) #block
    };
    let adjoint_inv_fwd = o.adjoint_inv.is_none().then(|| fwd_inner_item.clone());
    let cuda = match &o.cuda {
        Some(text) => quote! {
            #allow
            impl #name {
                /// The C++/CUDA view of the instruction, as given to `#[instruction(cuda = …)]`.
                pub const CUDA: &'static str = #text;
            }
        },
        None => crate::codegen::no_cuda_view(
            name,
            &format!(
                "give the instruction its C++ with `#[instruction(…, cuda = TEXT)]`: `{name}` \
                 and `{name}_inv` on `double`, and on `gvar` `{name}_inv` (its adjoint) and \
                 `{name}` (the adjoint's inverse)"
            ),
        ),
    };
    let user_adjoint_inv = o.adjoint_inv.iter();
    Ok(quote! {
        #(#attrs)*
        #allow
        #vis fn #name #value_generics (#(#value_params),*) {
            #fwd_inner_item
            #fwd_call
        }
        #[doc = #struct_doc]
        #[doc(hidden)]
        #allow
        #vis struct #name {}
        #allow
        impl #name {
            /// Bit `k` set: the instruction may write its parameter `k` (every `&mut` parameter).
            pub const WRITES: u128 = #mask;
            #[doc = #inv_doc]
            #[inline]
            #vis fn inv #value_generics (#(#value_params),*) {
                #inverse(#(#value_views),*)
            }
            #[doc = #adj_doc]
            #[inline]
            #vis fn adjoint #adjoint_generics (#(#adjoint_params),*) {
                #adjoint_body
            }
            #[doc = #adj_inv_doc]
            #[inline]
            #vis fn adjoint_inv #adjoint_generics (#(#adjoint_params),*) {
                #adjoint_inv_fwd
                #adjoint_inv_body
            }
        }
        #cuda
        // The user's functions are reached through the companions, which a program that never
        // differentiates (or never uncomputes) the instruction leaves unused: not dead code.
        const _: () = {
            let _ = #inverse;
            let _ = #adjoint;
            #(let _ = #user_adjoint_inv;)*
        };
    })
}

/// Can a value of this type be passed twice (a shared reference, or a primitive number)?
fn copy_type(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(r) => r.mutability.is_none(),
        syn::Type::Path(p) => {
            const COPY: [&str; 15] = [
                "usize", "isize", "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64",
                "i128", "f32", "bool", "char",
            ];
            p.qself.is_none() && COPY.iter().any(|c| p.path.is_ident(c))
        }
        _ => false,
    }
}
