// yt-gst — an Icecast mount to send to: icecast://[USER:]PASSWORD@HOST[:PORT]/MOUNT.

/// Where `stream` sends a broadcast: an Icecast 2 server's mount, with the source credentials.
public struct IcecastEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// Icecast's default port.
    public static let defaultPort = 8000

    /// The source user; Icecast 2 expects "source" unless a mount is configured otherwise.
    public var user: String
    public var password: String
    public var host: String
    public var port: Int
    /// The mount, with its leading slash ("/radio.ogg").
    public var mount: String

    public init(
        user: String = "source", password: String, host: String, port: Int = IcecastEndpoint.defaultPort, mount: String
    ) {
        self.user = user
        self.password = password
        self.host = host
        self.port = port
        self.mount = mount
    }

    /// The mount's URL without the credentials, as messages show it: icecast://HOST:PORT/MOUNT.
    public var description: String { "icecast://\(hostForURL):\(port)\(mount)" }

    /// The URL listeners play: http://HOST:PORT/MOUNT.
    public var listenURL: String { "http://\(hostForURL):\(port)\(mount)" }

    private var hostForURL: String { host.contains(":") ? "[\(host)]" : host }
}
