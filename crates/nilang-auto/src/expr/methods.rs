//! Method calls: a float method is a primitive of the language (`x.sin()` is `sin(x)`, from
//! the primitive table's method column), a few are the arithmetic Rust computes for them
//! (`recip`, `to_radians`), piecewise-constant ones are plain values, sums of vectors are
//! loops, and any other method of a plain value is plain Rust.

use super::{err, is_int_literal, mentions_real, plain, same_place, same_root, Result, Rewriter};
use crate::nir::{Init, Ty};
use crate::signature::Signature;
use std::collections::BTreeSet;
use syn::spanned::Spanned;

/// Whether a row's "f′ from the value" column is filled (`[v {v}]`) or empty (`[]`).
macro_rules! filled {
    ([]) => {
        false
    };
    ([$($t:tt)+]) => {
        true
    };
}

/// The unary rows of the primitive table that are a Rust method of a float: the method, the
/// language's name, and whether the derivative follows from the value (`exp`, `sqrt`, `tanh`).
const METHOD_ROWS: &[(&str, &str, bool)] = {
    macro_rules! method_rows {
        ([] unary { $(($ty:ident $name:ident $doc:literal $x:ident $value:block $deriv:block
            $from:tt [$($method:ident)?] $($rest:tt)*))* }
            binary { $($binary:tt)* }) => {
            &[$($((stringify!($method), stringify!($name), filled!($from)),)?)*]
        };
    }
    nilang_prims::primitives!(method_rows)
};

/// The float methods that are primitives outside the table's method column (its binary rows,
/// `abs` with its own derivative rule): the method, the primitive, the method's argument count.
const METHOD_PRIMITIVES: &[(&str, &str, usize)] = &[
    ("abs", "abs", 0),
    ("powf", "pow", 1),
    ("atan2", "atan2", 1),
    ("hypot", "hypot", 1),
    ("max", "max", 1),
    ("min", "min", 1),
];

/// The float methods written as other operations: powers, `mul_add`, `clamp`, and the
/// arithmetic Rust computes for `recip`, `to_radians`, `to_degrees`.
const REWRITTEN_METHODS: &[&str] = &[
    "powi",
    "mul_add",
    "clamp",
    "recip",
    "to_radians",
    "to_degrees",
];

/// Float methods constant between their jumps: plain values, derivative zero.
const PIECEWISE_CONSTANT: &[&str] = &["signum", "floor", "ceil", "round", "trunc"];

/// Whether the derivative of the primitive `prim` follows from its value (the table's
/// `derivative_from_value` column): an adjoint that holds `f(x)` skips evaluating `f`, so the
/// front end keeps such values (see [`Rewriter::method`]).
fn derivative_follows_from_value(prim: &str) -> bool {
    METHOD_ROWS.iter().any(|(_, p, from)| *p == prim && *from)
}

/// The language's name of a primitive written as a Rust method of a float, with the number of
/// arguments the method takes (from the primitive table: the method column of each row).
fn primitive_of_method(method: &str) -> Option<(&'static str, usize)> {
    if let Some((_, name, _)) = METHOD_ROWS.iter().find(|(m, _, _)| *m == method) {
        return Some((name, 0));
    }
    METHOD_PRIMITIVES
        .iter()
        .find(|(m, _, _)| *m == method)
        .map(|(_, prim, arity)| (*prim, *arity))
}

/// `f64::sqrt(x)`, `f64::max(a, b)` (the real type's float methods called by path) as the
/// method calls they are: `x.sqrt()`, `a.max(b)`.
pub(super) fn float_method_call(sig: &Signature, c: &syn::ExprCall) -> Option<syn::ExprMethodCall> {
    let syn::Expr::Path(p) = &*c.func else {
        return None;
    };
    let [ty, method] = [p.path.segments.first()?, p.path.segments.last()?];
    let name = method.ident.to_string();
    let float_method = primitive_of_method(&name).is_some() || name == "powi" || name == "mul_add";
    if p.path.segments.len() != 2 || !sig.is_real_type_name(&ty.ident) || !float_method {
        return None;
    }
    let receiver = c.args.first()?;
    let (method, rest) = (&method.ident, c.args.iter().skip(1));
    Some(syn::parse_quote_spanned!(c.span()=> (#receiver).#method(#(#rest),*)))
}

/// The language's name of a primitive back to Rust's method of `f64` (`log` is `ln`).
pub(super) fn method_of_primitive(prim: &str) -> Option<&'static str> {
    let row = METHOD_ROWS.iter().map(|(m, p, _)| (m, p));
    row.chain(METHOD_PRIMITIVES.iter().map(|(m, p, _)| (m, p)))
        .find(|(_, p)| **p == prim)
        .map(|(m, _)| *m)
}

impl Rewriter<'_, '_> {
    /// A method call: a primitive of the language (`x.sin()` is `sin(x)`), or plain Rust on an
    /// index or a constant. A primitive whose derivative follows from its value (`x.exp()`,
    /// `x.sqrt()`, `x.tanh()`) is computed into a temporary of its own first (`let exp_1 =
    /// exp(x);`), so that the block that frees it saves it on the tape: the gradient's reverse
    /// sweep takes the derivative from the saved value instead of evaluating the function again
    /// (`Acc1::sub1_released`), as a hand-written adjoint reuses `exp(x)`.
    pub(super) fn method(&mut self, m: &syn::ExprMethodCall) -> Result<syn::Expr> {
        let span = m.span();
        let x = &m.receiver;
        match (m.method.to_string().as_str(), m.args.is_empty()) {
            // what Rust's own methods compute, in the same operations
            ("recip", true) => return self.expr(&syn::parse_quote_spanned!(span=> 1.0 / (#x))),
            ("to_radians", true) => {
                let per_degree = quote::quote_spanned!(span=> (::std::f64::consts::PI / 180.0));
                return self.expr(&syn::parse_quote_spanned!(span=> (#x) * #per_degree));
            }
            ("to_degrees", true) => {
                let per_radian = quote::quote_spanned!(span=> (180.0f64 / ::std::f64::consts::PI));
                return self.expr(&syn::parse_quote_spanned!(span=> (#x) * #per_radian));
            }
            // constant between its jumps, so its derivative is zero: a plain value
            (piecewise, true) if PIECEWISE_CONSTANT.contains(&piecewise) => {
                let inner = self.in_plain(|w| w.expr(x))?;
                let inner = plain(self.r.typing(), inner);
                let method = &m.method;
                return Ok(syn::parse_quote_spanned!(span=> (#inner).#method()));
            }
            _ => {}
        }
        let mut folded = Vec::new();
        if let Some(acc) = self
            .r
            .vector_fold(&syn::Expr::MethodCall(m.clone()), &mut folded)?
        {
            self.r.hoisted.extend(folded);
            return self.expr(&syn::parse_quote_spanned!(m.span()=> #acc));
        }
        let mut reads = BTreeSet::new();
        let (receiver, args) = {
            let mut own = Rewriter {
                r: &mut *self.r,
                reads: &mut reads,
                plain: self.plain,
            };
            let receiver = own.expr(&m.receiver)?;
            let args: Vec<syn::Expr> = m.args.iter().map(|a| own.expr(a)).collect::<Result<_>>()?;
            (receiver, args)
        };
        self.reads.extend(&reads);
        let name = m.method.to_string();
        let differentiable = std::iter::once(&receiver)
            .chain(&args)
            .any(|e| mentions_real(self.r.typing(), e));
        self.r.vector_method(&m.method, &receiver, &reads)?;
        if !self.is_real(&receiver) || !differentiable || name == "len" || name == "is_empty" {
            // an index or count (`x.len()`, `i.pow(2)`, `n.min(m)`) or a constant
            // (`0.5f64.sqrt()`): plain Rust
            let method = &m.method;
            return Ok(syn::parse_quote_spanned!(span=> #receiver.#method(#(#args),*)));
        }
        match (name.as_str(), args.as_slice()) {
            ("powi", [n]) if is_int_literal(n, 2) => {
                return Ok(syn::parse_quote_spanned!(span=> square(#receiver)))
            }
            ("powi", [n]) => return Ok(syn::parse_quote_spanned!(span=> pow(#receiver, #n))),
            ("mul_add", [a, c]) => {
                return Ok(syn::parse_quote_spanned!(span=> #receiver * #a + #c))
            }
            ("clamp", [lo, hi]) => {
                return Ok(syn::parse_quote_spanned!(span=> min(max(#receiver, #lo), #hi)))
            }
            _ => {}
        }
        match primitive_of_method(&name) {
            Some((prim, 0))
                if args.is_empty() && derivative_follows_from_value(prim) && !self.plain =>
            {
                let id = self.r.temporary(prim, Ty::Real, span);
                let prim = syn::Ident::new(prim, m.method.span());
                let value = crate::nir::Expr {
                    syn: syn::parse_quote_spanned!(span=> #prim(#receiver)),
                    reads,
                    real: true,
                };
                Ok(self.hoisted_let(id, Init::Expr(value), span))
            }
            Some((prim, arity)) if arity == args.len() => {
                let prim = syn::Ident::new(prim, m.method.span());
                let mut args = args;
                if let Some(a) = args.first_mut() {
                    if same_place(&receiver, a) || same_root(&receiver, a) {
                        // one instruction reads each place once: the second operand is a copy
                        *a = syn::parse_quote!(identity(#a));
                    }
                }
                Ok(syn::parse_quote_spanned!(span=> #prim(#receiver #(, #args)*)))
            }
            _ => err(
                &m.method,
                format!(
                    "`.{name}()` is not a primitive of nilang: the float methods are {}, and \
                     {} (plain values: their derivative is zero)",
                    METHOD_ROWS
                        .iter()
                        .map(|(method, _, _)| *method)
                        .chain(METHOD_PRIMITIVES.iter().map(|(method, _, _)| *method))
                        .chain(REWRITTEN_METHODS.iter().copied())
                        .collect::<Vec<_>>()
                        .join(", "),
                    PIECEWISE_CONSTANT.join(", ")
                ),
            ),
        }
    }
}
