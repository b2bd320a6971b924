// yt-gst — what a broadcast asks an Icecast server beside the stream: is it there, why it refused the source,
import Streaming
// and the title that now plays.

extension IcecastEndpoint {
    /// Time allowed for each of these exchanges: the server is a local or nearby one, or it is not there.
    static let probeTimeout: Duration = .milliseconds(1500)

    /// Whether the server accepts connections now; the problem when not ("Connection refused").
    func connectionProblem(timeout: Duration = IcecastEndpoint.probeTimeout) -> String? {
        do { try HTTPProbe.connect(host: host, port: port, timeout: timeout) } catch { return error.description }
        return nil
    }

    /// Why the server refused our source connection (shout2send says only "Could not connect"), in words.
    ///
    /// libshout reports a wrong password and a mount in use alike (a failed login), so the mount is asked for
    /// as a listener would: 200 means another source streams there; anything else, the password was refused.
    func refusal() -> String {
        if let problem = connectionProblem() { return "cannot connect to the server (\(problem))" }
        let status = try? HTTPProbe.status(host: host, port: port, path: mount, timeout: IcecastEndpoint.probeTimeout)
        if status == 200 { return "the mount \(mount) is already in use by another source" }
        return "the server refused the source password"
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
