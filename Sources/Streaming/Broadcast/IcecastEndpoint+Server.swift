// yt-gst — what a broadcast asks an Icecast server beside the stream: is it there, why it refused the source,
// and the title that now plays.

extension IcecastEndpoint {
    /// Time allowed for each of these exchanges: the server is a local or nearby one, or it is not there.
    static let probeTimeout: Duration = .milliseconds(1500)

    /// Whether the server accepts connections now; the problem when not ("Connection refused").
    func connectionProblem(timeout: Duration = IcecastEndpoint.probeTimeout) -> String? {
        do { try HTTPProbe.connect(host: host, port: port, timeout: timeout) } catch { return error.description }
        return nil
    }

    /// Why the server refused our source connection (shout2send says only "Could not connect").
    ///
    /// libshout reports a wrong password and a mount in use alike (a failed login), so the mount is asked for
    /// as a listener would: 200 means another source streams there; anything else, the password was refused.
    func refusal() -> IcecastRefusal {
        if let problem = connectionProblem() { return .unreachable(problem) }
        let status = try? HTTPProbe.status(host: host, port: port, path: mount, timeout: IcecastEndpoint.probeTimeout)
        return status == 200 ? .mountInUse(mount) : .passwordRefused
    }

    /// Sets the mount's now-playing title through Icecast's admin interface (as source clients do), so the
    /// server's status pages show it and listeners get it (ICY metadata for MP3, Vorbis comments for Vorbis).
    ///
    /// - Returns: nil when the server took it, else why not (Icecast 2.4 refuses titles for Opus mounts).
    func announce(title: String) -> String? {
        let path =
            "/admin/metadata?mount=\(HTTPProbe.queryEncoded(mount))&mode=updinfo&song="
            + HTTPProbe.queryEncoded(title)
        do {
            let status = try HTTPProbe.status(
                host: host, port: port, path: path, authorization: (user, password),
                timeout: IcecastEndpoint.probeTimeout)
            return status == 200 ? nil : "the server answered \(status) to the title update"
        } catch {
            return "title update: \(error)"
        }
    }
}

/// Why an Icecast server refused a source (`IcecastEndpoint.refusal()`); its description is the message's words.
public enum IcecastRefusal: Sendable, Equatable, CustomStringConvertible {
    /// The server does not accept connections: the connection's problem.
    case unreachable(String)
    /// Another source streams to the mount.
    case mountInUse(String)
    case passwordRefused

    public var description: String {
        switch self {
        case .unreachable(let problem): "cannot connect to the server (\(problem))"
        case .mountInUse(let mount): "the mount \(mount) is already in use by another source"
        case .passwordRefused: "the server refused the source password"
        }
    }
}
