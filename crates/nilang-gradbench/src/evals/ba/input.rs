//! `ba`'s input (one camera, point, weight and feature, and how many of each), the
//! [`Problem`] it replicates, and ADBench's data files.

use serde::Deserialize;

/// Camera parameters per camera.
pub const NCAM: usize = 11;

/// The `ba` input (one of each, replicated).
#[derive(Clone, Debug, Deserialize)]
pub struct Input {
    /// Number of cameras.
    pub n: usize,
    /// Number of points.
    pub m: usize,
    /// Number of observations.
    pub p: usize,
    /// The camera (11 values).
    pub cam: Vec<f64>,
    /// The point (3 values).
    pub x: Vec<f64>,
    /// The weight.
    pub w: f64,
    /// The feature (2 values).
    pub feat: Vec<f64>,
}

/// A bundle adjustment problem with every camera, point, weight and feature materialized.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Cameras, `n × 11`.
    pub cams: Vec<[f64; NCAM]>,
    /// Points, `m × 3`.
    pub x: Vec<[f64; 3]>,
    /// Weights, `p`.
    pub w: Vec<f64>,
    /// Observations: (camera, point), `p`.
    pub obs: Vec<(usize, usize)>,
    /// Features, `p × 2`.
    pub feats: Vec<[f64; 2]>,
}

impl Problem {
    /// Replicates the input as GradBench's reference tool does.
    pub fn from_input(i: &Input) -> Result<Problem, String> {
        if i.cam.len() != NCAM || i.x.len() != 3 || i.feat.len() != 2 {
            return Err(format!(
                "bad `ba` input: `cam`, `x`, `feat` must have 11, 3, 2 values, got {}, {}, {}",
                i.cam.len(),
                i.x.len(),
                i.feat.len()
            ));
        }
        if i.n == 0 || i.m == 0 {
            return Err("bad `ba` input: `n` and `m` must be positive".into());
        }
        let cam: [f64; NCAM] = i.cam.clone().try_into().unwrap();
        Ok(Problem {
            cams: vec![cam; i.n],
            x: vec![[i.x[0], i.x[1], i.x[2]]; i.m],
            w: vec![i.w; i.p],
            obs: (0..i.p).map(|k| (k % i.n, k % i.m)).collect(),
            feats: vec![[i.feat[0], i.feat[1]]; i.p],
        })
    }

    /// Reads an ADBench `ba` data file (see `/work/shared/data/adbench/README.md`) as an input.
    pub fn input_from_adbench(text: &str) -> Result<Input, String> {
        let v: Vec<f64> = text
            .split_whitespace()
            .map(|w| w.parse::<f64>().map_err(|e| format!("{w}: {e}")))
            .collect::<Result<_, _>>()?;
        if v.len() < 3 + NCAM + 3 + 1 + 2 {
            return Err("ADBench ba file too short".into());
        }
        Ok(Input {
            n: v[0] as usize,
            m: v[1] as usize,
            p: v[2] as usize,
            cam: v[3..14].to_vec(),
            x: v[14..17].to_vec(),
            w: v[17],
            feat: v[18..20].to_vec(),
        })
    }
}
