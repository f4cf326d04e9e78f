//! [`Dense`]: a fully connected layer `y = x · W + b` over a batch of rows, with its backward
//! pass. Activations are applied by the caller.

use super::gemm::sgemm;
use super::param::Param;

/// A fully connected layer: `W` is `inputs × outputs`, `b` is `1 × outputs`.
#[derive(Debug, Clone, PartialEq)]
pub struct Dense {
    /// Weights, `inputs × outputs`.
    pub w: Param,
    /// Bias, `1 × outputs`.
    pub b: Param,
}

impl Dense {
    /// A Glorot-initialised layer with zero bias.
    pub fn new(inputs: usize, outputs: usize, rng: &mut fastrand::Rng) -> Dense {
        Dense { w: Param::glorot(inputs, outputs, rng), b: Param::zeros(1, outputs) }
    }

    /// Input width.
    pub fn inputs(&self) -> usize {
        self.w.rows
    }

    /// Output width.
    pub fn outputs(&self) -> usize {
        self.w.cols
    }

    /// `y = x · W + b` for `n` rows: `x` is `n × inputs`, the result `n × outputs`.
    pub fn forward(&self, x: &[f32], n: usize) -> Vec<f32> {
        let out = self.outputs();
        let mut y = Vec::with_capacity(n * out);
        for _ in 0..n {
            y.extend_from_slice(&self.b.value);
        }
        sgemm(n, self.inputs(), out, 1.0, x, false, &self.w.value, false, 1.0, &mut y);
        y
    }

    /// Backward pass for the `n` rows `x` given to [`Dense::forward`] and the gradient `dy`
    /// (`n × outputs`) of the loss by its output: adds `xᵀ · dy` to `W`'s gradient and the
    /// column sums of `dy` to `b`'s, and returns `dy · Wᵀ` (`n × inputs`), the gradient by `x`.
    pub fn backward(&mut self, x: &[f32], dy: &[f32], n: usize) -> Vec<f32> {
        let (inp, out) = (self.inputs(), self.outputs());
        sgemm(inp, n, out, 1.0, x, true, dy, false, 1.0, &mut self.w.grad);
        for row in dy.chunks_exact(out).take(n) {
            for (g, d) in self.b.grad.iter_mut().zip(row) {
                *g += d;
            }
        }
        let mut dx = vec![0.0; n * inp];
        sgemm(n, out, inp, 1.0, dy, false, &self.w.value, true, 0.0, &mut dx);
        dx
    }

    /// The layer's params, for the optimiser and the model file.
    pub fn params_mut(&mut self) -> [&mut Param; 2] {
        [&mut self.w, &mut self.b]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Finite differences of `L = Σ y ⊙ r` for a fixed random `r` agree with the backward pass.
    #[test]
    fn gradients_match_finite_differences() {
        let mut rng = fastrand::Rng::with_seed(7);
        let (n, i, o) = (3, 4, 2);
        let mut layer = Dense::new(i, o, &mut rng);
        layer.b.value = vec![0.3, -0.2];
        let x: Vec<f32> = (0..n * i).map(|_| rng.f32() - 0.5).collect();
        let r: Vec<f32> = (0..n * o).map(|_| rng.f32() - 0.5).collect();
        let loss = |l: &Dense, x: &[f32]| -> f32 { l.forward(x, n).iter().zip(&r).map(|(a, b)| a * b).sum() };
        let dx = layer.backward(&x, &r, n);
        let eps = 1e-2;
        for k in 0..layer.w.len() {
            let mut p = layer.clone();
            p.w.value[k] += eps;
            let mut m = layer.clone();
            m.w.value[k] -= eps;
            let num = (loss(&p, &x) - loss(&m, &x)) / (2.0 * eps);
            assert!((num - layer.w.grad[k]).abs() < 1e-3, "dW[{k}]: {num} vs {}", layer.w.grad[k]);
        }
        for k in 0..x.len() {
            let mut xp = x.clone();
            xp[k] += eps;
            let mut xm = x.clone();
            xm[k] -= eps;
            let num = (loss(&layer, &xp) - loss(&layer, &xm)) / (2.0 * eps);
            assert!((num - dx[k]).abs() < 1e-3, "dx[{k}]: {num} vs {}", dx[k]);
        }
        let bsum: Vec<f32> = (0..o).map(|j| (0..n).map(|r_| r[r_ * o + j]).sum()).collect();
        for (g, want) in layer.b.grad.iter().zip(&bsum) {
            assert!((g - want).abs() < 1e-5);
        }
    }
}
