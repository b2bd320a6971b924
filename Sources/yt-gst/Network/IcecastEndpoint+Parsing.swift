// yt-gst — an Icecast mount as users type it in `stream --to`.
import Streaming

extension IcecastEndpoint {
    /// Parses the part after "icecast://" of `url`: `[USER:]PASSWORD@HOST[:PORT]/MOUNT`, percent-decoded.
    ///
    /// - Throws: a `UsageError` that names the part missing or wrong.
    init(parsing rest: Substring, in url: String) throws(UsageError) {
        guard let at = rest.lastIndex(of: "@") else {
            throw UsageError("\(url): no password (expected icecast://[USER:]PASSWORD@HOST[:PORT]/MOUNT)")
        }
        let user: String, password: String, host: String, port: Int
        let credentials = rest[..<at]
        if let colon = credentials.firstIndex(of: ":") {
            user = try StreamURL.percentDecoded(credentials[..<colon], in: url)
            password = try StreamURL.percentDecoded(credentials[credentials.index(after: colon)...], in: url)
        } else {
            user = "source"
            password = try StreamURL.percentDecoded(credentials, in: url)
        }
        guard !user.isEmpty, !password.isEmpty else { throw UsageError("\(url): empty user or password") }
        let address = rest[rest.index(after: at)...]
        guard let slash = address.firstIndex(of: "/"), address.index(after: slash) < address.endIndex else {
            throw UsageError("\(url): no mount (expected icecast://PASSWORD@HOST:PORT/MOUNT, e.g. /radio.ogg)")
        }
        let mount = String(address[slash...])
        if mount.contains(where: { $0 == "?" || $0 == "#" || $0 == " " }) {
            throw UsageError("\(url): \"\(mount)\" is not a mount name")
        }
        let hostPort = address[..<slash]
        if hostPort.hasPrefix("[") || hostPort.contains(":") {
            let (parsedHost, parsedPort) = try StreamURL.hostAndPort(hostPort, in: url, maxPort: 65_535)
            guard let parsedHost else { throw UsageError("\(url): no host") }
            host = parsedHost
            port = parsedPort
        } else {
            guard !hostPort.isEmpty else { throw UsageError("\(url): no host") }
            if hostPort.contains(where: { $0 == " " }) {
                throw UsageError("\(url): \"\(hostPort)\" is not a host name or address")
            }
            host = String(hostPort)
            port = IcecastEndpoint.defaultPort
        }
        self.init(user: user, password: password, host: host, port: port, mount: mount)
    }
}
