// yt-gst — an Icecast mount to send to: icecast://[USER:]PASSWORD@HOST[:PORT]/MOUNT.
import Streaming
import WAV

/// Where `stream` sends a broadcast: an Icecast 2 server's mount, with the source credentials.
struct IcecastEndpoint: Equatable, CustomStringConvertible {
    /// Icecast's default port.
    static let defaultPort = 8000

    /// The source user; Icecast 2 expects "source" unless a mount is configured otherwise.
    var user: String
    var password: String
    var host: String
    var port: Int
    /// The mount, with its leading slash ("/radio.ogg").
    var mount: String

    /// Parses the part after "icecast://" of `url`: `[USER:]PASSWORD@HOST[:PORT]/MOUNT`, percent-decoded.
    ///
    /// - Throws: a `UsageError` that names the part missing or wrong.
    init(parsing rest: Substring, in url: String) throws(UsageError) {
        guard let at = rest.lastIndex(of: "@") else {
            throw UsageError("\(url): no password (expected icecast://[USER:]PASSWORD@HOST[:PORT]/MOUNT)")
        }
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
        mount = String(address[slash...])
        if mount.contains(where: { $0 == "?" || $0 == "#" || $0 == " " }) {
            throw UsageError("\(url): \"\(mount)\" is not a mount name")
        }
        let hostPort = address[..<slash]
        if hostPort.hasPrefix("[") || hostPort.contains(":") {
            let (host, port) = try StreamURL.hostAndPort(hostPort, in: url, maxPort: 65_535)
            guard let host else { throw UsageError("\(url): no host") }
            self.host = host
            self.port = port
        } else {
            guard !hostPort.isEmpty else { throw UsageError("\(url): no host") }
            if hostPort.contains(where: { $0 == " " }) {
                throw UsageError("\(url): \"\(hostPort)\" is not a host name or address")
            }
            host = String(hostPort)
            port = IcecastEndpoint.defaultPort
        }
    }

    /// The mount's URL without the credentials, as messages show it: icecast://HOST:PORT/MOUNT.
    var description: String { "icecast://\(hostForURL):\(port)\(mount)" }

    /// The URL listeners play: http://HOST:PORT/MOUNT.
    var listenURL: String { "http://\(hostForURL):\(port)\(mount)" }

    private var hostForURL: String { host.contains(":") ? "[\(host)]" : host }
}
