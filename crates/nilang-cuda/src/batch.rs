//! Batches: one buffer per parameter, and the layout the kernels expect.

use crate::Error;
use nilang_cgen::KERNEL_MARK;

/// The buffer of one parameter of a batched function.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// A differentiable real parameter (the scalar type `T`): values and gradients.
    Real {
        /// Values, `len` per instance (or `len` in all when shared).
        values: Vec<f64>,
        /// Gradients, same shape as the values.
        grads: Vec<f64>,
        /// Elements per instance.
        len: usize,
        /// Read whole by every instance.
        shared: bool,
    },
    /// A real parameter that is never differentiated (`&[f64]`, `f64`).
    Data {
        /// Values.
        values: Vec<f64>,
        /// Elements per instance.
        len: usize,
        /// Read whole by every instance.
        shared: bool,
    },
    /// An integer parameter (`i64`, `usize`, …): one value per instance, or one in all.
    Int {
        /// Values.
        values: Vec<i64>,
        /// One value for every instance.
        shared: bool,
    },
}

impl Arg {
    /// Whether every instance reads this parameter whole.
    pub fn shared(&self) -> bool {
        match self {
            Arg::Real { shared, .. } | Arg::Data { shared, .. } | Arg::Int { shared, .. } => {
                *shared
            }
        }
    }

    /// Elements per instance.
    pub fn len(&self) -> usize {
        match self {
            Arg::Real { len, .. } | Arg::Data { len, .. } => *len,
            Arg::Int { .. } => 1,
        }
    }

    /// Whether the parameter has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// `n` independent instances of a reversible function: its parameters' buffers, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Batch {
    n: usize,
    args: Vec<Arg>,
}

impl Batch {
    /// A batch of `n` instances with no parameters yet.
    pub fn new(n: usize) -> Self {
        Batch {
            n,
            args: Vec::new(),
        }
    }

    /// Number of instances.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The parameters' buffers.
    pub fn args(&self) -> &[Arg] {
        &self.args
    }

    /// The parameters' buffers, mutably.
    pub fn args_mut(&mut self) -> &mut [Arg] {
        &mut self.args
    }

    fn check_len(&self, got: usize, want: usize, what: &str) {
        assert_eq!(got, want, "{what}: {got} values for {} instances", self.n);
    }

    /// Adds a differentiable real parameter with `len` elements per instance.
    pub fn real(mut self, len: usize, values: Vec<f64>) -> Self {
        self.check_len(values.len(), self.n * len, "real parameter");
        let grads = vec![0.0; values.len()];
        self.args.push(Arg::Real {
            values,
            grads,
            len,
            shared: false,
        });
        self
    }

    /// Adds a differentiable real parameter read whole by every instance.
    pub fn shared_real(mut self, values: Vec<f64>) -> Self {
        let len = values.len();
        self.args.push(Arg::Real {
            grads: vec![0.0; len],
            values,
            len,
            shared: true,
        });
        self
    }

    /// Adds a non-differentiated real parameter with `len` elements per instance.
    pub fn data(mut self, len: usize, values: Vec<f64>) -> Self {
        self.check_len(values.len(), self.n * len, "data parameter");
        self.args.push(Arg::Data {
            values,
            len,
            shared: false,
        });
        self
    }

    /// Adds a non-differentiated real parameter read whole by every instance.
    pub fn shared_data(mut self, values: Vec<f64>) -> Self {
        let len = values.len();
        self.args.push(Arg::Data {
            values,
            len,
            shared: true,
        });
        self
    }

    /// Adds an integer parameter, one value per instance.
    pub fn int(mut self, values: Vec<i64>) -> Self {
        self.check_len(values.len(), self.n, "integer parameter");
        self.args.push(Arg::Int {
            values,
            shared: false,
        });
        self
    }

    /// Adds an integer parameter with one value for every instance.
    pub fn shared_int(mut self, value: i64) -> Self {
        self.args.push(Arg::Int {
            values: vec![value],
            shared: true,
        });
        self
    }

    /// The values of real (or data) parameter `k`.
    pub fn values(&self, k: usize) -> &[f64] {
        match &self.args[k] {
            Arg::Real { values, .. } | Arg::Data { values, .. } => values,
            Arg::Int { .. } => panic!("parameter {k} is an integer"),
        }
    }

    /// The values of real (or data) parameter `k`, mutably.
    pub fn values_mut(&mut self, k: usize) -> &mut [f64] {
        match &mut self.args[k] {
            Arg::Real { values, .. } | Arg::Data { values, .. } => values,
            Arg::Int { .. } => panic!("parameter {k} is an integer"),
        }
    }

    /// The gradients of real parameter `k`.
    pub fn grads(&self, k: usize) -> &[f64] {
        match &self.args[k] {
            Arg::Real { grads, .. } => grads,
            _ => panic!("parameter {k} has no gradient"),
        }
    }

    /// The gradients of real parameter `k`, mutably (set the seeds here).
    pub fn grads_mut(&mut self, k: usize) -> &mut [f64] {
        match &mut self.args[k] {
            Arg::Real { grads, .. } => grads,
            _ => panic!("parameter {k} has no gradient"),
        }
    }

    /// Sets every gradient to zero.
    pub fn zero_grads(&mut self) {
        for a in &mut self.args {
            if let Arg::Real { grads, .. } = a {
                grads.iter_mut().for_each(|g| *g = 0.0);
            }
        }
    }
}

/// One parameter of a generated kernel, as its `//@nilang-kernel` line describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutParam {
    /// The parameter's name.
    pub name: String,
    /// `real`, `f64` or `int`.
    pub elem: String,
    /// `scalar`, `slice` or `value`.
    pub shape: String,
    /// `&mut`.
    pub mutable: bool,
    /// The private-copy size of a shared parameter; `None` when per instance.
    pub shared: Option<usize>,
}

/// The parameters of a generated kernel, read from its source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The function's name (the kernels are `NAME__fwd`, `NAME__inv`, `NAME__grad`).
    pub name: String,
    /// Whether a `NAME__grad` kernel exists.
    pub grad: bool,
    /// The parameters in order.
    pub params: Vec<LayoutParam>,
}

impl Layout {
    /// Finds the description of kernel `name` in generated C++ `source`.
    pub fn from_source(source: &str, name: &str) -> Result<Layout, Error> {
        let prefix = format!("{KERNEL_MARK} {name} ");
        let line = source
            .lines()
            .find(|l| l.starts_with(&prefix))
            .ok_or_else(|| {
                Error(format!(
                    "no kernel `{name}` in the source (add it with nilang_cgen::Module::kernel)"
                ))
            })?;
        let mut grad = false;
        let mut params = Vec::new();
        for field in line[prefix.len()..].split_whitespace() {
            if let Some(g) = field.strip_prefix("grad=") {
                grad = g == "1";
            } else if let Some(ps) = field.strip_prefix("params=") {
                for p in ps.split(';').filter(|p| !p.is_empty()) {
                    let parts: Vec<&str> = p.split(':').collect();
                    if parts.len() != 5 {
                        return Err(Error(format!("malformed kernel parameter `{p}`")));
                    }
                    params.push(LayoutParam {
                        name: parts[0].to_string(),
                        elem: parts[1].to_string(),
                        shape: parts[2].to_string(),
                        mutable: parts[3] == "mut",
                        shared: parts[4]
                            .strip_prefix("shared")
                            .map(|m| m.parse().unwrap_or(0)),
                    });
                }
            }
        }
        Ok(Layout {
            name: name.to_string(),
            grad,
            params,
        })
    }

    /// Checks that a batch's buffers fit the kernel's parameters.
    pub fn check(&self, batch: &Batch) -> Result<(), Error> {
        if batch.args().len() != self.params.len() {
            return Err(Error(format!(
                "`{}` takes {} parameters, the batch has {}",
                self.name,
                self.params.len(),
                batch.args().len()
            )));
        }
        for (p, a) in self.params.iter().zip(batch.args()) {
            let kind_ok = matches!(
                (p.elem.as_str(), a),
                ("real", Arg::Real { .. }) | ("f64", Arg::Data { .. }) | ("int", Arg::Int { .. })
            );
            if !kind_ok {
                return Err(Error(format!(
                    "parameter `{}` is `{}`, the batch gives {:?}",
                    p.name,
                    p.elem,
                    kind(a)
                )));
            }
            match (p.shared, a.shared()) {
                (Some(max), true) if a.len() > max => {
                    return Err(Error(format!("shared parameter `{}`: {} elements, at most {max}", p.name, a.len())))
                }
                (Some(_), true) | (None, false) => {}
                (Some(_), false) => {
                    return Err(Error(format!("parameter `{}` was generated shared; the batch gives it per instance", p.name)))
                }
                (None, true) => {
                    return Err(Error(format!(
                        "parameter `{}` is shared in the batch; generate the kernel with KernelSpec::shared(\"{}\", len)",
                        p.name, p.name
                    )))
                }
            }
            if p.shape != "slice" && a.len() != 1 {
                return Err(Error(format!(
                    "parameter `{}` is a scalar; the batch gives {} elements",
                    p.name,
                    a.len()
                )));
            }
        }
        Ok(())
    }
}

fn kind(a: &Arg) -> &'static str {
    match a {
        Arg::Real { .. } => "a real buffer",
        Arg::Data { .. } => "a data buffer",
        Arg::Int { .. } => "an integer buffer",
    }
}
