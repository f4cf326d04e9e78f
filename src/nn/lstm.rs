//! [`Lstm`] and [`BiLstm`]: long short-term memory layers (Hochreiter & Schmidhuber 1997, with
//! the forget gate of Gers et al. 2000) over a batch of right-padded sequences, forward with a
//! cache and backward through time; and inverted [`Dropout`]. The BiLSTM is BoilerNet's
//! sequence layer (Leonhardt et al. 2020, §3.2: "many-to-many bidirectional LSTM layers").
//!
//! Layout: time-major, row `t · batch + b` holds step `t` of sequence `b` (`steps × batch ×
//! width`, row-major). The input projection `x · W + b` of all steps is one SGEMM; the
//! recurrent part `h_{t−1} · U` is one SGEMM per step. Gate order in the `4H` columns: input
//! `i`, forget `f`, cell candidate `g`, output `o` (Keras' order):
//!
//! ```text
//! z = x_t W + h_{t−1} U + b;  i, f, o = σ(z_i, z_f, z_o);  g = tanh(z_g)
//! c_t = f ⊙ c_{t−1} + i ⊙ g;  h_t = o ⊙ tanh(c_t)
//! ```
//!
//! Padding: sequences are right-padded to `steps`. A forward LSTM reads a sequence's real
//! steps before its padding, so padded steps never change real outputs; [`BiLstm`] reverses
//! each sequence within its own length for the backward direction, which keeps the padding at
//! the end there too. The caller masks the padded outputs out of the loss (their gradient is
//! zero), which makes the gradients exact without any masking in here.

use super::gemm::sgemm;
use super::loss::sigmoid;
use super::param::Param;

/// One LSTM direction: `W` is `inputs × 4H`, `U` is `H × 4H`, `b` is `1 × 4H`.
#[derive(Debug, Clone, PartialEq)]
pub struct Lstm {
    /// Input weights, `inputs × 4·hidden`.
    pub w: Param,
    /// Recurrent weights, `hidden × 4·hidden`.
    pub u: Param,
    /// Bias, `1 × 4·hidden`; the forget-gate part starts at 1 (Jozefowicz et al. 2015, Keras'
    /// `unit_forget_bias`).
    pub b: Param,
}

/// What [`Lstm::forward`] keeps for [`Lstm::backward`].
#[derive(Debug, Clone, Default)]
pub struct LstmCache {
    steps: usize,
    batch: usize,
    /// The input, `steps × batch × inputs`.
    x: Vec<f32>,
    /// Activated gates `[i, f, g, o]`, `steps × batch × 4H`.
    gates: Vec<f32>,
    /// Cell states, `steps × batch × H`.
    c: Vec<f32>,
    /// Outputs, `steps × batch × H`.
    h: Vec<f32>,
}

impl Lstm {
    /// A Glorot-initialised layer (`W` and `U`), bias 0 except the forget gate's 1.
    pub fn new(inputs: usize, hidden: usize, rng: &mut fastrand::Rng) -> Lstm {
        let mut b = Param::zeros(1, 4 * hidden);
        b.value[hidden..2 * hidden].iter_mut().for_each(|v| *v = 1.0);
        Lstm { w: Param::glorot(inputs, 4 * hidden, rng), u: Param::glorot(hidden, 4 * hidden, rng), b }
    }

    /// Input width.
    pub fn inputs(&self) -> usize {
        self.w.rows
    }

    /// Hidden width `H` (the output width).
    pub fn hidden(&self) -> usize {
        self.u.rows
    }

    /// Run the layer over `x` (`steps × batch × inputs`, time-major) from zero state; returns
    /// the outputs `h` (`steps × batch × H`) and the cache for [`Lstm::backward`].
    ///
    /// # Panics
    /// When `x` is shorter than `steps × batch × inputs` (a programming error).
    pub fn forward(&self, x: &[f32], steps: usize, batch: usize) -> (Vec<f32>, LstmCache) {
        let (inp, hid) = (self.inputs(), self.hidden());
        let (rows, g4) = (steps * batch, 4 * hid);
        assert!(x.len() >= rows * inp, "lstm: input shorter than its shape");
        // Input projection of every step at once, bias included.
        let mut gates = Vec::with_capacity(rows * g4);
        for _ in 0..rows {
            gates.extend_from_slice(&self.b.value);
        }
        sgemm(rows, inp, g4, 1.0, x, false, &self.w.value, false, 1.0, &mut gates);
        let mut c = vec![0.0f32; rows * hid];
        let mut h = vec![0.0f32; rows * hid];
        let bh = batch * hid;
        for t in 0..steps {
            let z = &mut gates[t * batch * g4..(t + 1) * batch * g4];
            if t > 0 {
                sgemm(batch, hid, g4, 1.0, &h[(t - 1) * bh..t * bh], false, &self.u.value, false, 1.0, z);
            }
            for b in 0..batch {
                let zr = &mut z[b * g4..(b + 1) * g4];
                let row = t * bh + b * hid;
                for j in 0..hid {
                    let i = sigmoid(zr[j]);
                    let f = sigmoid(zr[hid + j]);
                    let g = zr[2 * hid + j].tanh();
                    let o = sigmoid(zr[3 * hid + j]);
                    zr[j] = i;
                    zr[hid + j] = f;
                    zr[2 * hid + j] = g;
                    zr[3 * hid + j] = o;
                    let c_prev = if t > 0 { c[row - bh + j] } else { 0.0 };
                    let ct = f * c_prev + i * g;
                    c[row + j] = ct;
                    h[row + j] = o * ct.tanh();
                }
            }
        }
        let cache = LstmCache { steps, batch, x: x[..rows * inp].to_vec(), gates, c, h: h.clone() };
        (h, cache)
    }

    /// Backward through time: `dh` (`steps × batch × H`) is the gradient of the loss by the
    /// outputs of the [`Lstm::forward`] call that made `cache`. Adds to the gradients of `W`,
    /// `U`, `b` and returns the gradient by the input (`steps × batch × inputs`).
    ///
    /// # Panics
    /// When `dh` is shorter than the cached shape (a programming error).
    pub fn backward(&mut self, cache: &LstmCache, dh: &[f32]) -> Vec<f32> {
        let (inp, hid) = (self.inputs(), self.hidden());
        let (steps, batch) = (cache.steps, cache.batch);
        let (rows, g4, bh) = (steps * batch, 4 * hid, batch * hid);
        assert!(dh.len() >= rows * hid, "lstm: gradient shorter than its shape");
        let mut dz = vec![0.0f32; rows * g4];
        let mut dh_next = vec![0.0f32; bh];
        let mut dc_next = vec![0.0f32; bh];
        for t in (0..steps).rev() {
            for b in 0..batch {
                let row = t * bh + b * hid;
                let gr = &cache.gates[(t * batch + b) * g4..(t * batch + b + 1) * g4];
                let dzr = &mut dz[(t * batch + b) * g4..(t * batch + b + 1) * g4];
                for j in 0..hid {
                    let (i, f, g, o) = (gr[j], gr[hid + j], gr[2 * hid + j], gr[3 * hid + j]);
                    let ct = cache.c[row + j];
                    let tc = ct.tanh();
                    let c_prev = if t > 0 { cache.c[row - bh + j] } else { 0.0 };
                    let dht = dh[row + j] + dh_next[b * hid + j];
                    let dct = dc_next[b * hid + j] + dht * o * (1.0 - tc * tc);
                    dzr[j] = dct * g * i * (1.0 - i);
                    dzr[hid + j] = dct * c_prev * f * (1.0 - f);
                    dzr[2 * hid + j] = dct * i * (1.0 - g * g);
                    dzr[3 * hid + j] = dht * tc * o * (1.0 - o);
                    dc_next[b * hid + j] = dct * f;
                }
            }
            // dh_{t−1} = dz_t · Uᵀ
            let dzt = &dz[t * batch * g4..(t + 1) * batch * g4];
            sgemm(batch, g4, hid, 1.0, dzt, false, &self.u.value, true, 0.0, &mut dh_next);
        }
        // dU += Σ_t h_{t−1}ᵀ · dz_t (h_{−1} = 0, so step 0 adds nothing).
        if steps > 1 {
            sgemm(
                hid,
                (steps - 1) * batch,
                g4,
                1.0,
                &cache.h[..(steps - 1) * bh],
                true,
                &dz[batch * g4..],
                false,
                1.0,
                &mut self.u.grad,
            );
        }
        sgemm(inp, rows, g4, 1.0, &cache.x, true, &dz, false, 1.0, &mut self.w.grad);
        for row in dz.chunks_exact(g4) {
            for (g, d) in self.b.grad.iter_mut().zip(row) {
                *g += d;
            }
        }
        let mut dx = vec![0.0f32; rows * inp];
        sgemm(rows, g4, inp, 1.0, &dz, false, &self.w.value, true, 0.0, &mut dx);
        dx
    }

    /// The layer's params, for the optimiser and the model file.
    pub fn params_mut(&mut self) -> [&mut Param; 3] {
        [&mut self.w, &mut self.u, &mut self.b]
    }
}

/// A bidirectional LSTM: a forward [`Lstm`] over each sequence and a backward one over the
/// sequence reversed within its length; outputs concatenated `[forward, backward]` per step
/// (`2H` wide). Each direction has its own params (Leonhardt et al. 2020, §3.2).
#[derive(Debug, Clone, PartialEq)]
pub struct BiLstm {
    /// The left-to-right direction.
    pub fwd: Lstm,
    /// The right-to-left direction.
    pub bwd: Lstm,
}

/// What [`BiLstm::forward`] keeps for [`BiLstm::backward`].
#[derive(Debug, Clone, Default)]
pub struct BiLstmCache {
    fwd: LstmCache,
    bwd: LstmCache,
    lengths: Vec<usize>,
}

/// The row of step `t` of sequence `b` after reversing sequence `b` within its length
/// (padding rows stay where they are). An involution.
fn reversed_row(t: usize, b: usize, batch: usize, len: usize) -> usize {
    if t < len {
        (len - 1 - t) * batch + b
    } else {
        t * batch + b
    }
}

/// `x` (`steps × batch × width`) with every sequence reversed within its length.
fn reverse_within(x: &[f32], steps: usize, lengths: &[usize], width: usize) -> Vec<f32> {
    let batch = lengths.len();
    let mut out = vec![0.0f32; steps * batch * width];
    for t in 0..steps {
        for (b, &len) in lengths.iter().enumerate() {
            let src = reversed_row(t, b, batch, len);
            let dst = t * batch + b;
            out[dst * width..(dst + 1) * width].copy_from_slice(&x[src * width..(src + 1) * width]);
        }
    }
    out
}

impl BiLstm {
    /// Two Glorot-initialised directions.
    pub fn new(inputs: usize, hidden: usize, rng: &mut fastrand::Rng) -> BiLstm {
        BiLstm { fwd: Lstm::new(inputs, hidden, rng), bwd: Lstm::new(inputs, hidden, rng) }
    }

    /// Output width `2H`.
    pub fn outputs(&self) -> usize {
        2 * self.fwd.hidden()
    }

    /// Run both directions over `x` (`steps × batch × inputs`, time-major, sequence `b` real
    /// for its first `lengths[b]` steps, `lengths.len()` = batch). Returns `steps × batch × 2H`
    /// and the cache. Outputs at padded steps are meaningless; mask them out of the loss.
    pub fn forward(&self, x: &[f32], steps: usize, lengths: &[usize]) -> (Vec<f32>, BiLstmCache) {
        let (batch, hid, inp) = (lengths.len(), self.fwd.hidden(), self.fwd.inputs());
        let lengths: Vec<usize> = lengths.iter().map(|&l| l.min(steps)).collect();
        let (hf, cf) = self.fwd.forward(x, steps, batch);
        let xr = reverse_within(x, steps, &lengths, inp);
        let (hb, cb) = self.bwd.forward(&xr, steps, batch);
        let hb = reverse_within(&hb, steps, &lengths, hid);
        let mut out = Vec::with_capacity(steps * batch * 2 * hid);
        for (f, b) in hf.chunks_exact(hid).zip(hb.chunks_exact(hid)) {
            out.extend_from_slice(f);
            out.extend_from_slice(b);
        }
        (out, BiLstmCache { fwd: cf, bwd: cb, lengths })
    }

    /// Backward pass for the output gradient `dy` (`steps × batch × 2H`); adds to both
    /// directions' param gradients and returns the gradient by the input.
    pub fn backward(&mut self, cache: &BiLstmCache, dy: &[f32]) -> Vec<f32> {
        let hid = self.fwd.hidden();
        let inp = self.fwd.inputs();
        let steps = cache.fwd.steps;
        let rows = steps * cache.lengths.len();
        let mut dhf = Vec::with_capacity(rows * hid);
        let mut dhb = Vec::with_capacity(rows * hid);
        for row in dy.chunks_exact(2 * hid).take(rows) {
            dhf.extend_from_slice(&row[..hid]);
            dhb.extend_from_slice(&row[hid..]);
        }
        let dhb = reverse_within(&dhb, steps, &cache.lengths, hid);
        let mut dx = self.fwd.backward(&cache.fwd, &dhf);
        let dxb = reverse_within(&self.bwd.backward(&cache.bwd, &dhb), steps, &cache.lengths, inp);
        for (a, b) in dx.iter_mut().zip(&dxb) {
            *a += b;
        }
        dx
    }

    /// Both directions' params.
    pub fn params_mut(&mut self) -> [&mut Param; 6] {
        let [a, b, c] = self.fwd.params_mut();
        let [d, e, f] = self.bwd.params_mut();
        [a, b, c, d, e, f]
    }
}

/// Inverted dropout (Srivastava et al. 2014): in training each element is zeroed with
/// probability `p` and the survivors scaled by `1 / (1 − p)`, so inference is the identity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dropout {
    /// Drop probability, 0.0 ≤ p < 1.0.
    pub p: f32,
}

impl Dropout {
    /// Apply dropout to `x` in place (training only) and return the mask (0 or `1/(1−p)` per
    /// element) for [`Dropout::backward`].
    pub fn forward_train(&self, x: &mut [f32], rng: &mut fastrand::Rng) -> Vec<f32> {
        let keep = 1.0 - self.p.clamp(0.0, 0.999);
        let scale = 1.0 / keep;
        let mask: Vec<f32> = (0..x.len()).map(|_| if rng.f32() < keep { scale } else { 0.0 }).collect();
        for (v, m) in x.iter_mut().zip(&mask) {
            *v *= m;
        }
        mask
    }

    /// The gradient through the mask, in place.
    pub fn backward(dy: &mut [f32], mask: &[f32]) {
        for (d, m) in dy.iter_mut().zip(mask) {
            *d *= m;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `L = Σ y ⊙ r` over the real (unpadded) steps, `r` fixed and random.
    fn loss(layer: &BiLstm, x: &[f32], steps: usize, lengths: &[usize], r: &[f32]) -> f64 {
        let (y, _) = layer.forward(x, steps, lengths);
        y.iter().zip(r).map(|(a, b)| f64::from(*a) * f64::from(*b)).sum()
    }

    /// The BPTT gradients of every param of both directions, and of the input, agree with
    /// central finite differences; padded steps get no gradient and change no real output.
    #[test]
    fn bilstm_gradients_match_finite_differences() {
        let mut rng = fastrand::Rng::with_seed(11);
        let (inp, hid, steps) = (3, 4, 5);
        let lengths = [5usize, 3];
        let batch = lengths.len();
        let mut layer = BiLstm::new(inp, hid, &mut rng);
        for p in layer.params_mut() {
            p.value.iter_mut().for_each(|v| *v += (rng.f32() - 0.5) * 0.4);
        }
        let x: Vec<f32> = (0..steps * batch * inp).map(|_| rng.f32() * 2.0 - 1.0).collect();
        // r is zero on padded rows (the caller's mask).
        let mut r: Vec<f32> = (0..steps * batch * 2 * hid).map(|_| rng.f32() - 0.5).collect();
        for t in 0..steps {
            for (b, &len) in lengths.iter().enumerate() {
                if t >= len {
                    let row = t * batch + b;
                    r[row * 2 * hid..(row + 1) * 2 * hid].iter_mut().for_each(|v| *v = 0.0);
                }
            }
        }
        let (_, cache) = layer.forward(&x, steps, &lengths);
        let dx = layer.backward(&cache, &r);
        let eps = 1e-2f32;
        let check = |num: f64, ana: f32, what: &str| {
            let tol = 2e-3 + 2e-2 * num.abs();
            assert!((num - f64::from(ana)).abs() < tol, "{what}: numeric {num} vs backprop {ana}");
        };
        let base = layer.clone();
        for (pi, name) in ["fwd.w", "fwd.u", "fwd.b", "bwd.w", "bwd.u", "bwd.b"].iter().enumerate() {
            let n = base.clone().params_mut()[pi].len();
            for k in 0..n {
                let mut p = base.clone();
                p.params_mut()[pi].value[k] += eps;
                let mut m = base.clone();
                m.params_mut()[pi].value[k] -= eps;
                let num =
                    (loss(&p, &x, steps, &lengths, &r) - loss(&m, &x, steps, &lengths, &r)) / (2.0 * f64::from(eps));
                let ana = layer.clone().params_mut()[pi].grad[k];
                check(num, ana, &format!("{name}[{k}]"));
            }
        }
        for k in 0..x.len() {
            let mut xp = x.clone();
            xp[k] += eps;
            let mut xm = x.clone();
            xm[k] -= eps;
            let num = (loss(&base, &xp, steps, &lengths, &r) - loss(&base, &xm, steps, &lengths, &r))
                / (2.0 * f64::from(eps));
            check(num, dx[k], &format!("dx[{k}]"));
        }
        // Sequence 1 is real for 3 steps: its padded input rows get no gradient, and changing
        // them changes none of its real outputs.
        for t in 3..steps {
            let row = t * batch + 1;
            assert!(dx[row * inp..(row + 1) * inp].iter().all(|g| *g == 0.0), "padded row {t} has a gradient");
        }
        let mut x2 = x.clone();
        let row = 4 * batch + 1;
        x2[row * inp] += 5.0;
        let (y1, _) = base.forward(&x, steps, &lengths);
        let (y2, _) = base.forward(&x2, steps, &lengths);
        for t in 0..3 {
            let row = t * batch + 1;
            assert_eq!(y1[row * 2 * hid..(row + 1) * 2 * hid], y2[row * 2 * hid..(row + 1) * 2 * hid]);
        }
    }

    #[test]
    fn backward_direction_reads_the_sequence_reversed() {
        let mut rng = fastrand::Rng::with_seed(3);
        let layer = BiLstm::new(2, 3, &mut rng);
        let x: Vec<f32> = (0..4 * 2).map(|_| rng.f32()).collect();
        // One sequence of 4 steps; the backward half of step 0 equals the forward half of
        // step 3 when the forward direction runs with bwd's params over the reversed input.
        let (y, _) = layer.forward(&x, 4, &[4]);
        let xr: Vec<f32> = x.chunks_exact(2).rev().flatten().copied().collect();
        let (h, _) = layer.bwd.forward(&xr, 4, 1);
        for t in 0..4 {
            let got = &y[t * 6 + 3..t * 6 + 6];
            let want = &h[(3 - t) * 3..(3 - t) * 3 + 3];
            assert_eq!(got, want);
        }
    }

    #[test]
    fn dropout_scales_survivors_and_masks_gradients() {
        let mut rng = fastrand::Rng::with_seed(5);
        let mut x = vec![1.0f32; 10_000];
        let mask = Dropout { p: 0.5 }.forward_train(&mut x, &mut rng);
        let kept = x.iter().filter(|v| **v != 0.0).count();
        assert!((4_500..5_500).contains(&kept), "{kept} kept");
        assert!(x.iter().all(|v| *v == 0.0 || (*v - 2.0).abs() < 1e-6));
        let mut dy = vec![1.0f32; 10_000];
        Dropout::backward(&mut dy, &mask);
        assert_eq!(dy, x);
    }
}
