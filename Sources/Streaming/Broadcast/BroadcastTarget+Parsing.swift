// yt-gst — the broadcast destinations of `stream --to` as users type them, and the Icecast mounts among them.

extension BroadcastTarget {
    /// Parses `icecast://[USER:]PASSWORD@HOST[:PORT]/MOUNT`, `hls:DIR` or `file:///DIR/NAME.m3u8`.
    ///
    /// - Throws: an error that names the problem.
    public init(_ text: String) throws(URLSyntaxError) {
        let lower = text.lowercased()
        if lower.hasPrefix("icecast://") {
            self = .icecast(try IcecastEndpoint(parsing: text.dropFirst("icecast://".count), in: text))
        } else if lower.hasPrefix("hls:") {
            var directory = String(text.dropFirst(4))
            if directory.hasPrefix("//") { directory = String(directory.dropFirst(2)) }
            guard !directory.isEmpty else {
                throw URLSyntaxError("\(text): hls: needs a directory, e.g. hls:/var/www/radio")
            }
            if directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
            self = .hls(directory: directory, playlist: BroadcastTarget.defaultPlaylist)
        } else if lower.hasPrefix("file://") && lower.hasSuffix(".m3u8") {
            let path = try StreamURL.percentDecoded(text.dropFirst("file://".count), in: text)
            guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/") else {
                throw URLSyntaxError("\(text): expected file:///DIRECTORY/NAME.m3u8 (an absolute path)")
            }
            let name = String(path[path.index(after: slash)...])
            guard name.count > ".m3u8".count else { throw URLSyntaxError("\(text): no playlist name") }
            self = .hls(directory: slash == path.startIndex ? "/" : String(path[..<slash]), playlist: name)
        } else {
            throw URLSyntaxError(
                "\(text): not a broadcast destination (icecast://..., hls:DIR or file:///.../NAME.m3u8)")
        }
    }
}

extension IcecastEndpoint {
    /// Parses the part after "icecast://" of `url`: `[USER:]PASSWORD@HOST[:PORT]/MOUNT`, percent-decoded.
    ///
    /// - Throws: an error that names the part missing or wrong.
    init(parsing rest: Substring, in url: String) throws(URLSyntaxError) {
        guard let at = rest.lastIndex(of: "@") else {
            throw URLSyntaxError("\(url): no password (expected icecast://[USER:]PASSWORD@HOST[:PORT]/MOUNT)")
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
        guard !user.isEmpty, !password.isEmpty else { throw URLSyntaxError("\(url): empty user or password") }
        let address = rest[rest.index(after: at)...]
        guard let slash = address.firstIndex(of: "/"), address.index(after: slash) < address.endIndex else {
            throw URLSyntaxError("\(url): no mount (expected icecast://PASSWORD@HOST:PORT/MOUNT, e.g. /radio.ogg)")
        }
        let mount = String(address[slash...])
        if mount.contains(where: { $0 == "?" || $0 == "#" || $0 == " " }) {
            throw URLSyntaxError("\(url): \"\(mount)\" is not a mount name")
        }
        let hostPort = address[..<slash]
        if hostPort.hasPrefix("[") || hostPort.contains(":") {
            let (parsedHost, parsedPort) = try StreamURL.hostAndPort(hostPort, in: url, maxPort: 65_535)
            guard let parsedHost else { throw URLSyntaxError("\(url): no host") }
            host = parsedHost
            port = parsedPort
        } else {
            guard !hostPort.isEmpty else { throw URLSyntaxError("\(url): no host") }
            if hostPort.contains(where: { $0 == " " }) {
                throw URLSyntaxError("\(url): \"\(hostPort)\" is not a host name or address")
            }
            host = String(hostPort)
            port = IcecastEndpoint.defaultPort
        }
        self.init(user: user, password: password, host: host, port: port, mount: mount)
    }
}
