//! What computing a temporary again costs, against saving it: the rule that decides, for a
//! temporary whose inputs still hold at its block's end, whether the reversible program
//! uncomputes it or saves it on the tape (decision 0035).

/// How many arithmetic operations a temporary may take and still be recomputed rather than
/// saved (decision 0035, "Per block, the cheapest reversible form").
pub const ARITHMETIC_BUDGET: u32 = 8;

/// Is `e` places and literals combined by at most [`ARITHMETIC_BUDGET`] arithmetic operators
/// (`+ - * /`, negation; casts free), with no call? Indices are integer arithmetic and cost
/// nothing here.
pub fn short_arithmetic(e: &syn::Expr) -> bool {
    within(e, &mut { ARITHMETIC_BUDGET })
}

fn within(e: &syn::Expr, budget: &mut u32) -> bool {
    let spend = |budget: &mut u32| match budget.checked_sub(1) {
        Some(left) => {
            *budget = left;
            true
        }
        None => false,
    };
    match e {
        syn::Expr::Path(_) | syn::Expr::Lit(_) => true,
        syn::Expr::Index(i) => within(&i.expr, budget),
        syn::Expr::Paren(p) => within(&p.expr, budget),
        syn::Expr::Cast(c) => within(&c.expr, budget),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => {
            spend(budget) && within(&u.expr, budget)
        }
        syn::Expr::Binary(b)
            if matches!(
                b.op,
                syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Mul(_) | syn::BinOp::Div(_)
            ) =>
        {
            spend(budget) && within(&b.left, budget) && within(&b.right, budget)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::short_arithmetic;

    fn short(e: &str) -> bool {
        short_arithmetic(&syn::parse_str(e).unwrap())
    }

    #[test]
    fn a_few_operators_on_places_are_short() {
        assert!(short("x[i * d + a] - mu[c * d + a]"));
        assert!(short("-(a * b) + (n as f64) / 2.0"));
        // eight operators: the budget
        assert!(short("a * b + c * d - e / f + g * h - k"));
    }

    #[test]
    fn calls_and_long_chains_are_not() {
        assert!(!short("a * b + c * d - e / f + g * h - k * m"));
        assert!(!short("x[i].exp()"));
        assert!(!short("sq(x) + 1.0"));
        assert!(!short("if a > b { a } else { b }"));
    }
}
