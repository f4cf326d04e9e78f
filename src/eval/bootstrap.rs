//! Bootstrap standard errors for `webcorpus eval`: the principal function is [`bootstrap_se`],
//! which resamples a set's pages with replacement and returns the standard deviation of a
//! statistic over the resamples (the ScrapingHub benchmark's `evaluate.py` does the same with
//! 1,000 resamples and reports 1.96 × it as a confidence interval). [`XorShift`] is the tiny
//! seeded generator, so that tables are reproducible and every extractor of a set is
//! resampled with the same page draws (paired comparison).

/// Resamples per statistic.
pub const RESAMPLES: usize = 200;

/// Seed of every bootstrap (fixed: tables are reproducible).
pub const SEED: u64 = 0x5eed_cafe_f00d_d00d;

/// Marsaglia's xorshift64* generator (Vigna 2016, "An experimental exploration of
/// Marsaglia's xorshift generators, scrambled"): 64-bit state, never 0.
#[derive(Debug, Clone)]
pub struct XorShift(u64);

impl XorShift {
    /// A generator from `seed` (0 is replaced by a fixed non-zero constant).
    pub fn new(seed: u64) -> Self {
        XorShift(if seed == 0 { 0x9e37_79b9_7f4a_7c15 } else { seed })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A uniform index in `0..n` (`n` > 0; multiply-shift, bias < n / 2⁶⁴).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// Standard error of `stat` by the bootstrap: [`RESAMPLES`] resamples of `n` page indices
/// drawn with replacement from `0..n` (seed [`SEED`]); the sample standard deviation of
/// `stat` over them. 0.0 when `n` < 2.
pub fn bootstrap_se(n: usize, mut stat: impl FnMut(&[usize]) -> f64) -> f64 {
    if n < 2 {
        return 0.0;
    }
    let mut rng = XorShift::new(SEED);
    let mut indices = vec![0; n];
    let values: Vec<f64> = (0..RESAMPLES)
        .map(|_| {
            for i in indices.iter_mut() {
                *i = rng.below(n);
            }
            stat(&indices)
        })
        .collect();
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (values.len() - 1) as f64;
    var.sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xorshift_is_seeded_and_uniform_enough() {
        let mut a = XorShift::new(7);
        let mut b = XorShift::new(7);
        assert_eq!(a.next_u64(), b.next_u64());
        let mut counts = [0usize; 10];
        for _ in 0..10_000 {
            counts[a.below(10)] += 1;
        }
        assert!(counts.iter().all(|&c| (800..1200).contains(&c)), "{counts:?}");
        assert_ne!(XorShift::new(0).next_u64(), 0);
    }

    #[test]
    fn se_of_a_mean_matches_the_textbook_formula() {
        // Values 0/1, half each, n = 400: SE of the mean = sqrt(0.25 / 400) = 0.025.
        let values: Vec<f64> = (0..400).map(|i| (i % 2) as f64).collect();
        let se = bootstrap_se(values.len(), |idx| idx.iter().map(|&i| values[i]).sum::<f64>() / idx.len() as f64);
        assert!((0.018..0.032).contains(&se), "{se}");
        // A constant statistic has no spread; too few pages give 0.
        assert!(bootstrap_se(50, |_| 0.7) < 1e-12);
        assert_eq!(bootstrap_se(1, |_| 1.0), 0.0);
    }
}
