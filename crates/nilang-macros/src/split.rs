//! The code of the fused gradient's split (`nilang_ir::split`, found once per function in
//! `nilang_ir::Analyzed::fused`): the zero gradients of the ancillas live between `L P M` on
//! plain scalars and `~M ~P` on value–gradient pairs.

use crate::tokens::private;
use nilang_ir::split::{Live, ZeroGrad};
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

/// The zero gradient of the live ancilla `live`, `lane` the gradient of one scalar.
pub fn zero_gradient(live: &Live, lane: &TokenStream) -> TokenStream {
    zero_tokens(&live.zero, &live.name.to_token_stream(), lane)
}

/// The zero gradient of the value at `place`, with `lane` the gradient of one scalar.
fn zero_tokens(zero: &ZeroGrad, place: &TokenStream, lane: &TokenStream) -> TokenStream {
    match zero {
        ZeroGrad::OfValue => {
            let p = private();
            quote!(#p::zero_grad::<_, #lane>(&#place))
        }
        ZeroGrad::Built(f, parts) => {
            let grads: Vec<(syn::Ident, TokenStream)> = f
                .parts
                .iter()
                .zip(parts)
                .map(|(part, zero)| {
                    let member = &part.member;
                    (
                        part.var.clone(),
                        zero_tokens(zero, &quote!(#place.#member), lane),
                    )
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

#[cfg(test)]
mod tests {
    use super::*;
    use nilang_ir::{lower, Options};

    #[test]
    fn values_built_in_the_computation_get_built_zero_gradients() {
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
        let fused = f.fused.as_ref().expect("the L P M ~P D shape");
        let (s, _) = fused.guarded(&[], true).expect("fused in f_vjp");
        let zero = zero_gradient(&s.live[0], &quote!(G))
            .to_string()
            .replace(' ', "");
        // `t`'s parts: `v`, which was `w.value`, built as a `Complex`, and the counter `m`
        assert_eq!(
            zero,
            "(Complex{re:::nilang::__private::zero_grad::<_,G>(&t.0.re),\
             im:::nilang::__private::zero_grad::<_,G>(&t.0.im)},\
             ::nilang::__private::zero_grad::<_,G>(&t.1))"
        );
    }
}
