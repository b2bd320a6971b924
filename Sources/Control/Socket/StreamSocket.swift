import Glibc
// yt-gst — one connected socket on the main loop: bytes in, bytes out, never blocking the loop.
import GstPlayer

/// A connected, nonblocking stream socket (TCP or Unix) served on the main loop's thread.
///
/// What the peer does not read waits in a queue; a peer that lets it grow past `maxQueuedBytes` is disconnected, so
/// a stuck peer costs a bounded amount of memory and never holds up the loop. Every control surface's connections
/// (the IPC socket, JSON-RPC over TCP, HTTP and WebSocket) are built on it.
/// - Note: Not Sendable: used on the main loop's thread only.
public final class StreamSocket {
    /// The peer's address ("127.0.0.1", "::1"); empty for a Unix socket.
    public let peerAddress: String
    /// Bytes of output a peer may leave unread before it is dropped.
    public let maxQueuedBytes: Int
    /// Called with what arrived, on each wake-up; set before the first (the loop calls it on its next turn).
    public var onBytes: (ArraySlice<UInt8>) -> Void = { _ in }
    /// Called once, when the socket closes (by either side).
    public var onClose: () -> Void = {}
    private let descriptor: Int32
    private var output: [UInt8] = []
    private var readWatch: MainLoop.Watch?
    private var writeWatch: MainLoop.Watch?

    /// Takes `descriptor` (nonblocking, connected): it is closed with the socket.
    public init(descriptor: Int32, peerAddress: String = "", maxQueuedBytes: Int = 1 << 20) {
        self.descriptor = descriptor
        self.peerAddress = peerAddress
        self.maxQueuedBytes = maxQueuedBytes
        readWatch = MainLoop.watch(descriptor) { [unowned self] in readAvailable() }
    }

    public var isOpen: Bool { readWatch != nil }

    /// Whether the peer is on this machine's loopback (127.0.0.0/8, ::1) or a Unix socket.
    public var isLoopback: Bool { SocketAddress.isLoopback(peerAddress) }

    /// Bytes queued and not yet taken by the peer.
    public var queuedBytes: Int { output.count }

    /// Queues `bytes` and writes what the socket takes now; drops the peer when the queue passes the bound.
    public func send(_ bytes: some Collection<UInt8>) {
        guard isOpen else { return }
        output.append(contentsOf: bytes)
        flush()
        if isOpen && output.count > maxQueuedBytes { close() }
    }

    /// Closes the connection (writing what fits first) and calls `onClose`.
    public func close() {
        guard isOpen else { return }
        readWatch?.cancel()
        readWatch = nil
        writeWatch?.cancel()
        writeWatch = nil
        if !output.isEmpty {
            _ = output.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        Glibc.close(descriptor)
        onClose()
    }

    deinit { close() }

    private func readAvailable() {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while isOpen {
            let count = read(descriptor, &chunk, chunk.count)
            if count > 0 {
                onBytes(chunk[0..<count])
            } else if count < 0 && (errno == EAGAIN || errno == EINTR) {
                return
            } else {
                close()  // end of file or an error: the peer has gone
                return
            }
        }
    }

    /// Writes as much of the queue as the socket takes; watches for room while something is left.
    private func flush() {
        while !output.isEmpty {
            let written = output.withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if written > 0 {
                output.removeFirst(written)
            } else if written < 0 && errno == EINTR {
                continue
            } else if written < 0 && errno == EAGAIN {
                if writeWatch == nil {
                    writeWatch = MainLoop.watch(descriptor, writable: true) { [unowned self] in flush() }
                }
                return
            } else {
                close()
                return
            }
        }
        writeWatch?.cancel()
        writeWatch = nil
    }
}
