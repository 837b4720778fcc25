//! Instructions (`y += f(x)`, `y *= a`, `y ^= e`, a tuple target `(s, c) += sincos(x)`):
//! their right-hand sides, primitives and operands, and the nested right-hand sides that
//! `expand!` turns into ancillas.

use super::*;

impl Parser<'_> {
    pub(super) fn instruction(
        &mut self,
        b: &syn::ExprBinary,
        whole: &dyn ToTokens,
        out: &mut Vec<Stmt>,
    ) {
        let op = match b.op {
            syn::BinOp::AddAssign(_) => AccOp::Add,
            syn::BinOp::SubAssign(_) => AccOp::Sub,
            syn::BinOp::BitXorAssign(_) => AccOp::Xor,
            syn::BinOp::MulAssign(_) => AccOp::Mul,
            syn::BinOp::DivAssign(_) => AccOp::Div,
            syn::BinOp::RemAssign(_)
            | syn::BinOp::BitAndAssign(_)
            | syn::BinOp::BitOrAssign(_)
            | syn::BinOp::ShlAssign(_)
            | syn::BinOp::ShrAssign(_) => {
                self.errors.spanned(
                    &b.op,
                    "this compound assignment is not reversible: the instructions are \
                     `+=`, `-=`, `^=` (and `*=`, `/=` for multiplicative number systems)",
                );
                return;
            }
            _ => {
                self.errors.spanned(
                    &b,
                    "an expression is not a statement: write an instruction such as `y += f(x)`",
                );
                return;
            }
        };
        // Tuple targets: `(s, c) += sincos(x)`.
        if let Expr::Tuple(t) = &*b.left {
            self.tuple_instruction(t, op, &b.right, whole, out);
            return;
        }
        let Some(target) = self.dataview(&b.left) else {
            self.errors.spanned(
                &b.left,
                "the target of an instruction must be a dataview: a variable, a field (`z.re`), \
                 an element (`x[i]`) or a chain of them",
            );
            return;
        };
        if op == AccOp::Xor {
            let expr = match &*b.right {
                Expr::Call(c)
                    if path_ident(&c.func).as_deref() == Some("identity") && c.args.len() == 1 =>
                {
                    c.args[0].clone()
                }
                other => other.clone(),
            };
            if mentions(&expr, &target.root) && !target.has_index() {
                self.errors.spanned(
                    &expr,
                    format!(
                        "the right-hand side of `^=` reads its own target `{}`: the instruction \
                         would not be its own inverse; xor into another variable",
                        target.root
                    ),
                );
                return;
            }
            let xor = stmt(StmtKind::XorExpr { target, expr }, whole);
            out.extend(self.lowered(xor));
            return;
        }
        let mut pre = Vec::new();
        let Some((prim, args)) = self.rhs(&b.right, &target, &mut pre) else {
            return;
        };
        let instr = stmt(
            StmtKind::Instr(Instr {
                target,
                op,
                prim,
                args,
            }),
            whole,
        );
        if pre.is_empty() {
            out.extend(self.lowered(instr));
        } else {
            // compute the ancillas, use them, uncompute them.
            let routine = StmtKind::Routine {
                compute: pre,
                body: vec![instr],
            };
            let routine = stmt(routine, whole);
            out.extend(self.lowered(routine));
        }
    }

    /// The statement, or its loop when it is a broadcast over whole slices (`y[..] += x[..]`,
    /// [`crate::broadcast`]); `None` after an error.
    pub(super) fn lowered(&mut self, s: Stmt) -> Option<Stmt> {
        match crate::broadcast::lower(s, &self.names) {
            Ok(s) => Some(s),
            Err(errors) => {
                for (span, message) in errors {
                    self.errors.push(span, message);
                }
                None
            }
        }
    }

    pub(super) fn tuple_instruction(
        &mut self,
        t: &syn::ExprTuple,
        op: AccOp,
        rhs: &Expr,
        whole: &dyn ToTokens,
        out: &mut Vec<Stmt>,
    ) {
        let parts: &[&str] = match rhs {
            Expr::Call(c) if path_ident(&c.func).as_deref() == Some("sincos") => &["sin", "cos"],
            _ => {
                self.errors.spanned(
                    &rhs,
                    "a tuple target takes a primitive with several results; the built-in one is \
                     `(s, c) += sincos(x)`",
                );
                return;
            }
        };
        let Expr::Call(c) = rhs else { unreachable!() };
        if t.elems.len() != parts.len() || c.args.len() != 1 || op == AccOp::Xor {
            self.errors.spanned(
                &t,
                "`sincos` takes one operand and fills two targets: `(s, c) += sincos(x)`",
            );
            return;
        }
        for (elem, name) in t.elems.iter().zip(parts) {
            let Some(target) = self.dataview(elem) else {
                self.errors
                    .spanned(&elem, "each element of a tuple target must be a dataview");
                return;
            };
            let info = primitive(name).expect("sin and cos are primitives");
            let arg = self.operand(&c.args[0], &target, &mut Vec::new());
            let Some(arg) = arg else { return };
            let instr = stmt(
                StmtKind::Instr(Instr {
                    target,
                    op,
                    prim: Prim::Builtin(info),
                    args: vec![arg],
                }),
                whole,
            );
            out.extend(self.lowered(instr));
        }
    }

    /// Parses a right-hand side into a primitive and its operands. In expand mode, nested
    /// operands are computed into ancillas appended to `pre`.
    pub(super) fn rhs(
        &mut self,
        e: &Expr,
        target: &Dataview,
        pre: &mut Vec<Stmt>,
    ) -> Option<(Prim, Vec<Operand>)> {
        match e {
            Expr::Paren(p) => self.rhs(&p.expr, target, pre),
            Expr::Group(g) => self.rhs(&g.expr, target, pre),
            Expr::Binary(b) => {
                let sym = b.op.to_token_stream().to_string();
                let Some(info) = infix_primitive(&sym) else {
                    // Any other operator (`n % 2`, `a & b`, `i << 1`) is a constant operand:
                    // computed from read-only values, accumulated with `identity`.
                    if mentions(e, &target.root) {
                        self.errors.spanned(
                            e,
                            format!(
                                "`{sym}` is not a primitive, and this expression reads the target \
                                 `{}`: the infix primitives are `*`, `/`, `+`, `-`",
                                target.root
                            ),
                        );
                        return None;
                    }
                    return Some((
                        Prim::Builtin(primitive("identity").unwrap()),
                        vec![Operand::Const(e.clone())],
                    ));
                };
                let l = self.operand(&b.left, target, pre)?;
                let r = self.operand(&b.right, target, pre)?;
                Some((Prim::Builtin(info), vec![l, r]))
            }
            Expr::Unary(syn::ExprUnary {
                op: syn::UnOp::Neg(_),
                expr,
                ..
            }) => {
                let x = self.operand(expr, target, pre)?;
                Some((Prim::Builtin(primitive("neg").unwrap()), vec![x]))
            }
            Expr::Call(c) => {
                let Some(prim) = self.prim_of(&c.func) else {
                    return None;
                };
                if let Prim::Builtin(info) = &prim {
                    if info.arity != c.args.len() {
                        self.errors.spanned(
                            &c,
                            format!(
                                "`{}` takes {} operand{}, found {}",
                                info.name,
                                info.arity,
                                if info.arity == 1 { "" } else { "s" },
                                c.args.len()
                            ),
                        );
                        return None;
                    }
                }
                let mut args = Vec::new();
                for a in &c.args {
                    // the ancilla of `abs(a * b)` takes the type of `a`, complex or real
                    let like = match &prim {
                        Prim::Builtin(info) if info.takes_operand_type() => self.first_place(a),
                        _ => None,
                    };
                    args.push(self.operand(a, like.as_ref().unwrap_or(target), pre)?);
                }
                Some((prim, args))
            }
            // `y += x` is `y += identity(x)`.
            other => {
                let x = self.operand(other, target, pre)?;
                Some((Prim::Builtin(primitive("identity").unwrap()), vec![x]))
            }
        }
    }

    pub(super) fn prim_of(&mut self, func: &Expr) -> Option<Prim> {
        let Expr::Path(p) = func else {
            self.errors
                .spanned(&func, "expected the name of a primitive");
            return None;
        };
        let last = p.path.segments.last().unwrap().ident.to_string();
        if last.starts_with(|c: char| c.is_ascii_uppercase()) {
            return Some(Prim::User(p.path.clone()));
        }
        if p.path.segments.len() == 1 {
            if let Some(info) = primitive(&last) {
                return Some(Prim::Builtin(info));
            }
        }
        let names: Vec<&str> = PRIMITIVES.iter().map(|p| p.name).collect();
        self.errors.spanned(
            &func,
            format!(
                "unknown primitive `{last}`: the primitives are {}; for your own, implement \
                 `nilang::Unary` or `nilang::Binary` for a type `MyPrim` and write `y += MyPrim(x)`",
                names.join(", ")
            ),
        );
        None
    }

    /// Is this expression a nested computation (a primitive application)? A primitive applied
    /// to values that are not state (`exp(q[0])` of a read-only `q`) is one too: the language
    /// names its primitives as functions, and plain Rust has no function `exp`.
    pub(super) fn is_nested(&self, e: &Expr) -> bool {
        if !self.state_names.iter().any(|n| mentions_name(e, n)) {
            return self.is_primitive_call(e);
        }
        match e {
            Expr::Paren(p) => self.is_nested(&p.expr),
            Expr::Binary(b) => infix_primitive(&b.op.to_token_stream().to_string()).is_some(),
            Expr::Unary(syn::ExprUnary {
                op: syn::UnOp::Neg(_),
                expr,
                ..
            }) => !matches!(&**expr, Expr::Lit(_)),
            Expr::Call(_) => self.is_primitive_call(e),
            _ => false,
        }
    }

    /// `p(…)` for a primitive `p` of the language (`exp`, `sqrt`, …; `sincos`), possibly in
    /// parentheses.
    pub(super) fn is_primitive_call(&self, e: &Expr) -> bool {
        match e {
            Expr::Paren(p) => self.is_primitive_call(&p.expr),
            Expr::Call(c) => match &*c.func {
                Expr::Path(p) if p.path.segments.len() == 1 && p.qself.is_none() => {
                    let n = p.path.segments[0].ident.to_string();
                    primitive(&n).is_some() || n == "sincos"
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// The first place of the state that `e` reads (`a` in `a * exp(b)`).
    fn first_place(&self, e: &Expr) -> Option<Dataview> {
        match e {
            Expr::Paren(p) => self.first_place(&p.expr),
            Expr::Group(g) => self.first_place(&g.expr),
            Expr::Unary(u) => self.first_place(&u.expr),
            Expr::Binary(b) => self
                .first_place(&b.left)
                .or_else(|| self.first_place(&b.right)),
            Expr::Call(c) => c.args.iter().find_map(|a| self.first_place(a)),
            _ => self
                .dataview(e)
                .filter(|v| self.state_names.contains(&v.root.to_string())),
        }
    }

    /// An operand of an instruction; a nested one (under `expand`) is computed into an ancilla
    /// of the type of `target` (`zeros::zero_like_expr`), appended to `pre`.
    pub(super) fn operand(
        &mut self,
        e: &Expr,
        target: &Dataview,
        pre: &mut Vec<Stmt>,
    ) -> Option<Operand> {
        if self.is_primitive_method(e) {
            return None;
        }
        if self.is_nested(e) {
            if !self.expand {
                self.errors.spanned(
                    &e,
                    "the right-hand side of an instruction must be a single primitive applied \
                     to variables (`y += a * b`); split it into instructions on ancillas, or \
                     wrap the statement in `expand! { … }` to have the ancillas generated",
                );
                return None;
            }
            // expand: t ← zero; t += e; (the caller uncomputes `pre` afterwards)
            self.temp_counter += 1;
            let name = Ident::new(&format!("__nested{}", self.temp_counter), e.span());
            let mut inner = Vec::new();
            let temp = Dataview {
                root: name.clone(),
                path: vec![],
                span: e.span(),
            };
            let (prim, args) = self.rhs(e, &temp, &mut inner)?;
            let zero = crate::zeros::zero_like_expr(target);
            let alloc = Binding {
                name: name.clone(),
                ty: None,
                value: zero,
            };
            pre.push(stmt(StmtKind::Alloc(vec![alloc]), e));
            pre.extend(inner);
            pre.push(stmt(
                StmtKind::Instr(Instr {
                    target: temp.clone(),
                    op: AccOp::Add,
                    prim,
                    args,
                }),
                e,
            ));
            return Some(Operand::View(temp));
        }
        match self.dataview(e) {
            Some(v) => Some(Operand::View(v)),
            None => Some(Operand::Const(e.clone())),
        }
    }

    /// Reports a primitive written as a Rust method of a place of the state (`x.sin()`,
    /// `x[i].ln()`, `x.powi(2)`): read as a constant operand, it would fail in rustc with trait
    /// bounds that lead nowhere, so say how the language writes it.
    pub(super) fn is_primitive_method(&mut self, e: &Expr) -> bool {
        let Expr::MethodCall(m) = e else {
            return false;
        };
        let Some(prim) = primitive_of_method(&m.method.to_string()) else {
            return false;
        };
        if primitive(prim).map(|p| p.arity) != Some(1 + m.args.len()) {
            return false;
        }
        // a place of the program's state (`x`, `x[i]`, `z.re`); `x.val().abs()` reads a value
        let Some(place) = self.dataview(&m.receiver) else {
            return false;
        };
        if !self.state_names.contains(&place.root.to_string()) {
            return false;
        }
        let operands: Vec<String> = std::iter::once(&*m.receiver)
            .chain(&m.args)
            .map(crate::text::expr_text)
            .collect();
        self.errors.spanned(
            e,
            format!(
                "`{}` is a Rust method call, which the reversible language can neither undo nor \
                 differentiate: its primitives are written as functions, `{prim}({})`",
                crate::text::expr_text(e),
                operands.join(", ")
            ),
        );
        true
    }
}

/// The primitive that a float method computes (`sin` → `sin`, `ln` → `log`, `powi` → `pow`),
/// for methods of the same arity as the primitive.
fn primitive_of_method(method: &str) -> Option<&'static str> {
    let name = match method {
        "ln" => "log",
        "ln_1p" => "log1p",
        "exp_m1" => "expm1",
        "powi" | "powf" => "pow",
        other => other,
    };
    primitive(name)
        .filter(|p| p.infix.is_none())
        .map(|p| p.name)
}
