//! The split of a fused gradient: a body of the shape `L P M ~P D` need not be run whole
//! forward and then whole backward on value–gradient pairs. `L P M` runs on plain scalars,
//! the ancillas live there get zero gradients ([`Live`]), and `~M ~P` runs on the pairs
//! ([`Split`]); the unchecked forward program skips `~P D` the same way. [`Fused::of`] finds
//! the split once per function ([`crate::Analyzed::fused`]); each generator asks it where the
//! split may be used ([`Fused::plain`], [`Fused::guarded`]).

use crate::adjoint::{routine_block, written_roots};
use crate::ast::{Fields, Function, ParamKind, Stmt, StmtKind};
use crate::reverse::reverse_block;

/// A function body of the shape `L P M ~P D` (allocations, a computation `P` that writes only
/// ancillas, the part `M` that writes the outputs, the uncomputation of `P`, deallocations).
/// Its gradient need not uncompute `P` forward and recompute it on `GVar`s: run `L P M` on the
/// plain scalars, convert the live ancillas, and run `~M ~P` on `GVar`s.
#[derive(Clone, Debug)]
pub struct Split {
    /// `L P M`, run on the plain scalars.
    pub head: Vec<Stmt>,
    /// `~M ~P`, run on `GVar`s.
    pub tail: Vec<Stmt>,
    /// The ancillas live between the two, with their zero gradients.
    pub live: Vec<Live>,
    /// `~L`: the deallocations of `L`'s ancillas, run after `~M ~P` in checked programs only
    /// (their checks: the values restored, no gradient dropped).
    pub released: Vec<Stmt>,
}

impl Split {
    /// Does `~M ~P` (so `P` or `M`) hold a `safe!` block, at any depth?
    pub fn tail_has_safe(&self) -> bool {
        self.tail.iter().any(crate::bounds::has_safe)
    }
}

/// An ancilla live at the split of a fused gradient, and how its zero gradient is made there.
#[derive(Clone, Debug)]
pub struct Live {
    /// The ancilla.
    pub name: syn::Ident,
    /// How its zero gradient is made.
    pub zero: ZeroGrad,
}

/// How the zero gradient of a live ancilla is made at the split.
#[derive(Clone, Debug)]
pub enum ZeroGrad {
    /// From its value (`__private::zero_grad(&a)`, by the value's type).
    OfValue,
    /// It was built by this constructor: the same constructor on its parts' zero gradients
    /// (each made from the field's value, or built again), so a user struct needs no
    /// `Shadow` impl (`z_grad = Complex { re: zero_grad(&z.re), im: zero_grad(&z.im) }`).
    Built(Fields, Vec<ZeroGrad>),
}

/// The split of a function body of the `L P M ~P D` shape, found once, and what decides where
/// a gradient may use it.
#[derive(Clone, Debug)]
pub struct Fused {
    /// The split.
    pub split: Split,
    /// The `&mut` parameters `P` writes, in parameter order (the fused gradient is right for
    /// them only when their gradients are zero on entry).
    pub writes: Vec<String>,
    /// Whether a constructor or destructor sits at the top level of `L P M` (the copy-based
    /// gradients clone the live ancillas, and a user struct need not be `Clone`).
    pub builds: bool,
}

impl Fused {
    /// The split of `f`'s body, when it has the `L P M ~P D` shape (allocations, one routine,
    /// deallocations).
    pub fn of(f: &Function) -> Option<Fused> {
        let shape = routine_block(&f.body)?;
        let mut written = Vec::new();
        for s in shape.compute {
            written_roots(s, &mut written);
        }
        let writes = f
            .params
            .iter()
            .filter(|p| p.kind == ParamKind::MutRef)
            .map(|p| p.name.to_string())
            .filter(|p| written.contains(p))
            .collect();
        let mut head: Vec<Stmt> = shape.allocs.to_vec();
        head.extend_from_slice(shape.compute);
        head.extend_from_slice(shape.body);
        let builds = head.iter().any(|s| matches!(s.kind, StmtKind::Fields(_)));
        let tail = reverse_block(&head[shape.allocs.len()..]);
        let live = live_after(&head);
        let released = reverse_block(shape.allocs);
        Some(Fused {
            split: Split {
                head,
                tail,
                live,
                released,
            },
            writes,
            builds,
        })
    }

    /// The split where the fused gradient is safe whatever the arguments: `P` writes no `&mut`
    /// parameter, and no constructor sits at the top level of `L P M`.
    pub fn plain(&self) -> Option<&Split> {
        self.guarded(&[], false).map(|(split, _)| split)
    }

    /// The split where `P` may also write the `&mut` parameters named in `may_write` (the
    /// fused gradient is then right when their gradients are zero on entry), and, with
    /// `built`, values built or taken apart at the top level are live at the split (their
    /// zero gradients are built the same way, [`Live`]); with the parameters `P` writes.
    pub fn guarded(&self, may_write: &[String], built: bool) -> Option<(&Split, Vec<String>)> {
        if self.writes.iter().any(|p| !may_write.contains(p)) {
            return None;
        }
        if !built && self.builds {
            return None;
        }
        Some((&self.split, self.writes.clone()))
    }
}

/// The ancillas live after `head` (top-level statements: allocations, deallocations,
/// constructors and destructors change the set; nested blocks end their own ancillas).
fn live_after(head: &[Stmt]) -> Vec<Live> {
    fn take(live: &mut Vec<Live>, name: &syn::Ident) -> ZeroGrad {
        match live.iter().position(|l| &l.name == name) {
            Some(k) => live.remove(k).zero,
            None => ZeroGrad::OfValue,
        }
    }
    let mut live: Vec<Live> = Vec::new();
    for s in head {
        match &s.kind {
            StmtKind::Alloc(b) => b.iter().for_each(|b| {
                take(&mut live, &b.name);
                live.push(Live {
                    name: b.name.clone(),
                    zero: ZeroGrad::OfValue,
                });
            }),
            StmtKind::Dealloc(b) => live.retain(|l| !b.iter().any(|b| b.name == l.name)),
            StmtKind::Fields(f) if f.construct => {
                let parts = f.parts.iter().map(|p| take(&mut live, &p.var)).collect();
                live.push(Live {
                    name: f.whole.clone(),
                    zero: ZeroGrad::Built(f.clone(), parts),
                });
            }
            StmtKind::Fields(f) => {
                let whole = take(&mut live, &f.whole);
                for part in &f.parts {
                    let zero = match &whole {
                        ZeroGrad::Built(built, zeros) => built
                            .parts
                            .iter()
                            .zip(zeros)
                            .find(|(b, _)| b.member == part.member)
                            .map_or(ZeroGrad::OfValue, |(_, z)| z.clone()),
                        ZeroGrad::OfValue => ZeroGrad::OfValue,
                    };
                    take(&mut live, &part.var);
                    live.push(Live {
                        name: part.var.clone(),
                        zero,
                    });
                }
            }
            _ => {}
        }
    }
    live
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{lower, Options};
    use proc_macro2::TokenStream;
    use quote::quote;

    fn fused(attr: TokenStream, item: syn::ItemFn) -> Option<Split> {
        let f = lower(&Options::parse(attr).unwrap(), item).unwrap();
        f.fused.as_ref().and_then(Fused::plain).cloned()
    }

    #[test]
    fn ancillas_allocated_in_the_reversed_part_keep_the_fused_gradient() {
        // `expand` gives every iteration of the uncomputed loop its own `(s).additive_zero()`
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
        assert_eq!(s.live[0].name, "s");
    }

    #[test]
    fn values_built_in_the_computation_are_live_with_built_zero_gradients() {
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
        // the copy-based gradients clone live values: not fused there
        assert!(fused.plain().is_none());
        let (s, guarded) = fused.guarded(&[], true).expect("fused in f_vjp");
        assert!(guarded.is_empty());
        let names: Vec<String> = s.live.iter().map(|l| l.name.to_string()).collect();
        assert_eq!(names, ["t"]);
        // `t`'s parts: `v`, which was `w.value`, built as a `Complex`, and the counter `m`
        let ZeroGrad::Built(tuple, parts) = &s.live[0].zero else {
            panic!("`t` is built")
        };
        assert_eq!(tuple.whole, "t");
        assert!(matches!(&parts[0], ZeroGrad::Built(c, _) if c.parts.len() == 2));
        assert!(matches!(parts[1], ZeroGrad::OfValue));
    }

    #[test]
    fn an_ancilla_of_the_scalar_type_in_the_reversed_part_is_fused() {
        // the adjoint part runs on plain scalars with separate gradients: `T::zero()` is fine
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
        assert!(s.is_some());
    }
}
