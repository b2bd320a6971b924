// yt-gst — a file opened for positioned reads (the production ByteReader).

import Glibc

/// A regular file read with pread(2), so any thread can read any offset without a shared file position.
///
/// - Note: Checked `Sendable`: the descriptor and path are immutable, and pread does not move a file offset.
/// The corresponding C functions are `open`, `fstat`, `pread` and `close`.
public final class FileReader: ByteReader {
    /// The path opened, for the caller's messages: `WAVError` text never names the file.
    public let path: String
    private let fd: Int32
    private let sizeAtOpen: Int64

    /// Opens `path` read-only.
    ///
    /// - Throws: `WAVError` of kind `.cannotOpen` with the system's text ("No such file or directory",
    ///   "Permission denied"), "is a directory", or "not a regular file" (a FIFO or device cannot be read by offset).
    public init(path: String) throws(WAVError) {
        self.path = path
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw WAVError(.cannotOpen, Self.systemMessage(errno)) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let message = Self.systemMessage(errno)
            Glibc.close(fd)
            throw WAVError(.cannotOpen, message)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            break
        case S_IFDIR:
            Glibc.close(fd)
            throw WAVError(.cannotOpen, "is a directory, not a WAV file")
        default:
            Glibc.close(fd)
            throw WAVError(.cannotOpen, "not a regular file")
        }
        self.fd = fd
        self.sizeAtOpen = Int64(info.st_size)
    }

    deinit {
        Glibc.close(fd)
    }

    /// The file's length now (fstat); a file that is still being written grows.
    public var size: Int64 {
        var info = stat()
        return fstat(fd, &info) == 0 ? Int64(info.st_size) : sizeAtOpen
    }

    /// Reads at `offset` until `buffer` is full or the file ends, retrying EINTR and short reads (see `ByteReader`).
    ///
    /// The corresponding C function is `pread`.
    public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(WAVError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0, offset >= 0 else { return 0 }
        var done = 0
        while done < buffer.count {
            let n = pread(fd, base + done, buffer.count - done, off_t(offset) + off_t(done))
            if n > 0 {
                done += n
            } else if n == 0 {
                break
            } else if errno != EINTR {
                throw WAVError(.io, "read failed at byte \(offset + Int64(done)): \(Self.systemMessage(errno))")
            }
        }
        return done
    }

    /// strerror(3) text for an errno value.
    static func systemMessage(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
