//! Prints the reversible program `#[differentiable]` writes for each function of a file marked
//! with it: `cargo run -p nilang-auto --example show -- file.rs`.

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
        f.attrs.remove(k);
        match nilang_auto::translate(Default::default(), f.to_token_stream()) {
            Ok(t) => {
                let (rev, grad) = (t.reversible, t.gradient);
                let file: syn::File = syn::parse_quote!(#(#rev)* #grad);
                println!("{}", prettyplease::unparse(&file));
            }
            Err(e) => println!("error: {e}"),
        }
    }
}
