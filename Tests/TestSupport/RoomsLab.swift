// yt-gst — the rooms lab for tests: a control service (Snapcast's snapserver or `yt-gst stream --control`) with
// its rooms in a private network namespace, checked by PyPI's `snapcast` library (Tests/interop/rooms_lab.py and
// snapcast_client_check.py; see their headers). This runs the lab and leaves nothing of it, however it ended.
import Foundation

public enum RoomsLab {
    public static let script = Paths.packageRoot.appendingPathComponent("Tests/interop/rooms_lab.py").path

    /// A python3 on PATH that has PyPI's snapcast (`scripts/install-deps.sh test` installs it with pip).
    public static let python: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        return path.split(separator: ":").map { "\($0)/python3" }.first { candidate in
            FileManager.default.isExecutableFile(atPath: candidate)
                && (try? Run.run(candidate, ["-c", "import snapcast.control"], timeout: 30).status) == 0
        }
    }()

    /// Whether the lab can run: namespaces (root, iproute2), Snapcast, the private PulseAudio and the library.
    public static var available: Bool {
        NetworkLab.available && python != nil
            && ProcessInfo.processInfo.environment["PULSE_SERVER"] != nil
            && ["/usr/bin/snapserver", "/usr/bin/snapclient", setpriv].allSatisfy(FileManager.default.isExecutableFile)
    }

    /// Runs `rooms_lab.py ARGUMENTS` for up to `seconds` (then kills it); every process that carries its marker and
    /// its namespace (`ytn<PID>i`) are gone afterwards.
    public static func run(_ arguments: [String], within seconds: Double) throws -> RunResult {
        guard let python else { throw NetworkLabError(description: "no python3 with PyPI's snapcast on PATH") }
        let marker = ProcessMarker()
        let process = try Run.launch(
            setpriv, ["--pdeathsig", "KILL", python, script] + arguments, environment: marker.environment)
        let result = process.wait(timeout: seconds)
        marker.killAll()
        NetworkLab.removeNamespaces(withPrefix: "\(NetworkLab.namePrefix)\(process.pid)i")
        return result
    }

    static let setpriv = "/usr/bin/setpriv"
}
