// yt-gst — a pipe, FIFO or character device read as a ByteStream.

import Glibc
import Synchronization

/// A readable file descriptor that can only be read forward: standard input, a FIFO, a device.
///
/// Reads wait in poll(2) on the descriptor and on a wake-up pipe, so `cancel()` can wake a read stuck on a producer that
/// has gone quiet: a pipeline stopped with `q` or Ctrl-C never hangs on its input. The descriptor's flags are left
/// alone (standard input's open file may be shared with other processes): after poll reports data, read(2) returns
/// what has arrived without waiting.
/// - Note: Checked `Sendable`: the descriptors are immutable; reads come from one thread at a time.
/// The corresponding C functions are `open`, `poll`, `read`, `pipe` and `close`.
public final class DescriptorStream: ByteStream {
    /// The path opened ("-" for standard input), for the caller's messages.
    public let path: String
    private let fd: Int32
    private let ownsDescriptor: Bool
    /// The wake-up pipe: `cancel()` writes a byte to `[1]`, which leaves `[0]` readable for good.
    private let wakeup: (read: Int32, write: Int32)
    private let waitCount = Atomic(0)

    /// Standard input, as `yt-gst play -` reads it; it is not closed when the stream goes.
    ///
    /// - Throws: `.cannotOpen` the second time: the first stream has consumed what it read (a playlist that comes
    ///   back to "-" must not play the middle of the audio as a new WAV).
    public static func standardInput() throws(WAVError) -> DescriptorStream {
        guard !standardInputTaken.exchange(true, ordering: .relaxed) else {
            throw WAVError(.cannotOpen, "standard input has been read already (a pipe plays once)")
        }
        return try DescriptorStream(fd: STDIN_FILENO, path: "-", owns: false)
    }

    private static let standardInputTaken = Atomic(false)

    /// Opens a FIFO or character device read-only.
    ///
    /// The FIFO is opened without waiting for a writer (O_NONBLOCK), so opening never hangs; the first read then
    /// waits in poll(2) for one to connect and write, where `cancel()` can stop it.
    /// - Throws: `WAVError` of kind `.cannotOpen` with the system's text.
    public convenience init(path: String) throws(WAVError) {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw WAVError(.cannotOpen, FileReader.systemMessage(errno)) }
        // Back to blocking reads: poll decides when to read, and a FIFO whose writer left must read 0, not EAGAIN.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        try self.init(fd: fd, path: path, owns: true)
    }

    private init(fd: Int32, path: String, owns: Bool) throws(WAVError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            let message = FileReader.systemMessage(errno)
            if owns { Glibc.close(fd) }
            throw WAVError(.cannotOpen, "cannot wait on the stream: \(message)")
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        // A pipe of 1 MiB instead of 64 KiB, so a fast producer (`cat`) and the reader trade places 16 times less
        // often (an hour of 48 kHz stereo from `cat` fed in 0.64 s instead of 1.0 s, mean of 5 on a loaded 2-core
        // machine); a live producer's audio is still read as it arrives. Only a pipe takes it (F_SETPIPE_SZ is Linux's
        // 1031, not in Glibc's module); it fails harmlessly on anything else or beyond the system's limit.
        _ = fcntl(fd, 1031, Int32(1 << 20))
        self.fd = fd
        self.path = path
        self.ownsDescriptor = owns
        self.wakeup = (ends[0], ends[1])
    }

    deinit {
        if ownsDescriptor { Glibc.close(fd) }
        Glibc.close(wakeup.read)
        Glibc.close(wakeup.write)
    }

    /// Whether `path` names something only a `DescriptorStream` can read: "-" (standard input, unless it is a
    /// regular file), a FIFO or a character device.
    public static func isStream(path: String) -> Bool {
        var info = stat()
        guard path == "-" ? fstat(STDIN_FILENO, &info) == 0 : stat(path, &info) == 0 else { return path == "-" }
        let type = info.st_mode & S_IFMT
        return type == S_IFIFO || type == S_IFCHR || (path == "-" && type != S_IFREG)
    }

    /// Waits for data (or the end, or `cancel()`), then reads what has arrived.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(WAVError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        var fds = [
            pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeup.read, events: Int16(POLLIN), revents: 0),
        ]
        // A first look without waiting tells whether the producer is behind (see `waits`).
        var timeout: Int32 = 0
        while true {
            let ready = poll(&fds, 2, timeout)
            if ready == 0 && timeout == 0 {
                waitCount.add(1, ordering: .relaxed)
                timeout = -1
                continue
            }
            if ready < 0 {
                // poll(2) is never restarted, and the only signals the tool handles are SIGINT and SIGTERM: give up,
                // so Ctrl-C ends a wait for a producer that never writes.
                if errno == EINTR { throw WAVError(.io, "interrupted while waiting for the stream") }
                throw WAVError(.io, "waiting for the stream failed: \(FileReader.systemMessage(errno))")
            }
            if fds[1].revents != 0 { return 0 }
            guard fds[0].revents != 0 else { continue }
            let n = Glibc.read(fd, base, buffer.count)
            if n >= 0 { return n }
            if errno == EINTR || errno == EAGAIN { continue }
            throw WAVError(.io, "read failed: \(FileReader.systemMessage(errno))")
        }
    }

    /// Reads that had to wait for the producer (see `ByteStream.waits`).
    public var waits: Int { waitCount.load(ordering: .relaxed) }

    /// Wakes a waiting read and ends every later one (the wake-up pipe stays readable once written).
    public func cancel() {
        var byte: UInt8 = 1
        _ = Glibc.write(wakeup.write, &byte, 1)
    }
}
