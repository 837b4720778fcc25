//! Gradient, Jacobian and Hessian functions generated for a generic reversible function.
//!
//! They contain no derivative rules: `f_grad` runs `f` forward on plain scalars, seeds a
//! gradient buffer and runs the adjoint program `f_adjoint` (`crate::adjoint`: the inverse
//! program on values and separate gradient buffers, whose instructions carry the adjoint rules
//! of `nilang::gvar`); `f_jacobian` repeats the adjoint sweep once per output; `f_hessian` runs
//! `f_grad` on dual numbers. See `nilang::ad`.

mod halves;
mod hessian;
mod jacobian;
mod params;
mod vjp;

use crate::generics::{bounds_mention_real, with_base_bound};
use crate::shadows::Shadows;
use halves::{halves, is_ident, Halves, Sweep};
use hessian::hessian_fn;
use jacobian::jacobian_fns;
use nilang_ir::adjoint::shadow_name;
use nilang_ir::ast::Function;
use params::{integers_only, shadow_buffer, value_copy, Params, Role};
use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};
use vjp::vjp_fn;

/// The names of the generated gradient functions: `f_vjp`, `f_grad`, `f_jacobian`,
/// `f_jacobian_of` and `f_hessian`, or the names chosen with `#[i(grad = …, vjp = …,
/// jacobian = …, hessian = …)]` (`jacobian = j` also names `j_of`).
pub struct Names {
    vjp: syn::Ident,
    grad: syn::Ident,
    jacobian: syn::Ident,
    jacobian_of: syn::Ident,
    hessian: syn::Ident,
}

impl Names {
    /// The names for the function named `f`, with the options' choices.
    pub fn of(options: &nilang_ir::Options, f: &syn::Ident) -> Names {
        let or = |chosen: &Option<syn::Ident>, suffix: &str| {
            chosen
                .clone()
                .unwrap_or_else(|| format_ident!("{}_{}", f, suffix))
        };
        let jacobian = or(&options.jacobian, "jacobian");
        Names {
            vjp: or(&options.vjp, "vjp"),
            grad: or(&options.grad, "grad"),
            jacobian_of: format_ident!("{}_of", jacobian),
            jacobian,
            hessian: or(&options.hessian, "hessian"),
        }
    }

    /// The default names of `f`.
    pub fn default_for(f: &syn::Ident) -> Names {
        Names::of(&nilang_ir::Options::default(), f)
    }
}

/// The chosen names of an attribute (`grad = …` and the others), for errors where the
/// function gets no gradient functions.
pub fn chosen_names(options: &nilang_ir::Options) -> Vec<&syn::Ident> {
    [
        &options.grad,
        &options.vjp,
        &options.jacobian,
        &options.hessian,
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The generated code for gradients: the adjoint programs and, when there are any, the
/// gradient functions.
pub struct Generated {
    /// The adjoint programs and the gradient functions.
    pub code: TokenStream,
    /// Whether `f_vjp`, `f_grad`, `f_jacobian`, `f_jacobian_of` and `f_hessian` were generated.
    pub gradient_functions: bool,
}

/// The generated adjoint programs (`f_adjoint`, `f_adjoint_inv`) and, when the function has
/// a differentiable argument, `f_vjp`, `f_grad`, `f_jacobian`, `f_jacobian_of` and `f_hessian`
/// under `names`; nothing when the function is not generic over a `Real` scalar or is a method.
pub fn generate(f: &nilang_ir::Analyzed, names: &Names) -> Generated {
    let none = |code| Generated {
        code,
        gradient_functions: false,
    };
    let Some(p) = Params::of(f) else {
        // a program on integers only may be called from a differentiable one
        if integers_only(f) {
            return none(crate::adjoint::generate(f, &Shadows::default()));
        }
        return none(TokenStream::new());
    };
    let dropped = dropped_gradient_errors(&p);
    if !dropped.is_empty() {
        // the errors alone (no second error about names of functions not generated)
        return Generated {
            code: dropped,
            gradient_functions: true,
        };
    }
    let adjoint = crate::adjoint::generate(f, &p.shadows(TokenStream::new()));
    if p.diff().is_empty() {
        return none(adjoint);
    }
    let (vjp, grad) = (vjp_fn(&p, names), grad_fn(&p, names));
    let jacobians = jacobian_fns(&p, names);
    let hessian = if p.concrete {
        TokenStream::new()
    } else {
        hessian_fn(&p, names)
    };
    Generated {
        code: quote!(#adjoint #vjp #grad #jacobians #hessian),
        gradient_functions: true,
    }
}

/// Compile errors for the ancillas whose allocation would drop a gradient
/// (`nilang_ir::dropped`); empty when there are none.
fn dropped_gradient_errors(p: &Params) -> TokenStream {
    let params: Vec<String> = p.diff().iter().map(|(_, n, _)| n.to_string()).collect();
    nilang_ir::dropped::dropped_gradients(&p.f.body, &params, &p.scalar)
        .iter()
        .map(|d| d.to_error(&p.scalar).to_compile_error())
        .collect()
}

fn gradient_generics(p: &Params) -> syn::Generics {
    with_base_bound(p.f)
}

fn allow() -> TokenStream {
    quote!(#[allow(unused_mut, unused_variables, unused_assignments, unused_braces, unused_parens, unused_imports, non_snake_case, clippy::all)])
}

/// `f_grad`: forward on plain scalars, seed, adjoint into gradient buffers, and the values
/// and gradients zipped into `GVar`s.
fn grad_fn(p: &Params, names: &Names) -> TokenStream {
    let (n, s) = (quote!(::nilang), quote!(::nilang::__private::entry));
    let scalar = &p.scalar;
    let f = p.f;
    let name_str = f.sig.ident.to_string();
    let grad_name = &names.grad;
    let loss = p.added_param("loss");
    let adjoint = nilang_ir::adjoint::adjoint_name(&f.sig.ident);
    let generics = gradient_generics(p);
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let (vis, inputs) = (&f.vis, &f.sig.inputs);
    let diff = p.diff();
    let result_types = diff
        .iter()
        .map(|(_, _, ty)| quote!(#n::ad::WithGrad<#ty, #scalar>));
    // the restored inputs (in the copies) with their gradients
    let results = diff.iter().map(|(i, _, ty)| {
        let (b, v) = (shadow_buffer(*i), value_copy(*i));
        quote!(#s::zip::<#scalar, #ty>(#s::as_value_mut::<#scalar, #ty>(&mut #v), &#b))
    });
    // the adjoint runs on copies: the arguments keep the outputs, as they always have
    let Halves {
        forward,
        adjoint: backward,
    } = halves(
        p,
        Sweep::Copies,
        &scalar.to_token_stream(),
        &TokenStream::new(),
    );
    let lane = scalar.to_token_stream();
    let (validate, copies, shadows, seed) = (
        p.validate(),
        p.value_copies(),
        p.zero_shadows(&lane),
        p.seed(&lane),
    );
    let doc = format!(
        "Gradient of the loss (chosen by `loss`) of [`{name_str}`] with respect to its \
         differentiable arguments: `{name_str}` forward, then its adjoint program \
         [`{adjoint}`] into gradient buffers. Returns the differentiable arguments with `GVar` \
         scalars (inputs and gradients); the arguments are left holding the outputs of \
         `{name_str}`. See `nilang::ad`."
    );
    let allow = allow();
    quote! {
        #[doc = #doc]
        #allow
        #vis fn #grad_name #impl_generics (#loss: #n::Loss, #inputs)
            -> ::core::result::Result<(#(#result_types,)*), #n::GradError> #where_clause
        {
            let __loss = #loss;
            #validate
            #forward
            #copies
            #shadows
            let __k = 0usize;
            #seed
            #backward
            ::core::result::Result::Ok((#(#results,)*))
        }
    }
}
