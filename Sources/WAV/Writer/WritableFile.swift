// yt-gst — the positioned-write seam under WAV writing.
import Glibc

/// Where a WAV writer puts its bytes: a file in production, a fault injector in tests (STYLE 7.5).
public protocol WritableFile: AnyObject {
    /// Whether bytes can be written at any offset (a regular file); false for a pipe or terminal, which the writer
    /// then fills front to back with a streaming header.
    var isSeekable: Bool { get }

    /// Writes `bytes` at `offset` (at the current end on a stream), retrying EINTR and short writes.
    ///
    /// - Returns: the bytes written: fewer than `bytes.count` only when the device is full.
    /// - Throws: `WAVWriteError` of kind `.io` or `.noSpace` when nothing more could be written.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(WAVWriteError) -> Int

    /// Makes the written bytes durable (fdatasync); a no-op on a stream.
    func synchronize() throws(WAVWriteError)

    /// Cuts the file to `length` bytes.
    func truncate(to length: Int64) throws(WAVWriteError)
}

/// A file written with pwrite(2), or a pipe written with write(2).
///
/// The corresponding C functions are `open`, `pwrite`, `write`, `fdatasync`, `ftruncate` and `close`.
public final class FileWriter: WritableFile {
    /// The path, for messages ("-" for standard output).
    public let path: String
    public let isSeekable: Bool
    private let fd: Int32
    private let ownsDescriptor: Bool

    /// Creates `path` for writing; an existing file is refused unless `replacing`.
    ///
    /// - Throws: `WAVWriteError` of kind `.exists` (the file is there and `replacing` is false) or `.cannotCreate`.
    public init(path: String, replacing: Bool) throws(WAVWriteError) {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (replacing ? O_TRUNC : O_EXCL)
        let fd = Glibc.open(path, flags, 0o644)
        guard fd >= 0 else {
            let code = errno
            throw code == EEXIST
                ? WAVWriteError(.exists, "already exists (add --force to replace it)")
                : WAVWriteError(.cannotCreate, FileReader.systemMessage(code))
        }
        self.path = path
        self.fd = fd
        self.ownsDescriptor = true
        isSeekable = true
    }

    /// Writes to an open descriptor (standard output): positioned when it is a regular file opened without O_APPEND
    /// at offset 0, front to back otherwise.
    public init(descriptor: Int32, path: String) {
        var info = stat()
        let regular = fstat(descriptor, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
        let appending = fcntl(descriptor, F_GETFL) & O_APPEND != 0
        self.path = path
        self.fd = descriptor
        self.ownsDescriptor = false
        isSeekable = regular && !appending && lseek(descriptor, 0, SEEK_CUR) == 0
    }

    deinit {
        if ownsDescriptor { Glibc.close(fd) }
    }

    public func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(WAVWriteError) -> Int {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return 0 }
        var done = 0
        while done < bytes.count {
            let n =
                isSeekable
                ? pwrite(fd, base + done, bytes.count - done, off_t(offset) + off_t(done))
                : Glibc.write(fd, base + done, bytes.count - done)
            if n > 0 {
                done += n
                continue
            }
            let code = n == 0 ? ENOSPC : errno
            if code == EINTR { continue }
            if done > 0 && code == ENOSPC { return done }
            throw WAVWriteError(
                code == ENOSPC || code == EDQUOT ? .noSpace : .io,
                "write failed at byte \(offset + Int64(done)): \(FileReader.systemMessage(code))")
        }
        return done
    }

    public func synchronize() throws(WAVWriteError) {
        guard isSeekable else { return }
        guard fdatasync(fd) == 0 else {
            let code = errno
            throw WAVWriteError(code == ENOSPC ? .noSpace : .io, "fdatasync failed: \(FileReader.systemMessage(code))")
        }
    }

    public func truncate(to length: Int64) throws(WAVWriteError) {
        guard isSeekable else { return }
        guard ftruncate(fd, off_t(length)) == 0 else {
            throw WAVWriteError(.io, "ftruncate failed: \(FileReader.systemMessage(errno))")
        }
    }
}
