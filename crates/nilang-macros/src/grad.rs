//! Gradient, Jacobian and Hessian functions generated for a generic reversible function.
//!
//! They contain no derivative rules: `f_grad` runs `f` forward and `f_inv` on `GVar` values
//! (whose instructions carry the adjoint rules, in `nilang::gvar`); `f_jacobian` repeats the
//! reverse sweep once per output; `f_hessian` runs `f_grad` on dual numbers. See `nilang::ad`.

use nilang_ir::ast::{CallArg, Dataview, Function, ParamKind, Stmt, StmtKind};
use nilang_ir::reverse::reverse_block;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};

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

fn bounds_mention_real(f: &Function, scalar: &syn::Ident) -> bool {
    let is_real = |b: &syn::TypeParamBound| match b {
        syn::TypeParamBound::Trait(t) => t
            .path
            .segments
            .last()
            .map(|s| s.ident == "Real")
            .unwrap_or(false),
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

/// The generated `_grad`, `_jacobian` and `_hessian` functions, or nothing when the function
/// is not generic over a `Real` scalar, is a method, or has no differentiable argument.
pub fn generate(f: &Function) -> TokenStream {
    let Some(scalar) = f.sig.generics.type_params().next().map(|p| p.ident.clone()) else {
        return TokenStream::new();
    };
    if f.sig.receiver().is_some() || !bounds_mention_real(f, &scalar) {
        return TokenStream::new();
    }
    let mut names = Vec::new();
    let mut roles = Vec::new();
    for input in &f.sig.inputs {
        let syn::FnArg::Typed(pt) = input else {
            return TokenStream::new();
        };
        let syn::Pat::Ident(pi) = &*pt.pat else {
            return TokenStream::new();
        };
        names.push(pi.ident.clone());
        roles.push(match &*pt.ty {
            syn::Type::Reference(r) if r.mutability.is_some() => {
                if mentions(&r.elem, &scalar) {
                    Role::Diff((*r.elem).clone())
                } else {
                    Role::State
                }
            }
            syn::Type::Reference(r) if mentions(&r.elem, &scalar) => {
                Role::SharedScalar((*r.elem).clone())
            }
            syn::Type::Reference(_) => Role::Shared,
            ty if mentions(ty, &scalar) => Role::ValueScalar(ty.clone()),
            _ => Role::Value,
        });
    }
    if !roles.iter().any(|r| matches!(r, Role::Diff(_))) {
        return TokenStream::new();
    }

    let n = quote!(::nilang);
    let s = quote!(::nilang::ad::support);
    let fwd = &f.sig.ident;
    let inv = &f.inverse_name;
    let name_str = fwd.to_string();
    let grad_name = format_ident!("{}_grad", fwd);
    let jac_name = format_ident!("{}_jacobian", fwd);
    let hess_name = format_ident!("{}_hessian", fwd);
    let jac_of_name = format_ident!("{}_jacobian_of", fwd);
    let vis = &f.vis;
    let inputs = &f.sig.inputs;

    // Generics: the scalar's bounds become `nilang::Base`; everything else is kept.
    let mut generics = f.sig.generics.clone();
    for p in generics.type_params_mut() {
        if p.ident == scalar {
            p.bounds = syn::parse_quote!(#n::Base);
        }
    }
    let (impl_generics, _, where_clause) = generics.split_for_impl();

    // Explicit generic arguments for the calls, so that const generics and type parameters
    // that appear only inside the body are known: `f::<T, N>`, `f_inv::<GVar<T>, N>`,
    // `f_grad::<Dual<T>, N>`. Lifetimes are left to inference.
    let turbofish = |scalar_as: TokenStream| -> TokenStream {
        let args: Vec<TokenStream> = f
            .sig
            .generics
            .params
            .iter()
            .filter_map(|p| match p {
                syn::GenericParam::Type(t) if t.ident == scalar => Some(scalar_as.clone()),
                syn::GenericParam::Type(t) => Some(t.ident.to_token_stream()),
                syn::GenericParam::Const(c) => Some(c.ident.to_token_stream()),
                syn::GenericParam::Lifetime(_) => None,
            })
            .collect();
        quote!(::<#(#args),*>)
    };
    let tf_fwd = turbofish(scalar.to_token_stream());
    let tf_inv = turbofish(quote!(#n::GVar<#scalar>));
    let tf_dual = turbofish(quote!(#n::Dual<#scalar>));
    // Arguments of the forward call on the user's arguments.
    let forward_args: Vec<TokenStream> = names
        .iter()
        .zip(&roles)
        .map(|(name, role)| match role {
            Role::Diff(_) | Role::State => quote!(&mut *#name),
            Role::Value | Role::ValueScalar(_) => quote!(::core::clone::Clone::clone(&#name)),
            Role::Shared | Role::SharedScalar(_) => quote!(#name),
        })
        .collect();
    // Per-sweep locals: wrapped differentiable arguments and cloned state.
    let wrapped = |i: usize| format_ident!("__w{}", i);
    let prepare_sweep: TokenStream = names
        .iter()
        .zip(&roles)
        .enumerate()
        .map(|(i, (name, role))| {
            let w = wrapped(i);
            match role {
                Role::Diff(ty) => quote!(let mut #w = #s::wrap::<#scalar, #ty>(&*#name);),
                Role::State => quote!(let mut #w = ::core::clone::Clone::clone(&*#name);),
                Role::ValueScalar(ty) => quote!(let #w = #s::wrap::<#scalar, #ty>(&#name);),
                Role::SharedScalar(ty) => quote!(let #w = #s::wrap::<#scalar, #ty>(#name);),
                _ => TokenStream::new(),
            }
        })
        .collect();
    let inverse_args: Vec<TokenStream> = names
        .iter()
        .zip(&roles)
        .enumerate()
        .map(|(i, (name, role))| {
            let w = wrapped(i);
            match role {
                Role::Diff(_) | Role::State => quote!(&mut #w),
                Role::Value => quote!(::core::clone::Clone::clone(&#name)),
                Role::Shared => quote!(#name),
                Role::ValueScalar(_) => quote!(::core::clone::Clone::clone(&#w)),
                Role::SharedScalar(_) => quote!(&#w),
            }
        })
        .collect();
    let diff: Vec<(usize, &syn::Ident, &syn::Type)> = names
        .iter()
        .zip(&roles)
        .enumerate()
        .filter_map(|(i, (name, role))| match role {
            Role::Diff(ty) => Some((i, name, ty)),
            _ => None,
        })
        .collect();

    let validate_arms: TokenStream = diff
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
    let validate = quote! {
        match __loss.arg {
            #validate_arms
            _ => return ::core::result::Result::Err(#s::not_differentiable(#name_str, __loss.arg)),
        }
    };
    let seed_arms: TokenStream = diff
        .iter()
        .map(|(i, name, ty)| {
            let w = wrapped(*i);
            quote!(#i => #s::seed::<#scalar, #ty>(&*#name, &mut #w, __loss.index, <#scalar as #n::Float>::f_one(), #name_str, #i)?,)
        })
        .collect();
    let result_types: Vec<TokenStream> = diff
        .iter()
        .map(|(_, _, ty)| quote!(<#ty as #n::Scalars<#scalar>>::Map<#n::GVar<#scalar>>))
        .collect();
    let result_values: Vec<TokenStream> = diff
        .iter()
        .map(|(i, _, _)| wrapped(*i).to_token_stream())
        .collect();
    let counts: Vec<TokenStream> = diff
        .iter()
        .map(|(_, name, ty)| quote!(<#ty as #n::Scalars<#scalar>>::count(&*#name)))
        .collect();

    // The full Jacobian is the Jacobian of every output: the list of all flat scalars.
    let all_outputs: TokenStream = diff
        .iter()
        .zip(&counts)
        .map(|((i, _, _), count)| {
            quote! {
                for __k in 0..#count {
                    __outputs.push(#n::Loss::elem(#i, __k));
                }
            }
        })
        .collect();
    let pass_through: Vec<TokenStream> = names
        .iter()
        .zip(&roles)
        .map(|(name, role)| match role {
            Role::Diff(_) | Role::State => quote!(&mut *#name),
            _ => quote!(#name),
        })
        .collect();
    let read_row: TokenStream = diff
        .iter()
        .map(|(i, name, ty)| {
            let w = wrapped(*i);
            quote!(#s::grads::<#scalar, #ty>(&*#name, &#w, &mut __row);)
        })
        .collect();

    // Hessian: lift into duals with tangent on flat input `__j`, run the gradient program.
    let lift: TokenStream = names
        .iter()
        .zip(&roles)
        .enumerate()
        .map(|(i, (name, role))| {
            let w = wrapped(i);
            match role {
                Role::Diff(ty) => quote! {
                    let mut #w = #s::lift::<#scalar, #ty>(&*#name, __off, __j);
                    __off += <#ty as #n::Scalars<#scalar>>::count(&*#name);
                },
                Role::State => quote!(let mut #w = ::core::clone::Clone::clone(&*#name);),
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
    let grads_pattern: Vec<syn::Ident> = diff
        .iter()
        .map(|(i, _, _)| format_ident!("__g{}", i))
        .collect();
    let read_col: TokenStream = diff
        .iter()
        .zip(&grads_pattern)
        .map(|((_, name, ty), g)| quote!(#s::grad_tangents::<#scalar, #ty>(&*#name, &#g, &mut __col);))
        .collect();

    let grad_doc = format!(
        "Gradient of the loss (chosen by `loss`) of [`{name_str}`] with respect to its \
         differentiable arguments, by running `{inv}` on `GVar` values. Returns the \
         differentiable arguments with `GVar` scalars (inputs and gradients); the arguments are \
         left holding the outputs of `{name_str}`. See `nilang::ad`."
    );
    let jac_doc = format!(
        "Jacobian of [`{name_str}`]: `J[i][j] = ∂output_i/∂input_j` over the flat list of its \
         differentiable scalars, one reverse sweep per output. The arguments are left holding \
         the outputs. See `nilang::ad`."
    );
    let jac_of_doc = format!(
        "Rows of the Jacobian of [`{name_str}`] for the chosen outputs only: row `i` is the \
         gradient of `outputs[i]` over the flat list of differentiable inputs. One forward run, \
         one reverse sweep per row. The arguments are left holding the outputs. See `nilang::ad`."
    );
    let hess_doc = format!(
        "Hessian of the loss of [`{name_str}`] over its differentiable scalars, by dual numbers \
         through `{name_str}_grad` (one column per pass). The arguments are not changed. See \
         `nilang::ad`."
    );
    let seed = quote! {
        match __loss.arg {
            #seed_arms
            _ => unreachable!(),
        }
    };
    // With the `L P M ~P D` shape, `L P M` runs once on the plain scalars and every reverse
    // sweep runs only `~M ~P` on GVars, from copies of the live ancillas.
    let (grad_body, jac_forward, jac_sweep) = match split(f, &scalar) {
        Some(Split { head, tail, live }) => {
            let part1 = crate::codegen::statements(f, &name_str, &head, &[]);
            let part2 = crate::codegen::statements(f, &inv.to_string(), &tail, &live);
            let rebind: TokenStream = names
                .iter()
                .zip(&roles)
                .enumerate()
                .map(|(i, (name, role))| {
                    let w = wrapped(i);
                    match role {
                        Role::Diff(_) | Role::State => quote!(let #name = &mut #w;),
                        Role::ValueScalar(_) => {
                            quote!(let #name = ::core::clone::Clone::clone(&#w);)
                        }
                        Role::SharedScalar(_) => quote!(let #name = &#w;),
                        _ => TokenStream::new(),
                    }
                })
                .collect();
            let p = quote!(::nilang::__private);
            let grad_body = quote! {
                #part1
                #prepare_sweep
                #seed
                #rebind
                #(let mut #live = #p::lift(#live);)*
                #part2
            };
            let sweep = quote! {
                #prepare_sweep
                #seed
                {
                    #rebind
                    #(let mut #live = #p::lift(::core::clone::Clone::clone(&#live));)*
                    #part2
                }
            };
            (grad_body, part1, sweep)
        }
        None => (
            quote! {
                #fwd #tf_fwd(#(#forward_args),*);
                #prepare_sweep
                #seed
                #inv #tf_inv(#(#inverse_args),*);
            },
            quote!(#fwd #tf_fwd(#(#forward_args),*);),
            quote! {
                #prepare_sweep
                #seed
                #inv #tf_inv(#(#inverse_args),*);
            },
        ),
    };
    let allow = quote!(#[allow(unused_mut, unused_variables, unused_assignments, clippy::all)]);
    quote! {
        #[doc = #grad_doc]
        #allow
        #vis fn #grad_name #impl_generics (__loss: #n::Loss, #inputs)
            -> ::core::result::Result<(#(#result_types,)*), #n::GradError> #where_clause
        {
            #validate
            #grad_body
            ::core::result::Result::Ok((#(#result_values,)*))
        }

        #[doc = #jac_doc]
        #allow
        #vis fn #jac_name #impl_generics (#inputs)
            -> ::core::result::Result<#n::ad::Matrix<#scalar>, #n::GradError> #where_clause
        {
            let mut __outputs = ::std::vec::Vec::new();
            #all_outputs
            #jac_of_name #tf_fwd(&__outputs, #(#pass_through),*)
        }

        #[doc = #jac_of_doc]
        #allow
        #vis fn #jac_of_name #impl_generics (__outputs: &[#n::Loss], #inputs)
            -> ::core::result::Result<#n::ad::Matrix<#scalar>, #n::GradError> #where_clause
        {
            for &__loss in __outputs {
                #validate
            }
            #jac_forward
            let __n = 0usize #(+ #counts)*;
            let mut __jac = #n::ad::Matrix::filled(__outputs.len(), __n, <#scalar as #n::Float>::f_zero());
            let mut __row = ::std::vec::Vec::with_capacity(__n);
            for (__i, &__loss) in __outputs.iter().enumerate() {
                #jac_sweep
                __row.clear();
                #read_row
                for (__j, __v) in __row.iter().enumerate() {
                    __jac.set(__i, __j, *__v);
                }
            }
            ::core::result::Result::Ok(__jac)
        }

        #[doc = #hess_doc]
        #allow
        #vis fn #hess_name #impl_generics (__loss: #n::Loss, #inputs)
            -> ::core::result::Result<#n::ad::Matrix<#scalar>, #n::GradError> #where_clause
        {
            #validate
            let __n = 0usize #(+ #counts)*;
            let mut __hess = #n::ad::Matrix::filled(__n, __n, <#scalar as #n::Float>::f_zero());
            let mut __col = ::std::vec::Vec::with_capacity(__n);
            for __j in 0..__n {
                let mut __off = 0usize;
                #lift
                let (#(#grads_pattern,)*) = #grad_name #tf_dual(__loss, #(#inverse_args),*)?;
                __col.clear();
                #read_col
                for (__i, __v) in __col.iter().enumerate() {
                    __hess.set(__i, __j, *__v);
                }
            }
            ::core::result::Result::Ok(__hess)
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
    /// The ancillas live between the two.
    pub live: Vec<syn::Ident>,
}

fn text(s: &Stmt) -> String {
    nilang_ir::print::stmt_tokens(s).to_string()
}

/// Does a statement (recursively) write a `&mut` parameter?
fn writes_param(s: &Stmt, params: &[String]) -> bool {
    let root = |v: &Dataview| params.contains(&v.root.to_string());
    match &s.kind {
        StmtKind::Instr(i) => root(&i.target),
        StmtKind::XorExpr { target, .. } => root(target),
        StmtKind::Builtin { args, .. } => args.iter().any(root),
        StmtKind::Stack { stack, value, .. } => root(stack) || root(value),
        StmtKind::Call { call, .. } => call
            .args
            .iter()
            .any(|a| matches!(a, CallArg::View(v) if root(v))),
        StmtKind::If { then, els, .. } => then.iter().chain(els).any(|s| writes_param(s, params)),
        StmtKind::While { body, .. } | StmtKind::For { body, .. } | StmtKind::NoCheck(body) => {
            body.iter().any(|s| writes_param(s, params))
        }
        StmtKind::Alloc(_) | StmtKind::Dealloc(_) | StmtKind::Safe(_) => false,
    }
}

/// Does a statement (recursively) allocate or deallocate?
/// Finds the `L P M ~P D` shape, when the fused gradient is safe for it.
pub fn split(f: &Function, scalar: &syn::Ident) -> Option<Split> {
    let body = &f.body;
    let end = body.len()
        - body
            .iter()
            .rev()
            .take_while(|s| matches!(s.kind, StmtKind::Dealloc(_)))
            .count();
    let start = body[..end]
        .iter()
        .take_while(|s| matches!(s.kind, StmtKind::Alloc(_)))
        .count();
    let rest = &body[start..end];
    let n = rest.len();
    let k = (1..=n / 2).rev().find(|&k| {
        let undo = reverse_block(&rest[..k]);
        undo.iter()
            .zip(&rest[n - k..])
            .all(|(a, b)| text(a) == text(b))
    })?;
    let params: Vec<String> = f
        .params
        .iter()
        .filter(|p| p.kind == ParamKind::MutRef)
        .map(|p| p.name.to_string())
        .collect();
    if rest[..k].iter().any(|s| writes_param(s, &params)) {
        return None;
    }
    let head: Vec<Stmt> = body[..start + n - k].to_vec();
    let tail = reverse_block(&rest[..n - k]);
    // The tail runs where the scalar type parameter still means the plain scalar: it must not
    // name it (no `T::zero()` ancillas inside).
    let mentions_scalar = tail.iter().any(|s| {
        nilang_ir::print::stmt_tokens(s).into_iter().any(|t| {
            matches!(&t, proc_macro2::TokenTree::Ident(i) if i == scalar)
                || mentions_tree(&t, scalar)
        })
    });
    // Ancillas allocated inside the tail are fine when their values do not name the scalar
    // type (`(s).zero_like()`, integers, values of other variables): in the tail those
    // variables are `GVar`s, so the ancilla is one too, exactly as in the inverse program.
    if mentions_scalar {
        return None;
    }
    let mut live: Vec<syn::Ident> = Vec::new();
    for s in &head {
        match &s.kind {
            StmtKind::Alloc(b) => live.extend(b.iter().map(|b| b.name.clone())),
            StmtKind::Dealloc(b) => live.retain(|l| !b.iter().any(|b| &b.name == l)),
            _ => {}
        }
    }
    Some(Split { head, tail, live })
}

fn mentions_tree(t: &proc_macro2::TokenTree, id: &syn::Ident) -> bool {
    match t {
        proc_macro2::TokenTree::Ident(i) => i == id,
        proc_macro2::TokenTree::Group(g) => g.stream().into_iter().any(|t| mentions_tree(&t, id)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nilang_ir::parse::{parse_function, Options};

    fn fused(attr: TokenStream, item: syn::ItemFn) -> Option<Split> {
        let f = parse_function(&Options::parse(attr).unwrap(), item).unwrap();
        split(&f, &format_ident!("T"))
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
        assert_eq!(s.live[0], "s");
    }

    #[test]
    fn an_ancilla_of_the_scalar_type_in_the_reversed_part_is_not_fused() {
        // `T::zero()` in the tail would be a plain scalar where the tail runs on `GVar`s
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
        assert!(s.is_none());
    }
}
