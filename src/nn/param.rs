//! [`Param`]: one trainable `rows × cols` row-major matrix (a bias is `1 × cols`) with its
//! gradient, the unit that [`Adam`](super::Adam) updates and [`io`](super::io) stores.

/// A trainable matrix and its accumulated gradient (same shape).
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// Values, `rows × cols`, row-major.
    pub value: Vec<f32>,
    /// Gradient of the loss, same shape; layers add to it, [`Param::zero_grad`] clears it.
    pub grad: Vec<f32>,
}

impl Param {
    /// A zero matrix.
    pub fn zeros(rows: usize, cols: usize) -> Param {
        Param { rows, cols, value: vec![0.0; rows * cols], grad: vec![0.0; rows * cols] }
    }

    /// Glorot/Xavier uniform initialisation, `U(±sqrt(6 / (fan_in + fan_out)))` with
    /// `fan_in = rows`, `fan_out = cols` (Glorot & Bengio 2010), from a seeded generator.
    pub fn glorot(rows: usize, cols: usize, rng: &mut fastrand::Rng) -> Param {
        let limit = (6.0 / (rows + cols).max(1) as f32).sqrt();
        let value = (0..rows * cols).map(|_| (rng.f32() * 2.0 - 1.0) * limit).collect();
        Param { rows, cols, value, grad: vec![0.0; rows * cols] }
    }

    /// A param with the given values (e.g. read from a model file).
    ///
    /// # Errors
    /// A message when `value.len() != rows × cols`.
    pub fn from_values(rows: usize, cols: usize, value: Vec<f32>) -> Result<Param, String> {
        if value.len() != rows * cols {
            return Err(format!("{} values for a {rows} × {cols} matrix", value.len()));
        }
        Ok(Param { rows, cols, grad: vec![0.0; value.len()], value })
    }

    /// Clear the gradient.
    pub fn zero_grad(&mut self) {
        self.grad.iter_mut().for_each(|g| *g = 0.0);
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.value.len()
    }

    /// True for a 0-sized param.
    pub fn is_empty(&self) -> bool {
        self.value.is_empty()
    }
}
