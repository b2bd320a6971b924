// yt-gst — a real Icecast 2 server for tests, inside a lab host: its own config, port and log directory.
//
// Debian's icecast2 refuses to run as root unless told to drop to another user: the config says `<changeowner>`
// nobody/nogroup, and the log directory is one nobody can write. A server can be a relay of another (the scale-out
// path). `stop()` sends SIGTERM by PID and waits: icecast takes more than a second to exit, and the port is only
// free again after that.
import Foundation

/// One icecast2 process in a lab host.
public final class IcecastServer: @unchecked Sendable {
    public static let path = "/usr/bin/icecast2"
    /// Whether icecast2 is installed (scripts/install-deps.sh test installs it).
    public static var available: Bool { FileManager.default.isExecutableFile(atPath: path) }

    public let lab: NetworkLab
    public let host: LabHost
    public let port: Int
    public let sourcePassword: String
    public let adminPassword = "admin-secret"
    /// The temporary directory with the config and the logs.
    public let directory: URL
    private var process: Launched?

    /// Writes the config for a server in `host` on `port`; with `relayOf`, it relays `mounts` of that server
    /// (always on, not on demand). `burstSize` is the bytes a new listener gets at once (Icecast's default: 64 KiB).
    public init(
        lab: NetworkLab, host: LabHost, port: Int = 8000, sourcePassword: String = "source-secret",
        relayOf master: IcecastServer? = nil, mounts: [String] = [], burstSize: Int? = nil
    ) throws {
        self.lab = lab
        self.host = host
        self.port = port
        self.sourcePassword = sourcePassword
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "yt-gst-icecast-\(UUID().uuidString)")
        let logs = directory.appendingPathComponent("log")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        // Icecast drops to nobody before it opens its logs.
        chmod(directory.path, 0o755)
        chmod(logs.path, 0o777)
        var relays = ""
        if let master {
            for mount in mounts {
                relays += """
                    <relay><server>\(master.host.address)</server><port>\(master.port)</port>
                    <mount>\(mount)</mount><local-mount>\(mount)</local-mount><on-demand>0</on-demand>
                    <relay-shoutcast-metadata>1</relay-shoutcast-metadata></relay>

                    """
            }
        }
        let config = """
            <icecast>
              <location>lab</location><admin>test@lab</admin><hostname>\(host.address)</hostname>
              <limits>
                <clients>2000</clients><sources>8</sources><queue-size>524288</queue-size>
                <client-timeout>30</client-timeout><header-timeout>15</header-timeout><source-timeout>3</source-timeout>
                <burst-on-connect>1</burst-on-connect><burst-size>\(burstSize ?? 65_536)</burst-size>
              </limits>
              <authentication>
                <source-password>\(sourcePassword)</source-password><relay-password>relay-secret</relay-password>
                <admin-user>admin</admin-user><admin-password>\(adminPassword)</admin-password>
              </authentication>
              <listen-socket><port>\(port)</port></listen-socket>
              <master-update-interval>1</master-update-interval>
              \(relays)
              <fileserve>1</fileserve>
              <paths>
                <basedir>/usr/share/icecast2</basedir><logdir>\(logs.path)</logdir>
                <webroot>/usr/share/icecast2/web</webroot><adminroot>/usr/share/icecast2/admin</adminroot>
              </paths>
              <logging><accesslog>access.log</accesslog><errorlog>error.log</errorlog><loglevel>3</loglevel></logging>
              <security><chroot>0</chroot><changeowner><user>nobody</user><group>nogroup</group></changeowner></security>
            </icecast>
            """
        try config.write(to: configURL, atomically: true, encoding: .utf8)
        chmod(configURL.path, 0o644)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    var configURL: URL { directory.appendingPathComponent("icecast.xml") }

    /// http://ADDRESS:PORT
    public var baseURL: String { "http://\(host.address):\(port)" }

    /// `icecast://source:PASSWORD@ADDRESS:PORT/MOUNT` for `yt-gst stream --to`.
    public func sourceURL(mount: String, password: String? = nil) -> String {
        "icecast://\(password ?? sourcePassword)@\(host.address):\(port)\(mount)"
    }

    /// Starts the server and waits until it answers on its port (up to 10 s); a server that exits before it answers
    /// is started again, twice at most. Why: beside `stress-ng --cpu 2`, icecast2 once exited 0.26 s after logging
    /// "server started", with nothing on stderr or in its log, and the test that needed it failed.
    public func start() throws {
        var exits: [String] = []
        for _ in 1...3 {
            guard let exited = try startOnce() else { return }
            exits.append(exited)
        }
        throw NetworkLabError(
            description: "icecast2 did not start on \(baseURL), 3 tries: \(exits.joined(separator: " | "))")
    }

    /// One start: nil once the server answers; what it left when it exited before; a thrown error when it still
    /// runs without answering after 10 s.
    private func startOnce() throws -> String? {
        precondition(process == nil, "already running")
        process = try lab.launch(in: host, IcecastServer.path, ["-c", configURL.path])
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if (try? statusJSON()) != nil { return nil }
            guard process?.isRunning == true else { break }
            usleep(50_000)
        }
        let log = (try? String(contentsOf: directory.appendingPathComponent("log/error.log"), encoding: .utf8)) ?? ""
        let running = process?.isRunning == true
        let output = process.map { $0.isRunning ? "still running" : $0.wait(timeout: 1).stderr } ?? ""
        stop()
        let what = "\(output) \(log.suffix(2000))"
        guard !running else { throw NetworkLabError(description: "icecast2 did not start on \(baseURL): \(what)") }
        return what
    }

    /// Stops the server (SIGTERM, then SIGKILL after 10 s) and waits until its process is gone.
    public func stop() {
        guard let process else { return }
        self.process = nil
        guard process.isRunning else { return }
        process.signal(SIGTERM)
        if process.wait(timeout: 10).timedOut { process.signal(SIGKILL) }
    }

    public var isRunning: Bool { process?.isRunning ?? false }

    /// The server's `/status-json.xsl`, fetched with curl from inside the lab host.
    public func statusJSON() throws -> [String: Any] {
        let r = try lab.run(in: host, "/usr/bin/curl", ["-sf", "-m", "3", "\(baseURL)/status-json.xsl"], timeout: 5)
        guard r.status == 0, let data = r.stdout.data(using: .utf8),
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let stats = object["icestats"] as? [String: Any]
        else { throw NetworkLabError(description: "\(baseURL)/status-json.xsl: \(r.status) \(r.stderr)") }
        return stats
    }

    /// The sources (mounts) the server has now, keyed by mount ("/radio.ogg"): Icecast's stats for each (listeners,
    /// title, artist, server_type...).
    public func sources() throws -> [String: [String: Any]] {
        let stats = try statusJSON()
        let list: [[String: Any]]
        switch stats["source"] {
        case let one as [String: Any]: list = [one]
        case let many as [[String: Any]]: list = many
        default: list = []
        }
        var result: [String: [String: Any]] = [:]
        for source in list {
            guard let url = source["listenurl"] as? String, let slash = url.range(of: "/", options: .backwards)
            else { continue }
            result[String(url[slash.lowerBound...])] = source
        }
        return result
    }

    /// The mount's stats, or nil when the server has no such source now.
    public func source(_ mount: String) -> [String: Any]? { (try? sources())?[mount] }

    /// The mount's current listener count as Icecast reports it.
    public func listeners(_ mount: String) -> Int { (source(mount)?["listeners"] as? Int) ?? 0 }

    /// The mount's now-playing title as Icecast reports it (`title` in its stats: what the source last announced).
    public func title(_ mount: String) -> String? { source(mount)?["title"] as? String }

    /// The tail of the server's error log, for failure messages.
    public var errorLog: String {
        let text =
            (try? String(contentsOf: directory.appendingPathComponent("log/error.log"), encoding: .utf8)) ?? ""
        return String(text.suffix(3000))
    }
}
