//! The nearest centroid of a point, by primal values: the plain search ([`nearest`]) and the
//! blocked one the programs use ([`Centroids`]).

use nilang::Real;

/// The centroid nearest to point `i` (`d`-dimensional rows), by primal values (the plain
/// search, one centroid at a time; [`Centroids::nearest`] finds the same one faster).
pub fn nearest<T: Real>(points: &[f64], centroids: &[T], i: usize, d: usize) -> usize {
    let mut best = (f64::INFINITY, 0);
    for j in 0..centroids.len() / d {
        let mut dist = 0.0;
        for e in 0..d {
            let diff = centroids[j * d + e].val() - points[i * d + e];
            dist += diff * diff;
        }
        if dist < best.0 {
            best = (dist, j);
        }
    }
    best.1
}

/// How many centroids [`Centroids::nearest`] measures at once.
const LANES: usize = 8;

/// The centroids' primal values for the nearest-centroid search, transposed (`d × k`: row `e`
/// holds coordinate `e` of every centroid), so that the distances to `LANES` (8) consecutive
/// centroids are accumulated side by side from contiguous values.
#[derive(Clone, Debug, PartialEq)]
pub struct Centroids {
    k: usize,
    d: usize,
    t: Vec<f64>,
}

impl Centroids {
    /// The work of one point of [`kmeans_cost_par`](super::kmeans_cost_par)'s loop (its search
    /// among `k` centroids of `d` coordinates, and its distance) in units of
    /// `(a..b).par().weight(w)`, about a nanosecond of one core's work: about `8 + k·d/6`.
    pub fn work_per_point(k: usize, d: usize) -> usize {
        8 + k * d / 6
    }

    /// The table for the `d`-dimensional rows of `c`.
    pub fn of<T: Real>(c: &[T], d: usize) -> Centroids {
        let k = c.len() / d;
        let mut t = vec![0.0; k * d];
        for j in 0..k {
            for e in 0..d {
                t[e * k + j] = c[j * d + e].val();
            }
        }
        Centroids { k, d, t }
    }

    /// The centroid nearest to `p`: the same one as [`nearest`] (each squared distance summed
    /// over the coordinates in the same order, the first of equal distances), with the
    /// distances to eight centroids accumulated at once.
    pub fn nearest(&self, p: &[f64]) -> usize {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2 (tested just above)
            return unsafe { self.nearest_avx2(p) };
        }
        self.nearest_portable(p)
    }

    /// [`Centroids::nearest`] compiled for AVX2: the eight distances in two 4-lane registers
    /// instead of four 2-lane ones. No fused multiply–add (not enabled), so every distance is
    /// the same sum of the same products, to the bit.
    ///
    /// # Safety
    /// The processor must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[doc(hidden)] // public for the tests that compare the variants
    pub unsafe fn nearest_avx2(&self, p: &[f64]) -> usize {
        self.nearest_portable(p)
    }

    /// The search of [`Centroids::nearest`], inlined into each instruction-set variant.
    #[inline(always)]
    #[doc(hidden)] // public for the tests that compare the variants
    pub fn nearest_portable(&self, p: &[f64]) -> usize {
        let (k, d) = (self.k, self.d);
        let p = &p[..d];
        let mut best = (f64::INFINITY, 0);
        let mut j0 = 0;
        while j0 + LANES <= k {
            let acc = self.distances::<LANES>(p, j0);
            Self::keep_nearest(&mut best, &acc, j0);
            j0 += LANES;
        }
        // the last centroids four, two, one at a time (side by side their sums are
        // independent chains; one centroid at a time, each was a chain of `d` additions)
        if j0 + 4 <= k {
            let acc = self.distances::<4>(p, j0);
            Self::keep_nearest(&mut best, &acc, j0);
            j0 += 4;
        }
        if j0 + 2 <= k {
            let acc = self.distances::<2>(p, j0);
            Self::keep_nearest(&mut best, &acc, j0);
            j0 += 2;
        }
        if j0 < k {
            let acc = self.distances::<1>(p, j0);
            Self::keep_nearest(&mut best, &acc, j0);
        }
        best.1
    }

    /// The squared distances from `p` to the `N` centroids from `j0`, each summed over the
    /// coordinates in order.
    #[inline(always)]
    fn distances<const N: usize>(&self, p: &[f64], j0: usize) -> [f64; N] {
        let k = self.k;
        let mut acc = [0.0; N];
        for (e, &pe) in p.iter().enumerate() {
            let row = &self.t[e * k + j0..e * k + j0 + N];
            for (a, &c) in acc.iter_mut().zip(row) {
                let diff = c - pe;
                *a += diff * diff;
            }
        }
        acc
    }

    /// `best` updated with the distances `acc` of the centroids from `j0` (the first of equal
    /// distances kept).
    #[inline(always)]
    fn keep_nearest(best: &mut (f64, usize), acc: &[f64], j0: usize) {
        for (l, &dist) in acc.iter().enumerate() {
            if dist < best.0 {
                *best = (dist, j0 + l);
            }
        }
    }
}
