//! [`ModelFile`]: named [`Param`]s plus a JSON header (vocabularies, hyper-parameters, the
//! command and data that trained it) in one little-endian binary file.
//!
//! Layout: `b"WCNN"`, `u32` version (1), `u32` header length + UTF-8 JSON header, `u32` param
//! count, then per param: `u16` name length + UTF-8 name, `u32` rows, `u32` cols, `rows × cols`
//! `f32` values.

use super::param::Param;
use super::NnError;
use std::path::Path;

const MAGIC: &[u8; 4] = b"WCNN";
const VERSION: u32 = 1;

/// A model's params by name and its JSON header.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelFile {
    /// Free-form header: vocabularies, hyper-parameters, provenance.
    pub header: serde_json::Value,
    /// Params in file order.
    pub params: Vec<(String, Param)>,
}

impl ModelFile {
    /// The file's bytes (values only; gradients are not stored).
    pub fn to_bytes(&self) -> Vec<u8> {
        let header = self.header.to_string();
        let mut out =
            Vec::with_capacity(16 + header.len() + self.params.iter().map(|(_, p)| 4 * p.len() + 32).sum::<usize>());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(header.len() as u32).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(&(self.params.len() as u32).to_le_bytes());
        for (name, p) in &self.params {
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(&(p.rows as u32).to_le_bytes());
            out.extend_from_slice(&(p.cols as u32).to_le_bytes());
            for v in &p.value {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        out
    }

    /// Parse a model file's bytes.
    ///
    /// # Errors
    /// [`NnError::Format`] for a wrong magic, version, or truncated or malformed content.
    pub fn from_bytes(bytes: &[u8]) -> Result<ModelFile, NnError> {
        let mut r = Reader { bytes, pos: 0 };
        if r.take(4)? != MAGIC {
            return Err(NnError::Format("bad magic".into()));
        }
        let version = r.u32()?;
        if version != VERSION {
            return Err(NnError::Format(format!("version {version}, this build reads {VERSION}")));
        }
        let len = r.u32()? as usize;
        let header = serde_json::from_slice(r.take(len)?).map_err(|e| NnError::Format(format!("header: {e}")))?;
        let count = r.u32()? as usize;
        let mut params = Vec::with_capacity(count.min(1024));
        for _ in 0..count {
            let name_len = u16::from_le_bytes(r.take(2)?.try_into().map_err(|_| r.short())?) as usize;
            let name =
                String::from_utf8(r.take(name_len)?.to_vec()).map_err(|_| NnError::Format("param name".into()))?;
            let (rows, cols) = (r.u32()? as usize, r.u32()? as usize);
            let n = rows.checked_mul(cols).ok_or_else(|| NnError::Format("param shape".into()))?;
            let raw = r.take(n.checked_mul(4).ok_or_else(|| NnError::Format("param shape".into()))?)?;
            let values = raw.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
            let p = Param::from_values(rows, cols, values)
                .map_err(|problem| NnError::Param { name: name.clone(), problem })?;
            params.push((name, p));
        }
        if r.pos != bytes.len() {
            return Err(NnError::Format(format!("{} trailing bytes", bytes.len() - r.pos)));
        }
        Ok(ModelFile { header, params })
    }

    /// Write the file (to a temporary sibling, then renamed into place).
    ///
    /// # Errors
    /// [`NnError::Io`].
    pub fn save(&self, path: &Path) -> Result<(), NnError> {
        let io = |source| NnError::Io { path: path.display().to_string(), source };
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, self.to_bytes()).map_err(io)?;
        std::fs::rename(&tmp, path).map_err(io)
    }

    /// Read a file written by [`ModelFile::save`].
    ///
    /// # Errors
    /// [`NnError::Io`], [`NnError::Format`].
    pub fn load(path: &Path) -> Result<ModelFile, NnError> {
        let bytes = std::fs::read(path).map_err(|source| NnError::Io { path: path.display().to_string(), source })?;
        ModelFile::from_bytes(&bytes)
    }

    /// Remove and return the param `name`, checking its shape.
    ///
    /// # Errors
    /// [`NnError::Param`] when it is missing or has another shape.
    pub fn take(&mut self, name: &str, rows: usize, cols: usize) -> Result<Param, NnError> {
        let i = self
            .params
            .iter()
            .position(|(n, _)| n == name)
            .ok_or_else(|| NnError::Param { name: name.to_string(), problem: "missing".into() })?;
        let (_, p) = self.params.remove(i);
        if (p.rows, p.cols) != (rows, cols) {
            return Err(NnError::Param {
                name: name.to_string(),
                problem: format!("shape {} × {}, expected {rows} × {cols}", p.rows, p.cols),
            });
        }
        Ok(p)
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn short(&self) -> NnError {
        NnError::Format(format!("truncated at byte {}", self.pos))
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], NnError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or_else(|| self.short())?;
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn u32(&mut self) -> Result<u32, NnError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_damage() {
        let mut rng = fastrand::Rng::with_seed(1);
        let file = ModelFile {
            header: serde_json::json!({"kind": "test", "vocab": ["a", "b"]}),
            params: vec![("w".into(), Param::glorot(3, 2, &mut rng)), ("b".into(), Param::zeros(1, 2))],
        };
        let bytes = file.to_bytes();
        let mut back = ModelFile::from_bytes(&bytes).unwrap();
        assert_eq!(back, file);
        assert!(back.take("w", 2, 3).is_err(), "wrong shape is refused");
        assert!(back.take("nope", 1, 1).is_err());
        assert!(ModelFile::from_bytes(&bytes[..bytes.len() - 1]).is_err(), "truncated");
        assert!(ModelFile::from_bytes(b"XXXX").is_err(), "bad magic");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.bin");
        file.save(&path).unwrap();
        assert_eq!(ModelFile::load(&path).unwrap(), file);
    }
}
