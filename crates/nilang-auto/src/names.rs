//! Spellings of the reversible program's variables: the user's own where they are unique, fresh
//! ones that cannot collide with any identifier of the user's function otherwise.

use proc_macro2::{Span, TokenStream, TokenTree};
use std::collections::HashSet;
use syn::Ident;

/// The identifiers in use: every identifier of the user's function, and every spelling handed
/// out so far.
#[derive(Clone)]
pub struct Names {
    taken: HashSet<String>,
    /// The user's identifiers: a binding may keep its own spelling once.
    user: HashSet<String>,
}

impl Names {
    /// The identifiers of `tokens` (the whole function, signature and body).
    pub fn of(tokens: TokenStream) -> Names {
        fn walk(ts: TokenStream, out: &mut HashSet<String>) {
            for t in ts {
                match t {
                    TokenTree::Ident(i) => {
                        out.insert(i.to_string());
                    }
                    TokenTree::Group(g) => walk(g.stream(), out),
                    _ => {}
                }
            }
        }
        let mut user = HashSet::new();
        walk(tokens, &mut user);
        Names {
            taken: HashSet::new(),
            user,
        }
    }

    /// The spelling of a user's binding named `ident`: its own the first time, a fresh one for
    /// a binding that shadows an earlier one.
    pub fn binding(&mut self, ident: &Ident) -> Ident {
        let s = ident.to_string();
        if self.taken.insert(s) {
            return ident.clone();
        }
        self.fresh(&ident.to_string(), ident.span())
    }

    /// A spelling starting with `base` that no identifier of the function uses and no other
    /// binding has been given.
    pub fn fresh(&mut self, base: &str, span: Span) -> Ident {
        self.fresh_joined(base, "_", span)
    }

    /// `base` itself when no identifier of the function uses it and no binding has been given
    /// it (a generated parameter keeps a readable name), else [`Names::fresh`].
    pub fn readable(&mut self, base: &str, span: Span) -> Ident {
        if !self.user.contains(base) && self.taken.insert(base.to_string()) {
            return Ident::new(base, span);
        }
        self.fresh(base, span)
    }

    /// A fresh identifier starting with `base` for a binding the front end declares in the
    /// user's own syntax (a desugaring): no identifier of the function, and from now on
    /// counted as one of the user's, so that its binding keeps this spelling
    /// ([`Names::binding`]) and no fresh name repeats it.
    pub fn user_fresh(&mut self, base: &str, span: Span) -> Ident {
        for k in 1.. {
            let s = format!("{base}_{k}");
            if !self.user.contains(&s) && !self.taken.contains(&s) {
                self.user.insert(s.clone());
                return Ident::new(&s, span);
            }
        }
        unreachable!("the counter is unbounded")
    }

    /// A fresh type name starting with `base` (`T1`, `T2`, …).
    pub fn fresh_type(&mut self, base: &str, span: Span) -> Ident {
        self.fresh_joined(base, "", span)
    }

    fn fresh_joined(&mut self, base: &str, separator: &str, span: Span) -> Ident {
        let base = base.trim_start_matches("r#");
        for k in 1.. {
            let s = format!("{base}{separator}{k}");
            if !self.user.contains(&s) && self.taken.insert(s.clone()) {
                return Ident::new(&s, span);
            }
        }
        unreachable!("the counter is unbounded")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn fresh_names_avoid_the_users_identifiers_and_each_other() {
        let mut names = Names::of(quote!(
            fn f(x_1: T) {
                let t_1 = x_1;
            }
        ));
        let x = Ident::new("x", Span::call_site());
        assert_eq!(names.binding(&x), "x");
        assert_eq!(names.binding(&x), "x_2", "x_1 is the user's");
        assert_eq!(names.fresh("t", Span::call_site()), "t_2");
        assert_eq!(names.fresh("t", Span::call_site()), "t_3");
    }
}
