import Glibc

// yt-gst — IPv4 and IPv6 socket addresses from and to text.

/// Socket addresses as the control surfaces show and take them.
enum SocketAddress {
    /// An IPv4 or IPv6 address (a colon makes it IPv6) and port as bind(2) and connect(2) take it: its family, the
    /// address and its length; nil when `host` is not a numeric address.
    struct Numeric {
        var family: Int32
        var storage = sockaddr_storage()
        var length: socklen_t

        init?(host: String, port: Int) {
            let networkPort = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
            if host.contains(":") {
                var ipv6 = sockaddr_in6()
                ipv6.sin6_family = sa_family_t(AF_INET6)
                ipv6.sin6_port = networkPort
                guard inet_pton(AF_INET6, host, &ipv6.sin6_addr) == 1 else { return nil }
                withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: ipv6, as: sockaddr_in6.self) }
                (family, length) = (AF_INET6, socklen_t(MemoryLayout<sockaddr_in6>.size))
            } else {
                var ipv4 = sockaddr_in()
                ipv4.sin_family = sa_family_t(AF_INET)
                ipv4.sin_port = networkPort
                guard inet_pton(AF_INET, host, &ipv4.sin_addr) == 1 else { return nil }
                withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: ipv4, as: sockaddr_in.self) }
                (family, length) = (AF_INET, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }

        /// Calls `body` with the address as a `sockaddr` pointer and its length (bind, connect).
        func withSocketAddress<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
            withUnsafePointer(to: storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) } }
        }
    }

    /// The numeric text of an accepted peer's address ("192.0.2.1", "::1"; an IPv4-mapped IPv6 address as IPv4);
    /// empty for a Unix socket.
    static func text(of address: sockaddr_storage) -> String {
        var copy = address
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch Int32(address.ss_family) {
        case AF_INET:
            withUnsafePointer(to: &copy) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    var raw = pointer.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &raw, &buffer, socklen_t(buffer.count))
                }
            }
        case AF_INET6:
            withUnsafePointer(to: &copy) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    var raw = pointer.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count))
                }
            }
        default:
            return ""
        }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.hasPrefix("::ffff:") && text.contains(".") ? String(text.dropFirst(7)) : text
    }

    /// Whether `text` is a loopback address (127.0.0.0/8 or ::1), or empty (a Unix socket's peer).
    static func isLoopback(_ text: String) -> Bool {
        text.isEmpty || text == "::1" || text.hasPrefix("127.")
    }
}
