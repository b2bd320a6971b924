// yt-gst — host names to addresses, before any pipeline starts (udpsink only warns about a name it cannot resolve).
import Glibc

public enum NetworkAddress {
    /// Why a host cannot be used: "cannot resolve HOST: Name or service not known", "no route to ADDRESS (...)".
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public var description: String

        public init(description: String) { self.description = description }
    }

    /// `host` as an address (an address stays as it is), with this machine's route to it checked when we are to
    /// send to it or call it (`checkingRoute`).
    ///
    /// - Throws: the `Problem`, in words for a one-line message.
    public static func resolve(_ host: String, port: Int, checkingRoute: Bool) throws(Problem) -> String {
        let address = try firstAddress(of: host)
        if checkingRoute, let problem = routeProblem(to: address, port: port) {
            throw Problem(description: "no route to \(address) (\(problem))")
        }
        return address
    }

    /// The first address of `host` (IPv4 preferred), as text; an address is returned as it is.
    ///
    /// - Throws: "cannot resolve HOST: " and the resolver's message ("Name or service not known").
    private static func firstAddress(of host: String) throws(Problem) -> String {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let list else {
            throw Problem(description: "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
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
            throw Problem(description: "cannot resolve \(host): no address")
        }
        return address
    }

    /// Whether this machine has a route to `address` (a UDP connect sends nothing, but fails at once without one).
    ///
    /// - Returns: nil when there is a route, else the system's reason ("Network is unreachable").
    private static func routeProblem(to address: String, port: Int) -> String? {
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
