//! Calls and uncalls of reversible functions and methods, and the builtins (`swap`, `rot`,
//! `neg`, …) spelled as calls.

use super::*;

impl Parser<'_> {
    pub(super) fn call_or_builtin(
        &mut self,
        e: &Expr,
        whole: &dyn ToTokens,
        uncall: bool,
    ) -> Option<Stmt> {
        match e {
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else {
                    self.errors
                        .spanned(&c.func, "expected the name of a reversible function");
                    return None;
                };
                if let Some(callee) = self.parameter_callee(p) {
                    let args = c.args.iter().map(|a| self.call_arg(a)).collect();
                    let call = Call {
                        callee: Callee::Param(callee?),
                        args,
                    };
                    return Some(stmt(StmtKind::Call { call, uncall }, whole));
                }
                if let Some(name) = path_ident(&c.func) {
                    if let Some((op, n_views, angle)) = BuiltinOp::lookup(&name) {
                        return self.builtin(c, op, n_views, angle, whole, uncall);
                    }
                    if primitive(&name).is_some() {
                        self.errors.spanned(
                            &c,
                            format!(
                                "`{name}(…)` alone does nothing: a primitive is used in an \
                                 instruction, `y += {name}(…)`"
                            ),
                        );
                        return None;
                    }
                }
                let args = c.args.iter().map(|a| self.call_arg(a)).collect();
                Some(stmt(
                    StmtKind::Call {
                        call: Call {
                            callee: Callee::Path(p.clone()),
                            args,
                        },
                        uncall,
                    },
                    whole,
                ))
            }
            Expr::MethodCall(m) => {
                let args = m.args.iter().map(|a| self.call_arg(a)).collect();
                Some(stmt(
                    StmtKind::Call {
                        call: Call {
                            callee: Callee::Method {
                                receiver: m.receiver.clone(),
                                method: m.method.clone(),
                                turbofish: m.turbofish.clone(),
                            },
                            args,
                        },
                        uncall,
                    },
                    whole,
                ))
            }
            other => {
                self.errors
                    .spanned(&other, "`uncall!` takes a call: `uncall!(g(x, y))`");
                None
            }
        }
    }

    /// A callee that names a parameter: `Some(Some(f))` for a reversible function passed as
    /// a parameter, `Some(None)` (after an error) for any other parameter, `None` for a
    /// callee that names no parameter.
    fn parameter_callee(&mut self, p: &syn::ExprPath) -> Option<Option<Ident>> {
        let name = p.path.get_ident().filter(|_| p.qself.is_none())?;
        if self.functions.contains(name) {
            return Some(Some(name.clone()));
        }
        if !self.params.iter().any(|q| &q.name == name) {
            return None;
        }
        self.errors.spanned(
            p,
            format!(
                "`{name}` is a parameter, not a reversible function: a parameter is called \
                 when its type is bounded by `nilang::Reversible` with the arguments it \
                 takes\nhelp: declare it as `{name}: &F` with `F: Reversible<(&mut T, &T)>` (the \
                 argument types of the function passed, e.g. `rev!(g)` for an `#[i] fn g`)"
            ),
        );
        Some(None)
    }

    pub(super) fn builtin(
        &mut self,
        c: &syn::ExprCall,
        op: BuiltinOp,
        n_views: usize,
        angle: bool,
        whole: &dyn ToTokens,
        uncall: bool,
    ) -> Option<Stmt> {
        let expected = n_views + angle as usize;
        if c.args.len() != expected {
            self.errors.spanned(
                &c,
                format!(
                    "`{}` takes {expected} argument{}",
                    op.name(),
                    if expected == 1 { "" } else { "s" }
                ),
            );
            return None;
        }
        let mut args = Vec::new();
        for a in c.args.iter().take(n_views) {
            match self.dataview(a) {
                Some(v) => args.push(v),
                None => {
                    self.errors.spanned(
                        &a,
                        format!(
                            "`{}` changes this argument in place: it must be a dataview",
                            op.name()
                        ),
                    );
                    return None;
                }
            }
        }
        if n_views == 2 && args[0].same_as(&args[1]) {
            self.errors.spanned(
                &c.args[1],
                format!(
                    "`{}` of a variable with itself: pass two different variables",
                    op.name()
                ),
            );
            return None;
        }
        let operand = if angle {
            let a = &c.args[n_views];
            Some(match self.dataview(a) {
                Some(v) => {
                    if args.iter().any(|t| t.same_as(&v)) {
                        self.errors.spanned(
                            &a,
                            "the angle of a rotation cannot be one of the rotated variables",
                        );
                        return None;
                    }
                    Operand::View(v)
                }
                None => Operand::Const(a.clone()),
            })
        } else {
            None
        };
        let op = if uncall { op.inverse() } else { op };
        self.lowered(stmt(StmtKind::Builtin { op, args, operand }, whole))
    }

    /// A call's argument. `&mut p` of a place is the place `p` (how Rust spells lending it);
    /// `&e` is lent shared; a place is lent `&mut`; anything else is passed by value.
    pub(super) fn call_arg(&self, a: &Expr) -> CallArg {
        match a {
            Expr::Reference(r) if r.mutability.is_none() => CallArg::Shared((*r.expr).clone()),
            Expr::Reference(r) => match self.dataview(&r.expr) {
                Some(v) => CallArg::View(v),
                None => CallArg::Value(a.clone()),
            },
            other => match self.dataview(other) {
                Some(v) => CallArg::View(v),
                None => CallArg::Value(other.clone()),
            },
        }
    }
}
