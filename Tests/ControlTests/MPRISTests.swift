// yt-gst — `yt-gst play` on MPRIS 2, driven as the desktop drives it (playerctl, gdbus, dbus-send) on a private bus.
import Foundation
import TestSupport
import Testing

@Suite(.serialized) struct MPRISTests {
    /// Status, play-pause (and its PropertiesChanged), position, a seek (and its Seeked), volume, metadata (artist
    /// as an array), next, and quitting through Stop.
    @Test func playerctlSteersPlay() throws {
        let bus = try PrivateSessionBus()
        defer { bus.close() }
        let first = try MPRISFiles.tagged(
            bus.dir.path + "/one.wav", seconds: 30, title: "First Song", artist: "The Band", album: "Album")
        let second = try MPRISFiles.tagged(
            bus.dir.path + "/two.wav", seconds: 30, title: "Second Song", artist: "Other", album: "Album")
        let player = try bus.play([first, second])
        defer { _ = player.wait(timeout: 0) }
        try #require(bus.waitFor(player: "yt_gst"))
        #expect(bus.playerctl("yt_gst", "status") == "Playing")
        #expect(bus.playerctl("yt_gst", "metadata", "xesam:title") == "First Song")
        #expect(bus.playerctl("yt_gst", "metadata", "mpris:length") == "30000000")
        #expect(bus.playerctl("yt_gst", "metadata", "mpris:trackid") == "'/org/yt_gst/track/0'")
        let metadata = bus.property("Metadata")
        #expect(metadata.contains("'xesam:artist': <['The Band']>"), "\(metadata)")
        #expect(metadata.contains("'xesam:url': <'file://\(first)'>"), "\(metadata)")

        let (monitor, signals) = try bus.monitor(seconds: 6)
        usleep(500_000)  // dbus-monitor has subscribed
        let pressed = Date()
        #expect(bus.playerctl("yt_gst", "play-pause") != nil)
        #expect(bus.playerctl("yt_gst", "status") == "Paused")
        let pausedAt = Double(bus.playerctl("yt_gst", "position") ?? "") ?? -1
        usleep(500_000)
        #expect(Double(bus.playerctl("yt_gst", "position") ?? "") == pausedAt, "a paused position stays")
        #expect(bus.playerctl("yt_gst", "position", "12") != nil)
        usleep(300_000)
        let position = Double(bus.playerctl("yt_gst", "position") ?? "") ?? -1
        #expect(position >= 12 && position < 13, "position \(position)")
        #expect(bus.playerctl("yt_gst", "volume", "0.4") != nil)
        #expect(bus.playerctl("yt_gst", "volume") == "0.400000")
        _ = monitor.wait(timeout: 15)
        let text = (try? String(contentsOfFile: signals, encoding: .utf8)) ?? ""
        let paused = MonitorSignal.all(in: text).first { $0.body.contains("string \"Paused\"") }
        // Loose under load: the point is that the change is signalled, at once rather than at some later tick.
        #expect(paused.map { $0.time - pressed.timeIntervalSince1970 < 2 } == true, "\(text)")
        let seeked = MonitorSignal.all(in: text).first { $0.member == "Seeked" }
        #expect(seeked.map { $0.body.contains("int64 12000000") } == true, "\(text)")
        #expect(text.contains("string \"Volume\""), "\(text)")

        #expect(bus.playerctl("yt_gst", "play-pause") != nil)
        #expect(bus.playerctl("yt_gst", "next") != nil)
        let deadline = Date().addingTimeInterval(10)
        while bus.playerctl("yt_gst", "metadata", "xesam:title") != "Second Song" && Date() < deadline {
            usleep(50_000)
        }
        #expect(bus.playerctl("yt_gst", "metadata", "xesam:title") == "Second Song")
        #expect(bus.playerctl("yt_gst", "metadata", "xesam:artist") == "Other")
        #expect(bus.property("CanGoNext").contains("false"))
        #expect(bus.playerctl("yt_gst", "stop") != nil)
        let result = player.wait(timeout: 20)
        #expect(result.termination == .exited(0), "\(result.stderr)")
    }

    /// OpenUri takes a file:// WAV only: anything else is a D-Bus error and playback goes on.
    @Test func loopStatusAndShuffleAreSetWhilePlaying() throws {
        let bus = try PrivateSessionBus()
        defer { bus.close() }
        let file = try MPRISFiles.tagged(
            bus.dir.path + "/one.wav", seconds: 30, title: "Song", artist: "Band", album: "Album")
        let player = try bus.play([file])
        defer { _ = player.wait(timeout: 0) }
        try #require(bus.waitFor(player: "yt_gst"))
        #expect(bus.playerctl("yt_gst", "loop") == "None")
        let (monitor, signals) = try bus.monitor(seconds: 3)
        usleep(500_000)  // dbus-monitor has subscribed
        #expect(bus.playerctl("yt_gst", "loop", "Playlist") != nil)
        #expect(bus.playerctl("yt_gst", "loop") == "Playlist")
        #expect(bus.playerctl("yt_gst", "shuffle", "On") != nil)
        #expect(bus.playerctl("yt_gst", "shuffle") == "On")
        _ = monitor.wait(timeout: 15)
        let text = (try? String(contentsOfFile: signals, encoding: .utf8)) ?? ""
        let changed = MonitorSignal.all(in: text).filter { $0.member == "PropertiesChanged" }
        #expect(changed.contains { $0.body.contains("string \"Playlist\"") }, "\(text)")
        #expect(changed.contains { $0.body.contains("string \"Shuffle\"") }, "\(text)")
        #expect(bus.playerctl("yt_gst", "loop", "Track") != nil)
        #expect(bus.playerctl("yt_gst", "loop") == "Track")
        #expect(bus.playerctl("yt_gst", "stop") != nil)
        #expect(player.wait(timeout: 20).termination == .exited(0))
    }

    @Test func openUriOfSomethingElseIsAnError() throws {
        let bus = try PrivateSessionBus()
        defer { bus.close() }
        let file = try MPRISFiles.tagged(bus.dir.path + "/a.wav", seconds: 30, title: "A", artist: "B", album: "C")
        let text = bus.dir.path + "/notes.txt"
        try Data("not audio".utf8).write(to: URL(fileURLWithPath: text))
        let player = try bus.play([file])
        defer { _ = player.wait(timeout: 0) }
        try #require(bus.waitFor(player: "yt_gst"))
        for uri in ["file://" + text, "http://example.com/a.wav", "file:///nonexistent.wav"] {
            let reply = bus.run(
                "dbus-send",
                [
                    "--session", "--print-reply", "--dest=org.mpris.MediaPlayer2.yt_gst", "/org/mpris/MediaPlayer2",
                    "org.mpris.MediaPlayer2.Player.OpenUri", "string:\(uri)",
                ])
            #expect(reply?.status != 0 && reply?.stderr.contains("org.freedesktop.DBus.Error.") == true, "\(uri)")
        }
        #expect(bus.playerctl("yt_gst", "status") == "Playing")
        #expect(bus.playerctl("yt_gst", "metadata", "xesam:title") == "A")
        #expect(bus.playerctl("yt_gst", "open", "file://" + file) != nil)
        #expect(bus.playerctl("yt_gst", "stop") != nil)
        #expect(player.wait(timeout: 20).termination == .exited(0))
    }

    /// A second player on the bus takes `org.mpris.MediaPlayer2.yt_gst.instance<PID>`.
    @Test func aSecondPlayerTakesAnInstanceName() throws {
        let bus = try PrivateSessionBus()
        defer { bus.close() }
        let file = try MPRISFiles.tagged(bus.dir.path + "/a.wav", seconds: 30, title: "A", artist: "B", album: "C")
        let first = try bus.play([file])
        defer { _ = first.wait(timeout: 0) }
        try #require(bus.waitFor(player: "yt_gst"))
        let second = try bus.play([file])
        defer { _ = second.wait(timeout: 0) }
        #expect(bus.waitFor(player: "yt_gst.instance\(second.pid)"), "\(bus.players)")
        #expect(bus.playerctl("yt_gst.instance\(second.pid)", "status") == "Playing")
    }

    /// Paused, a player with MPRIS does not wake its loop thread at all (GDBus's own thread may).
    @Test func aPausedPlayerDoesNotWakeUp() throws {
        let bus = try PrivateSessionBus()
        defer { bus.close() }
        let file = try MPRISFiles.tagged(bus.dir.path + "/a.wav", seconds: 30, title: "A", artist: "B", album: "C")
        let player = try bus.play([file])
        defer { _ = player.wait(timeout: 0) }
        try #require(bus.waitFor(player: "yt_gst"))
        #expect(bus.playerctl("yt_gst", "pause") != nil)
        #expect(bus.playerctl("yt_gst", "status") == "Paused")
        usleep(500_000)
        let before = Self.voluntarySwitches(of: player.pid)
        sleep(2)
        let after = Self.voluntarySwitches(of: player.pid)
        #expect(before != nil && after == before, "\(String(describing: before)) → \(String(describing: after))")
    }

    /// `--no-mpris` publishes nothing; without a session bus (none set, or one that does not answer) play plays
    /// silently.
    @Test func noMPRISAndNoBus() throws {
        let bus = try PrivateSessionBus()
        defer { bus.close() }
        let file = try MPRISFiles.tagged(bus.dir.path + "/a.wav", seconds: 2, title: "A", artist: "B", album: "C")
        let player = try bus.play([file], ["--no-mpris"])
        var names = ""
        while player.isRunning {
            names +=
                bus.run(
                    "dbus-send",
                    [
                        "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                        "org.freedesktop.DBus.ListNames",
                    ])?.stdout ?? ""
            usleep(100_000)
        }
        #expect(!names.isEmpty && !names.contains("org.mpris.MediaPlayer2"), "\(names)")
        #expect(player.wait(timeout: 20).termination == .exited(0))
        for address in ["", "unix:path=\(bus.dir.path)/no-such-bus"] {
            let result = try bus.play([file], environment: ["DBUS_SESSION_BUS_ADDRESS": address]).wait(timeout: 30)
            #expect(result.termination == .exited(0) && result.stderr.isEmpty, "\(address): \(result.stderr)")
        }
    }

    /// The main thread's voluntary context switches (each a wake-up after sleeping).
    static func voluntarySwitches(of pid: pid_t) -> Int? {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") }
        return line.flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
    }
}

/// One signal as dbus-monitor prints it: its time, member and the lines after its header.
struct MonitorSignal {
    var time: Double
    var member: String
    var body: String

    static func all(in text: String) -> [MonitorSignal] {
        ("\n" + text).components(separatedBy: "\nsignal ").dropFirst().compactMap { block in
            let header = block.prefix { $0 != "\n" }
            func field(_ name: String) -> String? {
                header.components(separatedBy: " ").first { $0.hasPrefix(name + "=") }.map {
                    String($0.dropFirst(name.count + 1)).trimmingCharacters(in: CharacterSet(charactersIn: ";"))
                }
            }
            guard let time = field("time").flatMap(Double.init), let member = field("member") else { return nil }
            return MonitorSignal(time: time, member: member, body: String(block.dropFirst(header.count)))
        }
    }
}
