// yt-gst — host names to addresses, before any pipeline starts (udpsink only warns about a name it cannot resolve).
import Glibc

enum NetworkAddress {
    /// The first address of `host` (IPv4 preferred), as text; an address is returned as it is.
    ///
    /// - Returns: the address, or the resolver's message ("Name or service not known").
    static func resolve(_ host: String) -> Result<String, ResolveError> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let list else {
            return .failure(ResolveError(message: String(cString: gai_strerror(status))))
        }
        defer { freeaddrinfo(list) }
        var found: [String] = []
        var node: UnsafeMutablePointer<addrinfo>? = list
        while let entry = node {
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(
                entry.pointee.ai_addr, entry.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST)
                == 0
            {
                found.append(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            node = entry.pointee.ai_next
        }
        guard let address = found.first(where: { !$0.contains(":") }) ?? found.first else {
            return .failure(ResolveError(message: "no address"))
        }
        return .success(address)
    }

    struct ResolveError: Error {
        var message: String
    }

    /// Whether this machine has a route to `address` (a UDP connect sends nothing, but fails at once without one).
    ///
    /// - Returns: nil when there is a route, else the system's reason ("Network is unreachable").
    static func routeProblem(to address: String, port: Int) -> String? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        hints.ai_flags = AI_NUMERICHOST
        var list: UnsafeMutablePointer<addrinfo>? = nil
        guard getaddrinfo(address, String(port), &hints, &list) == 0, let entry = list else { return nil }
        defer { freeaddrinfo(list) }
        let fd = socket(entry.pointee.ai_family, entry.pointee.ai_socktype, 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard connect(fd, entry.pointee.ai_addr, entry.pointee.ai_addrlen) == 0 else {
            return String(cString: strerror(errno))
        }
        return nil
    }
}
