// yt-gst — a private D-Bus session bus for the MPRIS tests, and players on it.
import Foundation
import TestSupport

/// A session bus of its own (`dbus-run-session`, bounded by `timeout`), ended by `close()` (or by its deadline
/// however the test ends); every program the test starts on it gets its address.
final class PrivateSessionBus {
    let dir: URL
    let address: String
    private let session: Launched
    private let sleeperPID: pid_t

    init() throws {
        dir = try Paths.makeScratch("mpris")
        let script =
            "echo $$ > '\(dir.path)/pid'; echo \"$DBUS_SESSION_BUS_ADDRESS\" > '\(dir.path)/address.tmp';"
            + " mv '\(dir.path)/address.tmp' '\(dir.path)/address'; exec sleep 300"
        session = try Run.launch("/usr/bin/timeout", ["300", "dbus-run-session", "--", "/bin/sh", "-c", script])
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: dir.path + "/address") && Date() < deadline { usleep(10_000) }
        address =
            (try? String(contentsOfFile: dir.path + "/address", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        sleeperPID =
            pid_t(
                (try? String(contentsOfFile: dir.path + "/pid", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        guard !address.isEmpty, sleeperPID > 0 else {
            close()
            throw HarnessError(description: "dbus-run-session did not start a bus")
        }
    }

    /// Ends the session: its child ends, and dbus-run-session stops the bus and exits.
    func close() {
        if sleeperPID > 0 { kill(sleeperPID, SIGTERM) }
        _ = session.wait(timeout: 10)
        Paths.removeScratch(dir)
    }

    var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    /// Runs a D-Bus client (playerctl, gdbus, dbus-send) on this bus, for at most 10 s.
    func run(_ tool: String, _ arguments: [String]) -> RunResult? {
        try? Run.run("/usr/bin/" + tool, arguments, timeout: 10, environment: environment)
    }

    /// playerctl's stdout for `player`, trimmed (nil when it failed).
    func playerctl(_ player: String, _ arguments: String...) -> String? {
        guard let result = run("playerctl", ["-p", player] + arguments), result.status == 0 else { return nil }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The players playerctl lists (their MPRIS names without `org.mpris.MediaPlayer2.`).
    var players: [String] {
        (run("playerctl", ["-l"])?.stdout ?? "").split(separator: "\n").map(String.init)
    }

    /// Waits (up to 15 s) until `player` is listed.
    func waitFor(player: String) -> Bool {
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if players.contains(player) { return true }
            usleep(50_000)
        }
        return false
    }

    /// A property of the Player interface of `name`, as gdbus prints it.
    func property(_ property: String, of name: String = "org.mpris.MediaPlayer2.yt_gst") -> String {
        let result = run(
            "gdbus",
            [
                "call", "--session", "-d", name, "-o", "/org/mpris/MediaPlayer2", "-m",
                "org.freedesktop.DBus.Properties.Get", "org.mpris.MediaPlayer2.Player", property,
            ])
        return result?.stdout ?? ""
    }

    /// Starts `dbus-monitor` on the player's signals for `seconds`; read `output` after it ends.
    func monitor(seconds: Int) throws -> (Launched, String) {
        let output = dir.appendingPathComponent("monitor-\(UUID().uuidString)").path
        let rules = [
            "type='signal',interface='org.freedesktop.DBus.Properties',path='/org/mpris/MediaPlayer2'",
            "type='signal',interface='org.mpris.MediaPlayer2.Player'",
        ]
        let command =
            "exec timeout \(seconds) dbus-monitor " + rules.map { "\"\($0)\"" }.joined(separator: " ")
            + " > '\(output)'"
        return (try Run.launch("/bin/sh", ["-c", command], environment: environment), output)
    }

    /// `yt-gst play` on this bus into a clock-paced fakesink, with `extra` options.
    func play(_ files: [String], _ extra: [String] = [], environment: [String: String]? = nil) throws -> Launched {
        try Run.launch(
            Paths.binary, ["play"] + files + ["--sink", "fakesink sync=true", "--status", "none"] + extra,
            environment: environment ?? self.environment)
    }
}

enum MPRISFiles {
    /// A `seconds` long tone at `path` with LIST/INFO title, artist and album.
    static func tagged(_ path: String, seconds: Int, title: String, artist: String, album: String) throws -> String {
        var bytes = SyntheticWAV.tone(frames: seconds * 8_000, rate: 8_000, channels: 1).bytes
        var info: [UInt8] = Array("INFO".utf8)
        for (id, value) in [("INAM", title), ("IART", artist), ("IPRD", album)] {
            var text = Array(value.utf8) + [0]
            if text.count % 2 == 1 { text.append(0) }
            info += Array(id.utf8) + littleEndian(UInt32(text.count)) + text
        }
        bytes += Array("LIST".utf8) + littleEndian(UInt32(info.count)) + info
        bytes.replaceSubrange(4..<8, with: littleEndian(UInt32(bytes.count - 8)))
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(value >> ($0 * 8) & 0xff) } }
}
