//! What a `for` loop iterates over: a range, or the elements of vectors (one, enumerated, or
//! several side by side with `zip`).

use syn::Result;

fn err<T>(tokens: impl quote::ToTokens, message: impl std::fmt::Display) -> Result<T> {
    Err(syn::Error::new_spanned(tokens, message))
}

/// What a `for` loop iterates over.
pub enum LoopPattern<'a> {
    /// `for i in a..b` (also `..=`, `.rev()`, `.step_by(k)`), `for _ in …`.
    Range {
        /// The loop variable, if named.
        var: Option<syn::Ident>,
        /// The range.
        range: &'a syn::Expr,
    },
    /// `for v in x.iter()`, `for &v in x`, `for (i, v) in x.iter().enumerate()`,
    /// `for (a, b) in x.iter().zip(y.iter())` (also `.zip(&y)`, zips of zips, enumerated).
    Slice {
        /// The index variable, when enumerated.
        index: Option<syn::Ident>,
        /// Each element variable and the vector it walks (a path, or a part of one,
        /// `x[a..b]`), in order (one, or several zipped; the loop runs over the shortest, as
        /// `zip` does).
        elements: Vec<(syn::Ident, &'a syn::Expr)>,
    },
}

/// A name the pattern binds (`v`, `&v`, `mut v`), or `Some(None)` for `_`.
fn name(p: &syn::Pat) -> Option<Option<syn::Ident>> {
    match p {
        syn::Pat::Ident(i) if i.subpat.is_none() => Some(Some(i.ident.clone())),
        syn::Pat::Wild(_) => Some(None),
        syn::Pat::Reference(r) => name(&r.pat),
        _ => None,
    }
}

/// The vector an iterator walks: `x`, `&x`, `x.iter()`, `x[a..b].iter()`.
fn walked(e: &syn::Expr) -> Option<&syn::Expr> {
    match e {
        syn::Expr::Path(_) => Some(e),
        syn::Expr::Index(i) if matches!(&*i.index, syn::Expr::Range(_)) => {
            matches!(&*i.expr, syn::Expr::Path(_)).then_some(e)
        }
        syn::Expr::Reference(r) => walked(&r.expr),
        syn::Expr::Paren(p) => walked(&p.expr),
        syn::Expr::MethodCall(m) if m.method == "iter" && m.args.is_empty() => walked(&m.receiver),
        _ => None,
    }
}

/// The two parts of a tuple pattern `(a, b)`.
fn pair(p: &syn::Pat) -> Option<[&syn::Pat; 2]> {
    match p {
        syn::Pat::Tuple(t) if t.elems.len() == 2 => Some([&t.elems[0], &t.elems[1]]),
        syn::Pat::Paren(p) => pair(&p.pat),
        _ => None,
    }
}

/// The element variables and vectors of an iterator over vectors (`x.iter()`, or
/// `a.zip(b)` of such iterators with the pattern `(pa, pb)`).
fn elements<'a>(iter: &'a syn::Expr, pat: &syn::Pat) -> Option<Vec<(syn::Ident, &'a syn::Expr)>> {
    if let syn::Expr::MethodCall(m) = iter {
        if m.method == "zip" && m.args.len() == 1 {
            let [left, right] = pair(pat)?;
            let mut out = elements(&m.receiver, left)?;
            out.extend(elements(&m.args[0], right)?);
            return Some(out);
        }
    }
    match name(pat)? {
        Some(element) => Some(vec![(element, walked(iter)?)]),
        None => None,
    }
}

/// Reads a `for` loop's pattern and iterator.
pub fn loop_pattern<'a>(pat: &syn::Pat, iter: &'a syn::Expr) -> Result<LoopPattern<'a>> {
    if is_range(iter) {
        let Some(var) = name(pat) else {
            return err(pat, "a loop over a range binds one name: `for i in 0..n`");
        };
        return Ok(LoopPattern::Range { var, range: iter });
    }
    if let syn::Expr::MethodCall(m) = iter {
        if m.method == "enumerate" && m.args.is_empty() {
            if let Some([i, rest]) = pair(pat) {
                if let (Some(index), Some(elements)) = (name(i), elements(&m.receiver, rest)) {
                    return Ok(LoopPattern::Slice { index, elements });
                }
            }
        }
    }
    match elements(iter, pat) {
        Some(elements) => Ok(LoopPattern::Slice {
            index: None,
            elements,
        }),
        None => err(
            iter,
            "a `for` loop runs over a range (`0..n`, `(0..n).rev()`, `(a..b).step_by(k)`) or the \
             elements of vectors (`x.iter()`, `x.iter().enumerate()`, `x.iter().zip(y.iter())`), \
             each element bound to a name",
        ),
    }
}

/// Is this iterator a range (`a..b`, `(a..b).rev()`, `(a..b).step_by(k)`)?
pub fn is_range(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Range(_) => true,
        syn::Expr::Paren(p) => is_range(&p.expr),
        syn::Expr::MethodCall(m) if m.method == "rev" || m.method == "step_by" => {
            is_range(&m.receiver)
        }
        _ => false,
    }
}
