//! `nilang expand FILE.rs`: the forward, inverse and adjoint programs of every reversible
//! function of a file, and, for each ordinary function under `#[differentiable]`, first the
//! reversible program the front end (`nilang-auto`) wrote from it.

use quote::ToTokens;

/// The text `nilang expand` prints for the source `src`.
pub fn expand(src: &str) -> Result<String, String> {
    // deeply nested sources (a thousand nested `if`s) need a stack of their own, as
    // `nilang_ir::expand_source` does
    let (src, written) = nilang_ir::on_deep_stack(|| front_end(src))?;
    let programs = nilang_ir::expand_source(&src)?;
    let mut out = String::new();
    for (name, text) in written {
        out.push_str(&format!(
            "// The reversible program `#[differentiable]` wrote from `{name}` \
             (compiled as `#[i(expand)]`):\n{text}\n"
        ));
    }
    out.push_str(&programs);
    Ok(out)
}

/// The source with each `#[differentiable]` function replaced by its reversible program
/// (marked `#[i(expand)]`), and each program's text by the name of the function it came from.
fn front_end(src: &str) -> Result<(String, Vec<(String, String)>), String> {
    let mut file = syn::parse_file(src).map_err(|e| {
        let start = e.span().start();
        format!(
            "error at line {}, column {}: {e}",
            start.line,
            start.column + 1
        )
    })?;
    let mut written = Vec::new();
    let mut items = Vec::new();
    for item in std::mem::take(&mut file.items) {
        let syn::Item::Fn(mut f) = item else {
            items.push(item);
            continue;
        };
        let Some(k) = f.attrs.iter().position(|a| {
            a.path()
                .segments
                .last()
                .is_some_and(|s| s.ident == "differentiable")
        }) else {
            items.push(syn::Item::Fn(f));
            continue;
        };
        let attr = f.attrs.remove(k);
        let options = match attr.meta {
            syn::Meta::List(list) => list.tokens,
            _ => Default::default(),
        };
        let name = f.sig.ident.to_string();
        let translation = nilang_auto::translate(options, f.to_token_stream())
            .map_err(|e| format!("`{name}`: {e}"))?;
        let mut programs = translation.reversible;
        programs
            .iter_mut()
            .for_each(|p| p.attrs.retain(|a| !a.path().is_ident("doc")));
        let text = prettyplease::unparse(&syn::File {
            shebang: None,
            attrs: Vec::new(),
            items: programs.iter().cloned().map(syn::Item::Fn).collect(),
        });
        written.push((name, text));
        for mut program in programs {
            program.attrs.push(syn::parse_quote!(#[i(expand)]));
            items.push(syn::Item::Fn(program));
        }
    }
    file.items = items;
    if written.is_empty() {
        // nothing to replace: the source as it was
        return Ok((src.to_string(), written));
    }
    Ok((prettyplease::unparse(&file), written))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ordinary_function_is_expanded_through_its_reversible_program() {
        let text = expand(
            "#[differentiable]\nfn f(x: &[f64]) -> f64 {\n    let mut s = 0.0;\n    \
             for v in x.iter() {\n        s += v.sin();\n    }\n    s\n}\n",
        )
        .unwrap();
        assert!(text.contains("wrote from `f`"), "{text}");
        assert!(text.contains("fn f_rev"), "{text}");
        assert!(text.contains("s += sin(x[i_1])"), "{text}");
    }

    #[test]
    fn a_front_end_error_names_the_function() {
        let e = expand("#[differentiable]\nfn g(x: &mut [f64]) -> f64 { x[0] }\n").unwrap_err();
        assert!(e.starts_with("`g`:"), "{e}");
    }
}
