//! A gradient function's view of the parameters: the scalar type, each parameter's role in
//! differentiation ([`Role`]), and the pieces of code the generated functions build from them
//! (shadow buffers, seeds, value copies, labels, the call of the adjoint program).

use super::*;

/// How a parameter takes part in differentiation.
pub(super) enum Role {
    /// `&mut X` with `X` holding the scalar type: wrapped in `GVar`, gets a gradient.
    Diff(syn::Type),
    /// Any other `&mut X`: cloned for each reverse sweep.
    State,
    /// A by-value parameter: cloned for each call.
    Value,
    /// A `&` parameter: passed along.
    Shared,
    /// A by-value parameter whose type holds the scalar: a constant of the gradient type.
    ValueScalar(syn::Type),
    /// A `&` parameter whose type holds the scalar: a constant of the gradient type.
    SharedScalar(syn::Type),
}

/// A generic function's parameters and what the generated functions do with each.
pub(super) struct Params<'f> {
    pub(super) f: &'f nilang_ir::Analyzed,
    pub(super) scalar: syn::Ident,
    /// The scalar is `f64` or `f32` itself (a function without type parameters), not a type
    /// parameter: no Hessian (it needs the gradient on dual numbers).
    pub(super) concrete: bool,
    pub(super) names: Vec<syn::Ident>,
    pub(super) roles: Vec<Role>,
}

impl<'f> Params<'f> {
    /// `None` when the function is not generic over a `Real` scalar, is a method, or has a
    /// parameter that is not a plain name.
    pub(super) fn of(f: &'f nilang_ir::Analyzed) -> Option<Params<'f>> {
        if f.sig.receiver().is_some() {
            return None;
        }
        let (scalar, concrete) = match f.sig.generics.type_params().next() {
            Some(t) if bounds_mention_real(f, &t.ident) => (t.ident.clone(), false),
            Some(_) => return None,
            None => (concrete_scalar(f)?, true),
        };
        let mut names = Vec::new();
        let mut roles = Vec::new();
        for input in &f.sig.inputs {
            let syn::FnArg::Typed(pt) = input else {
                return None;
            };
            let syn::Pat::Ident(pi) = &*pt.pat else {
                return None;
            };
            names.push(pi.ident.clone());
            roles.push(role(&pt.ty, &scalar));
        }
        Some(Params {
            f,
            scalar,
            concrete,
            names,
            roles,
        })
    }

    /// The name of a parameter the generated function adds (`loss`, `outputs`), as the docs
    /// call it, unless the function has a parameter of that name (then `__loss`, …).
    pub(super) fn added_param(&self, name: &str) -> syn::Ident {
        if self.names.iter().any(|n| n == name) {
            format_ident!("__{}", name)
        } else {
            format_ident!("{}", name)
        }
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = (usize, &syn::Ident, &Role)> {
        self.names
            .iter()
            .zip(&self.roles)
            .enumerate()
            .map(|(i, (n, r))| (i, n, r))
    }

    /// The differentiable parameters: position, name and type behind the `&mut`.
    pub(super) fn diff(&self) -> Vec<(usize, &syn::Ident, &syn::Type)> {
        self.iter()
            .filter_map(|(i, name, role)| match role {
                Role::Diff(ty) => Some((i, name, ty)),
                _ => None,
            })
            .collect()
    }

    /// What shadow mode needs: the read-only parameters whose type holds the scalar, and the
    /// gradient type of one scalar where the code runs (`lane`).
    pub(super) fn shadows(&self, lane: TokenStream) -> Shadows {
        Shadows {
            with_gradients: self.f.with_gradients.clone(),
            scalar: Some(self.scalar.clone()),
            lane: Some(lane),
            scalar_readonly: self
                .iter()
                .filter(|(_, _, r)| matches!(r, Role::ValueScalar(_) | Role::SharedScalar(_)))
                .map(|(_, n, _)| n.to_string())
                .collect(),
        }
    }

    /// Explicit generic arguments for a call, with the scalar replaced by `scalar_as`:
    /// `f::<T, N>`, `f_grad::<Dual<T>, N>`. Lifetimes are left to inference.
    pub(super) fn turbofish(&self, scalar_as: TokenStream) -> TokenStream {
        self.turbofish_with(scalar_as, None)
    }

    /// The same, with a last argument for an adjoint program's gradient type.
    pub(super) fn turbofish_with(
        &self,
        scalar_as: TokenStream,
        lane: Option<TokenStream>,
    ) -> TokenStream {
        let args = self.f.sig.generics.params.iter().filter_map(|p| match p {
            syn::GenericParam::Type(t) if t.ident == self.scalar => Some(scalar_as.clone()),
            syn::GenericParam::Type(t) => Some(t.ident.to_token_stream()),
            syn::GenericParam::Const(c) => Some(c.ident.to_token_stream()),
            syn::GenericParam::Lifetime(_) => None,
        });
        let lane = lane.into_iter();
        quote!(::<#(#args,)* #(#lane)*>)
    }

    /// The arguments of the forward call on the user's arguments.
    pub(super) fn forward_args(&self) -> Vec<TokenStream> {
        self.iter()
            .map(|(_, name, role)| match role {
                Role::Diff(_) | Role::State => quote!(&mut *#name),
                Role::Value | Role::ValueScalar(_) => quote!(::core::clone::Clone::clone(&#name)),
                Role::Shared | Role::SharedScalar(_) => quote!(#name),
            })
            .collect()
    }

    /// `let mut __s{i} = …`: a zero gradient buffer (of gradient type `lane`) for each
    /// differentiable argument, a copy of each other `&mut` argument (the shadow of a value
    /// without gradient).
    pub(super) fn zero_shadows(&self, lane: &TokenStream) -> TokenStream {
        let s = quote!(::nilang::__private::entry);
        let scalar = &self.scalar;
        self.iter()
            .map(|(i, name, role)| {
                let b = shadow_buffer(i);
                match role {
                    Role::Diff(ty) => {
                        quote!(let mut #b = #s::zero_shadow::<#scalar, #ty, #lane>(&*#name);)
                    }
                    Role::State => quote!(let mut #b = #s::state_copy(&*#name);),
                    _ => TokenStream::new(),
                }
            })
            .collect()
    }

    /// Seeds 1 in lane `__k` of the gradient of the loss `__loss` (already validated).
    pub(super) fn seed(&self, lane: &TokenStream) -> TokenStream {
        let (n, s) = (quote!(::nilang), quote!(::nilang::__private::entry));
        let scalar = &self.scalar;
        let arms: TokenStream = self
            .diff()
            .iter()
            .map(|(i, _, ty)| {
                let b = shadow_buffer(*i);
                quote!(#i => #s::seed_lane::<#scalar, #ty, #lane>(&mut #b, __loss.index, __k, <#scalar as #n::Float>::f_one()),)
            })
            .collect();
        quote!(match __loss.arg { #arms _ => unreachable!() })
    }

    /// Binds each `&mut` parameter's name to its copy and its shadow's name to its gradient
    /// buffer, for the adjoint statements of a fused gradient.
    pub(super) fn bind_shadows(&self) -> TokenStream {
        let s = quote!(::nilang::__private::entry);
        let scalar = &self.scalar;
        self.iter()
            .map(|(i, name, role)| {
                let (b, v, g) = (shadow_buffer(i), value_copy(i), shadow_name(name));
                match role {
                    Role::Diff(ty) => quote! {
                        let #name = #s::as_value_mut::<#scalar, #ty>(&mut #v);
                        let #g = &mut #b;
                    },
                    Role::State => quote! {
                        let #name = #s::state_mut(&mut #v, &*#name);
                        let #g = #s::state_mut(&mut #b, &*#name);
                    },
                    _ => TokenStream::new(),
                }
            })
            .collect()
    }

    /// `let mut __v{i} = …`: a copy of each `&mut` argument's values, for one reverse sweep
    /// of a Jacobian (the arguments keep the outputs).
    pub(super) fn value_copies(&self) -> TokenStream {
        let s = quote!(::nilang::__private::entry);
        let scalar = &self.scalar;
        self.iter()
            .map(|(i, name, role)| {
                let v = value_copy(i);
                match role {
                    Role::Diff(ty) => {
                        quote!(let mut #v = #s::copy_values::<#scalar, #ty>(&*#name);)
                    }
                    Role::State => quote!(let mut #v = #s::state_copy(&*#name);),
                    _ => TokenStream::new(),
                }
            })
            .collect()
    }

    /// The call of `f_adjoint` on copies of the arguments and gradient buffers
    /// ([`Sweep::Copies`]), or on the arguments and the caller's gradients
    /// ([`Sweep::CallerBuffers`]).
    pub(super) fn adjoint_call(&self, sweep: Sweep, lane: &TokenStream) -> TokenStream {
        let s = quote!(::nilang::__private::entry);
        let scalar = &self.scalar;
        let adjoint = nilang_ir::adjoint::adjoint_name(&self.f.sig.ident);
        let tf = self.turbofish_with(scalar.to_token_stream(), Some(lane.clone()));
        let args = self.iter().flat_map(|(i, name, role)| {
            let (b, v, g) = (shadow_buffer(i), value_copy(i), shadow_name(name));
            match (role, sweep) {
                (Role::Diff(_) | Role::State, Sweep::CallerBuffers) => {
                    vec![quote!(&mut *#name), quote!(&mut *#g)]
                }
                (Role::Diff(ty), Sweep::Copies) => vec![
                    quote!(#s::as_value_mut::<#scalar, #ty>(&mut #v)),
                    quote!(&mut #b),
                ],
                (Role::State, Sweep::Copies) => vec![quote!(&mut #v), quote!(&mut #b)],
                (Role::Value | Role::ValueScalar(_), _) => {
                    vec![quote!(::core::clone::Clone::clone(&#name)), quote!(())]
                }
                (Role::Shared | Role::SharedScalar(_), _) => vec![quote!(#name), quote!(())],
            }
        });
        quote!(#adjoint #tf(#(#args),*);)
    }

    /// Checks that `__loss` names a differentiable scalar.
    pub(super) fn validate(&self) -> TokenStream {
        let (n, s) = (quote!(::nilang), quote!(::nilang::__private::entry));
        let scalar = &self.scalar;
        let name_str = self.f.sig.ident.to_string();
        let arms: TokenStream = self
            .diff()
            .iter()
            .map(|(i, name, ty)| {
                quote!(#i => {
                    let __len = <#ty as #n::Scalars<#scalar>>::count(&*#name);
                    if __len == 0 { return ::core::result::Result::Err(#s::not_differentiable(#name_str, #i)); }
                    if __loss.index >= __len {
                        return ::core::result::Result::Err(#n::GradError::IndexOutOfRange {
                            function: #name_str, arg: #i, index: __loss.index, len: __len,
                        });
                    }
                })
            })
            .collect();
        quote! {
            match __loss.arg {
                #arms
                _ => return ::core::result::Result::Err(#s::not_differentiable(#name_str, __loss.arg)),
            }
        }
    }

    /// `let __labels = …`: the label of every differentiable scalar, arguments in signature
    /// order (`x` for a parameter of the scalar type, `x[k]` for scalar `k` of any other).
    pub(super) fn labels(&self) -> TokenStream {
        let s = quote!(::nilang::__private::entry);
        let scalar = &self.scalar;
        let push: TokenStream = self
            .diff()
            .iter()
            .map(|(_, name, ty)| {
                let (name_str, one) = (name.to_string(), is_ident(ty, scalar));
                quote!(#s::push_labels::<#scalar, #ty>(#name_str, #one, &*#name, &mut __labels);)
            })
            .collect();
        quote! {
            let mut __labels = ::std::vec::Vec::new();
            #push
        }
    }

    /// The label of the (validated) loss `__loss`, as in [`Params::labels`].
    pub(super) fn loss_label(&self) -> TokenStream {
        let s = quote!(::nilang::__private::entry);
        let arms: TokenStream = self
            .diff()
            .iter()
            .map(|(i, name, ty)| {
                let (name_str, one) = (name.to_string(), is_ident(ty, &self.scalar));
                quote!(#i => #s::label(#name_str, #one, __loss.index),)
            })
            .collect();
        quote!(match __loss.arg { #arms _ => unreachable!() })
    }

    /// The labelled layout of Jacobian columns and Hessian rows and columns, for the generated
    /// docs: "`out`, `x[0]`, `x[1]`, …, `w`".
    pub(super) fn layout_doc(&self) -> String {
        let parts: Vec<String> = self
            .diff()
            .iter()
            .map(|(_, name, ty)| {
                if is_ident(ty, &self.scalar) {
                    format!("`{name}`")
                } else {
                    format!("`{name}[0]`, `{name}[1]`, …")
                }
            })
            .collect();
        format!(
            "Rows and columns are labelled (`{{}}` prints the labels, `m.at(row, col)` reads an \
             entry by them); the flat order is {}.",
            parts.join(", ")
        )
    }

    /// The number of differentiable scalars of each differentiable argument.
    pub(super) fn counts(&self) -> Vec<TokenStream> {
        let n = quote!(::nilang);
        let scalar = &self.scalar;
        self.diff()
            .iter()
            .map(|(_, name, ty)| quote!(<#ty as #n::Scalars<#scalar>>::count(&*#name)))
            .collect()
    }
}

/// The scalar type of a function without type parameters whose `&mut` parameters hold
/// floats of one type: `f64` for `fn f(y: &mut f64, x: &mut [f64])`; `None` when they hold
/// none, or both `f64` and `f32`.
pub(super) fn concrete_scalar(f: &Function) -> Option<syn::Ident> {
    if f.sig
        .generics
        .params
        .iter()
        .any(|p| !matches!(p, syn::GenericParam::Lifetime(_)))
    {
        return None;
    }
    let mut found: Option<syn::Ident> = None;
    for input in &f.sig.inputs {
        let syn::FnArg::Typed(pt) = input else {
            return None;
        };
        for name in ["f64", "f32"] {
            let ident = format_ident!("{}", name);
            if mentions(&pt.ty, &ident) {
                if !float_shape(&pt.ty, &ident) {
                    return None;
                }
                match &found {
                    Some(other) if *other != ident => return None,
                    _ => found = Some(ident),
                }
            }
        }
    }
    found
}

/// Whether `ty` is the float `float` behind references, in slices, arrays, `Vec`s and
/// `Complex` numbers: the shapes whose scalars `nilang::Scalars` knows (`&mut [f64]`, not
/// `&mut ULog<f64>`).
pub(super) fn float_shape(ty: &syn::Type, float: &syn::Ident) -> bool {
    match ty {
        syn::Type::Reference(r) => float_shape(&r.elem, float),
        syn::Type::Slice(s) => float_shape(&s.elem, float),
        syn::Type::Array(a) => float_shape(&a.elem, float),
        syn::Type::Paren(p) => float_shape(&p.elem, float),
        syn::Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            match &last.arguments {
                syn::PathArguments::None => p.path.is_ident(float),
                syn::PathArguments::AngleBracketed(a)
                    if last.ident == "Vec" || last.ident == "Complex" =>
                {
                    a.args.len() == 1
                        && matches!(&a.args[0], syn::GenericArgument::Type(t) if float_shape(t, float))
                }
                _ => false,
            }
        }
        _ => false,
    }
}

/// A function with no type parameter whose parameters hold only integers and booleans
/// (`&mut i64`, `usize`, `&mut [u8]`, `&mut Vec<i32>`): its adjoint needs no scalar type.
pub(super) fn integers_only(f: &Function) -> bool {
    pub(super) fn integer(ty: &syn::Type) -> bool {
        match ty {
            syn::Type::Reference(r) => integer(&r.elem),
            syn::Type::Slice(s) => integer(&s.elem),
            syn::Type::Array(a) => integer(&a.elem),
            syn::Type::Path(p) if p.qself.is_none() => {
                let Some(last) = p.path.segments.last() else {
                    return false;
                };
                const NAMES: [&str; 13] = [
                    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128",
                    "usize", "bool",
                ];
                match &last.arguments {
                    syn::PathArguments::None => NAMES.contains(&last.ident.to_string().as_str()),
                    syn::PathArguments::AngleBracketed(a) if last.ident == "Vec" => a
                        .args
                        .iter()
                        .all(|g| matches!(g, syn::GenericArgument::Type(t) if integer(t))),
                    _ => false,
                }
            }
            _ => false,
        }
    }
    f.sig.generics.params.is_empty()
        && f.sig.receiver().is_none()
        && f.sig.inputs.iter().all(|i| match i {
            syn::FnArg::Typed(pt) => integer(&pt.ty),
            syn::FnArg::Receiver(_) => false,
        })
}

pub(super) fn role(ty: &syn::Type, scalar: &syn::Ident) -> Role {
    match ty {
        syn::Type::Reference(r) if r.mutability.is_some() => {
            if mentions(&r.elem, scalar) {
                Role::Diff((*r.elem).clone())
            } else {
                Role::State
            }
        }
        syn::Type::Reference(r) if mentions(&r.elem, scalar) => {
            Role::SharedScalar((*r.elem).clone())
        }
        syn::Type::Reference(_) => Role::Shared,
        ty if mentions(ty, scalar) => Role::ValueScalar(ty.clone()),
        _ => Role::Value,
    }
}

pub(super) fn shadow_buffer(i: usize) -> syn::Ident {
    format_ident!("__s{}", i)
}

pub(super) fn value_copy(i: usize) -> syn::Ident {
    format_ident!("__v{}", i)
}

fn mentions(ty: &syn::Type, ident: &syn::Ident) -> bool {
    fn walk(ts: TokenStream, id: &syn::Ident) -> bool {
        ts.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => &i == id,
            proc_macro2::TokenTree::Group(g) => walk(g.stream(), id),
            _ => false,
        })
    }
    walk(ty.to_token_stream(), ident)
}
