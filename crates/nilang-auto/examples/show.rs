//! Prints the reversible program `#[differentiable]` writes for each function of a file marked
//! with it (its options, such as `wrt(…)`, as written): `cargo run -p nilang-auto --example show -- file.rs`.

use quote::ToTokens;

fn main() {
    let path = std::env::args().nth(1).expect("usage: show FILE.rs");
    let text = std::fs::read_to_string(&path).expect("readable file");
    let file = syn::parse_file(&text).expect("a Rust file");
    for item in file.items {
        let syn::Item::Fn(mut f) = item else { continue };
        let Some(k) = f
            .attrs
            .iter()
            .position(|a| a.path().is_ident("differentiable"))
        else {
            continue;
        };
        let attr = match &f.attrs.remove(k).meta {
            syn::Meta::List(list) => list.tokens.clone(),
            _ => Default::default(),
        };
        match nilang_auto::translate(attr, f.to_token_stream()) {
            Ok(t) => {
                let (rev, grad) = (t.reversible, t.gradient);
                let file: syn::File = syn::parse_quote!(#(#rev)* #grad);
                println!("{}", prettyplease::unparse(&file));
            }
            Err(e) => println!("error: {e}"),
        }
    }
}
