// yt-gst — Snapcast's clients work with yt-gst's control service unchanged: PyPI's `snapcast` (the library Home
// Assistant's Snapcast integration drives) lists the rooms, changes volume, mute, names and latency, and sees
// another connection's changes as notifications (Tests/interop/snapcast_client_check.py). The same check against
// Debian's real snapserver 0.26 shows that it checks Snapcast's API, not ours.
import Foundation
import TestSupport
import Testing

@Suite(
    .serialized,
    .enabled(
        if: RoomsLab.available,
        "needs root, iproute2, snapserver/snapclient, PyPI snapcast and `make test`'s PulseAudio")
)
struct SnapcastInteropTests {
    /// Every check the script makes with two rooms and a restart; each must print an "ok" line.
    static let checks = [
        "framing", "rpc-version", "list", "get-status", "unknown-method", "client-volume", "client-mute",
        "client-unmute", "group-mute", "group-unmute", "client-name", "client-latency", "group-name",
        "restart-keeps-config", "restore",
    ]

    init() { NetworkLab.removeStale() }

    /// The reference: snapserver 0.26 and two snapclients pass every check. Not the restart: it passed against
    /// snapserver in most runs by hand (`rooms_lab.py check --peer snapcast --restart`), but in about 1 of 8 on a
    /// loaded machine snapserver logged the client's Hello and the library got no Client.OnConnect for it.
    @Test func theCheckPassesAgainstSnapserver() throws {
        let result = try RoomsLab.run(["check", "--peer", "snapcast", "--receivers", "2"], within: 120)
        expectEveryCheck(Self.checks.filter { $0 != "restart-keeps-config" }, passedIn: result)
    }

    /// yt-gst's hub with two `yt-gst receive` rooms passes the same checks, and pauses and resumes the stream too.
    @Test func theCheckPassesAgainstYtGst() throws {
        let result = try RoomsLab.run(
            [
                "check", "--peer", "yt-gst", "--binary", Paths.binary, "--receivers", "2", "--restart",
                "--stream-control",
            ],
            within: 150)
        expectEveryCheck(Self.checks + ["stream-control"], passedIn: result)
    }

    /// Two senders, each a hub: each lists its own rooms and no other; a room's name, volume and delay set through
    /// its hub are kept when the receiver restarts and when the sender restarts.
    @Test func twoHubsListTheirOwnRoomsAndARestartedRoomKeepsItsConfig() throws {
        let result = try RoomsLab.run(["two-hubs", "--binary", Paths.binary], within: 150)
        expectEveryCheck(
            [
                "hub-1705-lists-its-rooms", "hub-1805-lists-its-rooms", "receiver-restart-keeps-name-volume-delay",
                "sender-restart-keeps-name-volume-delay", "other-hub-unchanged",
            ], passedIn: result)
    }

    private func expectEveryCheck(_ names: [String], passedIn result: RunResult) {
        print(result.stdout)
        #expect(result.status == 0, "\(result.termination): \(result.stdout)\n\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        for name in names {
            #expect(lines.contains { $0.hasPrefix("ok \(name):") }, "no ok line for \(name): \(result.stdout)")
        }
    }
}
