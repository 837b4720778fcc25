//! Inlining hints on the generated functions (decision 0046).

use proc_macro2::TokenStream;
use quote::ToTokens;

/// Marks every generated free function `#[inline]` (unless it says otherwise): a hint, and
/// what lets a release build inline a callee's programs into its caller's in another codegen
/// unit. Without it whether the small programs a caller runs in its hot loop are inlined
/// depends on how rustc splits the crate into codegen units, which any unrelated function can
/// change (the guide's RK4 gradient: 3.7× → 4.7× its objective when a second caller of its
/// step was added to the module).
pub fn hints(items: TokenStream) -> TokenStream {
    let Ok(mut file) = syn::parse2::<syn::File>(items.clone()) else {
        return items;
    };
    for item in &mut file.items {
        if let syn::Item::Fn(f) = item {
            if !f.attrs.iter().any(|a| a.path().is_ident("inline")) {
                f.attrs.push(syn::parse_quote!(#[inline]));
            }
        }
    }
    file.into_token_stream()
}

#[cfg(test)]
mod tests {
    /// The attributes `inline` of every function item of `#[i]` on `src`, by function name.
    fn inline_attrs(src: &str) -> Vec<(String, Vec<String>)> {
        let out = crate::attribute(proc_macro2::TokenStream::new(), src.parse().unwrap());
        let file: syn::File = syn::parse2(out).unwrap();
        file.items
            .iter()
            .filter_map(|item| match item {
                syn::Item::Fn(f) => Some((
                    f.sig.ident.to_string(),
                    f.attrs
                        .iter()
                        .filter(|a| a.path().is_ident("inline"))
                        .map(|a| quote::quote!(#a).to_string())
                        .collect(),
                )),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn every_generated_function_is_inline_once() {
        let fns = inline_attrs("fn f<T: Real>(y: &mut T, a: &T, b: &T) { y += a * b; }");
        let names: Vec<&str> = fns.iter().map(|(n, _)| n.as_str()).collect();
        for want in ["f", "f_inv", "f_adjoint", "f_vjp"] {
            assert!(names.contains(&want), "{want} not among {names:?}");
        }
        for (name, attrs) in &fns {
            assert_eq!(attrs, &["# [inline]"], "{name}");
        }
    }

    #[test]
    fn an_inline_attribute_of_the_user_is_kept_alone() {
        let fns =
            inline_attrs("#[inline(never)] fn g<T: Real>(y: &mut T, a: &T) { y += identity(a); }");
        let g = fns.iter().find(|(n, _)| n == "g").expect("g is generated");
        assert_eq!(g.1, ["# [inline (never)]"]);
        let inv = fns
            .iter()
            .find(|(n, _)| n == "g_inv")
            .expect("g_inv is generated");
        assert_eq!(inv.1, ["# [inline]"]);
    }
}
