//! When the runtime reversibility checks run: `#[i(check)]` in every build, `#[i(nocheck)]` in
//! none, and by default wherever `debug_assertions` are on
//! (docs/decisions/0005-checks-follow-debug-assertions.md).

use nilang_ir::Options;
use proc_macro2::TokenStream as TokenStream2;
use quote::quote;

/// The programs `generate` writes for `ir` under the function's check policy: with the runtime
/// reversibility checks (`#[i(check)]`), without them (`#[i(nocheck)]`), or, by default, both,
/// each under a `cfg` of `debug_assertions` — the checked program in debug builds and tests, the
/// unchecked one in release builds, as Rust does with its overflow checks
/// (docs/decisions/0005-checks-follow-debug-assertions.md). The `cfg` is resolved in the
/// user's crate, by the profile it is built with; only one of the two programs is compiled.
pub(crate) fn by_check_policy(
    options: &Options,
    ir: &nilang_ir::Analyzed,
    generate: impl Fn(&nilang_ir::Analyzed) -> TokenStream2,
) -> TokenStream2 {
    if options.check || options.nocheck || !ir.checked {
        return generate(ir);
    }
    let mut unchecked = ir.clone();
    unchecked.function.checked = false;
    let debug = under_cfg(generate(ir), quote!(debug_assertions));
    let release = under_cfg(generate(&unchecked), quote!(not(debug_assertions)));
    quote!(#debug #release)
}

/// Each item of `items` (generated code: functions, `impl`s, constants, `compile_error!`s)
/// under `#[cfg(predicate)]`.
fn under_cfg(items: TokenStream2, predicate: TokenStream2) -> TokenStream2 {
    match syn::parse2::<syn::File>(items) {
        Ok(file) => file
            .items
            .into_iter()
            .map(|item| quote!(#[cfg(#predicate)] #item))
            .collect(),
        Err(e) => syn::Error::new(
            e.span(),
            format!("internal error of #[i]: its generated code is not a list of items ({e}); please report it"),
        )
        .to_compile_error(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generated code of `#[i(attr)]` on `src`, as text.
    fn expand(attr: &str, src: &str) -> String {
        crate::attribute(attr.parse().unwrap(), src.parse().unwrap()).to_string()
    }

    const SRC: &str = "fn f<T: Real>(y: &mut T, a: &T, b: &T) { let t = T::zero(); t += a * b; y += t; t -= a * b; dealloc!(t = T::zero()); }";

    /// The items of `#[i(attr)]` on `SRC` that are under `#[cfg(cfg)]` (that attribute removed),
    /// or under no `cfg` when `cfg` is `None`, as text.
    fn items(attr: &str, cfg: Option<&str>) -> Vec<String> {
        let file: syn::File = syn::parse_str(&expand(attr, SRC)).unwrap();
        file.items
            .into_iter()
            .filter_map(|mut item| {
                let attrs = match &mut item {
                    syn::Item::Fn(f) => &mut f.attrs,
                    syn::Item::Impl(i) => &mut i.attrs,
                    syn::Item::Struct(s) => &mut s.attrs,
                    syn::Item::Const(c) => &mut c.attrs,
                    syn::Item::Macro(m) => &mut m.attrs,
                    other => panic!("an item #[i] does not generate: {}", quote!(#other)),
                };
                let pos = attrs.iter().position(|a| a.path().is_ident("cfg"));
                let found = pos.map(|p| {
                    attrs
                        .remove(p)
                        .meta
                        .require_list()
                        .unwrap()
                        .tokens
                        .to_string()
                });
                (found.as_deref() == cfg).then(|| quote!(#item).to_string())
            })
            .collect()
    }

    #[test]
    fn by_default_the_checked_program_is_the_debug_one_and_the_unchecked_the_release_one() {
        let (checked, unchecked) = (items("check", None), items("nocheck", None));
        assert_ne!(checked, unchecked, "the checks change the program");
        let shared = items("", None);
        let debug = [items("", Some("debug_assertions")), shared.clone()].concat();
        let release = [items("", Some("not (debug_assertions)")), shared].concat();
        let sorted = |mut v: Vec<String>| {
            v.sort();
            v
        };
        assert_eq!(
            sorted(debug),
            sorted(checked),
            "debug builds get the checked program"
        );
        assert_eq!(
            sorted(release),
            sorted(unchecked),
            "release builds the unchecked one"
        );
    }

    #[test]
    fn check_and_nocheck_together_are_an_error() {
        let out = expand("check, nocheck", SRC);
        assert!(
            out.contains("compile_error") && out.contains("contradict"),
            "{out}"
        );
    }
}
