//! Places: a dataview as a Rust place expression (through a parallel chunk's cells, a hoisted
//! bounds check or a bound index local), and the runtime checks that two places differ.

use super::Gen;
use crate::tokens::{private, read_only};
use nilang_ir::ast::*;
use nilang_ir::scope::VarKind;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};

impl Gen {
    pub(crate) fn kind(&self, v: &Dataview) -> Option<VarKind> {
        self.scope.lookup(&v.root)
    }

    pub(crate) fn writable(&self, v: &Dataview) -> bool {
        !self.par.readonly.contains(&v.root.to_string())
            && self.kind(v).map(VarKind::writable).unwrap_or(false)
    }

    /// A dataview as a Rust place expression.
    pub(crate) fn place(&self, v: &Dataview) -> TokenStream {
        self.place_at(v, &v.root)
    }

    /// The place of dataview `v` with its root replaced by `root` (a shadow's name); its
    /// first index is unchecked when an enclosing loop checked it (`self.hoisted`).
    pub(crate) fn place_at(&self, v: &Dataview, root: &syn::Ident) -> TokenStream {
        if *root != v.root {
            if let Some((_, part)) = self.partials.iter().find(|(r, _)| r.same_as(v)) {
                return quote!(#part);
            }
        }
        if let Some((_, value, shadow)) = self.par.reductions.iter().find(|(r, ..)| r.same_as(v)) {
            match shadow {
                Some(shadow) if *root != v.root => return quote!(#shadow),
                _ => return quote!(#value),
            }
        }
        let name = root.to_string();
        let cell = self.par.cells.contains(&name);
        let mut ts = match self.kind(v) {
            _ if cell => quote_spanned!(v.span=> #root),
            _ if self.par.deref.contains(&name) => quote_spanned!(v.span=> (*#root)),
            Some(k) if k.is_reference() => quote_spanned!(v.span=> (*#root)),
            // a local vector is a `&mut [T]` into its storage (`Gen::allocate`)
            _ if self.local_vecs.contains(&v.root.to_string()) => quote_spanned!(v.span=> (*#root)),
            _ => quote_spanned!(v.span=> #root),
        };
        let hoisted = self.hoisted.iter().find(|h| h.matches(v));
        for (k, a) in v.path.iter().enumerate() {
            let i = match a {
                Access::Index(e) => self.index_tokens(e),
                Access::Field(_) => TokenStream::new(),
            };
            ts = match (a, hoisted) {
                // SAFETY (`Window::at`, `Window::range`): a place's code uses the reference
                // within its statement, and places of one root handed to one call go through
                // temporaries (`Gen::call`): no other reference to the element is alive. The
                // window itself keeps the chunk to its own elements.
                (Access::Index(e), _) if k == 0 && cell => match (e, hoisted) {
                    (syn::Expr::Range(_), _) => quote!((*unsafe { #ts.range(#i) })),
                    // SAFETY (also, `Window::at_unchecked`): the enclosing unchecked loop checked
                    // this index against the window's bounds before it started
                    // (`Gen::hoisted_check`).
                    (_, Some(h)) => {
                        let u = &h.unchecked;
                        quote!((*unsafe { #ts.at_unchecked(#u) }))
                    }
                    // SAFETY (`Window::at`): as above; the window checks the index
                    _ => quote!((*unsafe { #ts.at(#i) })),
                },
                (Access::Field(m), _) => quote!(#ts.#m),
                (Access::Index(_), Some(h)) if k == 0 => {
                    // a chunk's own shadow of a place a parallel loop only reads is writable
                    let own_shadow =
                        *root != v.root && self.par.local_shadows.contains(&v.root.to_string());
                    let u = &h.unchecked;
                    let get = if self.writable(v) || own_shadow {
                        quote!((&&#ts.__nilang_place_mut()).get(#u))
                    } else {
                        quote!((&&#ts.__nilang_place()).get(#u))
                    };
                    // SAFETY (`hoist::Trusted::get`): the enclosing loop checked this index,
                    // computed over locals bound before it, against the bounds of the same
                    // place at its first and last iteration (`Gen::hoisted_check`); the index
                    // is non-decreasing in the loop variable and the loop does not resize the
                    // place (nilang_ir::bounds).
                    quote!((*unsafe { #get }))
                }
                (Access::Index(_), _) => quote!(#ts[#i]),
            };
        }
        ts
    }

    /// Runtime checks that dataviews sharing a root with dynamic indices are different places.
    pub(crate) fn alias_checks(&self, views: &[&Dataview], site: &TokenStream) -> TokenStream {
        if !self.checked {
            return TokenStream::new();
        }
        let p = private();
        let mut out = TokenStream::new();
        for (i, a) in views.iter().enumerate() {
            for b in &views[i + 1..] {
                if a.root == b.root && (a.has_index() || b.has_index()) {
                    let (pa, pb) = (self.place(a), self.place(b));
                    let names = format!("{} and {}", a.text(), b.text());
                    out.extend(quote!(#p::check_disjoint(&#pa, &#pb, #site, #names);));
                }
            }
        }
        out
    }

    /// The code `generate` gives for statement `s`, preceded by the evaluation of each of its
    /// index expressions that reads more than a variable (`x[(k + 1) % x.len()]`) into a local,
    /// which its places then use. Generated statements take `&mut` borrows of their places
    /// (`split_into(&mut x[i], &mut x_grad[i], ..)`, a call's `pass(&mut x[i])`): an index
    /// that reads a variable borrowed by an earlier argument would not compile, and each index
    /// is now evaluated once.
    pub(super) fn with_bound_indices(
        &mut self,
        s: &Stmt,
        generate: impl FnOnce(&mut Gen) -> TokenStream,
    ) -> TokenStream {
        let outer = self.indices.len();
        let mut lets = TokenStream::new();
        for v in s.views() {
            // a hoisted first index is computed over locals bound before the loop
            let hoisted = self.hoisted.iter().any(|h| h.matches(v));
            for (k, a) in v.path.iter().enumerate() {
                match a {
                    Access::Index(e)
                        if needs_binding(e)
                            && self.bound_index(e).is_none()
                            && !(k == 0 && hoisted) =>
                    {
                        let local = self.fresh("index");
                        let value = read_only(e);
                        lets.extend(quote!(let #local = #value;));
                        self.indices.push((e.clone(), local));
                    }
                    _ => {}
                }
            }
        }
        let code = generate(self);
        self.indices.truncate(outer);
        if lets.is_empty() {
            code
        } else {
            quote!({ #lets #code })
        }
    }

    /// The local holding an index expression of the current statement, if it was bound.
    fn bound_index(&self, e: &syn::Expr) -> Option<&syn::Ident> {
        self.indices.iter().find(|(b, _)| b == e).map(|(_, l)| l)
    }

    /// An index expression as the code of a place reads it: its local if it was bound (a
    /// range's local is cloned: `Range` is not `Copy`), else the expression.
    fn index_tokens(&self, e: &syn::Expr) -> TokenStream {
        match (self.bound_index(e), e) {
            (Some(local), syn::Expr::Range(_)) => quote!(::core::clone::Clone::clone(&#local)),
            (Some(local), _) => local.to_token_stream(),
            (None, _) => e.to_token_stream(),
        }
    }
}

/// Does an index expression read more than a literal or one variable (so that evaluating it
/// while its statement holds borrows could conflict with them)?
fn needs_binding(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(_) => false,
        syn::Expr::Path(p) => p.path.get_ident().is_none(),
        syn::Expr::Paren(p) => needs_binding(&p.expr),
        syn::Expr::Range(r) => [&r.start, &r.end]
            .into_iter()
            .flatten()
            .any(|e| needs_binding(e)),
        _ => true,
    }
}
