import Glibc
// yt-gst — a listening socket on the main loop, accepting every connection that waits.
import GstPlayer

/// Accepts connections on a listening socket, on the main loop's thread, and hands each one on (nonblocking and
/// close-on-exec, with its peer's address as text). A burst of connections is one wake-up.
///
/// When the process is out of descriptors (EMFILE, ENFILE) the waiting connection cannot be taken and the socket
/// stays readable: accepting then rests for `restAfterExhaustion` instead of spinning on it, and the connection is
/// taken once a descriptor is free again.
/// - Note: Not Sendable: used on the main loop's thread only.
final class SocketAcceptor {
    static let restAfterExhaustion = Duration.milliseconds(100)
    private let descriptor: Int32
    private let onAccept: (_ descriptor: Int32, _ peerAddress: String) -> Void
    private var watch: MainLoop.Watch?
    private var closed = false

    /// Watches `descriptor` (listening, nonblocking) until `close()`, which closes it.
    init(descriptor: Int32, onAccept: @escaping (_ descriptor: Int32, _ peerAddress: String) -> Void) {
        self.descriptor = descriptor
        self.onAccept = onAccept
        listen()
    }

    /// Stops accepting and closes the listening socket.
    func close() {
        guard !closed else { return }
        closed = true
        watch?.cancel()
        watch = nil
        Glibc.close(descriptor)
    }

    deinit { close() }

    private func listen() {
        watch = MainLoop.watch(descriptor) { [unowned self] in acceptAll() }
    }

    private func acceptAll() {
        while !closed {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(descriptor, $0, &length) }
            }
            guard fd >= 0 else {
                if errno == EMFILE || errno == ENFILE { rest() }
                return
            }
            // (accept4, which sets both at once, is not in Swift's Glibc module.)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            onAccept(fd, SocketAddress.text(of: address))
        }
    }

    private func rest() {
        watch?.cancel()
        watch = MainLoop.after(Self.restAfterExhaustion) { [weak self] in
            guard let self, !closed else { return }
            listen()
        }
    }
}
