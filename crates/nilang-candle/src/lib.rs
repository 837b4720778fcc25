#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

use candle_core::{CpuStorage, CustomOp1, Error, Layout, Result, Shape, Tensor};
use nilang::{i, GVar, Real};

/// The reversible norm of the paper's listing: `out2 += Σ xᵢ²; out += √out2`.
#[i(nocheck)]
pub fn r_norm<T: Real>(out: &mut T, out2: &mut T, x: &mut [T]) {
    for i in 0..x.len() {
        out2 += square(x[i]);
    }
    out += sqrt(out2);
}

/// The custom operation: forward the plain norm, backward the inverse of [`r_norm`] on `GVar`s.
#[derive(Clone, Copy, Debug, Default)]
pub struct Norm;

fn values(storage: &CpuStorage, layout: &Layout) -> Result<Vec<f64>> {
    let offset = layout.start_offset();
    let n = layout.shape().elem_count();
    if !layout.is_contiguous() {
        return Err(Error::Msg(
            "nilang_candle::norm needs a contiguous tensor".into(),
        ));
    }
    match storage {
        CpuStorage::F64(v) => Ok(v[offset..offset + n].to_vec()),
        CpuStorage::F32(v) => Ok(v[offset..offset + n].iter().map(|&x| x as f64).collect()),
        _ => Err(Error::Msg(
            "nilang_candle::norm supports f32 and f64 tensors".into(),
        )),
    }
}

impl CustomOp1 for Norm {
    fn name(&self) -> &'static str {
        "nilang-norm"
    }

    fn cpu_fwd(&self, storage: &CpuStorage, layout: &Layout) -> Result<(CpuStorage, Shape)> {
        let x = values(storage, layout)?;
        let n = x.iter().map(|v| v * v).sum::<f64>().sqrt();
        let out = match storage {
            CpuStorage::F32(_) => CpuStorage::F32(vec![n as f32]),
            _ => CpuStorage::F64(vec![n]),
        };
        Ok((out, Shape::from(())))
    }

    fn bwd(&self, arg: &Tensor, res: &Tensor, grad_res: &Tensor) -> Result<Option<Tensor>> {
        let x = arg
            .flatten_all()?
            .to_dtype(candle_core::DType::F64)?
            .to_vec1::<f64>()?;
        let out = res.to_dtype(candle_core::DType::F64)?.to_scalar::<f64>()?;
        let dy = grad_res
            .to_dtype(candle_core::DType::F64)?
            .to_scalar::<f64>()?;
        let mut gout = GVar::with_grad(out, dy);
        let mut gout2 = GVar::new(out * out);
        let mut gx: Vec<GVar<f64>> = x.iter().map(|&v| GVar::new(v)).collect();
        r_norm_inv(&mut gout, &mut gout2, &mut gx);
        let g: Vec<f64> = gx.iter().map(|v| v.g).collect();
        Tensor::from_vec(g, arg.shape(), arg.device())?
            .to_dtype(arg.dtype())
            .map(Some)
    }
}

/// The Euclidean norm of a tensor, with nilang's generated backward rule.
pub fn norm(x: &Tensor) -> Result<Tensor> {
    x.apply_op1(Norm)
}
