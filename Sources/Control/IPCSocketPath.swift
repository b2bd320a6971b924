// yt-gst — where an IPC socket lives: the path given, or a bare name in $XDG_RUNTIME_DIR.
import Glibc

/// The path of an IPC socket, as `--input-ipc-server` and `yt-gst ctl` take it.
public enum IPCSocketPath {
    /// `name` itself when it holds a "/", else `$XDG_RUNTIME_DIR/name` (the user's private runtime directory, so a
    /// bare name is never created where others can reach it); nil when that variable is unset.
    public static func resolve(_ name: String) -> String? {
        if name.contains("/") { return name }
        guard let directory = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !directory.isEmpty else {
            return nil
        }
        return directory + "/" + name
    }

    /// A `sockaddr_un` for `path`; nil when the path is longer than the kernel takes (107 bytes).
    static func address(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        return address
    }

    /// Runs `body` with `address` as the `sockaddr` pointer bind(2) and connect(2) take.
    static func withSocketAddress<R>(_ address: sockaddr_un, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var address = address
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }
}

/// Why the IPC socket could not be created or reached; `description` is the one line the CLI prints.
public struct IPCSocketError: Error, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// A bare name was given and `$XDG_RUNTIME_DIR` is unset.
        case noRuntimeDirectory
        /// The path is longer than a Unix socket address holds.
        case pathTooLong
        /// Something other than a socket is there: never replaced.
        case notASocket
        /// A system call failed (errno).
        case system(call: String, errno: Int32)
    }

    public var kind: Kind
    /// The path as given.
    public var path: String

    public var description: String {
        switch kind {
        case .noRuntimeDirectory: "\(path): a bare socket name needs XDG_RUNTIME_DIR (or give a path with a /)"
        case .pathTooLong: "\(path): too long for a Unix socket path (at most 107 bytes)"
        case .notASocket: "\(path): exists and is not a socket (not replaced)"
        case .system(let call, let code): "\(path): \(call): \(String(cString: strerror(code)))"
        }
    }
}
