import Glibc
// yt-gst — a listening TCP socket on the main loop (the control service's JSON-RPC and HTTP ports).
import GstPlayer

/// Why a TCP port could not be listened on: "127.0.0.1:1705: Address already in use".
public struct ListenError: Error, Equatable, CustomStringConvertible {
    public var address: String
    public var port: Int
    /// The system's words for it (strerror), or why the address is not one.
    public var reason: String

    public var description: String {
        (address.contains(":") ? "[\(address)]" : address) + ":\(port): \(reason)"
    }
}

/// Listens on ADDRESS:PORT (an IPv4 or IPv6 address; "" for every IPv4 address) and hands each accepted
/// connection to `onAccept` as a `StreamSocket`, on the main loop's thread, until `close()`.
/// - Note: Not Sendable: create, use and close it on the thread that runs the loop.
public final class TCPListener {
    public let address: String
    /// The port listened on (the one the system chose when asked for 0).
    public let port: Int
    private let acceptor: SocketAcceptor

    public init(
        address: String, port: Int, maxQueuedBytes: Int = 1 << 20, onAccept: @escaping (StreamSocket) -> Void
    ) throws(ListenError) {
        let host = address.isEmpty ? "0.0.0.0" : address
        let (descriptor, bound) = try Self.listen(host: host, port: port)
        self.address = host
        self.port = bound
        acceptor = SocketAcceptor(descriptor: descriptor) { fd, peer in
            onAccept(StreamSocket(descriptor: fd, peerAddress: peer, maxQueuedBytes: maxQueuedBytes))
        }
    }

    /// Stops accepting (connections already accepted stay open).
    public func close() { acceptor.close() }

    private static func listen(host: String, port: Int) throws(ListenError) -> (Int32, Int) {
        func failure(_ reason: String) -> ListenError { ListenError(address: host, port: port, reason: reason) }
        guard (0...65_535).contains(port) else { throw failure("the port must be a number from 0 to 65535") }
        guard let address = SocketAddress.Numeric(host: host, port: port) else { throw failure("not an IP address") }
        let fd = socket(
            address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw failure(String(cString: strerror(errno))) }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound = address.withSocketAddress { bind(fd, $0, $1) }
        guard bound == 0, Glibc.listen(fd, 128) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw failure(reason)
        }
        return (fd, boundPort(of: fd) ?? port)
    }

    /// The port a socket is bound to (the system's choice for port 0).
    private static func boundPort(of fd: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard ok == 0 else { return nil }
        return withUnsafeBytes(of: storage) { raw in
            // sin_port and sin6_port sit at the same offset, in network order.
            Int(UInt16(bigEndian: raw.load(fromByteOffset: 2, as: UInt16.self)))
        }
    }
}
