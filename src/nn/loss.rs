//! Weighted binary cross-entropy on logits (BoilerNet, Leonhardt et al. 2020, §3: "weighted
//! binary cross-entropy", weighting the rarer content class up), and the logistic function.

/// The logistic function σ(x) = 1 / (1 + e^−x), stable for large |x|.
pub fn sigmoid(x: f32) -> f32 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// Weighted binary cross-entropy of `logits` against `targets` (0 or 1, or soft labels in
/// between), each element weighted by `weights` (0 masks an element out, e.g. padding).
/// Returns the weighted mean loss and its gradient by each logit (`(σ(z) − t) · w / Σw`).
/// With no weight at all the loss is 0 and the gradient all zeros.
///
/// # Panics
/// When the three slices differ in length (a programming error).
pub fn weighted_bce_with_logits(logits: &[f32], targets: &[f32], weights: &[f32]) -> (f32, Vec<f32>) {
    assert!(logits.len() == targets.len() && targets.len() == weights.len(), "bce: length mismatch");
    let total: f32 = weights.iter().sum();
    if total <= 0.0 {
        return (0.0, vec![0.0; logits.len()]);
    }
    let mut loss = 0.0f64;
    let mut grad = Vec::with_capacity(logits.len());
    for ((&z, &t), &w) in logits.iter().zip(targets).zip(weights) {
        // log(1 + e^z) − t·z, computed stably.
        let softplus = z.max(0.0) + (-z.abs()).exp().ln_1p();
        loss += f64::from(w * (softplus - t * z));
        grad.push((sigmoid(z) - t) * w / total);
    }
    ((loss / f64::from(total)) as f32, grad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loss_and_gradient_agree_with_the_definition() {
        let z = [2.0f32, -1.0, 0.5, 30.0];
        let t = [1.0f32, 0.0, 0.0, 1.0];
        let w = [1.0f32, 2.0, 1.0, 0.0];
        let (loss, grad) = weighted_bce_with_logits(&z, &t, &w);
        let want: f32 = z
            .iter()
            .zip(&t)
            .zip(&w)
            .filter(|(_, &w)| w > 0.0)
            .map(|((&z, &t), &w)| {
                let p = sigmoid(z);
                -w * (t * p.ln() + (1.0 - t) * (1.0 - p).ln())
            })
            .sum::<f32>()
            / 4.0;
        assert!((loss - want).abs() < 1e-5, "{loss} vs {want}");
        let eps = 1e-3;
        for k in 0..z.len() {
            let mut zp = z;
            zp[k] += eps;
            let mut zm = z;
            zm[k] -= eps;
            let num = (weighted_bce_with_logits(&zp, &t, &w).0 - weighted_bce_with_logits(&zm, &t, &w).0) / (2.0 * eps);
            assert!((num - grad[k]).abs() < 1e-3, "d[{k}] {num} vs {}", grad[k]);
        }
        assert_eq!(grad[3], 0.0, "a masked element has no gradient");
        assert!(sigmoid(-100.0) >= 0.0 && sigmoid(100.0) <= 1.0);
    }
}
