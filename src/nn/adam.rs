//! [`Adam`] (Kingma & Ba 2015, Algorithm 1) with optional global gradient-norm clipping
//! (Pascanu et al. 2013, for the LSTM's exploding gradients).

use super::param::Param;

/// The Adam optimiser. Moments are kept per param, by position: pass the params in the same
/// order on every [`Adam::step`].
#[derive(Debug, Clone)]
pub struct Adam {
    /// Learning rate α. Default 1e-3.
    pub lr: f32,
    /// β₁. Default 0.9.
    pub beta1: f32,
    /// β₂. Default 0.999.
    pub beta2: f32,
    /// ε. Default 1e-8.
    pub eps: f32,
    /// Rescale all gradients together when their global L2 norm exceeds this. Default 5.0.
    pub clip_norm: Option<f32>,
    t: i32,
    moments: Vec<(Vec<f32>, Vec<f32>)>,
}

impl Adam {
    /// Adam with learning rate `lr` and the paper's other defaults.
    pub fn new(lr: f32) -> Adam {
        Adam { lr, beta1: 0.9, beta2: 0.999, eps: 1e-8, clip_norm: Some(5.0), t: 0, moments: Vec::new() }
    }

    /// One update of every param from its gradient, then clears the gradients.
    pub fn step(&mut self, params: &mut [&mut Param]) {
        if self.moments.len() != params.len() {
            self.moments = params.iter().map(|p| (vec![0.0; p.len()], vec![0.0; p.len()])).collect();
        }
        let scale = match self.clip_norm {
            Some(max) => {
                let norm = params.iter().flat_map(|p| p.grad.iter()).map(|g| g * g).sum::<f32>().sqrt();
                if norm > max && norm.is_finite() {
                    max / norm
                } else {
                    1.0
                }
            }
            None => 1.0,
        };
        self.t += 1;
        let bc1 = 1.0 - self.beta1.powi(self.t);
        let bc2 = 1.0 - self.beta2.powi(self.t);
        let step = self.lr * bc2.sqrt() / bc1;
        for (p, (m, v)) in params.iter_mut().zip(self.moments.iter_mut()) {
            for ((w, g), (m, v)) in p.value.iter_mut().zip(p.grad.iter_mut()).zip(m.iter_mut().zip(v.iter_mut())) {
                let g0 = if g.is_finite() { *g * scale } else { 0.0 };
                *m = self.beta1 * *m + (1.0 - self.beta1) * g0;
                *v = self.beta2 * *v + (1.0 - self.beta2) * g0 * g0;
                *w -= step * *m / (v.sqrt() + self.eps);
                *g = 0.0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimises_a_quadratic() {
        let mut p = Param::from_values(1, 2, vec![3.0, -2.0]).unwrap();
        let mut adam = Adam::new(0.1);
        for _ in 0..500 {
            // L = (w0 - 1)² + (w1 + 0.5)²
            p.grad = vec![2.0 * (p.value[0] - 1.0), 2.0 * (p.value[1] + 0.5)];
            adam.step(&mut [&mut p]);
        }
        assert!((p.value[0] - 1.0).abs() < 1e-2 && (p.value[1] + 0.5).abs() < 1e-2, "{:?}", p.value);
        assert!(p.grad.iter().all(|g| *g == 0.0));
    }
}
