import Glibc
// yt-gst — the listening Unix socket of `--input-ipc-server`: accepts clients on the main loop.
import GstPlayer

/// A Unix socket that accepts any number of clients, each served by an `IPCConnection` on the main loop's thread.
///
/// The socket is created 0600 (only its owner may connect: the protocol has no authentication), an old socket left
/// at the path is replaced, anything else there is refused, and the socket file is removed by `close()`.
/// - Note: Not Sendable: create, use and close it on the thread that runs the session's loop.
public final class IPCServer {
    /// The socket's path (resolved: a bare name is in `$XDG_RUNTIME_DIR`).
    public let path: String
    private var acceptor: SocketAcceptor?
    private var connections: [ObjectIdentifier: IPCConnection] = [:]
    private let handle: (String, IPCConnection) -> Void
    private var nextClientNumber = 0

    /// Listens at `name` (see `IPCSocketPath.resolve`); `handle` gets each line a client sends, on the loop's thread.
    public init(name: String, handle: @escaping (_ line: String, _ from: IPCConnection) -> Void) throws(IPCSocketError)
    {
        guard let path = IPCSocketPath.resolve(name) else {
            throw IPCSocketError(kind: .noRuntimeDirectory, path: name)
        }
        guard let address = IPCSocketPath.address(path) else { throw IPCSocketError(kind: .pathTooLong, path: name) }
        self.path = path
        self.handle = handle
        let descriptor = try Self.listen(at: path, address: address)
        acceptor = SocketAcceptor(descriptor: descriptor) { [unowned self] fd, _ in accept(fd) }
    }

    /// Clients connected now.
    public var clientCount: Int { connections.count }

    /// Sends `line` to every client (an event).
    public func broadcast(_ line: String) {
        for connection in Array(connections.values) { connection.send(line) }
    }

    /// Every connection, for per-client work (property observations).
    public var clients: [IPCConnection] { Array(connections.values) }

    /// Stops accepting, closes every client (after a last attempt to write what is queued) and removes the socket.
    public func close() {
        guard let acceptor else { return }
        acceptor.close()
        self.acceptor = nil
        for connection in Array(connections.values) { connection.close() }
        unlink(path)
    }

    deinit { close() }

    private static func listen(at path: String, address: sockaddr_un) throws(IPCSocketError) -> Int32 {
        var status = stat()
        if lstat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFSOCK else { throw IPCSocketError(kind: .notASocket, path: path) }
            unlink(path)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw IPCSocketError(kind: .system(call: "socket", errno: errno), path: path) }
        // The file is made with the umask's bits cleared: 0600 from the start, no moment when others could connect.
        let mask = umask(0o177)
        let bound = IPCSocketPath.withSocketAddress(address) { bind(fd, $0, $1) }
        let code = errno
        umask(mask)
        guard bound == 0 else {
            Glibc.close(fd)
            throw IPCSocketError(kind: .system(call: "bind", errno: code), path: path)
        }
        guard Glibc.listen(fd, 64) == 0 else {
            let code = errno
            Glibc.close(fd)
            unlink(path)
            throw IPCSocketError(kind: .system(call: "listen", errno: code), path: path)
        }
        return fd
    }

    private func accept(_ fd: Int32) {
        nextClientNumber += 1
        let connection = IPCConnection(
            socket: StreamSocket(descriptor: fd), name: "ipc-\(nextClientNumber)",
            onLine: { [unowned self] line, connection in handle(line, connection) },
            onClose: { [unowned self] connection in connections[ObjectIdentifier(connection)] = nil })
        connections[ObjectIdentifier(connection)] = connection
    }
}
