//! The spill chain every ingest keeps its bytes in (`ctx pipe` and `ctx
//! digest` through [`read_input`], `ctx run`'s two streams through
//! [`Keeper`]), kept whatever fails. Input that ctx has consumed exists
//! nowhere else, so losing it is the worst thing ctx can do; every failure
//! below degrades, none stops.
//!
//! Up to [`SPILL_BYTES`] (8 MiB) stay in memory. Past that the input is
//! spilled to an unlinked file, tried in order:
//! 1. the temporary directory (`$TMPDIR`, else `/tmp`);
//! 2. ctx's own data directory (where the store lives);
//! 3. memory again, up to [`MEMORY_CAP`] in all.
//!
//! When a place fails (cannot be created, or a write fails half-way: a
//! full or missing file system, a file-size limit), what it already holds
//! is copied to the next place and reading goes on. When every place has
//! failed, what was read is written to the output raw, followed by the rest
//! of the input as it arrives: the reader gets every byte, undigested.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::unix::fs::FileExt;

use crate::artifact::{Artifact, Bytes, Exit};
use crate::fault;
use crate::mapped::MappedBytes;

/// Inputs up to this size are read into memory; a larger one is spilled to
/// an unlinked temporary file and mapped, so ctx's own memory stays bounded
/// (a read buffer and the line index) however much is piped in. 8 MiB:
/// the in-memory buffer is the largest single item of a big input's peak
/// resident size (64 MiB cost 64 MiB), and a mapped input is as fast.
pub const SPILL_BYTES: usize = 8 << 20;

/// The most the last resort, memory, holds before ctx gives up keeping the
/// input and passes it through.
pub const MEMORY_CAP: usize = 256 << 20;

/// Where the input leaves memory: [`SPILL_BYTES`], or a test's override.
pub fn spill_at() -> usize {
    fault::limit("SPILL_BYTES", SPILL_BYTES)
}

/// One read from the input.
const BLOCK: usize = 1 << 20;

/// Where a spilled input can be kept, in the order they are tried.
#[derive(Clone, Debug)]
pub enum Place {
    /// An unlinked file in the temporary directory.
    TempDir,
    /// An unlinked file in ctx's data directory.
    DataDir,
    /// Memory, up to a cap on the whole input.
    Memory(usize),
}

impl Place {
    /// The default order.
    pub fn fallbacks() -> Vec<Place> {
        vec![
            Place::TempDir,
            Place::DataDir,
            Place::Memory(fault::limit("SPILL_MEMORY_CAP", MEMORY_CAP)),
        ]
    }

    fn name(&self) -> &'static str {
        match self {
            Place::TempDir => "temporary directory",
            Place::DataDir => "ctx's data directory",
            Place::Memory(_) => "memory",
        }
    }

    fn open(&self) -> io::Result<Holder> {
        let file = match self {
            Place::TempDir => tempfile::tempfile()?,
            Place::DataDir => tempfile::tempfile_in(crate::home::ensure_data_dir()?)?,
            Place::Memory(cap) => {
                return Ok(Holder::Memory {
                    bytes: Vec::new(),
                    cap: *cap,
                });
            }
        };
        Ok(Holder::File { file, len: 0 })
    }
}

/// What ingest produced.
pub enum Ingested {
    /// The whole input, ready for the pipeline.
    Kept(Artifact),
    /// No place could keep the input: it went to the output raw, and this
    /// says why (one line, for ctx's note).
    PassedThrough(String),
}

/// Reads `input` to end of file. Returns `Err` only when the output itself
/// failed during a pass-through, or the input could not be read; in the
/// latter case what had been read was already written to `out`.
///
/// Up to `spill_at` bytes are held in memory before the first place is
/// tried (the CLI passes [`spill_at`]).
pub fn read_input(
    input: &mut dyn Read,
    out: &mut dyn Write,
    spill_at: usize,
    places: &[Place],
) -> io::Result<Ingested> {
    let mut keeper = Keeper::new(spill_at, places.to_vec());
    let mut block = vec![0u8; BLOCK];
    loop {
        let n = match read_some(input, &mut block) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) => {
                // The input broke; what ctx consumed still goes out.
                keeper.copy_to(out)?;
                out.flush()?;
                return Err(e);
            }
        };
        if let Err(GaveUp { kept }) = keeper.append(&block[..n]) {
            keeper.copy_to(out)?;
            out.write_all(&block[kept..n])?;
            io::copy(input, out)?;
            out.flush()?;
            return Ok(Ingested::PassedThrough(keeper.failures()));
        }
    }
    match keeper.finish() {
        Ok(bytes) => {
            let segments = Artifact::stdout_segments(bytes.len());
            Ok(Ingested::Kept(Artifact::from_bytes(
                bytes,
                segments,
                Exit::Unknown,
                Vec::new(),
            )))
        }
        Err(Unmapped { keeper, error }) => {
            keeper.copy_to(out)?;
            out.flush()?;
            Ok(Ingested::PassedThrough(format!(
                "{}mapping the spill file: {error}",
                keeper.failures_then()
            )))
        }
    }
}

/// The spill chain: bytes appended in arrival order, held in memory up to
/// a threshold, then in the first [`Place`] that takes them. Used by every
/// ingest (`ctx pipe`, `ctx digest -`, `ctx run`'s two streams), so what
/// ctx consumed is kept the same way whatever the source.
pub struct Keeper {
    holder: Holder,
    places: std::vec::IntoIter<Place>,
    /// Outgrowing the first, in-memory buffer is the plan, not a failure.
    spilled: bool,
    failures: Vec<String>,
}

/// No place could take more: the first `kept` bytes of the refused
/// append are held, the rest is not.
#[derive(Debug)]
pub struct GaveUp {
    pub kept: usize,
}

/// A spill file that could not be mapped at the end: the keeper (which
/// can still be copied out) and why.
pub struct Unmapped {
    pub keeper: Keeper,
    pub error: io::Error,
}

impl Keeper {
    /// Holds up to `spill_at` bytes in memory, then tries `places` in order.
    pub fn new(spill_at: usize, places: Vec<Place>) -> Keeper {
        Keeper {
            holder: Holder::Memory {
                bytes: Vec::new(),
                cap: spill_at,
            },
            places: places.into_iter(),
            spilled: false,
            failures: Vec::new(),
        }
    }

    /// `new` with ctx's own threshold and places.
    pub fn standard() -> Keeper {
        Keeper::new(spill_at(), Place::fallbacks())
    }

    /// How many bytes are held.
    pub fn len(&self) -> u64 {
        match &self.holder {
            Holder::Memory { bytes, .. } => bytes.len() as u64,
            Holder::File { len, .. } => *len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends `data`, moving to the next place whenever one fails (what
    /// it holds is copied over). `Err` when every place has failed.
    pub fn append(&mut self, data: &[u8]) -> Result<(), GaveUp> {
        let mut rest = data;
        loop {
            let failure = match self.holder.append(rest) {
                Ok(()) => return Ok(()),
                Err((written, e)) => {
                    rest = &rest[written..];
                    e
                }
            };
            if self.spilled {
                let what = self.holder.describe();
                self.failures.push(format!("{what}: {failure}"));
            }
            self.spilled = true;
            match move_on(&self.holder, &mut self.places, &mut self.failures) {
                Some(next) => self.holder = next,
                None => {
                    return Err(GaveUp {
                        kept: data.len() - rest.len(),
                    });
                }
            }
        }
    }

    /// Why the places failed, `; `-separated (for ctx's note).
    pub fn failures(&self) -> String {
        self.failures.join("; ")
    }

    fn failures_then(&self) -> String {
        if self.failures.is_empty() {
            String::new()
        } else {
            format!("{}; ", self.failures())
        }
    }

    /// Calls `f` on what is held, in order, a block at a time.
    pub fn for_each_block(&self, f: impl FnMut(&[u8]) -> io::Result<()>) -> io::Result<()> {
        self.holder.for_each_block(f)
    }

    /// Writes what is held to `out`.
    pub fn copy_to(&self, out: &mut dyn Write) -> io::Result<()> {
        self.holder.copy_to(out)
    }

    /// What is held, as bytes the pipeline can read: memory as it is, a
    /// spill file mapped read-only.
    pub fn finish(self) -> Result<Bytes, Unmapped> {
        match self.holder {
            Holder::Memory { bytes, .. } => Ok(Bytes::Owned(bytes)),
            Holder::File { len: 0, .. } => Ok(Bytes::Owned(Vec::new())),
            Holder::File { ref file, .. } => {
                // SAFETY: the file is ctx's own unlinked temporary file: no
                // other process can reach it to change it while the map is
                // alive, and this keeper (its only writer) is consumed.
                match unsafe { MappedBytes::map(file) } {
                    Ok(map) => Ok(Bytes::Mapped(map)),
                    Err(error) => Err(Unmapped {
                        keeper: self,
                        error,
                    }),
                }
            }
        }
    }
}

/// The next place that takes everything `from` holds, or `None` when none
/// does. Each failure is added to `failures`.
fn move_on(
    from: &Holder,
    places: &mut impl Iterator<Item = Place>,
    failures: &mut Vec<String>,
) -> Option<Holder> {
    for place in places.by_ref() {
        let moved = place.open().and_then(|mut to| {
            from.copy_into(&mut to)?;
            Ok(to)
        });
        match moved {
            Ok(to) => return Some(to),
            Err(e) => failures.push(format!("{}: {e}", place.name())),
        }
    }
    None
}

fn read_some(input: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match input.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

/// The input read so far, in one place.
enum Holder {
    File { file: File, len: u64 },
    Memory { bytes: Vec<u8>, cap: usize },
}

impl Holder {
    fn describe(&self) -> &'static str {
        match self {
            Holder::File { .. } => "spill file",
            Holder::Memory { .. } => "memory",
        }
    }

    /// Appends `data`; on failure says how much of it was kept.
    fn append(&mut self, data: &[u8]) -> Result<(), (usize, io::Error)> {
        match self {
            Holder::Memory { bytes, cap } => {
                if bytes.len() + data.len() > *cap {
                    let room = cap.saturating_sub(bytes.len());
                    bytes.extend_from_slice(&data[..room]);
                    return Err((
                        room,
                        io::Error::new(
                            io::ErrorKind::OutOfMemory,
                            format!("more than {} MiB", *cap >> 20),
                        ),
                    ));
                }
                bytes.extend_from_slice(data);
                Ok(())
            }
            Holder::File { file, len } => {
                let mut written = 0;
                while written < data.len() {
                    match file.write(&data[written..]) {
                        Ok(0) => return Err((written, io::ErrorKind::WriteZero.into())),
                        Ok(n) => {
                            written += n;
                            *len += n as u64;
                        }
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) => return Err((written, e)),
                    }
                }
                Ok(())
            }
        }
    }

    /// Calls `f` on what is held, in order, a block at a time.
    fn for_each_block(&self, mut f: impl FnMut(&[u8]) -> io::Result<()>) -> io::Result<()> {
        match self {
            Holder::Memory { bytes, .. } => f(bytes),
            Holder::File { file, len } => {
                let mut buf = vec![0u8; BLOCK];
                let mut at = 0u64;
                while at < *len {
                    let want = buf.len().min((*len - at) as usize);
                    let n = file.read_at(&mut buf[..want], at)?;
                    if n == 0 {
                        return Err(io::ErrorKind::UnexpectedEof.into());
                    }
                    f(&buf[..n])?;
                    at += n as u64;
                }
                Ok(())
            }
        }
    }

    fn copy_into(&self, to: &mut Holder) -> io::Result<()> {
        self.for_each_block(|b| to.append(b).map_err(|(_, e)| e))
    }

    fn copy_to(&self, out: &mut dyn Write) -> io::Result<()> {
        self.for_each_block(|b| out.write_all(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(len: usize) -> Vec<u8> {
        (0..len).map(|i| b"abcdefghij\n"[i % 11]).collect()
    }

    fn kept(got: Ingested) -> Artifact {
        match got {
            Ingested::Kept(a) => a,
            Ingested::PassedThrough(why) => panic!("passed through: {why}"),
        }
    }

    #[test]
    fn small_input_stays_in_memory() {
        let data = input(1000);
        let mut out = Vec::new();
        let got = read_input(&mut &data[..], &mut out, 4096, &[]).expect("reads");
        assert_eq!(kept(got).bytes(), &data[..]);
        assert!(out.is_empty());
    }

    #[test]
    fn a_large_input_moves_to_the_next_place_that_takes_it() {
        let data = input(3 * BLOCK + 17);
        let mut out = Vec::new();
        // The first memory place is too small: everything moves on.
        let places = [Place::Memory(BLOCK), Place::Memory(8 * BLOCK)];
        let got = read_input(&mut &data[..], &mut out, 100, &places).expect("reads");
        assert_eq!(kept(got).bytes(), &data[..]);
        assert!(out.is_empty());
    }

    #[test]
    fn a_spill_file_holds_it() {
        let data = input(2 * BLOCK + 5);
        let mut out = Vec::new();
        let got = read_input(&mut &data[..], &mut out, 100, &[Place::TempDir]).expect("reads");
        assert_eq!(kept(got).bytes(), &data[..]);
    }

    #[test]
    fn when_nothing_holds_it_every_byte_passes_through_in_order() {
        let data = input(3 * BLOCK + 17);
        for places in [vec![], vec![Place::Memory(BLOCK + 3)]] {
            let mut out = Vec::new();
            let got = read_input(&mut &data[..], &mut out, 1000, &places).expect("reads");
            let Ingested::PassedThrough(why) = got else {
                panic!("kept with {places:?}");
            };
            assert!(out == data, "{} of {} bytes out", out.len(), data.len());
            assert_eq!(why.is_empty(), places.is_empty(), "{why}");
        }
    }
}
