//! Matrix products for the layers: a thin, shape-checked wrapper over `matrixmultiply::sgemm`
//! (pure Rust, runtime AVX/FMA dispatch). Matrices are row-major `f32` slices.

/// `c = alpha · op(a) · op(b) + beta · c`, where `op(a)` is `m × k` and `op(b)` is `k × n`;
/// `trans_a` means `a` is stored `k × m` (and is used transposed), likewise `trans_b` (`n × k`).
/// `c` is `m × n`. With `beta = 0.0` the old contents of `c` are ignored.
///
/// # Panics
/// When a slice is shorter than its shape says (a programming error, never input-derived).
#[allow(clippy::too_many_arguments)]
pub fn sgemm(
    m: usize,
    k: usize,
    n: usize,
    alpha: f32,
    a: &[f32],
    trans_a: bool,
    b: &[f32],
    trans_b: bool,
    beta: f32,
    c: &mut [f32],
) {
    assert!(a.len() >= m * k && b.len() >= k * n && c.len() >= m * n, "sgemm: slice shorter than its shape");
    if m == 0 || n == 0 {
        return;
    }
    // Row-major strides; a transposed operand swaps them.
    let (rsa, csa) = if trans_a { (1, m as isize) } else { (k as isize, 1) };
    let (rsb, csb) = if trans_b { (1, k as isize) } else { (n as isize, 1) };
    // SAFETY: the assert above bounds every index matrixmultiply reads or writes:
    // a: max index (m-1)·rsa + (k-1)·csa < m·k, b likewise < k·n, c < m·n.
    unsafe {
        matrixmultiply::sgemm(
            m,
            k,
            n,
            alpha,
            a.as_ptr(),
            rsa,
            csa,
            b.as_ptr(),
            rsb,
            csb,
            beta,
            c.as_mut_ptr(),
            n as isize,
            1,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(m: usize, k: usize, n: usize, a: &[f32], ta: bool, b: &[f32], tb: bool) -> Vec<f32> {
        let mut c = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                for p in 0..k {
                    let x = if ta { a[p * m + i] } else { a[i * k + p] };
                    let y = if tb { b[j * k + p] } else { b[p * n + j] };
                    c[i * n + j] += x * y;
                }
            }
        }
        c
    }

    #[test]
    fn all_transpose_combinations_match_the_definition() {
        let (m, k, n) = (3, 5, 4);
        let a: Vec<f32> = (0..m * k).map(|i| (i as f32 * 0.37).sin()).collect();
        let b: Vec<f32> = (0..k * n).map(|i| (i as f32 * 0.91).cos()).collect();
        for ta in [false, true] {
            for tb in [false, true] {
                let mut c = vec![1.0; m * n];
                sgemm(m, k, n, 1.0, &a, ta, &b, tb, 0.0, &mut c);
                let want = naive(m, k, n, &a, ta, &b, tb);
                for (x, y) in c.iter().zip(&want) {
                    assert!((x - y).abs() < 1e-5, "ta={ta} tb={tb}: {x} vs {y}");
                }
            }
        }
    }
}
