//! The instructions, on `GVar`s with the real instruction traits (integers exactly, fixed point
//! through `nilang::numbers`), their results rounded as the run's jitter asks.

use super::*;

impl<T: Float> Machine<'_, T> {
    /// The values of an instruction's float places (target and operands).
    pub(super) fn floats<'a>(
        &'a self,
        frame: &'a Frame,
        i: &'a Instr,
    ) -> impl Iterator<Item = G<T>> + 'a {
        let views = std::iter::once(&i.target).chain(i.args.iter().filter_map(|a| match a {
            Operand::View(v) => Some(v),
            Operand::Const(_) => None,
        }));
        views
            .map(|v| self.place(frame, v))
            .filter(|l| self.is_float(*l))
            .map(|l| self.get_f(l))
    }

    pub(super) fn instr(&mut self, frame: &Frame, i: &Instr) -> Result<(), Failed> {
        let lt = self.place(frame, &i.target);
        let locs: Vec<Option<Loc>> = i
            .args
            .iter()
            .map(|a| match a {
                Operand::View(v) => Some(self.place(frame, v)),
                Operand::Const(_) => None,
            })
            .collect();
        let name = match &i.prim {
            Prim::Builtin(info) => info.name,
            Prim::User(_) => panic!("user primitive"),
        };
        let sub = match i.op {
            AccOp::Add => false,
            AccOp::Sub => true,
            other => panic!("op {other:?}"),
        };
        if let Some(y) = self.get_q(lt) {
            let v: Vec<Q> = locs
                .iter()
                .map(|l| self.get_q(l.unwrap()).unwrap())
                .collect();
            self.set_q(lt, fixed_instr(y, &v, name, sub));
            return Ok(());
        }
        if let Some(y) = self.get_i(lt) {
            let v: Vec<i64> = (i.args.iter().zip(&locs))
                .map(|(a, l)| match (l, self.constant(frame, a)) {
                    (Some(l), _) => self.get_i(*l).unwrap(),
                    (None, Some(E::I(c))) => c,
                    other => panic!("integer operand {other:?}"),
                })
                .collect();
            let f = match (name, v.as_slice()) {
                ("identity", [a]) => *a,
                ("add", [a, b]) => a.wrapping_add(*b),
                ("sub", [a, b]) => a.wrapping_sub(*b),
                ("mul", [a, b]) => a.wrapping_mul(*b),
                other => panic!("integer instruction {other:?}"),
            };
            self.set_i(
                lt,
                if sub {
                    y.wrapping_sub(f)
                } else {
                    y.wrapping_add(f)
                },
            );
            return Ok(());
        }
        let mut y = self.get_f(lt);
        let before = y.x.to_f64();
        let mut v: Vec<G<T>> = (i.args.iter().zip(&locs))
            .map(|(a, l)| match (l, self.constant(frame, a)) {
                (Some(l), _) => self.get_f(*l),
                (None, Some(E::F(c))) => G::new(T::from_f64(c)),
                other => panic!("float operand {other:?}"),
            })
            .collect();
        // every unary primitive of the table (`nilang_prims`), by its name in the language
        macro_rules! unary {
            ([] unary { $(($p:ident $n:ident $($row:tt)*))* } binary { $($binary:tt)* }) => {
                match name {
                    $(stringify!($n) => if sub { <G<T> as Acc1<prims::$p>>::sub1(&mut y, &mut v[0]) } else { <G<T> as Acc1<prims::$p>>::add1(&mut y, &mut v[0]) },)*
                    _ => return self.binary(lt, y, v, locs, name, sub),
                }
            };
        }
        nilang_prims::primitives!(unary);
        let y = self.rounded_sum(y, before);
        self.set_f(lt, y);
        if let Some(l) = locs[0] {
            self.set_f(l, v[0]);
        }
        Ok(())
    }

    /// The value of a constant operand (`x += 0.5`).
    pub(super) fn constant(&self, frame: &Frame, a: &Operand) -> Option<E> {
        match a {
            Operand::Const(e) => Some(self.eval(frame, e)),
            Operand::View(_) => None,
        }
    }

    pub(super) fn binary(
        &mut self,
        lt: Loc,
        mut y: G<T>,
        mut v: Vec<G<T>>,
        locs: Vec<Option<Loc>>,
        name: &str,
        sub: bool,
    ) -> Result<(), Failed> {
        let before = y.x.to_f64();
        let (a, b) = v.split_at_mut(1);
        let (a, b) = (&mut a[0], &mut b[0]);
        // every binary primitive of the table (`nilang_prims`), by its name in the language
        macro_rules! binary {
            ([] unary { $($unary:tt)* } binary { $(($p:ident $n:ident $($row:tt)*))* }) => {
                match name {
                    $(stringify!($n) => if sub { <G<T> as Acc2<prims::$p>>::sub2(&mut y, a, b) } else { <G<T> as Acc2<prims::$p>>::add2(&mut y, a, b) },)*
                    other => panic!("primitive {other}"),
                }
            };
        }
        nilang_prims::primitives!(binary);
        let y = self.rounded_sum(y, before);
        self.set_f(lt, y);
        self.set_f(locs[0].unwrap(), v[0]);
        self.set_f(locs[1].unwrap(), v[1]);
        Ok(())
    }
}

/// A fixed-point instruction `y += f(v)` (or `-=`) by the `nilang::numbers` instruction
/// rules, which wrap: exact both ways.
fn fixed_instr(mut y: Q, v: &[Q], name: &str, sub: bool) -> Q {
    let (mut a, mut b) = (v[0], v.get(1).copied().unwrap_or(v[0]));
    macro_rules! rule {
        ($tr:ident, $p:ty, $add:ident, $sub:ident, $($arg:expr),*) => {
            if sub { <Q as $tr<$p>>::$sub(&mut y, $($arg),*) } else { <Q as $tr<$p>>::$add(&mut y, $($arg),*) }
        };
    }
    match name {
        "identity" => rule!(Acc1, prims::Identity, add1, sub1, &mut a),
        "square" => rule!(Acc1, prims::Square, add1, sub1, &mut a),
        "abs" => rule!(Acc1, prims::Abs, add1, sub1, &mut a),
        "sub" => rule!(Acc2, prims::Sub, add2, sub2, &mut a, &mut b),
        "mul" => rule!(Acc2, prims::Mul, add2, sub2, &mut a, &mut b),
        other => panic!("fixed-point instruction {other}"),
    }
    y
}
