//! Instructions, builtins and calls: operands loaded into locals, the instruction trait run on
//! them and the results stored back; a call's arguments passed (through temporaries where
//! two share a root), and the callee of each direction.

use super::Gen;
use crate::tokens::{load_call, private, read_only, store_call};
use nilang_ir::ast::*;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};

impl Gen {
    /// Loads an operand into a local named `local` of the type of `like`; returns the load and
    /// the store-back (empty for read-only operands and constants).
    pub(crate) fn load_store(
        &self,
        o: &Operand,
        like: TokenStream,
        local: TokenStream,
    ) -> (TokenStream, TokenStream) {
        match o {
            Operand::View(v) => {
                let place = self.place(v);
                let load = load_call(v.span, &like, &place);
                let load = quote!(let mut #local = #load;);
                let store = if self.writable(v) {
                    store_call(v.span, &place, &local)
                } else {
                    TokenStream::new()
                };
                (load, store)
            }
            Operand::Const(e) => {
                let load = load_call(syn::spanned::Spanned::span(e), &like, &read_only(e));
                (quote!(let mut #local = #load;), TokenStream::new())
            }
        }
    }

    pub(crate) fn instruction(
        &mut self,
        instr: &Instr,
        site: &TokenStream,
        span: Span,
    ) -> TokenStream {
        let p = private();
        let target = self.place(&instr.target);
        let mut views = vec![&instr.target];
        views.extend(instr.args.iter().filter_map(|a| match a {
            Operand::View(v) if self.writable(v) => Some(v),
            _ => None,
        }));
        let checks = self.alias_checks(&views, site);
        let mut loads = TokenStream::new();
        let mut stores = TokenStream::new();
        let mut locals = Vec::new();
        for (k, arg) in instr.args.iter().enumerate() {
            let local = format_ident!("__a{}", k);
            let like = operand_like(instr, k, &quote!(__y));
            let (l, s) = self.load_store(arg, like, local.to_token_stream());
            loads.extend(l);
            stores.extend(s);
            locals.push(local);
        }
        let Some((_, method, _)) = instruction_trait(instr) else {
            return quote_spanned!(span=> ::core::compile_error!("a primitive takes one or two operands"););
        };
        // `__y` is interpolated, not written inside `quote_spanned!`: with the statement's span it
        // would take the hygiene of the user's tokens and miss the `let mut __y` below when the
        // statement comes from a `macro_rules!` expansion.
        let y = format_ident!("__y");
        let call = instruction_call(instr, &method, &y, &locals, span);
        quote!({
            #checks
            let mut __y = #p::copy(&#target);
            #loads
            #call;
            #target = __y;
            #stores
        })
    }

    /// A call or uncall. In an adjoint program (`self.shadow`) it calls the callee's adjoint
    /// program of the same direction (`g_adjoint_inv` for a call, `g_adjoint` for an uncall)
    /// with each argument followed by its gradient: a writable argument's shadow (the
    /// callee's parameter decides between `&mut` and `()`, see `__private::PassShadow`), `()`
    /// for a read-only one.
    pub(super) fn call(&mut self, call: &Call, uncall: bool, site: &TokenStream) -> TokenStream {
        let p = private();
        let shadow = self.shadow.is_some();
        // Writable views that share a root with another argument and carry an index go through
        // temporaries, so that `g(x[i], x[j])` borrows `x` once at a time.
        let writable_views: Vec<&Dataview> = call
            .args
            .iter()
            .filter_map(|a| match a {
                CallArg::View(v) if self.writable(v) => Some(v),
                _ => None,
            })
            .collect();
        let conflicting = |v: &Dataview| {
            writable_views.iter().filter(|w| w.root == v.root).count() > 1
                && writable_views
                    .iter()
                    .any(|w| w.root == v.root && w.has_index())
        };
        let checks = self.alias_checks(&writable_views, site);
        let (mut pre, mut post, mut args) = (TokenStream::new(), TokenStream::new(), Vec::new());
        for a in &call.args {
            match a {
                CallArg::View(v) if self.writable(v) => {
                    let mut places = vec![(self.place(v), quote!(pass))];
                    if shadow {
                        places.push((self.shadow_place(v), quote!(pass_shadow)));
                    }
                    let sub_slice =
                        matches!(v.path.last(), Some(Access::Index(syn::Expr::Range(_))));
                    for (place, pass) in places {
                        if conflicting(v) && sub_slice {
                            // `g(p[0], p[1..3])`: the sub-slice goes through a vector
                            let t = self.fresh("arg");
                            pre.extend(quote!(let mut #t = #p::copy_slice(&#place);));
                            post.extend(quote!(#p::store_slice(&mut #place, &#t);));
                            args.push(quote!(#p::#pass(&mut #t)));
                        } else if conflicting(v) {
                            let t = self.fresh("arg");
                            pre.extend(quote!(let mut #t = #p::copy(&#place);));
                            post.extend(quote!(#place = #t;));
                            args.push(quote!(#p::#pass(&mut #t)));
                        } else {
                            args.push(quote!(#p::#pass(&mut #place)));
                        }
                    }
                }
                other => {
                    args.push(self.readonly_call_arg(other));
                    if shadow {
                        args.push(quote!(()));
                    }
                }
            }
        }
        let invocation = match &call.callee {
            Callee::Path(path) => {
                let mut path = path.clone();
                let companion = nilang_ir::companions::callee_companion(shadow, uncall);
                match companion.filter(|_| nilang_ir::companions::names_free_function(&path)) {
                    Some(c) => path.path = nilang_ir::companions::companion_path(&path.path, c),
                    None => {
                        let last = path.path.segments.last_mut().expect("a path has a segment");
                        last.ident = self.callee_name(&last.ident, uncall);
                    }
                }
                let last = path.path.segments.last_mut().expect("a path has a segment");
                if let syn::PathArguments::AngleBracketed(a) = &mut last.arguments {
                    self.extend_generic_args(a);
                }
                quote!(#path(#(#args),*))
            }
            Callee::Method {
                receiver,
                method,
                turbofish,
            } => {
                let method = self.callee_name(method, uncall);
                let tf = turbofish.as_ref().map(|t| {
                    let mut t = t.clone();
                    self.extend_generic_args(&mut t);
                    quote!(::#t)
                });
                quote!(#receiver.#method #tf(#(#args),*))
            }
            Callee::Param(f) => self.parameter_invocation(f, uncall, &args),
        };
        quote!({ #checks #pre #invocation; #post })
    }

    /// A call of a reversible function passed as the parameter `f` (`nilang_ir::fn_params`):
    /// through `nilang::Reversible` (`call`, `uncall`) on values, through `nilang::Adjoint`
    /// (`adjoint_inv` for a call, `adjoint` for an uncall) in an adjoint program, with the
    /// arguments as one tuple of the types the parameter's bound names (so that each
    /// argument is handed as the callee takes it: `&mut`, `&` or a copy).
    fn parameter_invocation(
        &self,
        f: &syn::Ident,
        uncall: bool,
        args: &[TokenStream],
    ) -> TokenStream {
        let param = self
            .functions
            .iter()
            .find(|p| &p.name == f)
            .expect("a callee parameter is a function parameter (nilang_ir::fn_params)");
        let ty = &param.ty;
        let (tr, types) = match &self.shadow {
            None => (quote!(::nilang::Reversible), param.args.clone()),
            Some(shadows) => {
                let scalar = shadows.scalar.as_ref();
                let scalar_as = scalar.map(ToTokens::to_token_stream).unwrap_or_default();
                let types = param.shadowed(scalar, &scalar_as, &shadows.lane());
                (quote!(::nilang::Adjoint), types)
            }
        };
        let method = match (self.shadow.is_some(), uncall) {
            (false, false) => quote!(call),
            (false, true) => quote!(uncall),
            (true, false) => quote!(adjoint_inv),
            (true, true) => quote!(adjoint),
        };
        let tuple = nilang_ir::fn_params::inferred_tuple(&types);
        let receiver = match self.kind(&Dataview::of(f)) {
            Some(nilang_ir::scope::VarKind::SharedRef) => quote!(#f),
            _ => quote!(&#f),
        };
        quote!(<#ty as #tr<#tuple>>::#method(#receiver, (#(#args,)*)))
    }

    /// What a call of a method or an associated function `g` calls: `g` or `g_inv` (an
    /// uncall); in an adjoint program `g_adjoint_inv` or `g_adjoint`. (A free function's
    /// companions are called through its struct instead: `g::inv`, `nilang_ir::companions`.)
    fn callee_name(&self, g: &syn::Ident, uncall: bool) -> syn::Ident {
        match (self.shadow.is_some(), uncall) {
            (true, _) => nilang_ir::adjoint::callee_adjoint_name(g, uncall),
            (false, true) => format_ident!("{}_inv", g, span = g.span()),
            (false, false) => g.clone(),
        }
    }

    /// Explicit generic arguments of a callee gain, in an adjoint program, the gradient type:
    /// the adjoint programs' last type parameter.
    fn extend_generic_args(&self, a: &mut syn::AngleBracketedGenericArguments) {
        if let Some(shadows) = &self.shadow {
            let lane = shadows.lane();
            a.args.push(syn::parse_quote!(#lane));
        }
    }

    /// A read-only call argument: a variable, a copy of an element, a reference or a value.
    fn readonly_call_arg(&self, a: &CallArg) -> TokenStream {
        let p = private();
        match a {
            CallArg::View(v) => match self.kind(v) {
                Some(_) if v.path.is_empty() => v.root.to_token_stream(),
                // a sub-slice of a read-only place (`x[i*d..(i+1)*d]`) is lent as a slice,
                // as `&x[…]` would be: a slice cannot be copied
                Some(_) if matches!(v.path.last(), Some(Access::Index(syn::Expr::Range(_)))) => {
                    let place = self.place(v);
                    quote!(&#place)
                }
                Some(_) => {
                    let place = self.place(v);
                    quote!(#p::copy(&#place))
                }
                None => nilang_ir::print::view_tokens(v),
            },
            CallArg::Shared(e) => match nilang_ir::parse::dataview(e) {
                Some(v) if self.kind(&v).is_some() => {
                    let place = self.place(&v);
                    quote!(&#place)
                }
                // arguments a call takes run as in Rust, even when they change something
                // (a cache's `rows.at(i)`); unchecked loops keep the checks of what they name
                // (`nilang_ir::bounds`)
                _ => quote!(&(#e)),
            },
            CallArg::Value(e) => e.to_token_stream(),
        }
    }
}

/// What operand `k` of an instruction is loaded like ([`load_call`]): the target `y`, except
/// the second operand of `y *= f(a, b)` / `y /= f(a, b)`, loaded as the instruction's
/// `Scale2::Second` (the real exponent of `pow` on `ULog`), and a place operand of `abs`,
/// `abs2` or `angle`, loaded as itself (nothing: a complex `z` of `r += abs(z)`).
pub(crate) fn operand_like(instr: &Instr, k: usize, y: &TokenStream) -> TokenStream {
    match (instr.op, k, instruction_trait(instr)) {
        (AccOp::Mul | AccOp::Div, 1, Some((tr, _, prim))) => {
            let p = private();
            quote!(<_ as #p::#tr<#prim>>::second_like(&#y))
        }
        _ if keeps_operand_type(instr) && matches!(instr.args[0], Operand::View(_)) => {
            TokenStream::new()
        }
        _ => y.clone(),
    }
}

/// `r += f(z)` whose operand keeps its own type (`PrimInfo::takes_operand_type`).
fn keeps_operand_type(instr: &Instr) -> bool {
    matches!(&instr.prim, Prim::Builtin(info) if info.takes_operand_type())
        && matches!(instr.op, AccOp::Add | AccOp::Sub)
        && instr.args.len() == 1
}

/// The call of an instruction's `method` (of [`instruction_trait`]) on the target `y` and the
/// operands' locals; an operand of its own type goes first, through
/// `__private::operand_first`, so that its type picks the instruction.
pub(crate) fn instruction_call(
    instr: &Instr,
    method: &TokenStream,
    y: &syn::Ident,
    locals: &[syn::Ident],
    span: Span,
) -> TokenStream {
    let p = private();
    let (tr, _, prim) = instruction_trait(instr).expect("an instruction of one or two operands");
    if keeps_operand_type(instr) {
        quote_spanned!(span=> #p::operand_first::#method::<#prim, _, _>(#(&mut #locals,)* &mut #y))
    } else {
        quote_spanned!(span=> <_ as #p::#tr<#prim>>::#method(&mut #y, #(&mut #locals),*))
    }
}

/// Whether an instruction's primitive is singular at the operands' locals
/// (`Acc1::value_is_singular`, on the target `y`'s type).
pub(crate) fn singular_call(instr: &Instr, y: &syn::Ident, locals: &[syn::Ident]) -> TokenStream {
    let p = private();
    let (tr, _, prim) = instruction_trait(instr).expect("an instruction of one or two operands");
    if keeps_operand_type(instr) {
        quote!(#p::operand_first::value_is_singular::<#prim, _, _>(#(&#locals,)* &#y))
    } else {
        quote!(<_ as #p::#tr<#prim>>::value_is_singular(#(&#locals),*))
    }
}

/// The instruction trait, its method and the primitive's type for an instruction
/// (`Acc1`, `sub1`, `prims::Sin` for `y -= sin(x)`); `None` for a wrong number of operands.
pub(crate) fn instruction_trait(instr: &Instr) -> Option<(TokenStream, TokenStream, TokenStream)> {
    let p = private();
    let prim = match &instr.prim {
        Prim::Builtin(info) => {
            let ty = format_ident!("{}", info.runtime);
            quote!(#p::prims::#ty)
        }
        Prim::User(path) => path.to_token_stream(),
    };
    let n = instr.args.len();
    if n == 0 || n > 2 {
        return None;
    }
    let (tr, method) = match (instr.op, n) {
        (AccOp::Add, 1) => (quote!(Acc1), quote!(add1)),
        (AccOp::Sub, 1) => (quote!(Acc1), quote!(sub1)),
        (AccOp::Add, _) => (quote!(Acc2), quote!(add2)),
        (AccOp::Sub, _) => (quote!(Acc2), quote!(sub2)),
        (AccOp::Mul, 1) => (quote!(Scale1), quote!(mul1)),
        (AccOp::Div, 1) => (quote!(Scale1), quote!(div1)),
        (AccOp::Mul, _) => (quote!(Scale2), quote!(mul2)),
        (AccOp::Div, _) => (quote!(Scale2), quote!(div2)),
        (AccOp::Xor, _) => unreachable!("xor instructions are parsed as expressions"),
    };
    Some((tr, method, prim))
}

/// The call of a one-place builtin (`neg`, `inc`, `dec`, `conj`, `flip`, `inv`) on the local `a`.
pub(crate) fn unary_builtin_call(op: BuiltinOp, a: &syn::Ident) -> TokenStream {
    let p = private();
    match op {
        BuiltinOp::Neg => quote!(#p::Negate::negate(&mut #a)),
        BuiltinOp::Inc => quote!(#p::Step::inc(&mut #a)),
        BuiltinOp::Dec => quote!(#p::Step::dec(&mut #a)),
        BuiltinOp::Conj => quote!(#p::Conjugate::conjugate(&mut #a)),
        BuiltinOp::Flip => quote!(#p::Flip::flip(&mut #a)),
        BuiltinOp::Inv => quote!(#p::Invert::invert(&mut #a)),
        _ => unreachable!("not a one-place builtin"),
    }
}

/// A reversible constructor (`let mut z = Complex { re: a, im: b };`) or destructor
/// (`let Complex { re: mut a, im: mut b } = z;`): Rust moves the values. For the shadows of an
/// adjoint program (`gradients`), the struct's path loses its generic arguments.
pub(crate) fn fields_code(f: &Fields, gradients: bool) -> TokenStream {
    let whole = &f.whole;
    let var = |v: &syn::Ident| quote!(mut #v);
    let value = nilang_ir::constructors::build_tokens(f, &var, gradients);
    if f.construct {
        let plain = nilang_ir::constructors::build_tokens(f, &|v| v.to_token_stream(), gradients);
        quote!(let mut #whole = #plain;)
    } else {
        quote!(let #value = #whole;)
    }
}
