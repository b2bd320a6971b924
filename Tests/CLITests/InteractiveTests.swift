// yt-gst — the interactive player in a real terminal (tmux): keys act, the status line tells, and the terminal
// is put back exactly as it was, after q and after Ctrl-C.
import Foundation
import TestSupport
import Testing

/// A tmux session running one shell command in a pane of known size; killed on `close()`.
final class TmuxPane {
    let name = "yt-gst-\(UUID().uuidString.prefix(8))"
    let dir: URL

    init(_ command: String, dir: URL) throws {
        self.dir = dir
        let script = dir.appendingPathComponent("pane.sh")
        // stty -a before and after, so the test can compare the terminal's settings.
        let text = "stty -a > before.txt\n\(command)\necho EXIT=$?\nstty -a > after.txt\nsleep 60\n"
        try Data(text.utf8).write(to: script)
        let r = try Run.run(
            "/usr/bin/tmux",
            [
                "new-session", "-d", "-s", name, "-x", "160", "-y", "20", "-c", dir.path, "bash \(script.path)",
            ])
        guard r.status == 0 else { throw HarnessError(description: "tmux: \(r.stderr)") }
    }

    func send(_ keys: String...) throws { _ = try Run.run("/usr/bin/tmux", ["send-keys", "-t", name] + keys) }

    var screen: String { (try? Run.run("/usr/bin/tmux", ["capture-pane", "-p", "-t", name]).stdout) ?? "" }

    /// Waits up to `timeout` seconds for the screen to contain `text`.
    @discardableResult
    func waitFor(_ text: String, timeout: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if screen.contains(text) { return true }
            usleep(100_000)
        }
        return false
    }

    /// The position shown on the status line, in seconds.
    var position: Int? {
        for line in screen.split(separator: "\n").reversed() {
            let fields = line.split(separator: " ")
            guard let first = fields.first, first == ">" || first == "||", fields.count > 1 else { continue }
            let parts = fields[1].split(separator: ":").compactMap { Int($0) }
            guard parts.count == 2 else { continue }
            return parts[0] * 60 + parts[1]
        }
        return nil
    }

    func sttyUnchanged() throws -> Bool {
        let before = try String(contentsOf: dir.appendingPathComponent("before.txt"), encoding: .utf8)
        let after = try String(contentsOf: dir.appendingPathComponent("after.txt"), encoding: .utf8)
        return !before.isEmpty && before == after
    }

    func close() { _ = try? Run.run("/usr/bin/tmux", ["kill-session", "-t", name]) }
}

@Suite(
    .serialized,
    .enabled(if: FileManager.default.fileExists(atPath: "/usr/bin/tmux"), "needs tmux (make test installs it)"))
struct InteractiveTests {
    func longTone() throws -> (URL, String) {
        let dir = try Paths.makeScratch("tty")
        let file = try SyntheticWAV.tone(frequency: 440, frames: 44_100 * 120, rate: 44_100, channels: 2)
            .write(to: dir.appendingPathComponent("long.wav"))
        return (dir, file)
    }

    @Test func keysPauseSeekAndChangeVolumeThenQuitRestoresTheTerminal() throws {
        let (dir, file) = try longTone()
        defer { Paths.removeScratch(dir) }
        let pane = try TmuxPane("\(Paths.binary) play '\(file)' --sink null", dir: dir)
        defer { pane.close() }
        #expect(pane.waitFor("vol 100%"))
        #expect(pane.waitFor("0:01 / 2:00"))

        try pane.send("Space")
        #expect(pane.waitFor("||"))
        let paused = pane.position
        usleep(1_600_000)
        #expect(pane.position == paused, "position moved while paused")

        try pane.send("Space")
        #expect(pane.waitFor(">  "))
        let before = try #require(pane.position)
        try pane.send("Right")
        usleep(600_000)
        let after = try #require(pane.position)
        #expect(after >= before + 5 && after <= before + 7, "seek +5 s went from \(before) to \(after)")
        try pane.send("PageUp")
        usleep(600_000)
        #expect((pane.position ?? 0) >= after + 60)
        try pane.send("Left")
        usleep(600_000)
        #expect((pane.position ?? 999) <= after + 57)

        try pane.send("Up")
        #expect(pane.waitFor("vol 105%"))
        try pane.send("Down", "Down")
        #expect(pane.waitFor("vol 95%"))
        try pane.send("m")
        #expect(pane.waitFor("muted"))
        try pane.send("+")
        #expect(pane.waitFor("x1.1"))
        try pane.send("g", "0", ":", "3", "0", "Enter")
        usleep(600_000)
        #expect((pane.position ?? 0) >= 30 && (pane.position ?? 99) <= 32)
        try pane.send("l")
        #expect(pane.waitFor("A=0:3"))
        try pane.send("?")
        #expect(pane.waitFor("KEYS (on a terminal)"))

        try pane.send("q")
        #expect(pane.waitFor("EXIT=0"))
        #expect(try pane.sttyUnchanged())
    }

    @Test func ctrlCExits130AndRestoresTheTerminal() throws {
        let (dir, file) = try longTone()
        defer { Paths.removeScratch(dir) }
        let pane = try TmuxPane("\(Paths.binary) play '\(file)' --sink null", dir: dir)
        defer { pane.close() }
        #expect(pane.waitFor("0:01 / 2:00"))
        try pane.send("C-c")
        #expect(pane.waitFor("EXIT=130"))
        #expect(try pane.sttyUnchanged())
    }

    @Test func nextAndPreviousMoveThroughTheList() throws {
        let (dir, file) = try longTone()
        defer { Paths.removeScratch(dir) }
        let second = try SyntheticWAV.tone(frames: 44_100 * 60, rate: 44_100).write(
            to: dir.appendingPathComponent("second.wav"))
        let pane = try TmuxPane("\(Paths.binary) play '\(file)' '\(second)' --sink null", dir: dir)
        defer { pane.close() }
        #expect(pane.waitFor("long.wav (1/2)"))
        try pane.send("n")
        #expect(pane.waitFor("second.wav (2/2)"))
        try pane.send("p")
        #expect(pane.waitFor("long.wav (1/2)"))
        try pane.send("Escape")
        #expect(pane.waitFor("EXIT=0"))
        #expect(try pane.sttyUnchanged())
    }
}
