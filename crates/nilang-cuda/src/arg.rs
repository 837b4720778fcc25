//! One parameter's buffer, and the sizes every kernel relies on before it gets a pointer.

use crate::Error;

/// What a parameter's buffer holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// A differentiable real parameter (the scalar type `T`): values and gradients.
    Real,
    /// A real parameter that is never differentiated (`&[f64]`, `f64`).
    Data,
    /// An integer parameter (`i64`, `usize`, …): one value per instance, or one in all.
    Int,
}

/// The elements of a buffer (crate-internal: their lengths are the kernels' preconditions).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Elems {
    /// Values and gradients, as many of each.
    Real { values: Vec<f64>, grads: Vec<f64> },
    /// Values.
    Data(Vec<f64>),
    /// Integers.
    Int(Vec<i64>),
}

/// The buffer of one parameter of a batched function: its elements (values, and gradients
/// for a [`ArgKind::Real`] parameter), how many each instance reads, and whether every
/// instance reads it whole.
///
/// The fields are private: the elements can be read and written in place
/// ([`Arg::values_mut`], [`Arg::grads_mut`], [`Arg::ints_mut`]) but never resized, and every
/// run checks the buffer against its batch's instance count ([`Arg::check`]) before a kernel
/// gets its pointer.
#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    pub(crate) elems: Elems,
    len: usize,
    shared: bool,
}

impl Arg {
    /// A differentiable real parameter with `len` elements per instance (`values` holds them
    /// instance after instance); gradients zero.
    pub fn real(len: usize, values: Vec<f64>) -> Arg {
        Arg::reals(len, values, false)
    }

    /// A differentiable real parameter read whole by every instance; gradients zero.
    pub fn shared_real(values: Vec<f64>) -> Arg {
        Arg::reals(values.len(), values, true)
    }

    fn reals(len: usize, values: Vec<f64>, shared: bool) -> Arg {
        let grads = vec![0.0; values.len()];
        Arg {
            elems: Elems::Real { values, grads },
            len,
            shared,
        }
    }

    /// A non-differentiated real parameter with `len` elements per instance.
    pub fn data(len: usize, values: Vec<f64>) -> Arg {
        Arg {
            elems: Elems::Data(values),
            len,
            shared: false,
        }
    }

    /// A non-differentiated real parameter read whole by every instance.
    pub fn shared_data(values: Vec<f64>) -> Arg {
        Arg {
            len: values.len(),
            elems: Elems::Data(values),
            shared: true,
        }
    }

    /// An integer parameter, one value per instance.
    pub fn int(values: Vec<i64>) -> Arg {
        Arg {
            elems: Elems::Int(values),
            len: 1,
            shared: false,
        }
    }

    /// An integer parameter with one value for every instance.
    pub fn shared_int(value: i64) -> Arg {
        Arg {
            elems: Elems::Int(vec![value]),
            len: 1,
            shared: true,
        }
    }

    /// What the buffer holds.
    pub fn kind(&self) -> ArgKind {
        match self.elems {
            Elems::Real { .. } => ArgKind::Real,
            Elems::Data(_) => ArgKind::Data,
            Elems::Int(_) => ArgKind::Int,
        }
    }

    /// Whether every instance reads this parameter whole.
    pub fn shared(&self) -> bool {
        self.shared
    }

    /// Elements per instance (1 for an integer; all of them for a shared parameter).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the parameter has no elements per instance.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The values of a real or data parameter (`None` for an integer one).
    pub fn values(&self) -> Option<&[f64]> {
        match &self.elems {
            Elems::Real { values, .. } | Elems::Data(values) => Some(values),
            Elems::Int(_) => None,
        }
    }

    /// The values of a real or data parameter, to write in place.
    pub fn values_mut(&mut self) -> Option<&mut [f64]> {
        match &mut self.elems {
            Elems::Real { values, .. } | Elems::Data(values) => Some(values),
            Elems::Int(_) => None,
        }
    }

    /// The gradients of a real parameter (`None` for data and integers).
    pub fn grads(&self) -> Option<&[f64]> {
        match &self.elems {
            Elems::Real { grads, .. } => Some(grads),
            _ => None,
        }
    }

    /// The gradients of a real parameter, to write in place (the seeds).
    pub fn grads_mut(&mut self) -> Option<&mut [f64]> {
        match &mut self.elems {
            Elems::Real { grads, .. } => Some(grads),
            _ => None,
        }
    }

    /// The values of an integer parameter (`None` for real and data ones).
    pub fn ints(&self) -> Option<&[i64]> {
        match &self.elems {
            Elems::Int(values) => Some(values),
            _ => None,
        }
    }

    /// The values of an integer parameter, to write in place.
    pub fn ints_mut(&mut self) -> Option<&mut [i64]> {
        match &mut self.elems {
            Elems::Int(values) => Some(values),
            _ => None,
        }
    }

    /// Elements the buffer holds (values; a real parameter has as many gradients).
    pub fn elements(&self) -> usize {
        match &self.elems {
            Elems::Real { values, .. } | Elems::Data(values) => values.len(),
            Elems::Int(values) => values.len(),
        }
    }

    /// Elements that `n` instances read: `n * len`, or `len` when shared; `Err` (naming
    /// `param` and both sizes) when the product overflows `usize`.
    pub fn needed(&self, n: usize, param: &str) -> Result<usize, Error> {
        if self.shared {
            return Ok(self.len);
        }
        n.checked_mul(self.len).ok_or_else(|| {
            Error(format!(
                "parameter {param}: {n} instances × {} elements per instance overflows usize",
                self.len
            ))
        })
    }

    /// Checks that the buffer holds exactly what `n` instances read ([`Arg::needed`]; an
    /// integer's shared value is one element) and, for a real parameter, a gradient per value.
    /// Every backend calls this before it hands the buffer's pointer to a kernel; `param` names
    /// the parameter in the error.
    pub fn check(&self, n: usize, param: &str) -> Result<(), Error> {
        let want = self.needed(n, param)?;
        let got = self.elements();
        if got != want {
            let per = if self.shared {
                format!("shared, {} elements", self.len)
            } else {
                format!("{n} instances × {} elements", self.len)
            };
            return Err(Error(format!(
                "parameter {param}: {per} need {want} values, the buffer holds {got}"
            )));
        }
        if let Elems::Real { values, grads } = &self.elems {
            if grads.len() != values.len() {
                return Err(Error(format!(
                    "parameter {param}: {} gradients for {} values",
                    grads.len(),
                    values.len()
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gradient_per_value() {
        let mut a = Arg::real(2, vec![1.0; 4]);
        a.check(2, "`x`").unwrap();
        if let Elems::Real { grads, .. } = &mut a.elems {
            grads.pop();
        }
        let e = a.check(2, "`x`").unwrap_err().0;
        assert_eq!(e, "parameter `x`: 3 gradients for 4 values");
    }

    #[test]
    fn shared_buffers_hold_their_length_whatever_the_count() {
        let a = Arg::shared_real(vec![1.0; 3]);
        assert_eq!(a.needed(usize::MAX, "`c`"), Ok(3));
        a.check(usize::MAX, "`c`").unwrap();
        let i = Arg::shared_int(7);
        i.check(5, "`k`").unwrap();
        assert_eq!(i.elements(), 1);
    }
}
