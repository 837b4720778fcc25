//! The user's signature: which parameters are differentiable, and the signatures of the two
//! functions generated beside the user's own: the reversible program `f_rev` and the gradient
//! `f_gradient`.

use crate::nir::{Id, Ty};
use crate::Names;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};
use syn::spanned::Spanned;
use syn::Ident;

/// How a parameter is passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `x: T`
    Value,
    /// `x: &T`
    Ref,
    /// `x: &[T]` or `x: &Vec<T>`
    Slice,
    /// `out: &mut [T]`: an output, written by element
    Output,
    /// anything without the real type (`n: usize`, `h: f64` in a generic function, `idx:
    /// &[usize]`): read-only, not differentiated
    Plain {
        /// `&[_]` or `&Vec<_>`: its elements can be iterated over
        slice: bool,
    },
}

/// A parameter.
#[derive(Clone, Debug)]
pub struct Param {
    /// Its name.
    pub ident: Ident,
    /// Its type as written.
    pub ty_tokens: syn::Type,
    /// How it is passed.
    pub shape: Shape,
    /// What it holds.
    pub ty: Ty,
}

/// The user's signature, read.
#[derive(Clone, Debug)]
pub struct Signature {
    /// The user's signature.
    pub user: syn::Signature,
    /// Whether the function is written over `f64` (else it is generic over one type).
    pub f64_mode: bool,
    /// The real type as the user spells it (`T`, or `f64`).
    pub real: Ident,
    /// The real type's name in the reversible program (the user's `T`, or a fresh one).
    pub rev_real: Ident,
    /// The parameters, in order (binding `k` of the body is parameter `k`).
    pub params: Vec<Param>,
}

type Result<T> = syn::Result<T>;

fn err<T>(tokens: impl ToTokens, message: impl std::fmt::Display) -> Result<T> {
    Err(syn::Error::new_spanned(tokens, message))
}

impl Signature {
    /// Reads a signature: generic over one type `T: Real`, or over `f64`, returning the real
    /// type.
    pub fn of(sig: &syn::Signature, wrt: Option<&[Ident]>, names: &mut Names) -> Result<Signature> {
        if let Some(wrt) = wrt {
            for w in wrt {
                let known = sig.inputs.iter().any(|a| {
                    matches!(a, syn::FnArg::Typed(pt)
                        if matches!(&*pt.pat, syn::Pat::Ident(pi) if pi.ident == *w))
                });
                if !known {
                    return err(w, format!("`{w}` is not a parameter of this function"));
                }
            }
        }
        if let Some(x) = sig
            .asyncness
            .as_ref()
            .map(|a| a.span())
            .or(sig.unsafety.map(|u| u.span))
        {
            return Err(syn::Error::new(
                x,
                "a differentiable function is neither async nor unsafe",
            ));
        }
        let types: Vec<&syn::TypeParam> = sig.generics.type_params().collect();
        let (f64_mode, real) =
            match types.as_slice() {
                [] => (true, Ident::new("f64", sig.ident.span())),
                _ => return err(
                    &sig.generics,
                    "write a differentiable function over `f64` (`fn f(x: &[f64], …) -> f64`): \
                     the reversible program the front end writes is generic over nilang's \
                     number types by itself",
                ),
            };
        if sig.generics.lifetimes().next().is_some() || sig.generics.const_params().next().is_some()
        {
            return err(
                &sig.generics,
                "lifetime and const parameters are not supported here",
            );
        }
        let rev_real = if f64_mode {
            names.fresh_type("T", sig.ident.span())
        } else {
            real.clone()
        };
        let mut out = Signature {
            user: sig.clone(),
            f64_mode,
            real,
            rev_real,
            params: Vec::new(),
        };
        for a in &sig.inputs {
            if let syn::FnArg::Typed(pt) = a {
                if matches!(&*pt.ty, syn::Type::Reference(r)
                    if r.mutability.is_some() && out.is_real(&r.elem))
                {
                    return err(
                        &pt.ty,
                        "a scalar result is returned (`-> f64`), or written into an output \
                         slice (`&mut [f64]`, here of length 1)",
                    );
                }
            }
        }
        let outputs = sig
            .inputs
            .iter()
            .any(|a| matches!(a, syn::FnArg::Typed(pt) if out.is_output(&pt.ty)));
        match &sig.output {
            syn::ReturnType::Type(_, t) if out.is_real(t) && !outputs => {}
            syn::ReturnType::Default if outputs => {}
            syn::ReturnType::Type(..) if outputs => {
                return err(
                    &sig.output,
                    "a function that writes output parameters (`&mut [f64]`) returns nothing: \
                     remove the return type, or return the loss and take no `&mut` parameter",
                )
            }
            syn::ReturnType::Default => {
                return err(
                    &sig.ident,
                    "a differentiable function returns its loss: add `-> f64`",
                )
            }
            other => {
                return err(
                    other,
                    format!(
                        "a differentiable function returns its loss, a `{}`",
                        out.real
                    ),
                )
            }
        }
        for input in &sig.inputs {
            let syn::FnArg::Typed(pt) = input else {
                return err(
                    input,
                    "methods are not supported yet: write a free function",
                );
            };
            let syn::Pat::Ident(pi) = &*pt.pat else {
                return err(&pt.pat, "a parameter is a name here: `x: &[f64]`");
            };
            let differentiated = wrt.is_none_or(|w| w.contains(&pi.ident));
            let shape = if out.is_output(&pt.ty) {
                if wrt.is_some_and(|w| w.contains(&pi.ident)) {
                    return err(
                        &pi.ident,
                        format!(
                            "`{}` is an output (`&mut`): `wrt` names the inputs to \
                             differentiate with respect to",
                            pi.ident
                        ),
                    );
                }
                Shape::Output
            } else if differentiated {
                out.shape(&pt.ty)?
            } else {
                Shape::Plain {
                    slice: matches!(&*pt.ty, syn::Type::Reference(r) if Self::element(&r.elem).is_some()),
                }
            };
            if let (Shape::Plain { .. }, syn::Type::Path(_), Some(e)) =
                (shape, &*pt.ty, Self::element(&pt.ty))
            {
                // a `Vec` taken by value: each generated program takes the parameter (a
                // `Copy` type's copy); any other type that is not `Copy` is an error at the
                // call in `f_gradient` (`__private::entry::PlainParameter`)
                return err(
                    &pt.ty,
                    format!(
                        "`{0}` is not differentiated, and every program `#[differentiable]` \
                         writes takes it, so it must be `Copy`: take it by reference, \
                         `{0}: &[{1}]`",
                        pi.ident,
                        e.to_token_stream()
                    ),
                );
            }
            let ty = match shape {
                Shape::Value | Shape::Ref => Ty::Real,
                Shape::Slice | Shape::Output => Ty::RealVec,
                Shape::Plain { .. } => Ty::Plain,
            };
            out.params.push(Param {
                ident: pi.ident.clone(),
                ty_tokens: (*pt.ty).clone(),
                shape,
                ty,
            });
        }
        Ok(out)
    }

    fn is_real(&self, t: &syn::Type) -> bool {
        matches!(t, syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident(&self.real))
    }

    fn mentions_real(&self, t: &syn::Type) -> bool {
        fn walk(ts: TokenStream, name: &Ident) -> bool {
            ts.into_iter().any(|t| match t {
                proc_macro2::TokenTree::Ident(i) => i == *name,
                proc_macro2::TokenTree::Group(g) => walk(g.stream(), name),
                _ => false,
            })
        }
        walk(t.to_token_stream(), &self.real)
    }

    /// The element type of `[E]`, `[E; N]` or `Vec<E>`.
    fn element(t: &syn::Type) -> Option<&syn::Type> {
        match t {
            syn::Type::Slice(s) => Some(&s.elem),
            syn::Type::Array(a) => Some(&a.elem),
            syn::Type::Path(p) => {
                let last = p.path.segments.last()?;
                if last.ident != "Vec" {
                    return None;
                }
                match &last.arguments {
                    syn::PathArguments::AngleBracketed(a) => match a.args.first()? {
                        syn::GenericArgument::Type(t) => Some(t),
                        _ => None,
                    },
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Is this type an output, `&mut [f64]` or `&mut Vec<f64>`?
    fn is_output(&self, t: &syn::Type) -> bool {
        matches!(t, syn::Type::Reference(r) if r.mutability.is_some()
            && Self::element(&r.elem).is_some_and(|e| self.is_real(e)))
    }

    /// Does the function write output parameters (instead of returning a value)?
    pub fn has_outputs(&self) -> bool {
        self.params.iter().any(|p| p.shape == Shape::Output)
    }

    fn shape(&self, t: &syn::Type) -> Result<Shape> {
        if self.is_real(t) {
            return Ok(Shape::Value);
        }
        if let syn::Type::Reference(r) = t {
            if r.mutability.is_some() {
                return err(
                    t,
                    "a differentiable function takes its inputs by value or shared reference, \
                     and returns its result or writes it into `&mut [f64]` outputs: use \
                     `&[f64]`, `&f64` or `f64` for an input",
                );
            }
            if self.is_real(&r.elem) {
                return Ok(Shape::Ref);
            }
            if let Some(e) = Self::element(&r.elem) {
                if self.is_real(e) {
                    return Ok(Shape::Slice);
                }
                if !self.mentions_real(e) {
                    return Ok(Shape::Plain { slice: true });
                }
            }
        }
        if self.mentions_real(t) {
            return err(
                t,
                format!(
                    "unsupported parameter type: the differentiable parameters are `{0}`, `&{0}` \
                     and `&[{0}]`; {1}",
                    self.real,
                    if matches!(t, syn::Type::Array(_)) {
                        format!("take an array by reference, `&[{}]`", self.real)
                    } else {
                        format!(
                            "store rows or points in one flat slice, `&[{}]`, and index it \
                             as `x[i * n + j]`",
                            self.real
                        )
                    }
                ),
            );
        }
        Ok(Shape::Plain { slice: false })
    }

    /// The kind of a `let`'s declared type.
    pub fn type_kind(&self, t: &syn::Type) -> Ty {
        if self.is_real(t) {
            Ty::Real
        } else if Self::element(t).is_some_and(|e| self.is_real(e)) {
            Ty::RealVec
        } else {
            Ty::Plain
        }
    }

    /// Is binding `id` a parameter that is a slice of plain values?
    pub fn is_slice(&self, id: Id) -> bool {
        self.params
            .get(id)
            .is_some_and(|p| p.shape == Shape::Plain { slice: true })
    }

    /// Is parameter `id` a slice of the real type's numbers left out of `wrt` (data)?
    pub fn is_real_data(&self, id: Id) -> bool {
        self.is_slice(id)
            && matches!(&self.params[id].ty_tokens, syn::Type::Reference(r)
                if Self::element(&r.elem).is_some_and(|e| self.is_real(e)))
    }

    /// Is this the real type's name (`T::zero()` is a real constant)?
    pub fn is_real_type_name(&self, ident: &Ident) -> bool {
        *ident == self.real || (self.f64_mode && ident == "f64")
    }

    /// A path naming a constant of the real type (`std::f64::consts::PI` in an `f64` function).
    pub fn is_real_constant(&self, path: &syn::Path) -> bool {
        if self.f64_mode {
            path.segments
                .iter()
                .any(|s| s.ident == "f64" || s.ident == "consts")
        } else {
            path.segments.len() >= 2 && path.segments[0].ident == self.real
        }
    }

    /// A parameter's type in the reversible program.
    fn rev_param_type(&self, p: &Param) -> TokenStream {
        let t = &self.rev_real;
        match p.shape {
            Shape::Value | Shape::Ref => quote!(&mut #t),
            Shape::Slice | Shape::Output => quote!(&mut [#t]),
            Shape::Plain { .. } => p.ty_tokens.to_token_stream(),
        }
    }

    /// The reversible program's signature: `fn f_rev<T: Real>(out: &mut T, x: &mut [T], …)`
    /// (every differentiable parameter by `&mut`, the others as the user wrote them).
    pub fn reversible(&self, name: &Ident, out: &Ident) -> TokenStream {
        self.reversible_with(name, out, None)
    }

    /// The taped program's signature: the reversible program's with the caller's tapes after
    /// `out` (`tape: &mut Vec<T>, decisions: &mut nilang::stack::Decisions`), first for a
    /// function that writes outputs.
    pub fn taped(&self, name: &Ident, out: &Ident, tapes: crate::emit::CallerTapes) -> TokenStream {
        self.reversible_with(name, out, Some(tapes))
    }

    fn reversible_with(
        &self,
        name: &Ident,
        out: &Ident,
        tapes: Option<crate::emit::CallerTapes>,
    ) -> TokenStream {
        let t = &self.rev_real;
        let generics = if self.f64_mode {
            quote!(<#t: ::nilang::Real>)
        } else {
            self.user.generics.to_token_stream()
        };
        let where_clause = &self.user.generics.where_clause;
        let params = self.params.iter().map(|p| {
            let (ident, ty) = (&p.ident, self.rev_param_type(p));
            quote!(#ident: #ty)
        });
        let tapes = tapes.map(|c| {
            let (values, decisions) = (c.values, c.decisions);
            quote!(#values: &mut ::std::vec::Vec<#t>, #decisions: &mut ::nilang::stack::Decisions,)
        });
        if self.has_outputs() {
            return quote!(fn #name #generics(#tapes #(#params),*) #where_clause);
        }
        quote!(fn #name #generics(#out: &mut #t, #tapes #(#params),*) #where_clause)
    }

    /// The gradient function: `fn f_gradient(x: &[f64], …) -> (f64, gradients)`, the
    /// gradient of each differentiable parameter in order (one alone, several as a tuple).
    /// `saves`: whether the taped program of a function with a value saves on its tape; its
    /// sweeps then run on a tape the entry point keeps at home (see `Sweeps`), else through
    /// `f_rev_vjp`.
    pub fn gradient(
        &self,
        vis: &syn::Visibility,
        rev: &Ident,
        saves: bool,
        names: &mut Names,
    ) -> TokenStream {
        let span = self.user.ident.span();
        let name = format_ident!("{}_gradient", self.user.ident);
        let mut params = Vec::new();
        let mut setup = Vec::new();
        let mut capture = Vec::new();
        let mut call_args = Vec::new();
        // the taped program's arguments (values only), and the outputs' values read after it
        let (mut value_args, mut outputs) = (Vec::new(), Vec::new());
        let mut grads = Vec::new();
        let mut grad_types = Vec::new();
        let mut scalars = 0usize;
        let mut seeds = Vec::new();
        let mut sweeps = Sweeps::default();
        for p in &self.params {
            let ident = &p.ident;
            let grad = names.fresh(&format!("{ident}_grad"), span);
            match p.shape {
                Shape::Output => {
                    let seed = names.fresh(&format!("{ident}_seed"), span);
                    let work = names.fresh(&format!("{ident}_work"), span);
                    let message = format!(
                        "`{name}`: the seed `{seed}` has length {{}}, but the output `{ident}` \
                         has length {{}}"
                    );
                    seeds.push(quote!(#seed: &[f64]));
                    // the values the output holds on entry, captured before `f` runs: the
                    // taped program starts from them as `f` does
                    capture.push(quote!(
                        assert_eq!(#seed.len(), #ident.len(), #message, #seed.len(), #ident.len());
                        let mut #work = ::nilang::__private::work::Work::<f64>::copied(#ident);
                        let mut #grad: ::std::vec::Vec<f64> = #seed.to_vec();
                    ));
                    call_args.push(quote!(&mut #work[..], &mut #grad));
                    value_args.push(quote!(&mut #work[..]));
                    outputs.push(quote!(#ident.copy_from_slice(&#work[..]);));
                }
                Shape::Value | Shape::Ref => {
                    let read = if p.shape == Shape::Value {
                        quote!(#ident)
                    } else {
                        quote!(*#ident)
                    };
                    setup.push(quote!(let mut #ident: f64 = #read; let mut #grad = 0.0f64;));
                    call_args.push(quote!(&mut #ident, &mut #grad));
                    value_args.push(quote!(&mut #ident));
                    sweeps.add(
                        quote!(#ident: &mut f64, #grad: &mut f64),
                        quote!(&mut #ident, &mut #grad),
                        quote!(&mut *#ident),
                        quote!(&mut *#ident, &mut *#grad),
                    );
                    grads.push(quote!(#grad));
                    grad_types.push(quote!(f64));
                    scalars += 1;
                }
                Shape::Slice => {
                    // a short working copy lives on the stack, a long one on a buffer from the
                    // thread's pool of tapes: a gradient called in a loop allocates (and, for
                    // megabytes, faults in) neither on every call
                    setup.push(quote!(
                        let mut #ident = ::nilang::__private::work::Work::<f64>::copied(#ident);
                        let mut #grad = ::std::vec![0.0f64; #ident.len()];
                    ));
                    call_args.push(quote!(&mut #ident[..], &mut #grad));
                    value_args.push(quote!(&mut #ident[..]));
                    grads.push(quote!(#grad));
                    grad_types.push(quote!(::std::vec::Vec<f64>));
                    sweeps.add(
                        quote!(#ident: &mut [f64], #grad: &mut [f64]),
                        quote!(&mut #ident[..], &mut #grad[..]),
                        quote!(&mut *#ident),
                        quote!(&mut *#ident, &mut *#grad),
                    );
                }
                Shape::Plain { .. } => {
                    call_args.push(quote!(#ident, ()));
                    value_args.push(quote!(#ident));
                    let ty = &p.ty_tokens;
                    // used by both sweeps: `Copy`, or one clear error at the parameter
                    setup.push(quote::quote_spanned!(ident.span()=>
                        ::nilang::__private::entry::plain_parameter(#ident);
                    ));
                    sweeps.add(
                        quote!(#ident: #ty),
                        quote!(#ident),
                        quote!(#ident),
                        quote!(#ident, ()),
                    );
                }
            }
            params.push(self.entry_param(p));
        }
        if !seeds.is_empty() {
            let tapes = [
                "tape",
                "tape_grad",
                "decisions",
                "decisions_grad",
                "tape_home",
            ]
            .map(|t| names.fresh(t, span));
            return self.output_gradient(
                vis,
                &name,
                rev,
                &tapes,
                params,
                seeds,
                [capture, setup],
                [call_args, value_args, outputs],
                grads,
                grad_types,
            );
        }
        let value = if scalars == 0 {
            quote!(value)
        } else {
            quote!(value.0)
        };
        let (grads, grad_types) = if grads.len() == 1 {
            (grads[0].clone(), grad_types[0].clone())
        } else {
            (quote!((#(#grads),*)), quote!((#(#grad_types),*)))
        };
        if !saves || !self.user.generics.params.is_empty() {
            // `f_rev_vjp`: for a program that saves nothing its tape is a plain `Vec`, and the
            // whole gradient inlines (the sweeps' function below would cost a call and a visit
            // to its home); and the sweeps' function cannot name the user's generics
            let vjp = format_ident!("{}_vjp", rev);
            let doc = format!(
                "The value of [`{0}`] at `f64` and its gradient with respect to each \
                 differentiable parameter, by reverse-mode AD of the reversible program \
                 [`{1}`] (`{1}_vjp`).",
                self.user.ident, rev
            );
            return quote! {
                #[doc = #doc]
                #[allow(clippy::too_many_arguments, unused_mut)]
                #vis fn #name(#(#params),*) -> (f64, #grad_types) {
                    #(#setup)*
                    let value = #vjp(&mut -0.0f64, &mut 1.0f64, #(#call_args),*);
                    (#value, #grads)
                }
            };
        }
        let doc = format!(
            "The value of [`{0}`] at `f64` and its gradient with respect to each \
             differentiable parameter, by reverse-mode AD of the reversible program [`{1}`] \
             (its taped program `{1}_taped`, then that program's adjoint).",
            self.user.ident, rev
        );
        let sweep = sweeps.function(rev, names, span);
        let Sweeps { pass, .. } = sweeps;
        let [tape, decisions, home] =
            ["tape", "decisions", "tape_home"].map(|t| names.fresh(t, span));
        let new_tapes = crate::jacobian::new_tapes([&tape, &decisions, &home], &quote!(f64));
        let (sweep_fn, sweep_name) = sweep;
        quote! {
            #[doc = #doc]
            #[allow(clippy::too_many_arguments, unused_mut)]
            #vis fn #name(#(#params),*) -> (f64, #grad_types) {
                #sweep_fn
                #(#setup)*
                #new_tapes
                let value = #sweep_name(&mut *#tape, &mut #decisions, #(#pass),*);
                (value, #grads)
            }
        }
    }

    /// Parameter `p` of a generated entry point (`f_gradient`, `f_jacobian`): `x: f64`,
    /// `x: &f64`, `x: &[f64]`, `out: &mut [f64]`, or as the user wrote it.
    pub fn entry_param(&self, p: &Param) -> TokenStream {
        let ident = &p.ident;
        match p.shape {
            Shape::Value => quote!(#ident: f64),
            Shape::Ref => quote!(#ident: &f64),
            Shape::Slice => quote!(#ident: &[f64]),
            Shape::Output => quote!(#ident: &mut [f64]),
            Shape::Plain { .. } => {
                let ty = &p.ty_tokens;
                quote!(#ident: #ty)
            }
        }
    }

    /// [`Self::gradient`] of a function that writes outputs: `f_gradient(inputs…, outputs…,
    /// one seed per output)` writes the outputs as `f` does (by the taped program, which
    /// computes as `f` does) and returns the gradient of `Σ seed·output` with respect to each
    /// differentiable input.
    #[allow(clippy::too_many_arguments)]
    fn output_gradient(
        &self,
        vis: &syn::Visibility,
        name: &Ident,
        rev: &Ident,
        tapes: &[Ident; 5],
        params: Vec<TokenStream>,
        seeds: Vec<TokenStream>,
        [capture, setup]: [Vec<TokenStream>; 2],
        [call_args, value_args, outputs]: [Vec<TokenStream>; 3],
        grads: Vec<TokenStream>,
        grad_types: Vec<TokenStream>,
    ) -> TokenStream {
        let f = &self.user.ident;
        let [tape, tape_grad, decisions, decisions_grad, home] = tapes;
        let new_tapes = crate::jacobian::new_tapes([tape, decisions, home], &quote!(f64));
        let vjp = crate::jacobian::taped_vjp_reading(
            rev,
            [tape, tape_grad, decisions, decisions_grad],
            &quote!(f64),
            None,
            [&value_args, &outputs, &call_args],
        );
        let (grads, grad_types) = match grads.len() {
            1 => (grads[0].clone(), grad_types[0].clone()),
            _ => (quote!((#(#grads),*)), quote!((#(#grad_types),*))),
        };
        let doc = format!(
            "Runs [`{f}`], which writes its outputs, and returns the gradient of \
             `Σ seed·output` (one seed per output, after the other parameters) with respect to \
             each differentiable input, by reverse-mode AD of the reversible program [`{rev}`] \
             (`{rev}_taped` and its adjoint, from the values the outputs hold on entry; the \
             outputs get the taped program's values, computed as `{f}` computes them): a \
             vector–Jacobian product; unit seeds give the Jacobian's rows (`{f}_jacobian` \
             gives them all)."
        );
        quote! {
            #[doc = #doc]
            #[allow(clippy::too_many_arguments, unused_mut)]
            #vis fn #name(#(#params,)* #(#seeds),*) -> #grad_types {
                #(#capture)*
                #(#setup)*
                #new_tapes
                #vjp
                #grads
            }
        }
    }
}

/// The two sweeps of `f_gradient` of a function with a value, in a function of their own: the
/// taped program (`f_rev_taped`) on a tape the entry point keeps at home (`Tape::at_home`, as
/// `f_jacobian` does, decision 0047: no visit to the thread's pool of tapes on each call), then
/// its adjoint. The function is `#[inline(never)]`: inlined into the entry point, the sweeps'
/// loops ran 3.4 times slower (natural llsq), where as a function of their own their `&mut`
/// parameters tell the compiler that nothing else reaches the tape's and the vectors' memory.
/// The decisions come in by `&mut` too: taken by value, the function owned a value to drop on
/// unwinding, and natural llsq's gradient ran 3.2 times slower (2.3 → 7.4 ms at n = 16 392).
#[derive(Default)]
struct Sweeps {
    /// The function's parameters after the tapes (each value and its gradient).
    params: Vec<TokenStream>,
    /// What the entry point passes for them.
    pass: Vec<TokenStream>,
    /// The taped program's arguments, and the adjoint's, inside the function.
    values: Vec<TokenStream>,
    args: Vec<TokenStream>,
}

impl Sweeps {
    fn add(
        &mut self,
        param: TokenStream,
        pass: TokenStream,
        value: TokenStream,
        args: TokenStream,
    ) {
        self.params.push(param);
        self.pass.push(pass);
        self.values.push(value);
        self.args.push(args);
    }

    /// The function (`fn sweeps(tape, decisions, …) -> f64`, returning the value) and its name.
    fn function(
        &self,
        rev: &Ident,
        names: &mut Names,
        span: proc_macro2::Span,
    ) -> (TokenStream, Ident) {
        let name = names.fresh("sweeps", span);
        let [tape, decisions, value, result, tape_grad, decisions_grad, value_grad] = [
            "tape",
            "decisions",
            "value",
            "result",
            "tape_grad",
            "decisions_grad",
            "value_grad",
        ]
        .map(|t| names.fresh(t, span));
        // the value leads both sweeps' arguments; it is read between them, and its gradient
        // seeded with 1
        let read = [quote!(let #result = #value; let mut #value_grad = 1.0f64;)];
        let sweeps = crate::jacobian::taped_vjp_reading(
            rev,
            [&tape, &tape_grad, &decisions, &decisions_grad],
            &quote!(f64),
            Some([&value, &value_grad]),
            [&self.values, &read, &self.args],
        );
        let params = &self.params;
        let function = quote! {
            #[inline(never)]
            #[allow(clippy::too_many_arguments, unused_mut)]
            fn #name(
                #tape: &mut ::std::vec::Vec<f64>,
                mut #decisions: &mut ::nilang::stack::Decisions,
                #(#params),*
            ) -> f64 {
                // −0: the value added to it keeps its sign (−0 + −0 is −0)
                let mut #value = -0.0f64;
                #sweeps
                #result
            }
        };
        (function, name)
    }
}
