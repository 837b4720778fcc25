//! Gradient, Jacobian and Hessian functions generated for a generic reversible function.
//!
//! They contain no derivative rules: `f_grad` runs `f` forward on plain scalars, seeds a
//! gradient buffer and runs the adjoint program `f_adjoint` (`crate::adjoint`: the inverse
//! program on values and separate gradient buffers, whose instructions carry the adjoint rules
//! of `nilang::gvar`); `f_jacobian` repeats the adjoint sweep once per output; `f_hessian` runs
//! `f_grad` on dual numbers. See `nilang::ad`.

use crate::adjoint::Shadows;
use nilang_ir::adjoint::shadow_name;
use nilang_ir::ast::{AccOp, Function, ParamKind, Prim, Stmt, StmtKind};
use nilang_ir::reverse::reverse_block;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};

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

/// How a parameter takes part in differentiation.
enum Role {
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

/// A generic function's parameters and what the generated functions do with each.
struct Params<'f> {
    f: &'f Function,
    scalar: syn::Ident,
    /// The scalar is `f64` or `f32` itself (a function without type parameters), not a type
    /// parameter: no Hessian (it needs the gradient on dual numbers).
    concrete: bool,
    names: Vec<syn::Ident>,
    roles: Vec<Role>,
}

impl<'f> Params<'f> {
    /// `None` when the function is not generic over a `Real` scalar, is a method, or has a
    /// parameter that is not a plain name.
    fn of(f: &'f Function) -> Option<Params<'f>> {
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
    fn added_param(&self, name: &str) -> syn::Ident {
        if self.names.iter().any(|n| n == name) {
            format_ident!("__{}", name)
        } else {
            format_ident!("{}", name)
        }
    }

    fn iter(&self) -> impl Iterator<Item = (usize, &syn::Ident, &Role)> {
        self.names
            .iter()
            .zip(&self.roles)
            .enumerate()
            .map(|(i, (n, r))| (i, n, r))
    }

    /// The differentiable parameters: position, name and type behind the `&mut`.
    fn diff(&self) -> Vec<(usize, &syn::Ident, &syn::Type)> {
        self.iter()
            .filter_map(|(i, name, role)| match role {
                Role::Diff(ty) => Some((i, name, ty)),
                _ => None,
            })
            .collect()
    }

    /// What shadow mode needs: the read-only parameters whose type holds the scalar, and the
    /// gradient type of one scalar where the code runs (`lane`).
    fn shadows(&self, lane: TokenStream) -> Shadows {
        Shadows {
            with_gradients: nilang_ir::adjoint::ancillas_with_gradients(&self.f.body),
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
    fn turbofish(&self, scalar_as: TokenStream) -> TokenStream {
        self.turbofish_with(scalar_as, None)
    }

    /// The same, with a last argument for an adjoint program's gradient type.
    fn turbofish_with(&self, scalar_as: TokenStream, lane: Option<TokenStream>) -> TokenStream {
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
    fn forward_args(&self) -> Vec<TokenStream> {
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
    fn zero_shadows(&self, lane: &TokenStream) -> TokenStream {
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
    fn seed(&self, lane: &TokenStream) -> TokenStream {
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
    fn bind_shadows(&self) -> TokenStream {
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
    fn value_copies(&self) -> TokenStream {
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
    fn adjoint_call(&self, sweep: Sweep, lane: &TokenStream) -> TokenStream {
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
    fn validate(&self) -> TokenStream {
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
    fn labels(&self) -> TokenStream {
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
    fn loss_label(&self) -> TokenStream {
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
    fn layout_doc(&self) -> String {
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
    fn counts(&self) -> Vec<TokenStream> {
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
fn concrete_scalar(f: &Function) -> Option<syn::Ident> {
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
fn float_shape(ty: &syn::Type, float: &syn::Ident) -> bool {
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
fn integers_only(f: &Function) -> bool {
    fn integer(ty: &syn::Type) -> bool {
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

fn role(ty: &syn::Type, scalar: &syn::Ident) -> Role {
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

fn shadow_buffer(i: usize) -> syn::Ident {
    format_ident!("__s{}", i)
}

fn value_copy(i: usize) -> syn::Ident {
    format_ident!("__v{}", i)
}

/// Where an adjoint sweep runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sweep {
    /// On copies of the arguments (`__v{i}`) with gradient buffers of its own (`__s{i}`):
    /// the arguments keep the outputs (`f_grad`, `f_jacobian_of`).
    Copies,
    /// On the arguments themselves and the caller's gradients (`x_grad`): `f_vjp`.
    CallerBuffers,
}

/// The two halves of a gradient: the forward part on plain scalars and the adjoint part on
/// values and gradients (with the fused shape, `L P M` and `~M ~P`; otherwise `f` and
/// `f_adjoint`).
struct Halves {
    forward: TokenStream,
    adjoint: TokenStream,
}

/// `between` runs after the forward half and before the adjoint one (`f_vjp` reads the
/// function's value there); it ends `forward`.
fn halves(p: &Params, sweep: Sweep, lane: &TokenStream, between: &TokenStream) -> Halves {
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
    match split_guarded(p.f, &guardable, sweep == Sweep::CallerBuffers) {
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
fn fused_halves(p: &Params, sweep: Sweep, lane: &TokenStream, split: Split) -> Halves {
    let f = p.f;
    let Split {
        head,
        mut tail,
        live,
        released,
    } = split;
    if f.checked {
        tail.extend(released);
    }
    let name = nilang_ir::adjoint::adjoint_name(&f.sig.ident).to_string();
    let forward = crate::codegen::statements(f, &f.sig.ident.to_string(), &head, &[]);
    let tail = crate::adjoint::statements(f, &name, &p.shadows(lane.clone()), &tail, &live);
    let adjoint = match sweep {
        Sweep::Copies => {
            let bind = p.bind_shadows();
            let live = live.iter().map(|l| &l.name);
            quote!({ #bind #(let mut #live = ::core::clone::Clone::clone(&#live);)* #tail })
        }
        Sweep::CallerBuffers => tail,
    };
    Halves { forward, adjoint }
}

/// The plain halves: `f`, then `f_adjoint`.
fn plain_halves(p: &Params, sweep: Sweep, lane: &TokenStream) -> Halves {
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
fn zero_test(
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
fn is_ident(ty: &syn::Type, ident: &syn::Ident) -> bool {
    matches!(ty, syn::Type::Path(tp) if tp.qself.is_none() && tp.path.is_ident(ident))
}

/// `f_vjp`: the vector–Jacobian product in place, on the caller's gradient buffers: `f`
/// forward on plain scalars, then its adjoint (fused when the body has the `L P M ~P D`
/// shape). No copy and no allocation of its own.
fn vjp_fn(p: &Params, names: &Names) -> TokenStream {
    let f = p.f;
    let fwd = &f.sig.ident;
    let name = &names.vjp;
    let adjoint = nilang_ir::adjoint::adjoint_name(fwd);
    let mut generics = gradient_generics(p);
    let lane = crate::adjoint::lane_param();
    let scalar = &p.scalar;
    generics
        .params
        .push(syn::parse_quote!(#lane: ::nilang::Grad<#scalar>));
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
fn vjp_value(p: &Params) -> (TokenStream, TokenStream) {
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
pub fn generate(f: &Function, names: &Names) -> Generated {
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

/// The generics of the adjoint and gradient functions: the user's, with `nilang::Base` added
/// to the bounds of the scalar type (the first type parameter).
pub fn with_base_bound(f: &Function) -> syn::Generics {
    let mut generics = f.sig.generics.clone();
    let Some(t) = generics.type_params_mut().next() else {
        return generics;
    };
    t.bounds.push(syn::parse_quote!(::nilang::Base));
    let scalar = t.ident.to_token_stream();
    let bounds = primitive_param_bounds(f, &scalar);
    if !bounds.is_empty() {
        generics.make_where_clause().predicates.extend(bounds);
    }
    generics
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

/// `f_jacobian` (every output) and `f_jacobian_of` (chosen outputs): one forward run, one
/// adjoint sweep per four rows (gradients in `Lanes`) on copies of the outputs.
fn jacobian_fns(p: &Params, names: &Names) -> TokenStream {
    let n = quote!(::nilang);
    let scalar = &p.scalar;
    let f = p.f;
    let name_str = f.sig.ident.to_string();
    let (jac_name, jac_of_name) = (&names.jacobian, &names.jacobian_of);
    let outputs = p.added_param("outputs");
    let generics = gradient_generics(p);
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let (vis, inputs) = (&f.vis, &f.sig.inputs);
    let diff = p.diff();
    let counts = p.counts();
    let all_outputs: TokenStream = diff
        .iter()
        .zip(&counts)
        .map(|((i, _, _), count)| quote!(for __k in 0..#count { __outputs.push(#n::Loss::elem(#i, __k)); }))
        .collect();
    let pass_through = p.iter().map(|(_, name, role)| match role {
        Role::Diff(_) | Role::State => quote!(&mut *#name),
        _ => quote!(#name),
    });
    let tf = p.turbofish(scalar.to_token_stream());
    let forward = halves(
        p,
        Sweep::Copies,
        &scalar.to_token_stream(),
        &TokenStream::new(),
    )
    .forward;
    let validate = p.validate();
    let (labels, loss_label) = (p.labels(), p.loss_label());
    // one sweep for one row on plain gradients, for two rows on 2 lanes, else 4 rows on 4
    let one = lane_sweep(p, &scalar.to_token_stream());
    let two = lane_sweep(p, &quote!(#n::Lanes<#scalar, 2>));
    let four = lane_sweep(p, &quote!(#n::Lanes<#scalar, 4>));
    let jac_doc = format!(
        "Jacobian of [`{name_str}`]: `J[i][j] = ∂output_i/∂input_j` over the flat list of its \
         differentiable scalars, one adjoint sweep per four outputs. The arguments are left holding \
         the outputs. {} See `nilang::ad`.",
        p.layout_doc()
    );
    let jac_of_doc = format!(
        "Rows of the Jacobian of [`{name_str}`] for the chosen outputs only: row `i` is the \
         gradient of `outputs[i]` over the flat list of differentiable inputs. One forward run, \
         one adjoint sweep per four rows (gradients in `Lanes`). The arguments are left holding the \
         outputs. {} See `nilang::ad`.",
        p.layout_doc()
    );
    let allow = allow();
    quote! {
        #[doc = #jac_doc]
        #allow
        #vis fn #jac_name #impl_generics (#inputs)
            -> ::core::result::Result<#n::ad::Matrix<#scalar>, #n::GradError> #where_clause
        {
            let mut __outputs = ::std::vec::Vec::new();
            #all_outputs
            #jac_of_name #tf(&__outputs, #(#pass_through),*)
        }

        #[doc = #jac_of_doc]
        #allow
        #vis fn #jac_of_name #impl_generics (#outputs: &[#n::Loss], #inputs)
            -> ::core::result::Result<#n::ad::Matrix<#scalar>, #n::GradError> #where_clause
        {
            let __outputs = #outputs;
            for &__loss in __outputs {
                #validate
            }
            #forward
            let __n = 0usize #(+ #counts)*;
            let mut __jac = #n::ad::Matrix::filled(__outputs.len(), __n, <#scalar as #n::Float>::f_zero());
            #labels
            let __rows = __outputs.iter().map(|&__loss| #loss_label);
            let mut __row = ::std::vec::Vec::with_capacity(__n);
            let mut __i = 0usize;
            while __i < __outputs.len() {
                let __width = match __outputs.len() - __i {
                    1 => 1,
                    2 => 2,
                    __left => __left.min(4),
                };
                let __chunk = &__outputs[__i..__i + __width];
                match __width {
                    1 => #one,
                    2 => #two,
                    _ => #four,
                }
                __i += __width;
            }
            ::core::result::Result::Ok(__jac.with_labels(__rows, __labels))
        }
    }
}

/// One adjoint sweep for the rows `__i..__i + __chunk.len()` of a Jacobian, with gradients of
/// type `lane` (`T` for one row, `Lanes<T, N>` for up to `N`): copies of the outputs, a seed
/// in lane `k` for the `k`-th loss of the chunk, the adjoint, and each lane read into its row.
fn lane_sweep(p: &Params, lane: &TokenStream) -> TokenStream {
    let s = quote!(::nilang::__private::entry);
    let scalar = &p.scalar;
    let adjoint = halves(p, Sweep::Copies, lane, &TokenStream::new()).adjoint;
    let (copies, shadows, seed) = (p.value_copies(), p.zero_shadows(lane), p.seed(lane));
    let read_row: TokenStream = p
        .diff()
        .iter()
        .map(|(i, name, ty)| {
            let b = shadow_buffer(*i);
            quote!(#s::lane_grads::<#scalar, #ty, #lane>(&*#name, &#b, __k, &mut __row);)
        })
        .collect();
    quote!({
        #copies
        #shadows
        for (__k, &__loss) in __chunk.iter().enumerate() {
            #seed
        }
        #adjoint
        for __k in 0..__chunk.len() {
            __row.clear();
            #read_row
            for (__j, __v) in __row.iter().enumerate() {
                __jac.set(__i + __k, __j, *__v);
            }
        }
    })
}

/// `f_hessian`: dual numbers through `f_grad` (forward over reverse), one column per pass.
fn hessian_fn(p: &Params, names: &Names) -> TokenStream {
    let (n, s) = (quote!(::nilang), quote!(::nilang::__private::entry));
    let scalar = &p.scalar;
    let f = p.f;
    let name_str = f.sig.ident.to_string();
    let (grad_name, hess_name) = (&names.grad, &names.hessian);
    let loss = p.added_param("loss");
    let mut generics = gradient_generics(p);
    // `f_grad` runs on dual numbers: primitives passed as type parameters need their rule there
    let dual_bounds = primitive_param_bounds(f, &quote!(#n::Dual<#scalar>));
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

/// A function body of the shape `L P M ~P D` (allocations, a computation `P` that writes only
/// ancillas, the part `M` that writes the outputs, the uncomputation of `P`, deallocations).
/// Its gradient need not uncompute `P` forward and recompute it on `GVar`s: run `L P M` on the
/// plain scalars, convert the live ancillas, and run `~M ~P` on `GVar`s.
pub struct Split {
    /// `L P M`, run on the plain scalars.
    pub head: Vec<Stmt>,
    /// `~M ~P`, run on `GVar`s.
    pub tail: Vec<Stmt>,
    /// The ancillas live between the two, with their zero gradients.
    pub live: Vec<Live>,
    /// `~L`: the deallocations of `L`'s ancillas, run after `~M ~P` in checked programs only
    /// (their checks: the values restored, no gradient dropped).
    pub released: Vec<Stmt>,
}

impl Split {
    /// Does `~M ~P` (so `P` or `M`) hold a `safe!` block, at any depth?
    pub fn tail_has_safe(&self) -> bool {
        self.tail.iter().any(nilang_ir::bounds::has_safe)
    }
}

/// An ancilla live at the split of a fused gradient, and how its zero gradient is made there.
pub struct Live {
    /// The ancilla.
    pub name: syn::Ident,
    zero: ZeroGrad,
}

/// How the zero gradient of a live ancilla is made at the split.
#[derive(Clone)]
enum ZeroGrad {
    /// From its value (`__private::zero_grad(&a)`, by the value's type).
    OfValue,
    /// It was built by this constructor: the same constructor on its parts' zero gradients
    /// (each made from the field's value, or built again), so a user struct needs no
    /// `Shadow` impl (`z_grad = Complex { re: zero_grad(&z.re), im: zero_grad(&z.im) }`).
    Built(nilang_ir::ast::Fields, Vec<ZeroGrad>),
}

impl ZeroGrad {
    /// The zero gradient of the value at `place`, with `lane` the gradient of one scalar.
    fn tokens(&self, place: &TokenStream, lane: &TokenStream) -> TokenStream {
        match self {
            ZeroGrad::OfValue => {
                let p = crate::codegen::private();
                quote!(#p::zero_grad::<_, #lane>(&#place))
            }
            ZeroGrad::Built(f, parts) => {
                let grads: Vec<(syn::Ident, TokenStream)> = f
                    .parts
                    .iter()
                    .zip(parts)
                    .map(|(part, zero)| {
                        let member = &part.member;
                        (part.var.clone(), zero.tokens(&quote!(#place.#member), lane))
                    })
                    .collect();
                let grad_of = |v: &syn::Ident| {
                    grads
                        .iter()
                        .find(|(name, _)| name == v)
                        .map(|(_, g)| g.clone())
                        .expect("every part of a constructor has a zero gradient")
                };
                nilang_ir::constructors::build_tokens(f, &grad_of, true)
            }
        }
    }
}

impl Live {
    /// `let mut a_grad = …;`: the ancilla's zero gradient, `lane` the gradient of one scalar.
    pub fn zero_gradient(&self, lane: &TokenStream) -> TokenStream {
        let (name, shadow) = (&self.name, shadow_name(&self.name));
        let zero = self.zero.tokens(&name.to_token_stream(), lane);
        quote!(let mut #shadow = #zero;)
    }
}

/// The ancillas live after `head` (top-level statements: allocations, deallocations,
/// constructors and destructors change the set; nested blocks end their own ancillas).
fn live_after(head: &[Stmt]) -> Vec<Live> {
    fn take(live: &mut Vec<Live>, name: &syn::Ident) -> ZeroGrad {
        match live.iter().position(|l| &l.name == name) {
            Some(k) => live.remove(k).zero,
            None => ZeroGrad::OfValue,
        }
    }
    let mut live: Vec<Live> = Vec::new();
    for s in head {
        match &s.kind {
            StmtKind::Alloc(b) => b.iter().for_each(|b| {
                take(&mut live, &b.name);
                live.push(Live {
                    name: b.name.clone(),
                    zero: ZeroGrad::OfValue,
                });
            }),
            StmtKind::Dealloc(b) => live.retain(|l| !b.iter().any(|b| b.name == l.name)),
            StmtKind::Fields(f) if f.construct => {
                let parts = f.parts.iter().map(|p| take(&mut live, &p.var)).collect();
                live.push(Live {
                    name: f.whole.clone(),
                    zero: ZeroGrad::Built(f.clone(), parts),
                });
            }
            StmtKind::Fields(f) => {
                let whole = take(&mut live, &f.whole);
                for part in &f.parts {
                    let zero = match &whole {
                        ZeroGrad::Built(built, zeros) => built
                            .parts
                            .iter()
                            .zip(zeros)
                            .find(|(b, _)| b.member == part.member)
                            .map_or(ZeroGrad::OfValue, |(_, z)| z.clone()),
                        ZeroGrad::OfValue => ZeroGrad::OfValue,
                    };
                    take(&mut live, &part.var);
                    live.push(Live {
                        name: part.var.clone(),
                        zero,
                    });
                }
            }
            _ => {}
        }
    }
    live
}

/// Finds the `L P M ~P D` shape (a body of allocations, one routine, deallocations), when
/// the fused gradient is safe for it: `P` writes no `&mut` parameter, and no constructor
/// sits at the top level of `L P M` (the copy-based gradients clone the live ancillas, and a
/// user struct need not be `Clone`).
pub fn split(f: &Function) -> Option<Split> {
    split_guarded(f, &[], false).map(|(split, _)| split)
}

/// [`split`], where `P` may also write the `&mut` parameters named in `may_write` (the fused
/// gradient is then right when their gradients are zero on entry), and, with `built`, values
/// built or taken apart at the top level are live at the split (their zero gradients are
/// built the same way, [`Live`]); returns the parameters `P` writes.
fn split_guarded(f: &Function, may_write: &[String], built: bool) -> Option<(Split, Vec<String>)> {
    let shape = nilang_ir::adjoint::routine_block(&f.body)?;
    let mut written = Vec::new();
    for s in shape.compute {
        nilang_ir::adjoint::written_roots(s, &mut written);
    }
    let guarded: Vec<String> = f
        .params
        .iter()
        .filter(|p| p.kind == ParamKind::MutRef)
        .map(|p| p.name.to_string())
        .filter(|p| written.contains(p))
        .collect();
    if guarded.iter().any(|p| !may_write.contains(p)) {
        return None;
    }
    let mut head: Vec<Stmt> = shape.allocs.to_vec();
    head.extend_from_slice(shape.compute);
    head.extend_from_slice(shape.body);
    if !built && head.iter().any(|s| matches!(s.kind, StmtKind::Fields(_))) {
        return None;
    }
    let tail = reverse_block(&head[shape.allocs.len()..]);
    let live = live_after(&head);
    let released = reverse_block(shape.allocs);
    Some((
        Split {
            head,
            tail,
            live,
            released,
        },
        guarded,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use nilang_ir::{lower, Options};

    fn fused(attr: TokenStream, item: syn::ItemFn) -> Option<Split> {
        let f = lower(&Options::parse(attr).unwrap(), item).unwrap();
        split(&f)
    }

    #[test]
    fn ancillas_allocated_in_the_reversed_part_keep_the_fused_gradient() {
        // `expand` gives every iteration of the uncomputed loop its own `(s).zero_like()`
        let s = fused(
            quote!(expand),
            syn::parse_quote! {
                fn lse<T: Real>(out: &mut T, x: &mut [T]) {
                    let s = T::zero();
                    routine! {
                        for i in 0..x.len() {
                            s += exp(x[i] - 1.0);
                        }
                    }
                    out += log(s);
                    uncompute!();
                    dealloc!(s = T::zero());
                }
            },
        )
        .expect("the L P M ~P D shape");
        assert_eq!(s.live.len(), 1);
        assert_eq!(s.live[0].name, "s");
    }

    #[test]
    fn values_built_in_the_computation_are_live_with_built_zero_gradients() {
        let item: syn::ItemFn = syn::parse_quote! {
            fn f<T: Real>(out: &mut T, x: &mut [T]) {
                let (n, a, b) = (0i64, T::zero(), T::zero());
                routine! {
                    a += identity(x[0]);
                    let z = new!(Complex { re: a, im: b });
                    let w = new!(Tagged { value: z, count: n });
                    let Tagged { count: m, value: v } = fields!(w);
                    let t = new!((v, m));
                }
                out += t.0.re;
                uncompute!();
                dealloc!(n = 0, a = T::zero(), b = T::zero());
            }
        };
        let f = lower(&Options::parse(TokenStream::new()).unwrap(), item).unwrap();
        // the copy-based gradients clone live values: not fused there
        assert!(split(&f).is_none());
        let (s, guarded) = split_guarded(&f, &[], true).expect("fused in f_vjp");
        assert!(guarded.is_empty());
        let names: Vec<String> = s.live.iter().map(|l| l.name.to_string()).collect();
        assert_eq!(names, ["t"]);
        let zero = s.live[0]
            .zero_gradient(&quote!(G))
            .to_string()
            .replace(' ', "");
        // `t`'s parts: `v`, which was `w.value`, built as a `Complex`, and the counter `m`
        assert_eq!(
            zero,
            "letmutt_grad=(Complex{re:::nilang::__private::zero_grad::<_,G>(&t.0.re),\
             im:::nilang::__private::zero_grad::<_,G>(&t.0.im)},\
             ::nilang::__private::zero_grad::<_,G>(&t.1));"
        );
    }

    #[test]
    fn an_ancilla_of_the_scalar_type_in_the_reversed_part_is_fused() {
        // the adjoint part runs on plain scalars with separate gradients: `T::zero()` is fine
        let s = fused(
            TokenStream::new(),
            syn::parse_quote! {
                fn f<T: Real>(out: &mut T, x: &mut [T]) {
                    let s = T::zero();
                    routine! {
                        for i in 0..x.len() {
                            let t = T::zero();
                            t += exp(x[i]);
                            s += identity(t);
                            t -= exp(x[i]);
                            dealloc!(t = T::zero());
                        }
                    }
                    out += log(s);
                    uncompute!();
                    dealloc!(s = T::zero());
                }
            },
        );
        assert!(s.is_some());
    }
}
