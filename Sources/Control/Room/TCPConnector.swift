import Glibc
// yt-gst — a TCP connection made without blocking the loop: the receiver's way to its hub.
import GstPlayer

/// Connects to HOST:PORT (an IPv4 or IPv6 address) on the main loop and hands over the connected `StreamSocket`,
/// or why it failed ("Connection refused", "timed out"), once; `cancel()` calls it off.
/// - Note: Not Sendable: used on the main loop's thread only.
final class TCPConnector {
    private var descriptor: Int32 = -1
    private var watch: MainLoop.Watch?
    private var deadline: MainLoop.Watch?
    private var done: ((Result<StreamSocket, TCPConnectError>) -> Void)?
    let host: String

    /// Starts connecting; `done` is called on a later turn of the loop, within `timeout`.
    init(host: String, port: Int, timeout: Duration, done: @escaping (Result<StreamSocket, TCPConnectError>) -> Void) {
        self.host = host
        self.done = done
        guard let address = SocketAddress.Numeric(host: host, port: port) else {
            later(.failure(TCPConnectError(reason: "not an IP address")))
            return
        }
        descriptor = socket(
            address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        let connecting = descriptor >= 0 && address.withSocketAddress { connect(descriptor, $0, $1) } == 0
        guard connecting || (descriptor >= 0 && errno == EINPROGRESS) else {
            later(.failure(TCPConnectError(reason: String(cString: strerror(errno)))))
            return
        }
        watch = MainLoop.watch(descriptor, writable: true) { [unowned self] in finishConnecting() }
        deadline = MainLoop.after(timeout) { [unowned self] in finish(.failure(TCPConnectError(reason: "timed out"))) }
    }

    /// Calls it off (`done` is not called); the socket, if any, is closed.
    func cancel() {
        done = nil
        finish(.failure(TCPConnectError(reason: "cancelled")))
    }

    deinit { cancel() }

    /// The socket became writable: connected, or failed (SO_ERROR says which).
    private func finishConnecting() {
        var code: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &code, &size)
        guard code == 0 else { return finish(.failure(TCPConnectError(reason: String(cString: strerror(code))))) }
        let fd = descriptor
        descriptor = -1
        finish(.success(StreamSocket(descriptor: fd, peerAddress: host)))
    }

    /// Reports once on the next turn of the loop (never from inside `init`).
    private func later(_ result: Result<StreamSocket, TCPConnectError>) {
        deadline = MainLoop.after(.zero) { [unowned self] in finish(result) }
    }

    private func finish(_ result: Result<StreamSocket, TCPConnectError>) {
        watch?.cancel()
        watch = nil
        deadline?.cancel()
        deadline = nil
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        let done = self.done
        self.done = nil
        done?(result)
    }
}

/// Why a connection could not be made (strerror's words, or "timed out").
struct TCPConnectError: Error {
    var reason: String
}
