//! An input read while watching whether the reader of ctx's stdout is
//! still there (`ctx pipe`, `ctx digest -`).
//!
//! ctx reads its whole input before it writes anything, so a reader that
//! leaves early (`… | ctx pipe | true`, a `head` that had enough) would go
//! unnoticed until the end, and the writer upstream would keep producing
//! into ctx for nothing. Bare, that writer would have met the broken pipe
//! at once. So each read first waits on both the input and ctx's stdout
//! (for an error or hang-up only): when the reader is gone, the read fails
//! with `BrokenPipe`, ctx stops reading, and the writer upstream meets the
//! broken pipe in turn when ctx exits.

use std::io::{self, Read};
use std::os::fd::{AsFd, BorrowedFd};

use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::stat::{SFlag, fstat};

/// True when `fd` is a pipe or a socket: the kinds whose reader can go
/// away while ctx runs. A file or a terminal never reports it.
pub fn reader_can_leave(fd: BorrowedFd) -> bool {
    fstat(fd).is_ok_and(|st| {
        let kind = SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT;
        kind == SFlag::S_IFIFO || kind == SFlag::S_IFSOCK
    })
}

/// `input`, whose reads fail with `BrokenPipe` once `output`'s reader is
/// gone.
pub struct Watched<'a, R> {
    input: R,
    input_fd: BorrowedFd<'a>,
    /// `None` when the output cannot lose its reader.
    output: Option<BorrowedFd<'a>>,
}

impl<'a, R: Read> Watched<'a, R> {
    pub fn new(input: R, input_fd: BorrowedFd<'a>, output: BorrowedFd<'a>) -> Self {
        Watched {
            input,
            input_fd,
            output: reader_can_leave(output).then_some(output),
        }
    }
}

impl<R: Read> Read for Watched<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(output) = self.output {
            let mut fds = [
                PollFd::new(self.input_fd.as_fd(), PollFlags::POLLIN),
                PollFd::new(output, PollFlags::empty()),
            ];
            loop {
                match poll(&mut fds, PollTimeout::NONE) {
                    Ok(_) => break,
                    Err(Errno::EINTR) => continue,
                    // Not watchable after all: a plain read still works.
                    Err(_) => {
                        self.output = None;
                        break;
                    }
                }
            }
            if self.output.is_some() && fds[1].revents().is_some_and(|r| !r.is_empty()) {
                return Err(io::ErrorKind::BrokenPipe.into());
            }
        }
        self.input.read(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::File;
    use std::io::Write;

    #[test]
    fn a_gone_reader_fails_the_read_and_a_present_one_does_not() {
        let (in_r, in_w) = nix::unistd::pipe().expect("pipe");
        let (out_r, out_w) = nix::unistd::pipe().expect("pipe");
        File::from(in_w).write_all(b"abc").expect("write");
        let mut input = File::from(in_r);
        let fd = input.as_fd().try_clone_to_owned().expect("dup");
        let mut buf = [0u8; 8];
        {
            let mut watched = Watched::new(&mut input, fd.as_fd(), out_w.as_fd());
            assert_eq!(watched.read(&mut buf).expect("reads"), 3);
        }
        drop(out_r);
        let mut watched = Watched::new(&mut input, fd.as_fd(), out_w.as_fd());
        let err = watched.read(&mut buf).expect_err("reader gone");
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
    }
}
